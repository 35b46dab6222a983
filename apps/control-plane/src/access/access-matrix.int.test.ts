// Spec 5.3 row by row: every caller kind against every operation built so far, one test per cell,
// each asserting the exact status; a refused call must leave the database untouched.
import { describe, expect } from 'vitest';
import type { ApiResponse } from '../../test/harness.js';
import {
  CALLERS,
  type CallerName,
  expectError,
  fingerprint,
  test,
  type World,
} from './access.test-support.js';

type ApiBody = ApiResponse['body'];

interface Request {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
}

interface Operation {
  /** Makes a fresh target with the bootstrap key (so rows never depend on each other). */
  prepare(world: World): Promise<Request>;
  /** The `object` of a successful answer. */
  readonly object: string;
  /** Checks of a successful answer beyond its status. */
  verify?(world: World, caller: CallerName, body: ApiBody): void;
}

const ORGANISATION_CALLERS: ReadonlySet<CallerName> = new Set([
  'owner token',
  'owner key',
  'admin token',
  'admin key',
]);
const MEMBER_CALLERS: ReadonlySet<CallerName> = new Set(['member-A token', 'member-A key']);
const ids = (body: { data: { id: string }[] }) => body.data.map((item) => item.id);

const OPERATIONS = {
  'who am i': {
    object: 'caller',
    prepare: async () => ({ method: 'get', path: '/me' }),
    verify: (world, _caller, body) => expect(body.organisation_id).toBe(world.organisationId),
  },
  'get organisation': {
    object: 'organisation',
    prepare: async () => ({ method: 'get', path: '/organisation' }),
    verify: (world, _caller, body) => expect(body.id).toBe(world.organisationId),
  },
  'update organisation': {
    object: 'organisation',
    prepare: async (world) => ({
      method: 'put',
      path: '/organisation',
      body: { default_metadata: { touched_by: world.unique('caller') } },
    }),
  },
  'create workspace': {
    object: 'workspace',
    prepare: async (world) => ({
      method: 'post',
      path: '/workspaces',
      body: { name: world.unique('new ws') },
    }),
  },
  'get workspace A': {
    object: 'workspace',
    prepare: async (world) => ({ method: 'get', path: `/workspaces/${world.a.id}` }),
  },
  'get workspace B': {
    object: 'workspace',
    prepare: async (world) => ({ method: 'get', path: `/workspaces/${world.b.slug}` }),
  },
  'list workspaces': {
    object: 'list',
    prepare: async () => ({ method: 'get', path: '/workspaces?page_size=500' }),
    verify(world, caller, body) {
      if (ORGANISATION_CALLERS.has(caller))
        expect(ids(body)).toEqual(expect.arrayContaining([world.a.id, world.b.id]));
      else expect(ids(body)).toEqual([world.a.id]);
    },
  },
  'update workspace A': {
    object: 'workspace',
    prepare: async (world) => ({
      method: 'put',
      path: `/workspaces/${world.a.id}`,
      body: { description: world.unique('described') },
    }),
  },
  'archive a workspace': {
    object: 'workspace',
    prepare: async (world) => ({ method: 'delete', path: `/workspaces/${(await world.workspace()).id}` }),
    verify: (_world, _caller, body) => expect(body.status).toBe('archived'),
  },
  'list users': {
    object: 'list',
    prepare: async () => ({ method: 'get', path: '/users' }),
  },
  'invite a user': {
    object: 'user_invite',
    prepare: async (world) => ({
      method: 'post',
      path: '/user-invites',
      body: { email: `${world.unique('invitee')}@example.com`, role: 'member' },
    }),
  },
  'rename a user': {
    object: 'user',
    prepare: async (world) => ({
      method: 'put',
      path: `/users/${world.users.memberB.id}`,
      body: { first_name: world.unique('renamed') },
    }),
  },
  'remove a user': {
    object: 'user',
    prepare: async (world) => ({ method: 'delete', path: `/users/${(await world.join()).id}` }),
    verify: (_world, _caller, body) => expect(body.status).toBe('removed'),
  },
  'list members of A': {
    object: 'list',
    prepare: async (world) => ({ method: 'get', path: `/workspaces/${world.a.id}/members` }),
    verify: (world, _caller, body) =>
      expect(ids(body)).toEqual(expect.arrayContaining([world.users.managerA.id, world.users.memberA.id])),
  },
  'add a member to A': {
    object: 'list',
    prepare: async (world) => ({
      method: 'post',
      path: `/workspaces/${world.a.id}/members`,
      body: { users: [{ id: (await world.join()).id, role: 'member' }] },
    }),
  },
  'change a member role in A': {
    object: 'workspace_member',
    prepare: async (world) => {
      const user = await world.join({ workspaces: [{ id: world.a.id, role: 'member' }] });
      return {
        method: 'put',
        path: `/workspaces/${world.a.id}/members/${user.id}`,
        body: { role: 'manager' },
      };
    },
  },
  'remove a member from A': {
    object: 'workspace_member',
    prepare: async (world) => {
      const user = await world.join({ workspaces: [{ id: world.a.id, role: 'member' }] });
      return { method: 'delete', path: `/workspaces/${world.a.id}/members/${user.id}` };
    },
  },
  'create an admin key': {
    object: 'api-key',
    prepare: async (world) => ({
      method: 'post',
      path: '/api-keys/organisation/service',
      body: { name: world.unique('admin key'), scopes: ['logs.view'] },
    }),
    verify: (_world, _caller, body) => expect(body).toMatchObject({ type: 'admin', workspace_id: null }),
  },
  'create a user key in A': {
    object: 'api-key',
    prepare: async (world) => ({
      method: 'post',
      path: '/api-keys/workspace/user',
      body: {
        name: world.unique('user key'),
        workspace_id: world.a.id,
        user_id: world.users.memberA.id,
        scopes: ['logs.view'],
      },
    }),
    verify: (world, _caller, body) =>
      expect(body).toMatchObject({
        type: 'workspace',
        workspace_id: world.a.id,
        user_id: world.users.memberA.id,
      }),
  },
  'create a user key in B': {
    object: 'api-key',
    prepare: async (world) => ({
      method: 'post',
      path: '/api-keys/workspace/user',
      body: {
        name: world.unique('user key'),
        workspace_id: world.b.slug,
        user_id: world.users.memberB.id,
        scopes: ['logs.view'],
      },
    }),
    verify: (world, _caller, body) =>
      expect(body).toMatchObject({ type: 'workspace', workspace_id: world.b.id }),
  },
  'create a service key in A': {
    object: 'api-key',
    prepare: async (world) => ({
      method: 'post',
      path: '/api-keys/workspace/service',
      body: { name: world.unique('service key'), workspace_id: world.a.slug, scopes: ['logs.view'] },
    }),
    verify: (world, _caller, body) =>
      expect(body).toMatchObject({ type: 'service', workspace_id: world.a.id, user_id: null }),
  },
  'list keys': {
    object: 'list',
    prepare: async () => ({ method: 'get', path: '/api-keys?page_size=500' }),
    verify(world, caller, body) {
      const listed: { id: string; workspace_id: string | null; user_id: string | null }[] = body.data;
      const listedIds = listed.map((k) => k.id);
      if (ORGANISATION_CALLERS.has(caller)) {
        expect(listedIds).toEqual(expect.arrayContaining([world.keys.admin.id, world.keys.serviceB.id]));
      } else if (MEMBER_CALLERS.has(caller)) {
        expect(listed.every((k) => k.user_id === world.users.memberA.id)).toBe(true);
        expect(listedIds).toContain(world.keys.memberA.id);
      } else {
        expect(listed.every((k) => k.workspace_id === world.a.id)).toBe(true);
        expect(listedIds).toEqual(expect.arrayContaining([world.keys.managerA.id, world.keys.serviceA.id]));
      }
    },
  },
} satisfies Record<string, Operation>;

type OperationName = keyof typeof OPERATIONS;

// Columns follow CALLERS: owner token, owner key (bootstrap), admin token, admin key, manager-A token,
// manager-A key, member-A token, member-A key, service-A key. docs/admin-api/access.md is this table.
// biome-ignore format: the matrix reads as a table
const MATRIX: readonly (readonly [OperationName, readonly number[]])[] = [
  ['who am i',                  [200, 200, 200, 200, 200, 200, 200, 200, 200]],
  ['get organisation',          [200, 200, 200, 200, 403, 403, 403, 403, 403]],
  ['update organisation',       [200, 200, 200, 200, 403, 403, 403, 403, 403]],
  ['create workspace',          [201, 201, 201, 201, 403, 403, 403, 403, 403]],
  ['get workspace A',           [200, 200, 200, 200, 200, 200, 200, 200, 200]],
  ['get workspace B',           [200, 200, 200, 200, 404, 404, 404, 404, 404]],
  ['list workspaces',           [200, 200, 200, 200, 200, 200, 200, 200, 200]],
  ['update workspace A',        [200, 200, 200, 200, 403, 403, 403, 403, 403]],
  ['archive a workspace',       [200, 200, 200, 200, 403, 403, 403, 403, 403]],
  ['list users',                [200, 200, 200, 200, 403, 403, 403, 403, 403]],
  ['invite a user',             [201, 201, 201, 201, 403, 403, 403, 403, 403]],
  ['rename a user',             [200, 200, 200, 200, 403, 403, 403, 403, 403]],
  ['remove a user',             [200, 200, 200, 200, 403, 403, 403, 403, 403]],
  ['list members of A',         [200, 200, 200, 200, 200, 200, 200, 200, 200]],
  ['add a member to A',         [201, 201, 201, 201, 403, 403, 403, 403, 403]],
  ['change a member role in A', [200, 200, 200, 200, 403, 403, 403, 403, 403]],
  ['remove a member from A',    [200, 200, 200, 200, 403, 403, 403, 403, 403]],
  ['create an admin key',       [201, 201, 201, 201, 403, 403, 403, 403, 403]],
  ['create a user key in A',    [201, 201, 201, 201, 201, 201, 403, 403, 201]],
  ['create a user key in B',    [201, 201, 201, 201, 404, 404, 403, 403, 404]],
  ['create a service key in A', [201, 201, 201, 201, 201, 201, 403, 403, 201]],
  ['list keys',                 [200, 200, 200, 200, 200, 200, 200, 200, 200]],
];

interface Row {
  readonly caller: CallerName;
  readonly operation: OperationName;
  readonly expected: number;
}

const ROWS: Row[] = MATRIX.flatMap(([operation, statuses]) =>
  CALLERS.map((caller, column) => ({ caller, operation, expected: statuses[column] ?? 0 })),
);

const ERROR_CODES: Readonly<Record<number, string>> = { 403: 'AB03', 404: 'AB08' };

describe('spec 5.3 role and scope matrix', () => {
  test('the table covers every caller and every operation once', () => {
    expect(MATRIX.map(([name]) => name).sort()).toEqual(Object.keys(OPERATIONS).sort());
    for (const [, statuses] of MATRIX) expect(statuses).toHaveLength(CALLERS.length);
    expect(ROWS).toHaveLength(MATRIX.length * CALLERS.length);
  });

  test.for(ROWS)('$operation as $caller -> $expected', async ({ caller, operation, expected }, { world }) => {
    const op: Operation = OPERATIONS[operation];
    const request = await op.prepare(world);
    const before = expected >= 400 ? await fingerprint(world.pool) : null;
    const response = await world.as(caller, request.method, request.path, { body: request.body });
    if (expected >= 400) {
      expectError(response, expected, ERROR_CODES[expected] ?? '?', `${operation} as ${caller}`);
      expect(await fingerprint(world.pool)).toEqual(before);
      return;
    }
    expect(response.status, JSON.stringify(response.body)).toBe(expected);
    expect(response.body.object).toBe(op.object);
    op.verify?.(world, caller, response.body);
  });
});
