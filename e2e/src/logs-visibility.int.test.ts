// Issue 8, end to end: requests made through the gateway are stored by the logger and read back
// through the control plane's /logs and /analytics routes, each caller seeing what spec 2.6 allows
// (a table-driven case per setting, workspace overrides included); feedback, exports and audit
// records over the same path; an unreachable logger is a 503 in the error envelope.
import { randomUUID } from 'node:crypto';
import { createApp as createControlPlane, loadControlPlaneConfig } from '@aigw/control-plane';
import { test as base, type PgFixture } from '@aigw/testkit';
import { freePort } from '@aigw/testkit/services';
import { describe, expect } from 'vitest';
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
  'logs.export',
  'analytics.view',
  'feedback.create',
  'feedback.update',
  'audit_logs.list',
];

type Who = 'memberA' | 'memberA2' | 'managerA' | 'serviceA' | 'adminKey';

interface World {
  readonly stack: LogsStack;
  readonly workspaceA: string;
  readonly keys: Readonly<Record<Exclude<Who, 'adminKey'>, { id: string; key: string }[]>>;
  /** Stored request count per API key id (from the logger's table, the reference). */
  readonly stored: ReadonlyMap<string, number>;
  readonly storedTotal: number;
  /** One stored log id per API key id. */
  readonly logOf: ReadonlyMap<string, string>;
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
  const a = await createTenant(admin, stack.mock, 'Logs A');
  const b = await createTenant(admin, stack.mock, 'Logs B');
  const join = async (role: 'manager' | 'member') => {
    const invite = await admin.post('/user-invites', {
      email: `${randomUUID()}@example.com`,
      role: 'member',
      workspaces: [{ id: a.workspaceId, role }],
    });
    const accepted = await callAs(stack, '', 'POST', '/user-invites/accept', { token: invite.accept_token });
    expect(accepted.status).toBe(201);
    return accepted.body.id as string;
  };
  const userKey = async (userId: string) => {
    const k = await admin.post('/api-keys/workspace/user', {
      name: `user key ${randomUUID().slice(0, 6)}`,
      workspace_id: a.workspaceId,
      user_id: userId,
      scopes: SCOPES,
    });
    return { id: k.id as string, key: k.key as string };
  };
  const memberA = await join('member');
  const memberA2 = await join('member');
  const managerA = await join('manager');
  const service = await admin.post('/api-keys/workspace/service', {
    name: 'service A',
    workspace_id: a.workspaceId,
    scopes: SCOPES,
  });
  const serviceB = await admin.createKey(b.workspaceId, 'service B');
  const keys = {
    memberA: [await userKey(memberA), await userKey(memberA)],
    memberA2: [await userKey(memberA2)],
    managerA: [await userKey(managerA)],
    serviceA: [{ id: service.id as string, key: service.key as string }],
  };
  const traffic: [{ key: string }, number, typeof a][] = [
    [keys.memberA[0]!, 3, a],
    [keys.memberA[1]!, 2, a],
    [keys.memberA2[0]!, 2, a],
    [keys.managerA[0]!, 2, a],
    [keys.serviceA[0]!, 1, a],
    [serviceB, 2, b],
  ];
  for (const [key, n, tenant] of traffic)
    for (let i = 0; i < n; i++) await chatUntilServed(stack, tenant, key.key, `trace-${randomUUID()}`);
  // Wait until the logger has stored what the gateway sent (events travel through JetStream).
  const organisation = (await admin.expect(200, 'GET', '/organisation')).id as string;
  const count = async () =>
    Number(
      (await pool.query('select count(*) as n from logs.request_logs where status_code = 200')).rows[0].n,
    );
  await pollUntil(count, (n) => n >= 12, { boundMs: 20_000, intervalMs: 50, what: 'logs stored' });
  const rows = await pool.query<{ api_key_id: string; n: string; id: string }>(
    `select api_key_id, count(*) as n, min(id::text) as id from logs.request_logs
     where organisation_id = $1 group by api_key_id`,
    [organisation],
  );
  return {
    stack,
    workspaceA: a.workspaceId,
    keys,
    stored: new Map(rows.rows.map((r) => [r.api_key_id, Number(r.n)])),
    storedTotal: rows.rows.reduce((n, r) => n + Number(r.n), 0),
    logOf: new Map(rows.rows.map((r) => [r.api_key_id, r.id])),
  };
}

const SETTINGS = [
  'membersViewAllData',
  'managersViewAllData',
  'membersViewAnalytics',
  'managersViewAnalytics',
] as const;
type Settings = Partial<Record<(typeof SETTINGS)[number], boolean>>;

interface Case {
  readonly name: string;
  readonly organisation?: Settings;
  readonly workspace?: Settings;
  readonly as: Who;
  /** `all`: every log of workspace A; `own`: its own keys' logs; `organisation`: every log. */
  readonly sees: 'all' | 'own' | 'organisation';
  readonly analytics: boolean;
}

const CASES: Case[] = [
  { name: 'defaults: a member sees the whole workspace', as: 'memberA', sees: 'all', analytics: true },
  {
    name: 'membersViewAllData=false: a member sees its own keys only',
    organisation: { membersViewAllData: false },
    as: 'memberA',
    sees: 'own',
    analytics: true,
  },
  {
    name: 'membersViewAllData=false leaves managers alone',
    organisation: { membersViewAllData: false },
    as: 'managerA',
    sees: 'all',
    analytics: true,
  },
  {
    name: 'managersViewAllData=false: a manager sees its own keys only',
    organisation: { managersViewAllData: false },
    as: 'managerA',
    sees: 'own',
    analytics: true,
  },
  {
    name: 'managersViewAllData=false: a service key (manager) sees itself only',
    organisation: { managersViewAllData: false },
    as: 'serviceA',
    sees: 'own',
    analytics: true,
  },
  {
    name: 'managersViewAllData=false leaves members alone',
    organisation: { managersViewAllData: false },
    as: 'memberA2',
    sees: 'all',
    analytics: true,
  },
  {
    name: 'membersViewAnalytics=false: a member gets 403 on analytics, logs stay',
    organisation: { membersViewAnalytics: false },
    as: 'memberA',
    sees: 'all',
    analytics: false,
  },
  {
    name: 'managersViewAnalytics=false: a manager gets 403 on analytics',
    organisation: { managersViewAnalytics: false },
    as: 'managerA',
    sees: 'all',
    analytics: false,
  },
  {
    name: 'managersViewAnalytics=false leaves members alone',
    organisation: { managersViewAnalytics: false },
    as: 'memberA',
    sees: 'all',
    analytics: true,
  },
  {
    name: 'workspace override true wins over organisation false',
    organisation: { membersViewAllData: false, membersViewAnalytics: false },
    workspace: { membersViewAllData: true, membersViewAnalytics: true },
    as: 'memberA',
    sees: 'all',
    analytics: true,
  },
  {
    name: 'workspace override false wins over organisation true',
    workspace: { membersViewAllData: false, membersViewAnalytics: false },
    as: 'memberA',
    sees: 'own',
    analytics: false,
  },
  {
    name: 'owners and admins (admin key) see everything whatever the settings',
    organisation: {
      membersViewAllData: false,
      managersViewAllData: false,
      membersViewAnalytics: false,
      managersViewAnalytics: false,
    },
    as: 'adminKey',
    sees: 'organisation',
    analytics: true,
  },
];

async function applySettings(world: World, c: Case): Promise<void> {
  const all = Object.fromEntries(SETTINGS.map((s) => [s, true]));
  await world.stack.admin.put('/organisation', { settings: { ...all, ...c.organisation } });
  const cleared = Object.fromEntries(SETTINGS.map((s) => [s, null]));
  await world.stack.admin.put(`/workspaces/${world.workspaceA}`, {
    settings: { ...cleared, ...c.workspace },
  });
}

function keyOf(world: World, who: Who): string | null {
  return who === 'adminKey' ? null : world.keys[who][0]!.key;
}

describe('member visibility (spec 2.6) through the control plane and the real logger', () => {
  for (const c of CASES) {
    test(c.name, async ({ world }) => {
      await applySettings(world, c);
      const key = keyOf(world, c.as);
      const call = (path: string) =>
        key === null ? world.stack.admin.call('GET', path) : callAs(world.stack, key, 'GET', path);
      const ownIds = c.as === 'adminKey' ? [] : world.keys[c.as].map((k) => k.id);
      const aIds = Object.values(world.keys).flatMap((list) => list.map((k) => k.id));
      const visibleKeys =
        c.sees === 'organisation' ? [...world.stored.keys()] : c.sees === 'all' ? aIds : ownIds;
      const expectedTotal = visibleKeys.reduce((n, id) => n + (world.stored.get(id) ?? 0), 0);
      expect(expectedTotal).toBeGreaterThan(0);

      const logs = await call('/logs?include_total=true&page_size=500');
      expect(logs.status, JSON.stringify(logs.body)).toBe(200);
      expect(logs.body.total).toBe(expectedTotal);
      expect(new Set(logs.body.data.map((l: { api_key_id: string }) => l.api_key_id))).toEqual(
        new Set(visibleKeys),
      );

      const groups = await call('/logs/groups/api_key?columns=cost,error_count');
      expect(groups.status).toBe(200);
      expect(
        Object.fromEntries(
          groups.body.data.map((g: { key: string; request_count: number }) => [g.key, g.request_count]),
        ),
      ).toEqual(Object.fromEntries(visibleKeys.map((id) => [id, world.stored.get(id)])));

      // A log of a key the caller does not own: visible only when it sees the workspace's data.
      const foreign = world.logOf.get(world.keys.memberA2[0]!.id)!;
      const one = await call(`/logs/${foreign}`);
      expect(one.status).toBe(visibleKeys.includes(world.keys.memberA2[0]!.id) ? 200 : 404);

      for (const path of [
        '/analytics/summary',
        '/analytics/groups/model?columns=p95_latency',
        '/analytics/graphs/requests?bucket=hour',
      ]) {
        const answer = await call(path);
        if (!c.analytics) {
          expect([answer.status, answer.body.error.code], path).toEqual([403, 'AB03']);
          continue;
        }
        expect(answer.status, `${path} ${JSON.stringify(answer.body)}`).toBe(200);
        if (path === '/analytics/summary') expect(answer.body.requests).toBe(expectedTotal);
        if (path.startsWith('/analytics/graphs')) expect(answer.body.total).toBe(expectedTotal);
      }
    });
  }
});

describe('feedback, exports and audit over the same path', () => {
  test('a workspace key gives feedback on its log; it shows on the log and in the summary; admin keys may not', async ({
    world,
  }) => {
    await applySettings(world, { name: 'reset', as: 'memberA', sees: 'all', analytics: true });
    const member = world.keys.memberA[0]!;
    const logId = world.logOf.get(member.id)!;
    const log = await callAs(world.stack, member.key, 'GET', `/logs/${logId}`);
    expect(log.status).toBe(200);
    expect(log.body.log_format).toBe('json');
    const created = await callAs(world.stack, member.key, 'POST', '/feedback', {
      trace_id: log.body.trace_id,
      value: 7,
      weight: 0.5,
      metadata: { source: 'e2e', n: 1 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body).toMatchObject({
      object: 'feedback',
      value: 7,
      weight: 0.5,
      metadata: { source: 'e2e', n: '1' },
    });
    const updated = await callAs(world.stack, member.key, 'PUT', `/feedback/${created.body.id}`, {
      value: 9,
    });
    expect(updated.body).toMatchObject({ value: 9, weight: 0.5 });
    const shown = await callAs(world.stack, member.key, 'GET', `/logs/${logId}`);
    expect(shown.body.feedback.map((f: { value: number }) => f.value)).toEqual([9]);
    const summary = await callAs(
      world.stack,
      member.key,
      'GET',
      `/analytics/summary?trace_id=${encodeURIComponent(log.body.trace_id)}`,
    );
    expect(summary.body.feedback).toEqual({ count: 1, avg_value: 9 });

    const byAdmin = await world.stack.admin.call('POST', '/feedback', { trace_id: 'x', value: 1 });
    expect([byAdmin.status, byAdmin.body.error.code]).toEqual([403, 'AB03']);
    const bad = await callAs(world.stack, member.key, 'POST', '/feedback', { trace_id: 'x', value: 11 });
    expect([bad.status, bad.body.error.code, bad.body.error.param]).toEqual([400, 'AB01', 'body.value']);
    // Audited through the outbox, NATS and the logger, and listed by /audit-logs.
    const audit = await pollUntil(
      () =>
        world.stack.admin.call('GET', '/audit-logs?action=feedback.create,feedback.update&status=success'),
      (r) => r.status === 200 && r.body.data.length === 2,
      { boundMs: 15_000, intervalMs: 100, what: 'feedback audit records' },
    );
    expect(
      audit.value.body.data.map((e: { action: string; resource_id: string }) => [e.action, e.resource_id]),
    ).toEqual([
      ['feedback.update', created.body.id],
      ['feedback.create', created.body.id],
    ]);
    // The refused attempts (admin key 403, bad value 400) are audited as failures.
    const refused = await pollUntil(
      () => world.stack.admin.call('GET', '/audit-logs?action=feedback.create&status=failure'),
      (r) => r.status === 200 && r.body.data.length === 2,
      { boundMs: 15_000, intervalMs: 100, what: 'refused feedback audit records' },
    );
    expect(refused.value.body.data.map((e: { status_code: number }) => e.status_code).sort()).toEqual([
      400, 403,
    ]);
  });

  test('an export is created, runs in the background, and downloads as CSV', async ({ world }) => {
    const created = await world.stack.admin.post('/logs/exports', {
      format: 'csv',
      fields: ['id', 'api_key_id', 'status_code'],
      filters: { workspace_id: world.workspaceA },
    });
    expect(created).toMatchObject({ object: 'log-export', format: 'csv', status: 'pending' });
    const done = await pollUntil(
      () => world.stack.admin.call('GET', `/logs/exports/${created.id}`),
      (r) => r.body.status === 'succeeded',
      { boundMs: 15_000, intervalMs: 100, what: 'export done' },
    );
    const aTotal = Object.values(world.keys)
      .flat()
      .reduce((n, k) => n + (world.stored.get(k.id) ?? 0), 0);
    expect(done.value.body).toMatchObject({ progress: 1, total_rows: aTotal, exported_rows: aTotal });
    const file = await callAs(
      world.stack,
      world.stack.env.BOOTSTRAP_ADMIN_KEY!,
      'GET',
      `/logs/exports/${created.id}/download`,
    );
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    const lines = String(file.body).trimEnd().split('\r\n');
    expect(lines[0]).toBe('id,api_key_id,status_code');
    expect(lines).toHaveLength(aTotal + 1);
    const listed = await world.stack.admin.call('GET', '/logs/exports');
    expect(listed.body.data.map((e: { id: string }) => e.id)).toContain(created.id);
    const unknown = await callAs(
      world.stack,
      world.stack.env.BOOTSTRAP_ADMIN_KEY!,
      'GET',
      `/logs/exports/${randomUUID()}/download`,
    );
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'AB08']);
  });

  test('bad groupBy, column or filter is a 400 in the envelope', async ({ world }) => {
    for (const path of [
      '/analytics/groups/colour',
      '/logs/groups/model?columns=cost,bogus',
      '/logs?status_code=abc',
      '/logs?metadata=[1]',
      '/analytics/graphs/nope',
    ]) {
      const answer = await world.stack.admin.call('GET', path);
      expect([answer.status, answer.body.error.code], path).toEqual([400, 'AB01']);
    }
  });

  test('an unreachable logger is a 503 logger_unavailable', async ({ world }) => {
    const app = createControlPlane(
      loadControlPlaneConfig({
        ...world.stack.env,
        LOGGER_GRPC_URL: `127.0.0.1:${await freePort()}`,
        LOGGER_TIMEOUT_MS: '2000',
      }),
    );
    await app.start();
    try {
      const res = await fetch(`http://127.0.0.1:${app.ports.http}/v1/logs`, {
        headers: { 'x-service-api-key': world.stack.env.BOOTSTRAP_ADMIN_KEY! },
      });
      expect(res.status).toBe(503);
      expect(((await res.json()) as { error: unknown }).error).toMatchObject({
        type: 'server_error',
        code: 'logger_unavailable',
      });
    } finally {
      await app.stop();
    }
  });
});
