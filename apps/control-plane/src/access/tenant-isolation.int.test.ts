// Tenant isolation across every family built so far: workspace-A callers see nothing of workspace B
// (404 AB08, or the level 403 of organisation-only routes, identical for A and B), and a second
// organisation sees nothing of the first. Every refused call leaves the database untouched.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import type { ApiResponse, CallOptions } from '../../test/harness.js';
import {
  type CallerName,
  expectError,
  fingerprint,
  type KeyRef,
  otherOrganisation,
  test,
  type World,
} from './access.test-support.js';

interface Request {
  readonly method: string;
  readonly path: string;
  readonly body?: unknown;
}

/** What a workspace-bound caller gets: 404 (not visible), 403 (organisation-only or role too low). */
type Outcome = 'not found' | 'organisation only' | 'by role';

interface Probe {
  readonly what: string;
  request(world: World, target?: string): Request;
  /** The answer for managers and service keys, and for members. */
  readonly manager: Outcome;
  readonly member: Outcome;
}

type Build = (world: World, target: string) => Request;
const get =
  (path: (w: World, t: string) => string): Build =>
  (w, t) => ({ method: 'get', path: path(w, t) });
const send =
  (method: string, path: (w: World, t: string) => string, body: (w: World, t: string) => unknown): Build =>
  (w, t) => ({ method, path: path(w, t), body: body(w, t) });
const userKeyIn = (w: World, t: string) => ({
  name: w.unique('probe'),
  workspace_id: t,
  user_id: w.users.managerB.id,
  scopes: ['logs.view'],
});
const serviceKeyIn = (w: World, t: string) => ({
  name: w.unique('probe'),
  workspace_id: t,
  scopes: ['logs.view'],
});

/** Probes naming workspace B, each sent with B's id and with its slug. */
// biome-ignore format: one probe a line reads as a table
const WORKSPACE_PROBES: readonly [what: string, manager: Outcome, member: Outcome, build: Build][] = [
  ['get workspace B', 'not found', 'not found', get((_w, t) => `/workspaces/${t}`)],
  ['update workspace B', 'organisation only', 'organisation only', send('put', (_w, t) => `/workspaces/${t}`, () => ({ description: 'taken' }))],
  ['archive workspace B', 'organisation only', 'organisation only', (_w, t) => ({ method: 'delete', path: `/workspaces/${t}` })],
  ['list members of B', 'not found', 'not found', get((_w, t) => `/workspaces/${t}/members`)],
  ['get a member of B', 'not found', 'not found', get((w, t) => `/workspaces/${t}/members/${w.users.managerB.id}`)],
  ['change a member role in B', 'organisation only', 'organisation only', send('put', (w, t) => `/workspaces/${t}/members/${w.users.managerB.id}`, () => ({ role: 'member' }))],
  ['remove a member of B', 'organisation only', 'organisation only', (w, t) => ({ method: 'delete', path: `/workspaces/${t}/members/${w.users.memberB.id}` })],
  ['add a member to B', 'organisation only', 'organisation only', send('post', (_w, t) => `/workspaces/${t}/members`, (w) => ({ users: [{ id: w.users.managerA.id, role: 'manager' }] }))],
  ['list the keys of B', 'not found', 'not found', get((_w, t) => `/api-keys?workspace_id=${t}`)],
  ['create a user key in B', 'not found', 'by role', send('post', () => '/api-keys/workspace/user', userKeyIn)],
  ['create a service key in B', 'not found', 'by role', send('post', () => '/api-keys/workspace/service', serviceKeyIn)],
];

/** Probes naming a key the caller may not see (of B, or the organisation's admin key). */
// biome-ignore format: one probe a line reads as a table
const KEY_PROBES: readonly [what: string, manager: Outcome, member: Outcome, build: Build][] = [
  ['get', 'not found', 'not found', get((_w, id) => `/api-keys/${id}`)],
  ['update', 'not found', 'by role', send('put', (_w, id) => `/api-keys/${id}`, () => ({ name: 'taken' }))],
  ['rotate', 'not found', 'by role', send('post', (_w, id) => `/api-keys/${id}/rotate`, () => ({}))],
  ['delete', 'not found', 'by role', (_w, id) => ({ method: 'delete', path: `/api-keys/${id}` })],
];

const PROBES: Probe[] = [
  ...WORKSPACE_PROBES.flatMap(([what, manager, member, build]) =>
    (['id', 'slug'] as const).map((by) => ({
      what: `${what} (by ${by})`,
      request: (w: World) => build(w, by === 'id' ? w.b.id : w.b.slug),
      manager,
      member,
    })),
  ),
  ...(['serviceB', 'managerB', 'admin'] as const).flatMap((key) =>
    KEY_PROBES.map(([what, manager, member, build]) => ({
      what: `${what} the ${key} key`,
      request: (w: World) => build(w, w.keys[key].id),
      manager,
      member,
    })),
  ),
  {
    what: 'get a user of B',
    request: get((w) => `/users/${w.users.managerB.id}`),
    manager: 'organisation only',
    member: 'organisation only',
  },
  {
    what: 'get an invite',
    request: get((w) => `/user-invites/${w.pendingInviteId}`),
    manager: 'organisation only',
    member: 'organisation only',
  },
];

const WORKSPACE_CALLERS: readonly CallerName[] = [
  'manager-A token',
  'manager-A key',
  'member-A token',
  'member-A key',
  'service-A key',
];
const isMember = (caller: CallerName) => caller.startsWith('member');
const STATUS: Readonly<Record<Outcome, [number, string]>> = {
  'not found': [404, 'AB08'],
  'organisation only': [403, 'AB03'],
  'by role': [403, 'AB03'],
};

const ROWS = WORKSPACE_CALLERS.flatMap((caller) =>
  PROBES.map((probe) => ({
    caller,
    what: probe.what,
    outcome: isMember(caller) ? probe.member : probe.manager,
  })),
);

/** The same request with each `[from, to]` pair of ids or slugs swapped. */
function retarget(request: Request, swaps: readonly (readonly [string, string])[]): Request {
  const swap = (text: string) => swaps.reduce((out, [from, to]) => out.replaceAll(from, to), text);
  return {
    method: request.method,
    path: swap(request.path),
    ...(request.body === undefined ? {} : { body: JSON.parse(swap(JSON.stringify(request.body))) }),
  };
}

const errorOf = (response: ApiResponse) => [response.status, response.body?.error];

describe('workspace-A callers and workspace B', () => {
  test.for(ROWS)('$what as $caller -> $outcome', async ({ caller, what, outcome }, { world }) => {
    const probe = PROBES.find((p) => p.what === what);
    if (!probe) throw new Error(`no probe ${what}`);
    const request = probe.request(world);
    const before = await fingerprint(world.pool);
    const response = await world.as(caller, request.method, request.path, { body: request.body });
    const [status, code] = STATUS[outcome];
    expectError(response, status, code, what);
    expect(await fingerprint(world.pool)).toEqual(before);
    // Nothing tells B apart: a 404 (or a member's 403) reads as for an id that never existed, an
    // organisation-only 403 as for A itself.
    if (outcome !== 'organisation only') {
      const ghost = retarget(request, [
        [world.b.id, randomUUID()],
        [world.b.slug, 'no-such-workspace'],
        ...[world.keys.serviceB, world.keys.managerB, world.keys.admin].map(
          (k) => [k.id, randomUUID()] as const,
        ),
      ]);
      const unknown = await world.as(caller, ghost.method, ghost.path, { body: ghost.body });
      expect(errorOf(unknown)).toEqual(errorOf(response));
    }
    if (outcome === 'organisation only') {
      const own = retarget(request, [
        [world.b.id, world.a.id],
        [world.b.slug, world.a.slug],
      ]);
      const ownAnswer = await world.as(caller, own.method, own.path, { body: own.body });
      expect(errorOf(ownAnswer)).toEqual(errorOf(response));
    }
  });

  test.for(WORKSPACE_CALLERS)('lists of %s hold nothing of B', async (caller, { world }) => {
    const byName = await world.as(caller, 'get', `/workspaces?name=${encodeURIComponent(world.b.name)}`);
    expect(byName.body).toEqual({ object: 'list', data: [], total: 0 });
    const workspaces = await world.as(caller, 'get', '/workspaces');
    expect(workspaces.body.data.map((w: { id: string }) => w.id)).toEqual([world.a.id]);
    const keysOfB = await world.as(caller, 'get', `/api-keys?user_id=${world.users.managerB.id}`);
    expect(keysOfB.body).toEqual({ object: 'list', data: [], total: 0 });
    const keys = await world.as(caller, 'get', '/api-keys?page_size=500');
    expect(keys.status).toBe(200);
    expect(keys.body.data.length).toBeGreaterThan(0);
    expect(keys.body.data.filter((k: { workspace_id: string }) => k.workspace_id !== world.a.id)).toEqual([]);
    const members = await world.as(caller, 'get', `/workspaces/${world.a.id}/members`);
    const memberIds = members.body.data.map((m: { id: string }) => m.id);
    expect(memberIds).not.toContain(world.users.managerB.id);
    expect(memberIds).not.toContain(world.users.memberB.id);
  });
});

interface Other {
  readonly organisationId: string;
  readonly key: KeyRef;
  readonly callers: Readonly<Record<'other key' | 'other owner token', CallOptions>>;
}

let other: Promise<Other> | undefined;
/** The second organisation, made once for this file. */
function otherOf(world: World): Promise<Other> {
  other ??= (async () => {
    const { organisationId, key } = await otherOrganisation(world.pool);
    const token = await world.token('owner', { organisationId });
    return {
      organisationId,
      key,
      callers: { 'other key': { key: key.key }, 'other owner token': { key: null, token } },
    };
  })();
  return other;
}

/** Probes of organisation 1's objects; all 404 AB08 unless a code is given. */
// biome-ignore format: one probe a line reads as a table
const FOREIGN: readonly { what: string; request: (w: World) => Request; code?: string }[] = [
  { what: 'get workspace A', request: (w) => ({ method: 'get', path: `/workspaces/${w.a.id}` }) },
  { what: 'get workspace A by slug', request: (w) => ({ method: 'get', path: `/workspaces/${w.a.slug}` }) },
  { what: 'update workspace A', request: (w) => ({ method: 'put', path: `/workspaces/${w.a.id}`, body: { name: 'x' } }) },
  { what: 'archive workspace A', request: (w) => ({ method: 'delete', path: `/workspaces/${w.a.slug}` }) },
  { what: 'list members of A', request: (w) => ({ method: 'get', path: `/workspaces/${w.a.id}/members` }) },
  { what: 'get a member of A', request: (w) => ({ method: 'get', path: `/workspaces/${w.a.id}/members/${w.users.memberA.id}` }) },
  { what: 'change a member role in A', request: (w) => ({ method: 'put', path: `/workspaces/${w.a.id}/members/${w.users.memberA.id}`, body: { role: 'manager' } }) },
  { what: 'remove a member of A', request: (w) => ({ method: 'delete', path: `/workspaces/${w.a.id}/members/${w.users.memberA.id}` }) },
  { what: 'add a member to A', request: (w) => ({ method: 'post', path: `/workspaces/${w.a.id}/members`, body: { users: [{ id: w.users.memberB.id, role: 'member' }] } }) },
  { what: 'get a user', request: (w) => ({ method: 'get', path: `/users/${w.users.memberA.id}` }) },
  { what: 'rename a user', request: (w) => ({ method: 'put', path: `/users/${w.users.memberA.id}`, body: { first_name: 'x' } }) },
  { what: 'remove a user', request: (w) => ({ method: 'delete', path: `/users/${w.users.memberA.id}` }) },
  { what: 'get an invite', request: (w) => ({ method: 'get', path: `/user-invites/${w.pendingInviteId}` }) },
  { what: 'cancel an invite', request: (w) => ({ method: 'delete', path: `/user-invites/${w.pendingInviteId}` }) },
  { what: 'resend an invite', request: (w) => ({ method: 'post', path: `/user-invites/${w.pendingInviteId}/resend`, body: {} }) },
  { what: 'invite into workspace A', code: 'AB02', request: (w) => ({ method: 'post', path: '/user-invites', body: { email: `${w.unique('x')}@example.com`, role: 'member', workspaces: [{ id: w.a.id, role: 'member' }] } }) },
  ...(['admin', 'serviceA'] as const).flatMap((key) =>
    KEY_PROBES.map(([what, , , build]) => ({ what: `${what} the ${key} key`, request: (w: World) => build(w, w.keys[key].id) })),
  ),
  { what: 'list the keys of A', request: (w) => ({ method: 'get', path: `/api-keys?workspace_id=${w.a.slug}` }) },
  { what: 'create a user key in A', request: (w) => ({ method: 'post', path: '/api-keys/workspace/user', body: { name: 'x', workspace_id: w.a.id, user_id: w.users.memberA.id, scopes: ['logs.view'] } }) },
  { what: 'create a service key in A', request: (w) => ({ method: 'post', path: '/api-keys/workspace/service', body: { name: 'x', workspace_id: w.a.slug, scopes: ['logs.view'] } }) },
];

const OTHER_CALLERS = ['other key', 'other owner token'] as const;
const FOREIGN_ROWS = OTHER_CALLERS.flatMap((caller) =>
  FOREIGN.map(({ what, code }) => ({ caller, what, code: code ?? 'AB08' })),
);

describe('a second organisation', () => {
  test.for(OTHER_CALLERS)('%s reads its own organisation and empty lists', async (caller, { world }) => {
    const { organisationId, key, callers } = await otherOf(world);
    const as = (path: string) => world.call('get', path, callers[caller]);
    expect((await as('/organisation')).body).toMatchObject({
      id: organisationId,
      name: 'Other organisation',
    });
    const empty = { object: 'list', data: [], total: 0 };
    expect((await as('/workspaces?status=active,archived')).body).toEqual(empty);
    expect((await as(`/workspaces?name=${encodeURIComponent(world.a.name)}`)).body).toEqual(empty);
    expect((await as('/users?status=active,removed')).body).toEqual(empty);
    expect((await as('/user-invites')).body).toEqual(empty);
    expect((await as(`/api-keys?user_id=${world.users.memberA.id}`)).body).toEqual(empty);
    const keys = await as('/api-keys?page_size=500');
    expect(keys.body.data.map((k: { id: string }) => k.id)).toEqual([key.id]);
  });

  test.for(FOREIGN_ROWS)('$what as $caller -> 404 $code', async ({ caller, what, code }, { world }) => {
    const { callers } = await otherOf(world);
    const probe = FOREIGN.find((p) => p.what === what);
    if (!probe) throw new Error(`no probe ${what}`);
    const request = probe.request(world);
    const before = await fingerprint(world.pool);
    const response = await world.call(request.method, request.path, {
      ...callers[caller],
      body: request.body,
    });
    expectError(response, 404, code, what);
    expect(await fingerprint(world.pool)).toEqual(before);
  });

  test('the same slug in two organisations names two workspaces; foreign users cannot be granted', async ({
    world,
  }) => {
    const { organisationId, callers } = await otherOf(world);
    const theirs = await world.call('post', '/workspaces', {
      ...callers['other key'],
      body: { name: 'Their A', slug: world.a.slug },
    });
    expect(theirs.status).toBe(201);
    expect(theirs.body).toMatchObject({ organisation_id: organisationId, slug: world.a.slug });
    expect(theirs.body.id).not.toBe(world.a.id);
    expect((await world.call('get', `/workspaces/${world.a.slug}`, callers['other key'])).body.id).toBe(
      theirs.body.id,
    );
    expect((await world.call('get', `/workspaces/${world.a.slug}`)).body.id).toBe(world.a.id);

    const before = await fingerprint(world.pool);
    const member = await world.call('post', `/workspaces/${theirs.body.id}/members`, {
      ...callers['other key'],
      body: { users: [{ id: world.users.memberA.id, role: 'member' }] },
    });
    expectError(member, 404, 'AB02', 'add a user of the first organisation');
    const userKey = await world.call('post', '/api-keys/workspace/user', {
      ...callers['other owner token'],
      body: {
        name: 'x',
        workspace_id: theirs.body.id,
        user_id: world.users.memberA.id,
        scopes: ['logs.view'],
      },
    });
    expectError(userKey, 404, 'AB02', 'a key for a user of the first organisation');
    expect(await fingerprint(world.pool)).toEqual(before);
  });
});
