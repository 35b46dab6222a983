// Escalation attempts (spec 5.3: a key is never broader than its creator): scopes the caller lacks,
// organisation scopes on workspace keys, other workspaces, broader rotations, members making keys
// and role grants beyond the caller's. Each is refused with its exact status and changes no row.
import { describe, expect } from 'vitest';
import type { CallOptions } from '../../test/harness.js';
import { ALL_SCOPES, WORKSPACE_SCOPES } from '../auth/scopes.js';
import {
  type CallerName,
  expectError,
  fingerprint,
  type KeyRef,
  test,
  type World,
} from './access.test-support.js';

const LIMITED_ADMIN_SCOPES = [
  'api_keys.create',
  'api_keys.read',
  'api_keys.list',
  'api_keys.update',
  'api_keys.rotate',
  'logs.view',
  'users.update',
  'user_invites.create',
];
const LIMITED_MANAGER_SCOPES = [
  'api_keys.create',
  'api_keys.read',
  'api_keys.list',
  'api_keys.update',
  'api_keys.rotate',
  'logs.view',
];

type Limited = 'limited admin key' | 'limited admin token' | 'limited manager key' | 'limited manager token';
type Caller = CallerName | Limited;

interface Setup {
  readonly limitedAdmin: KeyRef;
  readonly limitedManager: KeyRef;
  /** A service key of A holding only `logs.view`: the target of widening attempts. */
  readonly narrow: KeyRef;
  readonly credentials: Readonly<Record<Limited, CallOptions>>;
}

let setup: Promise<Setup> | undefined;
/** Narrow keys and tokens for this file, made once through the API. */
function setupOf(world: World): Promise<Setup> {
  setup ??= (async () => {
    const create = async (path: string, body: Record<string, unknown>): Promise<KeyRef> => {
      const created = await world.call('post', path, { body: { name: world.unique('limited'), ...body } });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      return { id: created.body.id, key: created.body.key };
    };
    const limitedAdmin = await create('/api-keys/organisation/service', { scopes: LIMITED_ADMIN_SCOPES });
    const limitedManager = await create('/api-keys/workspace/user', {
      workspace_id: world.a.id,
      user_id: world.users.managerA.id,
      scopes: LIMITED_MANAGER_SCOPES,
    });
    const narrow = await create('/api-keys/workspace/service', {
      workspace_id: world.a.id,
      scopes: ['logs.view'],
    });
    const adminToken = await world.token('admin', {
      sub: world.users.admin.id,
      scopes: LIMITED_ADMIN_SCOPES,
    });
    const managerToken = await world.token('manager', {
      sub: world.users.managerA.id,
      workspaceId: world.a.id,
      scopes: LIMITED_MANAGER_SCOPES,
    });
    return {
      limitedAdmin,
      limitedManager,
      narrow,
      credentials: {
        'limited admin key': { key: limitedAdmin.key },
        'limited admin token': { key: null, token: adminToken },
        'limited manager key': { key: limitedManager.key },
        'limited manager token': { key: null, token: managerToken },
      },
    };
  })();
  return setup;
}

interface Request {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
}

interface Attempt {
  readonly what: string;
  readonly caller: Caller;
  request(world: World, setup: Setup): Request;
  readonly status: 400 | 403 | 404;
  readonly code: 'AB01' | 'AB02' | 'AB03' | 'AB08';
}

const adminKey =
  (scopes: readonly string[]) =>
  (w: World): Request => ({
    method: 'post',
    path: '/api-keys/organisation/service',
    body: { name: w.unique('escalated'), scopes },
  });
const userKey =
  (scopes: readonly string[], where: 'A' | 'B' = 'A', owner: 'memberA' | 'managerB' = 'memberA') =>
  (w: World): Request => ({
    method: 'post',
    path: '/api-keys/workspace/user',
    body: {
      name: w.unique('escalated'),
      workspace_id: where === 'A' ? w.a.id : w.b.id,
      user_id: w.users[owner].id,
      scopes,
    },
  });
const serviceKey =
  (scopes: readonly string[], workspace: (w: World) => string) =>
  (w: World): Request => ({
    method: 'post',
    path: '/api-keys/workspace/service',
    body: { name: w.unique('escalated'), workspace_id: workspace(w), scopes },
  });
const putScopes =
  (scopes: readonly string[]) =>
  (id: string): Request => ({
    method: 'put',
    path: `/api-keys/${id}`,
    body: { scopes },
  });
const rotate = (id: string): Request => ({ method: 'post', path: `/api-keys/${id}/rotate`, body: {} });

const MEMBER_ATTEMPTS = (['member-A key', 'member-A token'] as const).flatMap((caller): Attempt[] => [
  { what: 'create an admin key', caller, request: adminKey(['logs.view']), status: 403, code: 'AB03' },
  {
    what: 'create its own user key in A',
    caller,
    request: (w) => ({
      method: 'post',
      path: '/api-keys/workspace/user',
      body: { name: 'mine', workspace_id: w.a.id, scopes: ['logs.view'] },
    }),
    status: 403,
    code: 'AB03',
  },
  {
    what: 'create a service key in A',
    caller,
    request: serviceKey(['logs.view'], (w) => w.a.id),
    status: 403,
    code: 'AB03',
  },
  {
    what: 'change the scopes of its own key',
    caller,
    request: (w) => putScopes(['logs.view'])(w.keys.memberA.id),
    status: 403,
    code: 'AB03',
  },
  {
    what: 'rotate its own key',
    caller,
    request: (w) => rotate(w.keys.memberA.id),
    status: 403,
    code: 'AB03',
  },
  {
    what: 'promote itself to manager of A',
    caller,
    request: (w) => ({
      method: 'put',
      path: `/workspaces/${w.a.id}/members/${w.users.memberA.id}`,
      body: { role: 'manager' },
    }),
    status: 403,
    code: 'AB03',
  },
]);

// biome-ignore format: one attempt a line reads as a table
const ATTEMPTS: readonly Attempt[] = [
  // Scopes the creator lacks: 403 AB03.
  { what: 'create an admin key with a scope it lacks', caller: 'limited admin key', request: adminKey(['logs.view', 'logs.export']), status: 403, code: 'AB03' },
  { what: 'create an admin key with every scope', caller: 'limited admin token', request: adminKey(ALL_SCOPES), status: 403, code: 'AB03' },
  { what: 'create a user key with a scope it lacks', caller: 'limited admin key', request: userKey(['logs.view', 'virtual_keys.create']), status: 403, code: 'AB03' },
  { what: 'create a user key with a scope it lacks', caller: 'limited manager key', request: userKey(['logs.view', 'logs.export']), status: 403, code: 'AB03' },
  { what: 'create a service key with a scope it lacks', caller: 'limited manager token', request: serviceKey(['api_keys.delete'], (w) => w.a.slug), status: 403, code: 'AB03' },
  // Updates adding scopes the caller lacks: 403 AB03.
  { what: 'widen a narrow key of A', caller: 'limited admin key', request: (_w, s) => putScopes(['logs.view', 'logs.export'])(s.narrow.id), status: 403, code: 'AB03' },
  { what: 'widen itself to every scope', caller: 'limited admin key', request: (_w, s) => putScopes(ALL_SCOPES)(s.limitedAdmin.id), status: 403, code: 'AB03' },
  { what: 'widen the limited admin key', caller: 'limited admin token', request: (_w, s) => putScopes([...LIMITED_ADMIN_SCOPES, 'users.delete'])(s.limitedAdmin.id), status: 403, code: 'AB03' },
  { what: 'widen itself with api_keys.delete', caller: 'limited manager key', request: (_w, s) => putScopes([...LIMITED_MANAGER_SCOPES, 'api_keys.delete'])(s.limitedManager.id), status: 403, code: 'AB03' },
  { what: 'widen a narrow key of A', caller: 'limited manager token', request: (_w, s) => putScopes(['logs.view', 'completions.write'])(s.narrow.id), status: 403, code: 'AB03' },
  // Organisation-only scopes on workspace keys: 400 AB01, even for callers holding them.
  { what: 'create a user key with users.create', caller: 'owner key', request: userKey(['logs.view', 'users.create']), status: 400, code: 'AB01' },
  { what: 'create a service key with workspaces.create', caller: 'admin key', request: serviceKey(['workspaces.create'], (w) => w.a.id), status: 400, code: 'AB01' },
  { what: 'create a service key with organisation.update', caller: 'manager-A token', request: serviceKey(['organisation.update'], (w) => w.a.id), status: 400, code: 'AB01' },
  { what: 'create a user key with user_invites.create', caller: 'manager-A key', request: userKey(['user_invites.create']), status: 400, code: 'AB01' },
  { what: 'add organisation.update to a service key', caller: 'owner key', request: (w) => putScopes(['logs.view', 'organisation.update'])(w.keys.serviceA.id), status: 400, code: 'AB01' },
  { what: 'add workspace_members.create to a user key', caller: 'admin token', request: (w) => putScopes(['workspace_members.create'])(w.keys.managerA.id), status: 400, code: 'AB01' },
  // Another workspace: 404 AB08 (the workspace is invisible); a user outside A: 404 AB02.
  { what: 'create a user key in B', caller: 'manager-A key', request: userKey(['logs.view'], 'B', 'managerB'), status: 404, code: 'AB08' },
  { what: 'create a service key in B by slug', caller: 'manager-A token', request: serviceKey(['logs.view'], (w) => w.b.slug), status: 404, code: 'AB08' },
  { what: 'create a user key in B', caller: 'service-A key', request: userKey(['logs.view'], 'B', 'managerB'), status: 404, code: 'AB08' },
  { what: 'create a key in A for a user of B only', caller: 'manager-A key', request: userKey(['logs.view'], 'A', 'managerB'), status: 404, code: 'AB02' },
  { what: 'create an admin key', caller: 'manager-A key', request: adminKey(['logs.view']), status: 403, code: 'AB03' },
  { what: 'create an admin key', caller: 'service-A key', request: adminKey(['logs.view']), status: 403, code: 'AB03' },
  // Rotations hand out a working secret: the caller must hold every scope of the key.
  { what: 'rotate the broader service key of A', caller: 'limited manager key', request: (w) => rotate(w.keys.serviceA.id), status: 403, code: 'AB03' },
  { what: 'rotate the broader manager key of A', caller: 'limited manager token', request: (w) => rotate(w.keys.managerA.id), status: 403, code: 'AB03' },
  { what: 'rotate the all-scope admin key', caller: 'limited admin key', request: (w) => rotate(w.keys.admin.id), status: 403, code: 'AB03' },
  { what: 'rotate the all-scope admin key', caller: 'limited admin token', request: (w) => rotate(w.keys.admin.id), status: 403, code: 'AB03' },
  // Members create, change or rotate no key, and grant themselves nothing.
  ...MEMBER_ATTEMPTS,
  // Roles beyond the caller's.
  { what: 'invite an admin', caller: 'admin key', request: (w) => ({ method: 'post', path: '/user-invites', body: { email: `${w.unique('admin')}@example.com`, role: 'admin' } }), status: 403, code: 'AB03' },
  { what: 'promote a member to admin', caller: 'admin key', request: (w) => ({ method: 'put', path: `/users/${w.users.memberA.id}`, body: { role: 'admin' } }), status: 403, code: 'AB03' },
  { what: 'demote the owner', caller: 'admin token', request: (w) => ({ method: 'put', path: `/users/${w.ownerId}`, body: { role: 'member' } }), status: 403, code: 'AB03' },
  { what: 'remove the owner', caller: 'admin token', request: (w) => ({ method: 'delete', path: `/users/${w.ownerId}` }), status: 403, code: 'AB03' },
  { what: 'make a member manager of A', caller: 'manager-A token', request: (w) => ({ method: 'put', path: `/workspaces/${w.a.id}/members/${w.users.memberA.id}`, body: { role: 'manager' } }), status: 403, code: 'AB03' },
  { what: 'join workspace B as manager', caller: 'manager-A key', request: (w) => ({ method: 'post', path: `/workspaces/${w.b.id}/members`, body: { users: [{ id: w.users.managerA.id, role: 'manager' }] } }), status: 403, code: 'AB03' },
  { what: 'invite a manager of A', caller: 'manager-A token', request: (w) => ({ method: 'post', path: '/user-invites', body: { email: `${w.unique('m')}@example.com`, role: 'member', workspaces: [{ id: w.a.id, role: 'manager' }] } }), status: 403, code: 'AB03' },
];

function credentialsOf(world: World, s: Setup, caller: Caller): CallOptions {
  return caller in s.credentials ? s.credentials[caller as Limited] : world.credentials[caller as CallerName];
}

const ROWS = ATTEMPTS.map((attempt, index) => ({
  index,
  caller: attempt.caller,
  what: attempt.what,
  status: attempt.status,
}));

describe('scope and role escalation', () => {
  test.for(ROWS)('$caller: $what -> $status', async ({ index }, { world }) => {
    const s = await setupOf(world);
    const attempt = ATTEMPTS[index];
    if (!attempt) throw new Error(`no attempt ${index}`);
    const request = attempt.request(world, s);
    const before = await fingerprint(world.pool);
    const response = await world.call(request.method, request.path, {
      ...credentialsOf(world, s, attempt.caller),
      body: request.body,
    });
    expectError(response, attempt.status, attempt.code, `${attempt.caller}: ${attempt.what}`);
    expect(await fingerprint(world.pool)).toEqual(before);
  });

  test('refused rotations and updates leave every secret and scope as it was', async ({ world }) => {
    const s = await setupOf(world);
    expect((await world.call('get', '/organisation', { key: world.keys.admin.key })).status).toBe(200);
    expect(
      (await world.call('get', `/workspaces/${world.a.id}`, { key: world.keys.serviceA.key })).status,
    ).toBe(200);
    expect(
      (await world.call('get', `/workspaces/${world.a.id}`, { key: world.keys.managerA.key })).status,
    ).toBe(200);
    const scopesOf = async (id: string) => (await world.call('get', `/api-keys/${id}`)).body.scopes;
    expect(await scopesOf(s.narrow.id)).toEqual(['logs.view']);
    expect(await scopesOf(s.limitedAdmin.id)).toEqual(LIMITED_ADMIN_SCOPES);
    expect(await scopesOf(s.limitedManager.id)).toEqual(LIMITED_MANAGER_SCOPES);
    expect(await scopesOf(world.keys.serviceA.id)).toEqual([...WORKSPACE_SCOPES]);
    const users = await world.call('get', '/users?role=owner,admin');
    expect(users.body.data.map((u: { id: string }) => u.id).sort()).toEqual(
      [world.ownerId, world.users.admin.id].sort(),
    );
  });

  test('within their own scopes the same limited callers succeed', async ({ world }) => {
    const s = await setupOf(world);
    const as = (caller: Limited, request: Request) =>
      world.call(request.method, request.path, { ...s.credentials[caller], body: request.body });
    expect((await as('limited admin key', adminKey(['logs.view'])(world))).status).toBe(201);
    expect((await as('limited admin token', userKey(['logs.view', 'api_keys.read'])(world))).status).toBe(
      201,
    );
    expect((await as('limited manager key', userKey(['logs.view'])(world))).status).toBe(201);
    expect(
      (await as('limited manager token', serviceKey(['logs.view'], (w) => w.a.slug)(world))).status,
    ).toBe(201);
    const narrowed = await as('limited manager key', putScopes(['logs.view', 'api_keys.read'])(s.narrow.id));
    expect([narrowed.status, narrowed.body.scopes]).toEqual([200, ['logs.view', 'api_keys.read']]);
    const rotated = await as('limited manager token', rotate(s.narrow.id));
    expect(rotated.status).toBe(200);
    expect(rotated.body.key).toMatch(/^aigw_/);
  });
});
