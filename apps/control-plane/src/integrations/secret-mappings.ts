// Integration credentials taken from secret references (`secret_mappings`): which fields may be
// mapped, the workspace restriction of each reference, resolving every mapping of an integration,
// and applying a resolution (resealed credentials and a change event when they differ; an error
// recorded, audited, and the credentials withheld once the refresh window has passed).
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
import { type IntegrationRow, integrationEntity } from './integrations.entity.js';
import type { SecretMappingsInput } from './integrations.schema.js';
import type { AiProvider } from './provider-types.js';

/** What an integration's workspaces are, for the workspace restriction of its references. */
interface Reach {
  readonly allow_all_workspaces: boolean;
  readonly workspaces: readonly { workspace_id: string; enabled: boolean }[];
}

/** Why `ref` may not serve an integration that reaches these workspaces, or undefined when it may. */
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
  integration: Pick<IntegrationRow, 'organisation_id'> & Reach,
  mappings: readonly SecretMapping[],
): Promise<Resolution> {
  const refs = new Map(
    (await referencesOf(db, integration.organisation_id, mappings)).map((r) => [r.id, r] as const),
  );
  const values: Record<string, string> = {};
  let intervalSeconds = 86_400;
  for (const mapping of mappings) {
    const ref = refs.get(mapping.secret_reference_id);
    if (!ref)
      throw new SecretResolutionError(`secret reference ${mapping.secret_reference_id} no longer exists`);
    const refused = restriction(ref, integration);
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

/** The integration's stored credentials, opened (empty when it has none). */
export function openCredentials(masterKey: Buffer | null, row: IntegrationRow): Credentials {
  if (!row.encrypted_credentials || !masterKey) return {};
  return JSON.parse(
    openSecret(masterKey, row.encrypted_credentials, credentialsAad('integration', row.id)).toString('utf8'),
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

function secretsAudit(
  row: IntegrationRow,
  action: string,
  outcome: AuditOutcome,
  details: object,
): AuditEvent {
  return {
    schemaVersion: SCHEMA_VERSION,
    id: randomUUID(),
    occurredAtMs: Date.now(),
    organisationId: row.organisation_id,
    workspaceId: '',
    actor: SYSTEM_ACTOR,
    action,
    resourceType: 'integration',
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
  readonly id: string;
  readonly slug: string;
  readonly resolved: boolean;
  readonly changed: boolean;
  readonly error: string | null;
}

/**
 * Resolves the integration's mappings now and applies the result in one transaction. The secrets are
 * read before it opens (no row lock held across the network); a mapping changed meanwhile wins.
 */
export async function refreshIntegration(
  db: Kysely<ControlDatabase>,
  deps: SecretDeps & { readonly auditEnabled: boolean },
  integrationId: string,
  now: Date = new Date(),
): Promise<RefreshOutcome | undefined> {
  const before = await db
    .selectFrom('integrations')
    .selectAll()
    .where('id', '=', integrationId)
    .executeTakeFirst();
  if (!before || before.secret_mappings.length === 0) return undefined;
  let resolution: Resolution | undefined;
  let error: string | null = null;
  try {
    resolution = await resolveMappings(db, deps, before, before.secret_mappings);
  } catch (err) {
    if (!(err instanceof SecretResolutionError)) throw err;
    error = err.message;
  }
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('integrations')
      .selectAll()
      .where('id', '=', integrationId)
      .forUpdate()
      .executeTakeFirst();
    if (!row || JSON.stringify(row.secret_mappings) !== JSON.stringify(before.secret_mappings))
      return undefined;
    const outcome = { id: row.id, slug: row.slug };
    if (resolution) {
      const current = openCredentials(deps.masterKey, row);
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
        return applyFailure(trx, deps, row, error, now, outcome);
      }
      const changed = JSON.stringify(next) !== JSON.stringify(current) || row.secrets_withheld;
      if (!changed) {
        await trx
          .updateTable('integrations')
          .set({ secrets_resolved_at: now, secrets_checked_at: now, secrets_error: null })
          .where('id', '=', row.id)
          .execute();
        return { ...outcome, resolved: true, changed: false, error: null };
      }
      const sealed = sealCredentials(deps.masterKey, 'integration', row.id, next);
      const updated = await trx
        .updateTable('integrations')
        .set({
          encrypted_credentials: sealed.encrypted,
          masked_credentials: JSON.stringify(sealed.masked),
          secrets_resolved_at: now,
          secrets_checked_at: now,
          secrets_error: null,
          secrets_withheld: false,
          version: sql<number>`version + 1`,
          updated_at: now,
        })
        .where('id', '=', row.id)
        .returningAll()
        .executeTakeFirstOrThrow();
      await recordChange(trx, { entity: integrationEntity(updated), actor: SYSTEM_ACTOR });
      if (deps.auditEnabled) {
        const details = { secret_mappings: row.secret_mappings, recovered: row.secrets_error !== null };
        await recordAudit(
          trx,
          secretsAudit(row, 'integrations.secrets.resolve', AuditOutcome.SUCCESS, details),
        );
      }
      return { ...outcome, resolved: true, changed: true, error: null };
    }
    return applyFailure(trx, deps, row, error ?? 'unknown error', now, outcome);
  });
}

async function applyFailure(
  trx: Kysely<ControlDatabase>,
  deps: { readonly auditEnabled: boolean },
  row: IntegrationRow,
  error: string,
  now: Date,
  outcome: { id: string; slug: string },
): Promise<RefreshOutcome> {
  const intervalMs = (await shortestInterval(trx, row)) * 1000;
  const lastGood = (row.secrets_resolved_at ?? row.created_at).getTime();
  // One failed refresh is tolerated; past twice the interval the old secret is no longer served.
  const withhold = now.getTime() - lastGood > 2 * intervalMs;
  const flips = withhold && !row.secrets_withheld;
  const updated = await trx
    .updateTable('integrations')
    .set({
      secrets_checked_at: now,
      secrets_error: error,
      secrets_withheld: withhold || row.secrets_withheld,
      ...(flips ? { version: sql<number>`version + 1`, updated_at: now } : {}),
    })
    .where('id', '=', row.id)
    .returningAll()
    .executeTakeFirstOrThrow();
  if (flips) await recordChange(trx, { entity: integrationEntity(updated), actor: SYSTEM_ACTOR });
  // Audited when something new happened (a new error, or the credentials withheld), not every sweep.
  if (deps.auditEnabled && (flips || row.secrets_error !== error)) {
    const details = { error, withheld: updated.secrets_withheld };
    await recordAudit(trx, secretsAudit(row, 'integrations.secrets.resolve', AuditOutcome.FAILURE, details));
  }
  return { ...outcome, resolved: false, changed: flips, error };
}

async function shortestInterval(db: Kysely<ControlDatabase>, row: IntegrationRow): Promise<number> {
  const refs = await referencesOf(db, row.organisation_id, row.secret_mappings);
  return refs.reduce((min, r) => Math.min(min, r.refresh_interval_seconds), 86_400);
}

/** Integrations whose mappings are due: never checked, or checked longer ago than their interval. */
export async function dueIntegrations(
  db: Kysely<ControlDatabase>,
  now: Date,
  limit: number,
): Promise<string[]> {
  const rows = await sql<{ id: string }>`
    select i.id from integrations i
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

/** Integrations that map a reference (to refresh on demand, or to refuse its deletion). */
export async function integrationsMapping(db: Kysely<ControlDatabase>, referenceId: string) {
  return db
    .selectFrom('integrations')
    .select(['id', 'slug'])
    .where(sql<boolean>`secret_mappings @> ${JSON.stringify([{ secret_reference_id: referenceId }])}::jsonb`)
    .orderBy('slug')
    .execute();
}

/** For the admin API: resolves the mappings now, or answers 400 AB01 saying which reference failed. */
export async function resolveForRequest(
  db: Kysely<ControlDatabase>,
  deps: SecretDeps,
  integration: Pick<IntegrationRow, 'organisation_id'> & Reach,
  mappings: readonly SecretMapping[],
  param: string,
): Promise<Resolution> {
  try {
    return await resolveMappings(db, deps, integration, mappings);
  } catch (err) {
    if (err instanceof SecretResolutionError) throw invalid(`${err.message}`, param);
    throw err;
  }
}
