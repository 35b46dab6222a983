// Credentials taken from secret references (`secret_mappings`) by integrations and virtual keys (the
// owners, secret-owners.ts): the workspace restriction of each reference, resolving every mapping of
// an owner (what an API write stores: secret-write-columns.ts), and applying a resolution (resealed credentials and change
// events when they differ; an error recorded, audited, and the credentials withheld once the refresh
// window has passed). One resolver for both owners, so they cannot drift apart.
import { randomUUID } from 'node:crypto';
import { type AuditEvent, AuditOutcome, SCHEMA_VERSION } from '@aigw/proto';
import { credentialsAad, openSecret } from '@aigw/secret-box';
import { type Kysely, sql } from 'kysely';
import { invalid, referenceNotFound } from '../api-errors.js';
import { SYSTEM_ACTOR } from '../auth/principal.js';
import { isUuid } from '../auth/visibility.js';
import type { ControlDatabase, SecretMapping } from '../db/schema.js';
import { type SecretReferenceRow, secretReferenceDb } from '../db/secret-references.db.js';
import { recordAudit, recordChange } from '../outbox/outbox.js';
import {
  type ManagerAuth,
  readSecret,
  referenceAad,
  type SecretDeps,
  SecretResolutionError,
} from '../secrets/secret-managers.js';
import { type Credentials, parseCredentials } from './credentials.js';
import { sealCredentials } from './credentials.seal.js';
import type { SecretMappingsInput } from './integrations.schema.js';
import type { AiProvider } from './provider-types.js';
import type { MappedRow, Reach, SecretOwner } from './secret-owners.js';

/** Why `ref` may not serve a record that reaches these workspaces, or undefined when it may. */
function restriction(ref: SecretReferenceRow, reach: Reach): string | undefined {
  if (ref.allow_all_workspaces) return undefined;
  if (reach.allow_all_workspaces) {
    return `secret reference "${ref.slug}" is not allowed for every workspace, and the integration is`;
  }
  const allowed = new Set(ref.allowed_workspaces);
  const outside = reach.workspaces.filter((w) => w.enabled && !allowed.has(w.workspace_id));
  if (outside.length === 0) return undefined;
  return `secret reference "${ref.slug}" is not allowed for workspace ${outside.map((w) => w.workspace_id).join(', ')}`;
}

/** The mappings with their references resolved to ids; 404 AB02 / 400 AB01 naming the entry. */
export async function normaliseMappings(
  db: Kysely<ControlDatabase>,
  organisationId: string,
  reach: Reach,
  input: SecretMappingsInput,
  param: string,
): Promise<SecretMapping[]> {
  const out: SecretMapping[] = [];
  for (const [i, entry] of input.entries()) {
    const ref = entry.secret_reference_id;
    const row = await secretReferenceDb(db)
      .selectFrom('secret_references')
      .selectAll()
      .where('organisation_id', '=', organisationId)
      .where(isUuid(ref) ? 'id' : 'slug', '=', isUuid(ref) ? ref.toLowerCase() : ref)
      .executeTakeFirst();
    if (!row)
      throw referenceNotFound(
        `no secret reference "${ref}" in the organisation`,
        `${param}[${i}].secret_reference_id`,
      );
    const refused = restriction(row, reach);
    if (refused) throw invalid(refused, `${param}[${i}].secret_reference_id`);
    out.push({ field: entry.field, secret_reference_id: row.id, key: entry.key ?? null });
  }
  return out;
}

/** The workspace restriction of every mapped reference still holds for `reach` (400 AB01 otherwise). */
export async function assertMappingsAllowed(
  db: Kysely<ControlDatabase>,
  organisationId: string,
  reach: Reach,
  mappings: readonly SecretMapping[],
  param: string,
): Promise<void> {
  for (const ref of await referencesOf(db, organisationId, mappings)) {
    const refused = restriction(ref, reach);
    if (refused) throw invalid(refused, param);
  }
}

async function referencesOf(
  db: Kysely<ControlDatabase>,
  organisationId: string,
  mappings: readonly SecretMapping[],
) {
  if (mappings.length === 0) return [];
  return secretReferenceDb(db)
    .selectFrom('secret_references')
    .selectAll()
    .where('organisation_id', '=', organisationId)
    .where(
      'id',
      'in',
      mappings.map((m) => m.secret_reference_id),
    )
    .execute();
}

function managerAuth(deps: SecretDeps, ref: SecretReferenceRow): ManagerAuth | null {
  if (!ref.encrypted_auth) return null;
  if (!deps.masterKey)
    throw new SecretResolutionError('MASTER_KEY is not set: the manager credentials cannot be opened');
  return JSON.parse(openSecret(deps.masterKey, ref.encrypted_auth, referenceAad(ref.id)).toString('utf8'));
}

export interface Resolution {
  readonly values: Record<string, string>;
  /** The shortest refresh interval of the references used, seconds. */
  readonly intervalSeconds: number;
}

/** Reads every mapped secret now; throws SecretResolutionError naming the first that failed. */
export async function resolveMappings(
  db: Kysely<ControlDatabase>,
  deps: SecretDeps,
  owner: { readonly organisation_id: string } & Reach,
  mappings: readonly SecretMapping[],
): Promise<Resolution> {
  const refs = new Map(
    (await referencesOf(db, owner.organisation_id, mappings)).map((r) => [r.id, r] as const),
  );
  const values: Record<string, string> = {};
  let intervalSeconds = 86_400;
  for (const mapping of mappings) {
    const ref = refs.get(mapping.secret_reference_id);
    if (!ref)
      throw new SecretResolutionError(`secret reference ${mapping.secret_reference_id} no longer exists`);
    const refused = restriction(ref, owner);
    if (refused) throw new SecretResolutionError(refused);
    intervalSeconds = Math.min(intervalSeconds, ref.refresh_interval_seconds);
    const source = { manager: ref.manager, settings: ref.settings, auth: managerAuth(deps, ref) };
    try {
      values[mapping.field] = await readSecret(source, mapping.key, deps);
    } catch (err) {
      if (err instanceof SecretResolutionError) {
        throw new SecretResolutionError(`secret reference "${ref.slug}": ${err.message}`);
      }
      throw err;
    }
  }
  return { values, intervalSeconds };
}

/** The owner's stored credentials, opened (empty when it has none). */
export function openCredentials(
  masterKey: Buffer | null,
  kind: SecretOwner['kind'],
  row: Pick<MappedRow, 'id' | 'encrypted_credentials'>,
): Credentials {
  if (!row.encrypted_credentials || !masterKey) return {};
  return JSON.parse(
    openSecret(masterKey, row.encrypted_credentials, credentialsAad(kind, row.id)).toString('utf8'),
  );
}

/** Credentials with the mapped values in, checked for the provider type like any sent credentials. */
export function mergedCredentials(
  type: AiProvider,
  base: Credentials,
  values: Record<string, string>,
  param: string,
): Credentials {
  return parseCredentials(type, { ...base, ...values }, param);
}

function secretsAudit<Row extends MappedRow>(
  owner: SecretOwner<Row>,
  row: Row,
  outcome: AuditOutcome,
  details: object,
): AuditEvent {
  return {
    schemaVersion: SCHEMA_VERSION,
    id: randomUUID(),
    occurredAtMs: Date.now(),
    organisationId: row.organisation_id,
    workspaceId: owner.workspaceId(row),
    actor: SYSTEM_ACTOR,
    action: owner.auditAction,
    resourceType: owner.resourceType,
    resourceId: row.id,
    ip: '',
    userAgent: '',
    requestMethod: '',
    requestPath: '',
    requestDetailsJson: JSON.stringify(details),
    outcome,
    statusCode: outcome === AuditOutcome.SUCCESS ? 200 : 502,
    traceId: '',
  };
}

export interface RefreshOutcome {
  /** `integration` or `virtual_key`. */
  readonly resource_type: SecretOwner['resourceType'];
  readonly id: string;
  readonly slug: string;
  readonly resolved: boolean;
  readonly changed: boolean;
  readonly error: string | null;
}

/**
 * Resolves the owner's mappings now and applies the result in one transaction. The secrets are read
 * before it opens (no row lock held across the network); a mapping changed meanwhile wins.
 */
export async function refreshOwner<Row extends MappedRow>(
  db: Kysely<ControlDatabase>,
  deps: SecretDeps & { readonly auditEnabled: boolean },
  owner: SecretOwner<Row>,
  id: string,
  now: Date = new Date(),
): Promise<RefreshOutcome | undefined> {
  const before = await owner.find(db, id, false);
  if (!before || before.secret_mappings.length === 0) return undefined;
  let resolution: Resolution | undefined;
  let error: string | null = null;
  try {
    resolution = await resolveMappings(
      db,
      deps,
      { organisation_id: before.organisation_id, ...owner.reach(before) },
      before.secret_mappings,
    );
  } catch (err) {
    if (!(err instanceof SecretResolutionError)) throw err;
    error = err.message;
  }
  return db.transaction().execute(async (trx) => {
    const row = await owner.find(trx, id, true);
    if (!row || JSON.stringify(row.secret_mappings) !== JSON.stringify(before.secret_mappings))
      return undefined;
    const outcome = { resource_type: owner.resourceType, id: row.id, slug: row.slug };
    if (resolution) {
      const current = openCredentials(deps.masterKey, owner.kind, row);
      let next: Credentials;
      try {
        next = mergedCredentials(
          row.ai_provider as AiProvider,
          current,
          resolution.values,
          'secret_mappings',
        );
      } catch (err) {
        error = `the resolved values are not valid credentials: ${(err as Error).message}`;
        return applyFailure(trx, deps, owner, row, error, now, outcome);
      }
      const changed = JSON.stringify(next) !== JSON.stringify(current) || row.secrets_withheld;
      if (!changed) {
        const set = { secrets_resolved_at: now, secrets_checked_at: now, secrets_error: null };
        await owner.write(trx, row.id, set, null);
        return { ...outcome, resolved: true, changed: false, error: null };
      }
      const sealed = sealCredentials(deps.masterKey, owner.kind, row.id, next);
      const updated = await owner.write(
        trx,
        row.id,
        {
          encrypted_credentials: sealed.encrypted,
          masked_credentials: JSON.stringify(sealed.masked),
          secrets_resolved_at: now,
          secrets_checked_at: now,
          secrets_error: null,
          secrets_withheld: false,
        },
        now,
      );
      for (const entity of owner.entities(updated)) await recordChange(trx, { entity, actor: SYSTEM_ACTOR });
      if (deps.auditEnabled) {
        const details = { secret_mappings: row.secret_mappings, recovered: row.secrets_error !== null };
        await recordAudit(trx, secretsAudit(owner, row, AuditOutcome.SUCCESS, details));
      }
      return { ...outcome, resolved: true, changed: true, error: null };
    }
    return applyFailure(trx, deps, owner, row, error ?? 'unknown error', now, outcome);
  });
}

async function applyFailure<Row extends MappedRow>(
  trx: Kysely<ControlDatabase>,
  deps: { readonly auditEnabled: boolean },
  owner: SecretOwner<Row>,
  row: Row,
  error: string,
  now: Date,
  outcome: Pick<RefreshOutcome, 'resource_type' | 'id' | 'slug'>,
): Promise<RefreshOutcome> {
  const intervalMs = (await shortestInterval(trx, row)) * 1000;
  const lastGood = (row.secrets_resolved_at ?? row.created_at).getTime();
  // One failed refresh is tolerated; past twice the interval the old secret is no longer served.
  const withhold = now.getTime() - lastGood > 2 * intervalMs;
  const flips = withhold && !row.secrets_withheld;
  const updated = await owner.write(
    trx,
    row.id,
    {
      secrets_checked_at: now,
      secrets_error: error,
      secrets_withheld: withhold || row.secrets_withheld,
    },
    flips ? now : null,
  );
  if (flips) {
    for (const entity of owner.entities(updated)) await recordChange(trx, { entity, actor: SYSTEM_ACTOR });
  }
  // Audited when something new happened (a new error, or the credentials withheld), not every sweep.
  if (deps.auditEnabled && (flips || row.secrets_error !== error)) {
    const details = { error, withheld: updated.secrets_withheld };
    await recordAudit(trx, secretsAudit(owner, row, AuditOutcome.FAILURE, details));
  }
  return { ...outcome, resolved: false, changed: flips, error };
}

async function shortestInterval(db: Kysely<ControlDatabase>, row: MappedRow): Promise<number> {
  const refs = await referencesOf(db, row.organisation_id, row.secret_mappings);
  return refs.reduce((min, r) => Math.min(min, r.refresh_interval_seconds), 86_400);
}

/** The owner's records whose mappings are due: never checked, or checked longer ago than their interval. */
export async function dueOwners(
  db: Kysely<ControlDatabase>,
  owner: Pick<SecretOwner, 'table'>,
  now: Date,
  limit: number,
): Promise<string[]> {
  const rows = await sql<{ id: string }>`
    select i.id from ${sql.table(owner.table)} i
    where i.secret_mappings <> '[]'::jsonb
      and (i.secrets_checked_at is null or i.secrets_checked_at + make_interval(secs => (
        select coalesce(min(r.refresh_interval_seconds), 300) from secret_references r
        where r.id::text in (select m->>'secret_reference_id' from jsonb_array_elements(i.secret_mappings) m)
      )) <= ${now})
    order by i.secrets_checked_at nulls first
    limit ${limit}
  `.execute(db);
  return rows.rows.map((r) => r.id);
}

/** The owner's records that map a reference (to refresh on demand, or to refuse its deletion). */
export async function ownersMapping(
  db: Kysely<ControlDatabase>,
  owner: Pick<SecretOwner, 'table'>,
  referenceId: string,
) {
  // `select id, slug from <table>` on either table: both have the columns and the jsonb index.
  const rows = await sql<{ id: string; slug: string }>`
    select id, slug from ${sql.table(owner.table)}
    where secret_mappings @> ${JSON.stringify([{ secret_reference_id: referenceId }])}::jsonb
    order by slug, id
  `.execute(db);
  return rows.rows;
}
