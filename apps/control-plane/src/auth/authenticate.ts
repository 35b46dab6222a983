// Resolves the caller of an admin request from `x-service-api-key` or `Authorization: Bearer <JWT>`.
import { AppError } from '@aigw/runtime';
import type { Request } from 'express';
import type { Kysely } from 'kysely';
import { unauthorized } from '../api-errors.js';
import type { ApiKeyRejection, OnApiKeyRejected } from '../audit/api-key-audit.js';
import type { ControlDatabase } from '../db/schema.js';
import { hashApiKey } from './api-key-secret.js';
import { type JwtVerifier, TokenError } from './jwt.js';
import type { Principal, Role } from './principal.js';
import type { OnTokenRejected } from './token-audit.js';
import { claimedOrganisation, signatureVerified } from './token-claims.js';
import { isUuid } from './visibility.js';

export const API_KEY_HEADER = 'x-service-api-key';

export interface AuthenticatorDeps {
  readonly db: Kysely<ControlDatabase>;
  readonly jwt: JwtVerifier | null;
  /** The claim naming the organisation (JWT_CLAIM_ORGANISATION): a refused token's audit owner. */
  readonly organisationClaim?: string;
  /**
   * Called for every rejected token (spec part 6: token failures are audited), with the organisation
   * it names when its signature verified (null otherwise: unverified claims prove nothing).
   */
  readonly onTokenRejected: OnTokenRejected;
  /** Called for every refused API key (audited under its organisation, or unattributed if unknown). */
  readonly onApiKeyRejected?: OnApiKeyRejected;
}

export type Authenticate = (req: Request) => Promise<Principal>;

export function createAuthenticator(deps: AuthenticatorDeps): Authenticate {
  return async (req) => {
    const key = req.headers[API_KEY_HEADER];
    if (typeof key === 'string' && key !== '') return apiKeyPrincipal(deps, req, key);
    const authorization = req.headers.authorization;
    if (typeof authorization === 'string' && /^bearer\s+/i.test(authorization)) {
      return tokenPrincipal(deps, req, authorization.replace(/^bearer\s+/i, '').trim());
    }
    throw unauthorized(
      `missing credentials: send an API key in ${API_KEY_HEADER} or a token as Authorization: Bearer <JWT>`,
    );
  };
}

/** Seconds a client waits before retrying when the identity provider's key set is unreachable. */
const JWKS_RETRY_AFTER_S = 5;

async function tokenPrincipal(deps: AuthenticatorDeps, req: Request, token: string): Promise<Principal> {
  if (!deps.jwt)
    throw unauthorized('token authentication is not enabled on this control plane (JWT_JWKS_URL is unset)');
  const reject = async (error: TokenError, organisationId: string | null): Promise<never> => {
    await deps.onTokenRejected(req, error, organisationId);
    // The identity provider being down is not the token's fault: a 401 would tell SDKs the
    // credential is bad (they do not retry it); a 503 with retry-after says try again.
    if (error.reason === 'jwks_unavailable')
      throw new AppError(
        503,
        'server_error',
        `the identity provider's signing keys could not be fetched (${error.message}): retry shortly`,
        { code: 'service_unavailable', headers: { 'retry-after': String(JWKS_RETRY_AFTER_S) } },
      );
    throw unauthorized(`invalid token: ${error.message}`);
  };
  let identity: Awaited<ReturnType<JwtVerifier['verify']>>;
  try {
    identity = await deps.jwt.verify(token);
  } catch (err) {
    if (!(err instanceof TokenError)) throw err;
    const signed = signatureVerified(err.reason) && deps.organisationClaim !== undefined;
    return reject(err, signed ? claimedOrganisation(token, deps.organisationClaim ?? '') : null);
  }
  // Ids are uuids here; anything else could never match a row, so the token cannot be ours.
  if (!isUuid(identity.organisationId) || (identity.workspaceId !== null && !isUuid(identity.workspaceId)))
    return reject(
      new TokenError('invalid_claim', 'the organisation and workspace claims must be uuids'),
      null,
    );
  const organisationId = identity.organisationId.toLowerCase();
  // A signed token may still name an organisation this control plane does not have (or has
  // disabled): the caller cannot act for it, so the token is refused like any other bad claim.
  const organisation = await deps.db
    .selectFrom('organisations')
    .select('status')
    .where('id', '=', organisationId)
    .executeTakeFirst();
  if (!organisation)
    return reject(
      new TokenError(
        'invalid_claim',
        'the token names an organisation that does not exist on this control plane',
      ),
      null,
    );
  if (organisation.status !== 'active')
    return reject(
      new TokenError('invalid_claim', 'the organisation of this token is disabled'),
      organisationId,
    );
  const orgLevel = identity.role === 'owner' || identity.role === 'admin';
  return {
    via: 'jwt',
    organisationId,
    workspaceId: orgLevel ? null : (identity.workspaceId?.toLowerCase() ?? null),
    role: identity.role,
    scopes: new Set(identity.scopes),
    userId: identity.subject,
    apiKeyId: null,
    keyType: null,
    displayName: identity.subject,
  };
}

async function apiKeyPrincipal(deps: AuthenticatorDeps, req: Request, key: string): Promise<Principal> {
  const row = await deps.db
    .selectFrom('api_keys as k')
    .innerJoin('organisations as o', 'o.id', 'k.organisation_id')
    .leftJoin('workspaces as w', 'w.id', 'k.workspace_id')
    .leftJoin('users as u', 'u.id', 'k.user_id')
    .leftJoin('users as creator', 'creator.id', 'k.created_by_user_id')
    .leftJoin('workspace_members as m', (join) =>
      join.onRef('m.workspace_id', '=', 'k.workspace_id').onRef('m.user_id', '=', 'k.user_id'),
    )
    .select([
      'k.id',
      'k.organisation_id',
      'k.workspace_id',
      'k.user_id',
      'k.type',
      'k.name',
      'k.scopes',
      'k.status',
      'k.expires_at',
      'o.status as organisation_status',
      'w.status as workspace_status',
      'u.status as user_status',
      'u.role as user_role',
      'm.role as member_role',
      'creator.role as creator_role',
      'creator.status as creator_status',
    ])
    .where('k.key_hash', '=', hashApiKey(key))
    .executeTakeFirst();
  const reject = async (reason: ApiKeyRejection, message: string): Promise<never> => {
    await deps.onApiKeyRejected?.(
      req,
      reason,
      row
        ? { id: row.id, name: row.name, organisationId: row.organisation_id, workspaceId: row.workspace_id }
        : null,
    );
    throw unauthorized(message);
  };
  if (!row) return reject('unknown', 'invalid API key');
  if (row.status !== 'active')
    return reject(row.status === 'expired' ? 'expired' : 'revoked', `API key is ${row.status}`);
  if (row.expires_at !== null && row.expires_at.getTime() <= Date.now())
    return reject('expired', 'API key is expired');
  if (row.organisation_status !== 'active')
    return reject('organisation_disabled', 'the organisation of this API key is disabled');
  if (row.workspace_status === 'archived')
    return reject('workspace_archived', 'the workspace of this API key is archived');
  if (row.user_id !== null && row.user_status !== 'active')
    return reject('owner_removed', 'the owner of this API key was removed');

  let role: Role;
  // An admin key acts for the organisation with its creator's authority: the bootstrap key (made
  // for the owner) is an owner's key; any other admin key acts as an admin.
  if (row.type === 'admin')
    role = row.creator_role === 'owner' && row.creator_status === 'active' ? 'owner' : 'admin';
  else if (row.type === 'service') role = 'manager';
  else if (row.user_role === 'owner' || row.user_role === 'admin') role = 'manager';
  else if (row.member_role) role = row.member_role;
  else return reject('not_a_member', 'the owner of this API key is no longer a member of its workspace');

  return {
    via: 'api_key',
    organisationId: row.organisation_id,
    workspaceId: row.workspace_id,
    role,
    scopes: new Set(row.scopes),
    userId: row.user_id,
    apiKeyId: row.id,
    keyType: row.type,
    displayName: row.name,
  };
}
