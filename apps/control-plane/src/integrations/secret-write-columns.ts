// What an API write of an owner (integration or virtual key) stores for its secret mappings: the
// mappings normalised and checked against the references' workspace restriction, resolved at once
// (a reference that does not resolve refuses the write, so nothing is half-written), and the sealed
// credentials and secret-state columns the insert or update sets. The resolver itself is
// secret-mappings.ts.
import type { Kysely } from 'kysely';
import { invalid } from '../api-errors.js';
import type { ControlDatabase, SecretMapping } from '../db/schema.js';
import { type SecretDeps, SecretResolutionError } from '../secrets/secret-managers.js';
import { type CredentialColumns, credentialColumns } from './credentials.seal.js';
import type { SecretMappingsInput } from './integrations.schema.js';
import type { AiProvider } from './provider-types.js';
import {
  assertMappingsAllowed,
  normaliseMappings,
  openCredentials,
  type Resolution,
  resolveMappings,
} from './secret-mappings.js';
import type { MappedRow, Reach, SecretOwner } from './secret-owners.js';

/** For the admin API: resolves the mappings now, or answers 400 AB01 saying which reference failed. */
export async function resolveForRequest(
  db: Kysely<ControlDatabase>,
  deps: SecretDeps,
  owner: { readonly organisation_id: string } & Reach,
  mappings: readonly SecretMapping[],
  param: string,
): Promise<Resolution> {
  try {
    return await resolveMappings(db, deps, owner, mappings);
  } catch (err) {
    if (err instanceof SecretResolutionError) throw invalid(`${err.message}`, param);
    throw err;
  }
}

/** The mapping columns an API write stores (the `secret_mappings` jsonb as text). */
export interface SecretStateColumns {
  secret_mappings: string;
  secrets_resolved_at: Date | null;
  secrets_checked_at: Date | null;
  secrets_error: string | null;
  secrets_withheld: boolean;
}

/**
 * The credential and mapping columns of a new record: mapped fields are read from their managers now
 * (a reference that does not resolve, or does not allow a workspace the record reaches, is a 400
 * before anything is written) and override the same fields of the credentials sent.
 */
export async function createdSecretColumns(
  db: Kysely<ControlDatabase>,
  secrets: SecretDeps,
  target: { type: AiProvider; owner: SecretOwner['kind']; id: string; organisationId: string },
  reach: Reach,
  input: { secret_mappings: SecretMappingsInput | undefined; credentials: Record<string, unknown> | null },
  credentialsParam: string,
): Promise<{ columns: SecretStateColumns; credentials: CredentialColumns | undefined }> {
  const param = 'body.secret_mappings';
  const mappings = await normaliseMappings(
    db,
    target.organisationId,
    reach,
    input.secret_mappings ?? [],
    param,
  );
  const resolved =
    mappings.length > 0
      ? (
          await resolveForRequest(
            db,
            secrets,
            { organisation_id: target.organisationId, ...reach },
            mappings,
            param,
          )
        ).values
      : undefined;
  const credentials = credentialColumns(
    resolved ? { ...(input.credentials ?? {}), ...resolved } : input.credentials,
    { type: target.type, owner: target.owner, id: target.id, masterKey: secrets.masterKey },
    credentialsParam,
  );
  const resolvedAt = resolved ? new Date() : null;
  return {
    credentials,
    columns: {
      secret_mappings: JSON.stringify(mappings),
      secrets_resolved_at: resolvedAt,
      secrets_checked_at: resolvedAt,
      secrets_error: null,
      secrets_withheld: false,
    },
  };
}

/** What an API update asks of the mappings: the new list (absent: unchanged) and credentials sent. */
export interface SecretUpdateInput {
  readonly secret_mappings?: SecretMappingsInput | undefined;
  /** The credentials of the request: undefined keeps, null removes. */
  readonly credentials?: Record<string, unknown> | null | undefined;
  readonly credentialsParam: string;
  /** The workspaces the record will reach changed (an integration's `allow_all_workspaces`). */
  readonly reachChanged: boolean;
}

/**
 * What an update changes of the secret mappings: the new mappings (checked against the workspaces the
 * record will reach), and the credentials they fill, resolved now; undefined when neither the
 * mappings nor the credentials of a mapped record change. Runs before the write's transaction, so a
 * reference that does not resolve leaves nothing written.
 */
export async function updatedSecretColumns(
  db: Kysely<ControlDatabase>,
  secrets: SecretDeps,
  owner: Pick<SecretOwner, 'kind'>,
  before: Pick<
    MappedRow,
    'id' | 'organisation_id' | 'ai_provider' | 'encrypted_credentials' | 'secret_mappings'
  >,
  reach: Reach,
  input: SecretUpdateInput,
): Promise<{ columns: SecretStateColumns; credentials: CredentialColumns | undefined } | undefined> {
  const organisationId = before.organisation_id;
  const param = 'body.secret_mappings';
  const mappings =
    input.secret_mappings === undefined
      ? before.secret_mappings
      : await normaliseMappings(db, organisationId, reach, input.secret_mappings, param);
  if (mappings.length === 0) {
    if (input.secret_mappings === undefined) return undefined;
    // No mappings any more: the last resolved values stay as stored credentials.
    const columns = {
      secret_mappings: JSON.stringify([]),
      secrets_resolved_at: null,
      secrets_checked_at: null,
      secrets_error: null,
      secrets_withheld: false,
    };
    return { columns, credentials: undefined };
  }
  if (input.secret_mappings === undefined && input.credentials === undefined) {
    if (input.reachChanged) await assertMappingsAllowed(db, organisationId, reach, mappings, param);
    return undefined;
  }
  if (input.credentials === null) {
    throw invalid(
      `${input.credentialsParam}: cannot be removed while secret_mappings fill them`,
      input.credentialsParam,
    );
  }
  const { values } = await resolveForRequest(
    db,
    secrets,
    { organisation_id: organisationId, ...reach },
    mappings,
    param,
  );
  const base = input.credentials ?? openCredentials(secrets.masterKey, owner.kind, before);
  const target = {
    type: before.ai_provider as AiProvider,
    owner: owner.kind,
    id: before.id,
    masterKey: secrets.masterKey,
  };
  const now = new Date();
  return {
    credentials: credentialColumns({ ...base, ...values }, target, input.credentialsParam),
    columns: {
      secret_mappings: JSON.stringify(mappings),
      secrets_resolved_at: now,
      secrets_checked_at: now,
      secrets_error: null,
      secrets_withheld: false,
    },
  };
}
