// Test support for the cross-family access tests: one organisation with workspaces A and B, users of
// every role made through invites, keys made through the API, JWT callers and a database fingerprint.
import { randomUUID } from 'node:crypto';
import { test as base } from '@aigw/testkit';
import type pg from 'pg';
import { expect } from 'vitest';
import {
  ADMIN_KEY,
  type ApiResponse,
  apiClient,
  type CallOptions,
  startControlPlane,
} from '../../test/harness.js';
import { generateApiKey } from '../auth/api-key-secret.js';
import { makeKey, signToken, startJwksServer } from '../auth/jwks.test-support.js';
import { ALL_SCOPES, WORKSPACE_SCOPES } from '../auth/scopes.js';

const ISSUER = 'https://idp.access.test';
const AUDIENCE = 'aigw-admin';

/** Every kind of caller the access tests act as, in the column order of the matrix. */
export const CALLERS = [
  'owner token',
  'owner key',
  'admin token',
  'admin key',
  'manager-A token',
  'manager-A key',
  'member-A token',
  'member-A key',
  'service-A key',
] as const;
export type CallerName = (typeof CALLERS)[number];

export interface WorkspaceRef {
  readonly id: string;
  readonly slug: string;
  readonly name: string;
}

export interface ApiUser {
  readonly id: string;
  readonly email: string;
}

export interface KeyRef {
  readonly id: string;
  readonly key: string;
}

type UserName = 'admin' | 'managerA' | 'memberA' | 'managerB' | 'memberB';
type KeyName = 'admin' | 'managerA' | 'memberA' | 'serviceA' | 'managerB' | 'serviceB';
type Role = 'owner' | 'admin' | 'manager' | 'member';
type Client = ReturnType<typeof apiClient>;

export interface World {
  readonly pool: pg.Pool;
  readonly organisationId: string;
  readonly ownerId: string;
  readonly a: WorkspaceRef;
  readonly b: WorkspaceRef;
  readonly users: Readonly<Record<UserName, ApiUser>>;
  readonly keys: Readonly<Record<KeyName, KeyRef>>;
  /** A pending invite of the organisation. */
  readonly pendingInviteId: string;
  readonly credentials: Readonly<Record<CallerName, CallOptions>>;
  /** Calls with the bootstrap (owner) key unless options name other credentials. */
  readonly call: Client;
  /** Calls as one of the matrix callers. */
  as(caller: CallerName, method: string, path: string, options?: CallOptions): Promise<ApiResponse>;
  /** A signed token (every scope unless given); owner/admin tokens are organisation-level. */
  token(
    role: Role,
    options?: { sub?: string; organisationId?: string; workspaceId?: string; scopes?: readonly string[] },
  ): Promise<string>;
  /** Invites a fresh e-mail (bootstrap key unless `as`) and accepts the invite; returns the user. */
  join(
    invite?: { role?: 'admin' | 'member'; workspaces?: { id: string; role: 'manager' | 'member' }[] },
    as?: CallOptions,
  ): Promise<ApiUser>;
  /** A fresh active workspace made through the API. */
  workspace(): Promise<WorkspaceRef>;
  /** A name no other call of this file uses. */
  unique(prefix: string): string;
}

/** Asserts an error response's status and envelope code. */
export function expectError(response: ApiResponse, status: number, code: string, label = ''): void {
  expect([label, response.status, response.body?.error?.code], JSON.stringify(response.body)).toEqual([
    label,
    status,
    code,
  ]);
}

function expectCreated(response: ApiResponse, label: string): void {
  expect(response.status, `${label}: ${JSON.stringify(response.body)}`).toBe(201);
}

const TABLES = [
  'organisations',
  'users',
  'workspaces',
  'workspace_members',
  'user_invites',
  'api_keys',
  'tombstones',
] as const;

function organisationFilter(table: (typeof TABLES)[number]): string {
  if (table === 'organisations') return 't.id = $1';
  if (table === 'workspace_members')
    return 't.workspace_id in (select id from control.workspaces where organisation_id = $1)';
  return 't.organisation_id = $1';
}

/**
 * Row count and a hash of every row of each tenancy table (of one organisation when given): equal
 * fingerprints mean a refused call changed nothing. The outbox is left out: refusals are audited.
 */
export async function fingerprint(pool: pg.Pool, organisationId?: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const table of TABLES) {
    const where = organisationId === undefined ? '' : `where ${organisationFilter(table)}`;
    const { rows } = await pool.query<{ n: number; h: string }>(
      `select count(*)::int as n, md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as h
       from control.${table} t ${where}`,
      organisationId === undefined ? [] : [organisationId],
    );
    result[table] = `${rows[0]?.n}:${rows[0]?.h}`;
  }
  return result;
}

/** Inserts a second organisation and an admin key of it (every scope); returns both. */
export async function otherOrganisation(pool: pg.Pool): Promise<{ organisationId: string; key: KeyRef }> {
  const organisationId = randomUUID();
  await pool.query('insert into control.organisations (id, name, slug) values ($1, $2, $3)', [
    organisationId,
    'Other organisation',
    `other-${organisationId.slice(0, 8)}`,
  ]);
  const secret = generateApiKey();
  const id = randomUUID();
  await pool.query(
    `insert into control.api_keys (id, organisation_id, type, name, key_hash, last4, scopes)
     values ($1, $2, 'admin', 'other admin', $3, $4, $5)`,
    [id, organisationId, secret.hash, secret.last4, [...ALL_SCOPES]],
  );
  return { organisationId, key: { id, key: secret.key } };
}

export const test = base.extend<{ world: World }>({
  world: [
    async ({ pg, nats }, use) => {
      const signingKey = await makeKey('ES256', 'access-test');
      const jwks = await startJwksServer([signingKey.jwk]);
      const { app } = startControlPlane(
        { pg, nats },
        { JWT_JWKS_URL: jwks.url, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE },
      );
      await app.start();
      try {
        await use(await buildWorld(pg.pool, `http://127.0.0.1:${app.ports.http}`, signingKey));
      } finally {
        await app.stop();
        await jwks.close();
      }
    },
    { scope: 'file' },
  ],
});

async function buildWorld(
  pool: pg.Pool,
  baseUrl: string,
  signingKey: Awaited<ReturnType<typeof makeKey>>,
): Promise<World> {
  const call = apiClient(baseUrl, ADMIN_KEY);
  const owner = await pool.query<{ organisation_id: string; id: string }>(
    "select organisation_id, id from control.users where role = 'owner'",
  );
  const organisationId = owner.rows[0]?.organisation_id ?? '';
  const ownerId = owner.rows[0]?.id ?? '';
  let counter = 0;
  const unique = (prefix: string) => `${prefix}-${++counter}-${randomUUID().slice(0, 8)}`;

  const token: World['token'] = (role, options = {}) =>
    signToken(signingKey, {
      iss: ISSUER,
      aud: AUDIENCE,
      exp: Math.floor(Date.now() / 1000) + 3600,
      sub: options.sub ?? randomUUID(),
      organisation_id: options.organisationId ?? organisationId,
      role,
      ...(options.workspaceId ? { workspace_id: options.workspaceId } : {}),
      scope: [...(options.scopes ?? ALL_SCOPES)],
    });

  const workspace = async (): Promise<WorkspaceRef> => {
    const name = unique('ws');
    const created = await call('post', '/workspaces', { body: { name, slug: name } });
    expectCreated(created, 'create workspace');
    return { id: created.body.id, slug: created.body.slug, name };
  };

  const join: World['join'] = async (invite = {}, as = {}) => {
    const email = `${unique('user')}@example.com`;
    const created = await call('post', '/user-invites', {
      ...as,
      body: { email, role: invite.role ?? 'member', workspaces: invite.workspaces ?? [] },
    });
    expectCreated(created, 'invite');
    const accepted = await call('post', '/user-invites/accept', {
      key: null,
      body: { token: created.body.accept_token },
    });
    expectCreated(accepted, 'accept');
    return { id: accepted.body.id, email };
  };

  const a = await workspace();
  const b = await workspace();
  const ownerToken = await token('owner', { sub: ownerId });
  const adminKey = await call('post', '/api-keys/organisation/service', {
    body: { name: 'matrix admin', scopes: [...ALL_SCOPES] },
  });
  expectCreated(adminKey, 'admin key');
  const users = {
    admin: await join({ role: 'admin' }, { key: null, token: ownerToken }),
    managerA: await join({ workspaces: [{ id: a.id, role: 'manager' }] }),
    memberA: await join({ workspaces: [{ id: a.id, role: 'member' }] }),
    managerB: await join({ workspaces: [{ id: b.id, role: 'manager' }] }),
    memberB: await join({ workspaces: [{ id: b.id, role: 'member' }] }),
  };
  const workspaceKey = async (
    kind: 'user' | 'service',
    ws: WorkspaceRef,
    userId?: string,
  ): Promise<KeyRef> => {
    const created = await call('post', `/api-keys/workspace/${kind}`, {
      body: {
        name: unique(`${kind} key`),
        workspace_id: ws.id,
        scopes: [...WORKSPACE_SCOPES],
        ...(userId ? { user_id: userId } : {}),
      },
    });
    expectCreated(created, `${kind} key`);
    return { id: created.body.id, key: created.body.key };
  };
  const keys = {
    admin: { id: adminKey.body.id, key: adminKey.body.key },
    managerA: await workspaceKey('user', a, users.managerA.id),
    memberA: await workspaceKey('user', a, users.memberA.id),
    serviceA: await workspaceKey('service', a),
    managerB: await workspaceKey('user', b, users.managerB.id),
    serviceB: await workspaceKey('service', b),
  };
  const pending = await call('post', '/user-invites', {
    body: {
      email: `${unique('pending')}@example.com`,
      role: 'member',
      workspaces: [{ id: a.id, role: 'member' }],
    },
  });
  expectCreated(pending, 'pending invite');

  const credentials: Record<CallerName, CallOptions> = {
    'owner token': { key: null, token: ownerToken },
    'owner key': { key: ADMIN_KEY },
    'admin token': { key: null, token: await token('admin', { sub: users.admin.id }) },
    'admin key': { key: keys.admin.key },
    'manager-A token': {
      key: null,
      token: await token('manager', { sub: users.managerA.id, workspaceId: a.id }),
    },
    'manager-A key': { key: keys.managerA.key },
    'member-A token': {
      key: null,
      token: await token('member', { sub: users.memberA.id, workspaceId: a.id }),
    },
    'member-A key': { key: keys.memberA.key },
    'service-A key': { key: keys.serviceA.key },
  };
  return {
    pool,
    organisationId,
    ownerId,
    a,
    b,
    users,
    keys,
    pendingInviteId: pending.body.id,
    credentials,
    call,
    as: (caller, method, path, options = {}) => call(method, path, { ...options, ...credentials[caller] }),
    token,
    join,
    workspace,
    unique,
  };
}
