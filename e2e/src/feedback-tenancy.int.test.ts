// Issue 17 item 1 end to end: feedback belongs to the workspace of the trace it names. Every caller
// kind of the access table (spec 5.3) against the whole stack: an admin key lists but may not give
// feedback; a workspace service key, a workspace user key and a workspace-bound JWT give feedback
// only on traces they see (404 in the error envelope otherwise) and list only their workspace's; a
// trace id used in two workspaces keeps each workspace's feedback apart in log views and analytics.
import { randomUUID } from 'node:crypto';
import { createApp as createControlPlane, loadControlPlaneConfig } from '@aigw/control-plane';
import { test as base, type PgFixture } from '@aigw/testkit';
import { describe, expect } from 'vitest';
import type { Reply } from './enforcement-client.test-support.js';
import { AUDIENCE, ISSUER, startIssuer } from './jwt-issuer.test-support.js';
import {
  callAs,
  chatUntilServed,
  createTenant,
  type LogsStack,
  pollUntil,
  startLogsStack,
} from './logs-stack.test-support.js';

const SCOPES = [
  'completions.write',
  'logs.list',
  'logs.view',
  'analytics.view',
  'feedback.create',
  'feedback.update',
  'feedback.list',
];
interface World {
  readonly stack: LogsStack;
  readonly organisationId: string;
  readonly a: string;
  readonly b: string;
  readonly serviceA: string;
  readonly userKeyA: string;
  readonly serviceB: string;
  /** Traces logged in team-a only, team-b only, and in both. */
  readonly traceA: string;
  readonly traceB: string;
  readonly shared: string;
  /** The stored log ids of team-a's and team-b's requests of the shared trace. */
  readonly sharedLogA: string;
  readonly sharedLogB: string;
}

const test = base.extend<{ world: World }>({
  world: [
    async ({ pg, nats }, use) => {
      const stack = await startLogsStack({ pg, nats });
      try {
        await use(await buildWorld(stack, pg.pool));
      } finally {
        await stack.close();
      }
    },
    { scope: 'file' },
  ],
});

async function buildWorld(stack: LogsStack, pool: PgFixture['pool']): Promise<World> {
  const { admin } = stack;
  const a = await createTenant(admin, stack.mock, 'team-a');
  const b = await createTenant(admin, stack.mock, 'team-b');
  const service = async (workspaceId: string, name: string) =>
    (await admin.post('/api-keys/workspace/service', { name, workspace_id: workspaceId, scopes: SCOPES }))
      .key as string;
  const invite = await admin.post('/user-invites', {
    email: `${randomUUID()}@example.com`,
    role: 'member',
    workspaces: [{ id: a.workspaceId, role: 'member' }],
  });
  const accepted = await callAs(stack, '', 'POST', '/user-invites/accept', { token: invite.accept_token });
  expect(accepted.status).toBe(201);
  const userKey = await admin.post('/api-keys/workspace/user', {
    name: 'member of team-a',
    workspace_id: a.workspaceId,
    user_id: accepted.body.id,
    scopes: SCOPES,
  });
  const world = {
    serviceA: await service(a.workspaceId, 'service team-a'),
    userKeyA: userKey.key as string,
    serviceB: await service(b.workspaceId, 'service team-b'),
    traceA: `trace-a-${randomUUID()}`,
    traceB: `trace-b-${randomUUID()}`,
    shared: `trace-shared-${randomUUID()}`,
  };
  await chatUntilServed(stack, a, world.serviceA, world.traceA);
  await chatUntilServed(stack, a, world.userKeyA, world.shared);
  await chatUntilServed(stack, b, world.serviceB, world.traceB);
  await chatUntilServed(stack, b, world.serviceB, world.shared);
  const { value: rows } = await pollUntil(
    async () =>
      (
        await pool.query<{ workspace_id: string; id: string }>(
          // Served calls only: a first try refused while the gateway did not yet know the key is logged too.
          'select workspace_id, id::text as id from logs.request_logs where trace_id = $1 and status_code = 200',
          [world.shared],
        )
      ).rows,
    (r) => r.length === 2,
    { boundMs: 20_000, intervalMs: 50, what: 'the shared trace stored twice' },
  );
  await pollUntil(
    async () =>
      Number(
        (
          await pool.query(
            'select count(*) as n from logs.request_logs where trace_id = any($1) and status_code = 200',
            [[world.traceA, world.traceB]],
          )
        ).rows[0].n,
      ),
    (n) => n === 2,
    { boundMs: 20_000, intervalMs: 50, what: 'the other traces stored' },
  );
  return {
    stack,
    organisationId: (await admin.expect(200, 'GET', '/organisation')).id,
    a: a.workspaceId,
    b: b.workspaceId,
    ...world,
    sharedLogA: rows.find((r) => r.workspace_id === a.workspaceId)!.id,
    sharedLogB: rows.find((r) => r.workspace_id === b.workspaceId)!.id,
  };
}

const notFound = (reply: {
  status: number;
  body: { error?: { code?: string; type?: string; message?: string } };
}) => {
  expect(reply.status, JSON.stringify(reply.body)).toBe(404);
  expect(reply.body.error).toMatchObject({
    code: 'AB08',
    type: expect.any(String),
    message: expect.any(String),
  });
};

describe('feedback is isolated per workspace', () => {
  test('a team-b key gets 404 on a team-a trace; team-a never sees team-b feedback', async ({ world }) => {
    const { stack } = world;
    notFound(await callAs(stack, world.serviceB, 'POST', '/feedback', { trace_id: world.traceA, value: 10 }));
    notFound(await callAs(stack, world.serviceA, 'POST', '/feedback', { trace_id: world.traceB, value: 10 }));
    notFound(
      await callAs(stack, world.serviceA, 'POST', '/feedback', { trace_id: 'never-logged', value: 1 }),
    );

    // The shared trace id: each workspace rates its own log of it.
    const byB = await callAs(stack, world.serviceB, 'POST', '/feedback', {
      trace_id: world.shared,
      value: -9,
    });
    expect(byB.status, JSON.stringify(byB.body)).toBe(201);
    expect(byB.body).toMatchObject({ object: 'feedback', workspace_id: world.b, value: -9 });
    const byA = await callAs(stack, world.userKeyA, 'POST', '/feedback', {
      trace_id: world.shared,
      value: 4,
    });
    expect(byA.status, JSON.stringify(byA.body)).toBe(201);
    expect(byA.body.workspace_id).toBe(world.a);

    const logA = await callAs(stack, world.serviceA, 'GET', `/logs/${world.sharedLogA}`);
    expect(logA.body.feedback.map((f: { id: string }) => f.id)).toEqual([byA.body.id]);
    const logB = await callAs(stack, world.serviceB, 'GET', `/logs/${world.sharedLogB}`);
    expect(logB.body.feedback.map((f: { id: string }) => f.id)).toEqual([byB.body.id]);
    // team-a's analytics of the trace count team-a's feedback only; the organisation sees both.
    const summary = (key: string | null) =>
      key === null
        ? stack.admin.call('GET', `/analytics/summary?trace_id=${world.shared}`)
        : callAs(stack, key, 'GET', `/analytics/summary?trace_id=${world.shared}`);
    expect((await summary(world.serviceA)).body.feedback).toEqual({ count: 1, avg_value: 4 });
    expect((await summary(world.serviceB)).body.feedback).toEqual({ count: 1, avg_value: -9 });
    expect((await summary(null)).body.feedback).toEqual({ count: 2, avg_value: -2.5 });
    // A team-b key cannot change team-a's feedback either.
    notFound(await callAs(stack, world.serviceB, 'PUT', `/feedback/${byA.body.id}`, { value: -10 }));

    const ids = (reply: { body: { data: { id: string }[] } }) => reply.body.data.map((f) => f.id);
    const listed = (key: string, query = '') =>
      callAs(stack, key, 'GET', `/feedback?trace_id=${world.shared}${query}`);
    expect(ids(await listed(world.serviceA))).toEqual([byA.body.id]);
    expect(ids(await listed(world.userKeyA))).toEqual([byA.body.id]);
    expect(ids(await listed(world.serviceB))).toEqual([byB.body.id]);
    // Another workspace as a filter is 404, as for every other list.
    notFound(await listed(world.serviceA, `&workspace_id=${world.b}`));
  });

  test('admin key: lists every workspace with filters and paging, but gives no feedback (spec 5.3)', async ({
    world,
  }) => {
    const { stack } = world;
    const refused = await stack.admin.call('POST', '/feedback', { trace_id: world.traceA, value: 1 });
    expect([refused.status, refused.body.error.code]).toEqual([403, 'AB03']);
    const given = [];
    for (const [key, trace, value, weight] of [
      [world.serviceA, world.traceA, 2, 0.25],
      [world.serviceA, world.traceA, -3, 1],
      [world.serviceB, world.traceB, 6, 0.5],
    ] as const) {
      const r = await callAs(stack, key, 'POST', '/feedback', { trace_id: trace, value, weight });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      given.push(r.body.id as string);
    }
    const list = (query: string) =>
      stack.admin.expect(200, 'GET', `/feedback?trace_id=${world.traceA},${world.traceB}${query}`);
    const all = await list('&include_total=true');
    expect(all.data.map((f: { id: string }) => f.id)).toEqual([...given].reverse());
    expect(all.total).toBe(3);
    const first = await list('&page_size=2');
    expect(first.next_cursor).not.toBeNull();
    const second = await list(`&page_size=2&cursor=${first.next_cursor}`);
    expect([...first.data, ...second.data].map((f: { id: string }) => f.id)).toEqual([...given].reverse());
    expect(second.next_cursor).toBeNull();
    expect((await list(`&workspace_id=${world.b}`)).data.map((f: { id: string }) => f.id)).toEqual([
      given[2],
    ]);
    expect((await list('&min_value=0')).data.map((f: { id: string }) => f.id)).toEqual([given[2], given[0]]);
    expect((await list('&max_value=-1')).data.map((f: { id: string }) => f.id)).toEqual([given[1]]);
    expect((await list('&max_weight=0.3')).data.map((f: { id: string }) => f.id)).toEqual([given[0]]);
    expect((await list(`&start_time=${Date.now() + 3_600_000}`)).data).toEqual([]);
    const bad = await stack.admin.call('GET', '/feedback?min_value=11');
    expect([bad.status, bad.body.error.code, bad.body.error.param]).toEqual([400, 'AB01', 'query.min_value']);
    // feedback.list is checked.
    const narrow = await stack.admin.post('/api-keys/workspace/service', {
      name: 'no list scope',
      workspace_id: world.a,
      scopes: ['feedback.create'],
    });
    const noScope = await callAs(stack, narrow.key, 'GET', '/feedback');
    expect([noScope.status, noScope.body.error.code]).toEqual([403, 'AB03']);
  });

  test('JWT bound to team-a: gives feedback on team-a traces only and lists team-a only', async ({
    world,
  }) => {
    const issuer = await startIssuer();
    const jwtPlane = createControlPlane(
      loadControlPlaneConfig({
        ...world.stack.env,
        JWT_JWKS_URL: issuer.url,
        JWT_ISSUER: ISSUER,
        JWT_AUDIENCE: AUDIENCE,
      }),
    );
    await jwtPlane.start();
    try {
      const token = issuer.sign({
        sub: randomUUID(),
        organisation_id: world.organisationId,
        workspace_id: world.a,
        role: 'manager',
        scope: 'feedback.create feedback.list logs.view',
      });
      const call = async (method: string, path: string, body?: unknown) => {
        const res = await fetch(`http://127.0.0.1:${jwtPlane.ports.http}/v1${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: res.status, body: (await res.json()) as Reply['body'] };
      };
      const mine = await call('POST', '/feedback', { trace_id: world.traceA, value: 5 });
      expect(mine.status, JSON.stringify(mine.body)).toBe(201);
      expect(mine.body.workspace_id).toBe(world.a);
      notFound(await call('POST', '/feedback', { trace_id: world.traceB, value: 5 }));
      const listed = await call('GET', `/feedback?trace_id=${world.traceA},${world.traceB}`);
      expect(listed.status).toBe(200);
      expect(listed.body.data.map((f: { workspace_id: string }) => f.workspace_id)).toEqual(
        listed.body.data.map(() => world.a),
      );
      expect(listed.body.data.map((f: { id: string }) => f.id)).toContain(mine.body.id);
    } finally {
      await jwtPlane.stop();
      await issuer.close();
    }
  });
});
