// Issue 8 item 4: the control plane shows `current_usage` from the logger's usage ledger. A real
// logger and control plane on real Postgres: rows written into `logs.usage_ledger` come back as the
// fractional USD or tokens of the limits that count in them (the period the gateway computes),
// on API keys, workspaces, integrations, providers, virtual keys and a usage-limits policy's
// entities; with the logger unreachable, silent or not configured, the admin reads still answer 200.

import { randomBytes } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import {
  type ControlPlaneApp,
  createApp as createControlPlane,
  loadControlPlaneConfig,
} from '@aigw/control-plane';
import { createApp as createLogger, type LoggerApp, loadLoggerConfig } from '@aigw/logger';
import { test as base, type PgFixture } from '@aigw/testkit';
import { freePort } from '@aigw/testkit/services';
import { describe, expect } from 'vitest';
import { AdminClient, type Reply } from './enforcement-client.test-support.js';

const DAY = 86_400_000;

// Reference periods, computed here independently of the code under test.
const monthStart = (ms: number) => Date.UTC(new Date(ms).getUTCFullYear(), new Date(ms).getUTCMonth(), 1);
/** Monday 00:00 UTC of the week holding `ms` (1970-01-05 was a Monday). */
const weekStart = (ms: number) => ms - ((((ms - 4 * DAY) % (7 * DAY)) + 7 * DAY) % (7 * DAY));
const everyStart = (anchor: number, length: number, ms: number) =>
  anchor + Math.floor((ms - anchor) / length) * length;

interface World {
  readonly admin: AdminClient;
  readonly env: Readonly<Record<string, string>>;
  readonly logger: LoggerApp;
  readonly pool: PgFixture['pool'];
  readonly org: string;
  readonly workspace: string;
  readonly integration: string;
  readonly provider: string;
  readonly keys: readonly string[];
}

const test = base.extend<{ world: World }>({
  world: [
    async ({ pg, nats }, use) => {
      const common = {
        PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'silent',
        NATS_URL: nats.url,
        NATS_NAMESPACE: nats.prefix,
      };
      const logsToken = randomBytes(32).toString('base64url');
      const logger = createLogger(
        loadLoggerConfig({ ...common, GRPC_PORT: '0', DATABASE_URL: pg.url, LOGS_SERVICE_TOKEN: logsToken }),
      );
      await logger.start();
      const env = {
        ...common,
        GRPC_PORT: '0',
        DATABASE_URL: pg.url,
        MASTER_KEY: randomBytes(32).toString('base64'),
        BOOTSTRAP_ADMIN_KEY: `aigw_usage_${randomBytes(24).toString('base64url')}`,
        SNAPSHOT_SERVICE_TOKEN: randomBytes(32).toString('base64url'),
        LOGGER_GRPC_URL: `127.0.0.1:${logger.ports.grpc}`,
        LOGGER_SERVICE_TOKEN: logsToken,
      };
      const cp = createControlPlane(loadControlPlaneConfig(env));
      await cp.start();
      try {
        const admin = new AdminClient(() => `http://127.0.0.1:${cp.ports.http}`, env.BOOTSTRAP_ADMIN_KEY);
        await use(await buildWorld(admin, env, logger, pg.pool));
      } finally {
        await cp.stop();
        await logger.stop();
      }
    },
    { scope: 'file' },
  ],
});

async function buildWorld(
  admin: AdminClient,
  env: Record<string, string>,
  logger: LoggerApp,
  pool: PgFixture['pool'],
): Promise<World> {
  const workspace = await admin.post('/workspaces', {
    name: 'Usage',
    // Every 3 days from an anchor 10 days ahead: the period is anchored, not a calendar one.
    usage_limits: [
      {
        type: 'tokens',
        credit_limit: 1_000_000,
        periodic_reset_days: 3,
        next_usage_reset_at: iso(Date.now() + 10 * DAY),
      },
    ],
  });
  const integration = await admin.post('/integrations', {
    name: 'Usage openai',
    ai_provider: 'openai',
    credentials: { api_key: `sk-usage-${randomBytes(8).toString('hex')}` },
    workspaces: [{ id: workspace.id, usage_limits: [{ type: 'cost', credit_limit: 20 }] }],
    usage_limits: [{ type: 'cost', credit_limit: 100, periodic_reset: 'monthly' }],
  });
  const providers = await admin.expect(200, 'GET', `/providers?workspace_id=${workspace.id}`);
  const provider = providers.data[0].id as string;
  await admin.put(`/providers/${provider}`, { usage_limits: [{ type: 'cost', credit_limit: 1.5 }] });
  const keys = [];
  for (const name of ['a', 'b']) {
    keys.push(
      (
        await admin.createKey(workspace.id, `usage ${name}`, {
          usage_limits: [
            { type: 'cost', credit_limit: 10, periodic_reset: 'monthly' },
            { type: 'tokens', credit_limit: 50_000 },
          ],
        })
      ).id,
    );
  }
  return {
    admin,
    env,
    logger,
    pool,
    org: workspace.organisation_id,
    workspace: workspace.id,
    integration: integration.id,
    provider,
    keys,
  };
}

const iso = (ms: number) => new Date(ms).toISOString();

async function ledger(
  world: World,
  rows: {
    kind: string;
    id: string;
    group?: string;
    start: number;
    cost?: number;
    tokens?: number;
    org?: string;
  }[],
) {
  for (const r of rows) {
    await world.pool.query(
      `insert into logs.usage_ledger
         (entity_kind, entity_id, group_value, period_start, period_end, organisation_id, cost_micros, tokens, requests)
       values ($1, $2, $3, to_timestamp($4::bigint / 1000.0), to_timestamp($4::bigint / 1000.0) + interval '31 days', $5, $6, $7, 1)`,
      [r.kind, r.id, r.group ?? '', r.start, r.org ?? world.org, r.cost ?? 0, r.tokens ?? 0],
    );
  }
}

const usageOf = (limits: { type: string; current_usage: number }[], type: string) =>
  limits.find((l) => l.type === type)?.current_usage;

describe('current_usage from the usage ledger', () => {
  test('API keys: the monthly cost limit reads this calendar month in USD, the never-resetting one everything', async ({
    world,
  }) => {
    const [a = '', b = ''] = world.keys;
    const month = monthStart(Date.now());
    const lastMonth = monthStart(month - 1);
    await ledger(world, [
      { kind: 'api_key', id: a, start: month, cost: 2_345_678, tokens: 100 },
      { kind: 'api_key', id: a, start: lastMonth, cost: 9_000_000, tokens: 100 },
      { kind: 'api_key', id: a, start: 0, cost: 11_345_678, tokens: 43_210 },
      { kind: 'api_key', id: b, start: month, cost: 500_000 },
    ]);
    const one = await world.admin.expect(200, 'GET', `/api-keys/${a}`);
    expect(usageOf(one.usage_limits, 'cost')).toBe(2.345678);
    expect(usageOf(one.usage_limits, 'tokens')).toBe(43_210);

    const list = await world.admin.expect(200, 'GET', `/api-keys?workspace_id=${world.workspace}`);
    const byId = new Map(list.data.map((k: { id: string }) => [k.id, k]));
    // biome-ignore lint/suspicious/noExplicitAny: JSON
    expect(usageOf((byId.get(a) as any).usage_limits, 'cost')).toBe(2.345678);
    // biome-ignore lint/suspicious/noExplicitAny: JSON
    expect((byId.get(b) as any).usage_limits).toMatchObject([
      { type: 'cost', current_usage: 0.5 },
      { type: 'tokens', current_usage: 0 },
    ]);
  });

  test('workspaces (anchored period), integrations with per-workspace limits, providers and virtual keys', async ({
    world,
  }) => {
    const now = Date.now();
    const ws = await world.admin.expect(200, 'GET', `/workspaces/${world.workspace}`);
    const wsPeriod = everyStart(Date.parse(ws.usage_limits[0].next_usage_reset_at), 3 * DAY, now);
    const month = monthStart(now);
    await ledger(world, [
      { kind: 'workspace', id: world.workspace, start: wsPeriod, tokens: 777 },
      // The period before is not read.
      { kind: 'workspace', id: world.workspace, start: wsPeriod - 3 * DAY, tokens: 5 },
      { kind: 'integration', id: world.integration, start: month, cost: 12_500_000 },
      {
        kind: 'integration',
        id: world.integration,
        group: `workspace_id=${world.workspace}`,
        start: 0,
        cost: 3_250_000,
      },
      { kind: 'provider', id: world.provider, start: 0, cost: 1_500_001 },
    ]);
    const workspace = await world.admin.expect(200, 'GET', `/workspaces/${world.workspace}`);
    expect(workspace.usage_limits).toMatchObject([{ type: 'tokens', current_usage: 777 }]);

    const integration = await world.admin.expect(200, 'GET', `/integrations/${world.integration}`);
    expect(usageOf(integration.usage_limits, 'cost')).toBe(12.5);
    expect(integration.workspaces[0].usage_limits).toMatchObject([{ type: 'cost', current_usage: 3.25 }]);
    const entries = await world.admin.expect(200, 'GET', `/integrations/${world.integration}/workspaces`);
    expect(entries.data[0].usage_limits).toMatchObject([{ type: 'cost', current_usage: 3.25 }]);

    // A provider over its limit is shown exhausted; its virtual key view shows the same.
    const provider = await world.admin.expect(200, 'GET', `/providers/${world.provider}`);
    expect(provider.usage_limits).toMatchObject([{ type: 'cost', current_usage: 1.500001 }]);
    expect(provider.status).toBe('exhausted');
    const vk = await world.admin.expect(200, 'GET', `/virtual-keys/${world.provider}`);
    expect(vk).toMatchObject({ status: 'exhausted', usage_limits: [{ current_usage: 1.500001 }] });
  });

  test("a usage-limits policy's entities show what it counted for each, in its current period", async ({
    world,
  }) => {
    const [a = '', b = ''] = world.keys;
    const create = (body: Record<string, unknown>) =>
      world.admin.post('/policies/usage-limits', {
        type: 'cost',
        credit_limit: 5,
        conditions: [{ key: 'workspace_id', value: world.workspace }],
        workspace_id: world.workspace,
        ...body,
      });
    const perKey = await create({
      name: 'per key',
      group_by: [{ key: 'api_key' }],
      periodic_reset: 'weekly',
    });
    const perKeyModel = await create({
      name: 'per key and model',
      group_by: [{ key: 'api_key' }, { key: 'model' }],
    });
    const week = weekStart(Date.now());
    await ledger(world, [
      { kind: 'usage_limit_policy', id: perKey.id, group: `api_key=${a}`, start: week, cost: 1_250_000 },
      {
        kind: 'usage_limit_policy',
        id: perKey.id,
        group: `api_key=${a}`,
        start: week - 7 * DAY,
        cost: 4_000_000,
      },
      {
        kind: 'usage_limit_policy',
        id: perKeyModel.id,
        group: `api_key=${a}&model=gpt-4o`,
        start: 0,
        cost: 100_000,
      },
      {
        kind: 'usage_limit_policy',
        id: perKeyModel.id,
        group: `api_key=${a}&model=gpt-4o-mini`,
        start: 0,
        cost: 50_001,
      },
      {
        kind: 'usage_limit_policy',
        id: perKeyModel.id,
        group: `api_key=${b}&model=gpt-4o`,
        start: 0,
        cost: 7,
      },
    ]);
    const shown = async (policy: string) => {
      const list = await world.admin.expect(200, 'GET', `/policies/usage-limits/${policy}/entities`);
      return new Map<string, number | null>(
        list.data.map((e: { id: string; current_usage: number | null }) => [e.id, e.current_usage]),
      );
    };
    const one = await shown(perKey.id);
    expect([one.get(a), one.get(b)]).toEqual([1.25, 0]);
    // The policy does not count per workspace: the workspace has no usage of its own here.
    expect(one.get(world.workspace)).toBeNull();
    const two = await shown(perKeyModel.id);
    expect([two.get(a), two.get(b)]).toEqual([0.150001, 0.000007]);
  });

  test('a logger that is down, silent or not configured never fails the admin read', async ({ world }) => {
    const [a = ''] = world.keys;
    const policy = await world.admin.post('/policies/usage-limits', {
      name: 'down',
      type: 'tokens',
      credit_limit: 5,
      conditions: [{ key: 'workspace_id', value: world.workspace }],
      group_by: [{ key: 'api_key' }],
      workspace_id: world.workspace,
    });
    // Accepts connections and never answers: only the usage deadline ends the call.
    const sockets = new Set<Socket>();
    const silent: Server = createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const silentPort = (silent.address() as { port: number }).port;
    const cases: [string, Record<string, string>, string][] = [
      ['down', { LOGGER_GRPC_URL: `127.0.0.1:${await freePort()}` }, 'logger_unavailable'],
      [
        'silent',
        { LOGGER_GRPC_URL: `127.0.0.1:${silentPort}`, LOGGER_USAGE_TIMEOUT_MS: '300' },
        'logger_unavailable',
      ],
      ['not configured', { LOGGER_GRPC_URL: '' }, 'logger_not_configured'],
    ];
    try {
      for (const [name, env, reason] of cases) {
        const settings: Record<string, string> = { ...world.env, ...env };
        if (settings.LOGGER_GRPC_URL === '') delete settings.LOGGER_GRPC_URL;
        const cp: ControlPlaneApp = createControlPlane(loadControlPlaneConfig(settings));
        await cp.start();
        try {
          const other = new AdminClient(
            () => `http://127.0.0.1:${cp.ports.http}`,
            world.env.BOOTSTRAP_ADMIN_KEY ?? '',
          );
          const key: Reply = await other.call('GET', `/api-keys/${a}`);
          expect([name, key.status]).toEqual([name, 200]);
          expect(key.headers.get('x-service-usage-unavailable')).toBe(reason);
          expect(key.body.usage_limits.map((l: { current_usage: number }) => l.current_usage)).toEqual([
            0, 0,
          ]);
          const entities = await other.call('GET', `/policies/usage-limits/${policy.id}/entities`);
          expect([name, entities.status]).toEqual([name, 200]);
          expect(entities.headers.get('x-service-usage-unavailable')).toBe(reason);
          expect(entities.body.data.every((e: { current_usage: unknown }) => e.current_usage === null)).toBe(
            true,
          );
        } finally {
          await cp.stop();
        }
      }
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
    // The configured logger answers: no header.
    const ok = await world.admin.call('GET', `/api-keys/${a}`);
    expect(ok.headers.get('x-service-usage-unavailable')).toBeNull();
  });
});
