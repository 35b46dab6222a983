// Limits of managed providers named inside config targets, on real Redis: a target refused by its
// provider's budget or rate limit is a failed attempt the fallback moves past, a single target's
// refusal reaches the client, `provider` policies apply per target, request-level policies are not
// charged twice, and settle charges the answering provider with the answer's tokens.
import { randomUUID } from 'node:crypto';
import {
  type Entity,
  EntityKind,
  type RateLimit,
  RateLimitType,
  RateLimitUnit,
  type UsageLimit,
  UsageLimitType,
} from '@aigw/proto';
import { test } from '@aigw/testkit';
import { afterEach, describe, expect } from 'vitest';
import {
  apiKey,
  type ControlPlaneGateway,
  integration,
  organisation,
  provider,
  startControlPlaneGateway,
  virtualKey,
  workspace,
} from '../../test/control-plane-entities.js';
import { freshWindow, makeLimits, ratePolicy, usagePolicy } from '../limits/limits.test-support.js';

const chat = { model: 'gpt-4o', messages: [{ role: 'user', content: 'ping' }] };
let gw: ControlPlaneGateway | undefined;

afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

function withLimits(entity: Entity, rateLimits: RateLimit[], usageLimits: UsageLimit[] = []): Entity {
  const body = entity.body;
  if (body?.$case === 'provider') {
    return { ...entity, body: { $case: 'provider', value: { ...body.value, rateLimits, usageLimits } } };
  }
  if (body?.$case === 'virtualKey') {
    return { ...entity, body: { $case: 'virtualKey', value: { ...body.value, rateLimits, usageLimits } } };
  }
  throw new Error('no limits on this entity');
}

const tokensBudget = (creditLimit: number): UsageLimit => ({
  type: UsageLimitType.TOKENS,
  creditLimit,
  periodicReset: 0,
  periodicResetDays: 0,
  nextUsageResetAtMs: 0,
});

interface Setup {
  readonly org: string;
  readonly ws: string;
  /** Provider ids by slug (`a`, `b`). */
  readonly ids: Record<string, string>;
  call(config: unknown, headers?: Record<string, string>, body?: unknown): Promise<Response>;
}

/** Providers `@a` and `@b` (both the mock) with the given own limits, plus extra entities. */
async function start(
  redis: Parameters<typeof makeLimits>[0],
  limits: Record<string, { rate?: RateLimit[]; usage?: UsageLimit[] }>,
  extra: (org: string, ws: string, ids: Record<string, string>) => Entity[] = () => [],
): Promise<Setup> {
  const org = randomUUID();
  const ws = randomUUID();
  const int = randomUUID();
  const key = `aigw_${randomUUID()}`;
  gw = await startControlPlaneGateway([], {}, {}, makeLimits(redis).limits);
  const ids = { a: randomUUID(), b: randomUUID() };
  const providers = Object.entries(ids).map(([slug, id]) =>
    withLimits(
      provider(id, org, ws, slug, { integrationId: int }),
      limits[slug]?.rate ?? [],
      limits[slug]?.usage ?? [],
    ),
  );
  gw.use([
    organisation(org),
    workspace(ws, org),
    apiKey(key, org, ws),
    integration(int, org, {
      credentials: { api_key: 'sk-m' },
      options: { custom_host: `${gw.mock.url}/v1` },
    }),
    ...providers,
    ...extra(org, ws, ids).map((e) => ({ ...e, organisationId: org })),
  ]);
  const current = gw;
  return {
    org,
    ws,
    ids,
    call: (config, headers = {}, body = chat) =>
      fetch(`${current.base}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-api-key': key,
          'x-service-config': JSON.stringify(config),
          ...headers,
        },
        body: JSON.stringify(body),
      }),
  };
}

const fallback = { strategy: { mode: 'fallback' }, targets: [{ provider: '@a' }, { provider: '@b' }] };
const budgetKey = (org: string, providerId: string) => `lim:{${org}}:u:provider:${providerId}:tokens:0`;

async function error(res: Response) {
  return ((await res.json()) as { error: { code: string; type: string } }).error;
}

describe('limits of config targets', () => {
  test("a fallback moves past a target whose provider's budget is exhausted", async ({ redis }) => {
    const s = await start(redis.client, { a: { usage: [tokensBudget(100)] } });
    await redis.client.hset(budgetKey(s.org, s.ids.a as string), 'u', '100');
    const trace = randomUUID();
    const res = await s.call(fallback, { 'x-service-trace-id': trace });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-service-last-used-option-index')).toBe('config.targets[1]');
    expect(gw?.mock.requests).toHaveLength(1);
    const event = await gw?.eventFor(trace);
    expect(event?.attempts.map((a) => [a.targetPath, a.error?.code ?? ''])).toEqual([
      ['config.targets[0]', 'provider_usage_limit_exhausted'],
      ['config.targets[1]', ''],
    ]);
    // The same budget on a single target is the client's answer.
    const single = await s.call({ provider: '@a' });
    expect(single.status).toBe(412);
    expect(await error(single)).toMatchObject({
      code: 'provider_usage_limit_exhausted',
      type: 'usage_limit_error',
    });
    expect(gw?.mock.requests).toHaveLength(1);
  });

  test('a target whose provider allows 2 requests a minute admits 2, then 429', async ({ redis }) => {
    await freshWindow(redis.client, 60_000);
    const s = await start(redis.client, {
      a: { rate: [{ type: RateLimitType.REQUESTS, unit: RateLimitUnit.RPM, value: 2 }] },
    });
    const config = { strategy: { mode: 'loadbalance' }, targets: [{ provider: '@a' }] };
    expect((await s.call(config)).status).toBe(200);
    expect((await s.call(config)).status).toBe(200);
    const third = await s.call(config);
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await error(third)).toMatchObject({ code: 'provider_rate_limited', type: 'rate_limit_error' });
    expect(gw?.mock.requests).toHaveLength(2);
    // Another provider's targets are not limited by it.
    expect((await s.call({ provider: '@b' })).status).toBe(200);
  });

  test("settle charges the answering provider's budget with the answer's tokens", async ({ redis }) => {
    const s = await start(redis.client, {
      a: { usage: [tokensBudget(1_000_000)] },
      b: { usage: [tokensBudget(1_000_000)] },
    });
    const trace = randomUUID();
    const res = await s.call({ provider: '@b' }, { 'x-service-trace-id': trace });
    expect(res.status).toBe(200);
    const usage = ((await res.json()) as { usage: { prompt_tokens: number; completion_tokens: number } })
      .usage;
    const tokens = usage.prompt_tokens + usage.completion_tokens;
    expect(tokens).toBeGreaterThan(0);
    const key = budgetKey(s.org, s.ids.b as string);
    let charged: string | null = null;
    for (let i = 0; i < 50 && charged !== String(tokens); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      charged = await redis.client.hget(key, 'u');
    }
    expect(charged).toBe(String(tokens));
    // Its reservation is released, and the provider the config did not call is not charged.
    expect(Number((await redis.client.hget(key, 'r')) ?? 0)).toBe(0);
    expect(await redis.client.hget(budgetKey(s.org, s.ids.a as string), 'u')).toBeNull();
    // The request event reports the target's counter, so the logger's ledger charges it too.
    const event = await gw?.eventFor(trace);
    expect(event?.usageChargesReported).toBe(true);
    expect(event?.usageCharges).toMatchObject([
      { ownerKind: EntityKind.PROVIDER, ownerId: s.ids.b, counterKey: key, amount: tokens },
    ]);
  });

  test("a streamed answer's usage (its last chunks) settles the answering provider", async ({ redis }) => {
    const s = await start(redis.client, { b: { usage: [tokensBudget(1_000_000)] } });
    const streamed = { ...chat, stream: true, stream_options: { include_usage: true } };
    const res = await s.call({ provider: '@b' }, {}, streamed);
    expect(res.status).toBe(200);
    const text = await res.text();
    const usage = text
      .split('\n')
      .filter((line) => line.startsWith('data: {'))
      .map((line) => JSON.parse(line.slice(6)) as { usage?: { total_tokens: number } })
      .find((chunk) => chunk.usage)?.usage;
    expect(usage?.total_tokens).toBeGreaterThan(0);
    const key = budgetKey(s.org, s.ids.b as string);
    let charged: string | null = null;
    for (let i = 0; i < 50 && charged !== String(usage?.total_tokens); i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      charged = await redis.client.hget(key, 'u');
    }
    expect(charged).toBe(String(usage?.total_tokens));
  });

  test("an answer an output guardrail denied still charges the provider's tokens", async ({ redis }) => {
    const s = await start(redis.client, { b: { usage: [tokensBudget(1_000_000)] } }, (_org, ws) => [
      usagePolicy({ conditions: [{ key: 'workspace_id', value: ws }], creditLimit: 1_000_000 }),
    ]);
    const noEcho = {
      deny: true,
      checks: [{ id: 'contains', parameters: { words: ['ping'], operator: 'none' } }],
    };
    const trace = randomUUID();
    const res = await s.call(
      { provider: '@b', output_guardrails: [noEcho] },
      { 'x-service-trace-id': trace },
    );
    expect(res.status).toBe(446);
    expect(gw?.mock.requests).toHaveLength(1);
    const key = budgetKey(s.org, s.ids.b as string);
    let charged = 0;
    for (let i = 0; i < 50 && charged === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      charged = Number((await redis.client.hget(key, 'u')) ?? 0);
    }
    expect(charged).toBeGreaterThan(0);
    // The request-level budget (a workspace policy) is charged the same tokens.
    const event = await gw?.eventFor(trace);
    expect(event?.usageCharges.map((c) => [c.ownerKind, Number(c.amount)])).toEqual([
      [EntityKind.USAGE_LIMIT_POLICY, charged],
      [EntityKind.PROVIDER, charged],
    ]);
  });

  test('a provider policy applies per target; a workspace policy counts each request once', async ({
    redis,
  }) => {
    const s = await start(redis.client, {}, (_org, ws) => [
      ratePolicy({
        conditions: [{ key: 'provider', value: 'a' }],
        groupBy: [{ key: 'provider' }],
        unit: RateLimitUnit.RPD,
        value: 1,
      }),
      ratePolicy({
        conditions: [{ key: 'workspace_id', value: ws }],
        groupBy: [{ key: 'workspace_id' }],
        unit: RateLimitUnit.RPD,
        value: 3,
      }),
    ]);
    // Request 1: @a admitted by its policy (1 a day). Request 2: @a refused, the fallback serves @b.
    expect((await s.call(fallback)).headers.get('x-service-last-used-option-index')).toBe(
      'config.targets[0]',
    );
    const second = await s.call(fallback);
    expect(second.status).toBe(200);
    expect(second.headers.get('x-service-last-used-option-index')).toBe('config.targets[1]');
    // The workspace policy saw 2 requests (not 2 + the target attempts): a third is admitted.
    expect((await s.call({ provider: '@b' })).status).toBe(200);
    const fourth = await s.call({ provider: '@b' });
    expect(fourth.status).toBe(429);
    expect((await error(fourth)).code).toBe('policy_rate_limited');
  });

  test("a model policy counts the model a target sends (override_params), not the body's", async ({
    redis,
  }) => {
    const s = await start(redis.client, {}, () => [
      ratePolicy({
        conditions: [{ key: 'model', value: 'gpt-4o' }],
        groupBy: [{ key: 'api_key' }],
        unit: RateLimitUnit.RPD,
        value: 1,
      }),
    ]);
    const cheap = { ...chat, model: 'gpt-4o-mini' };
    const toBig = { provider: '@a', override_params: { model: 'gpt-4o' } };
    expect((await s.call(toBig, {}, cheap)).status).toBe(200);
    expect(gw?.mock.requests.at(-1)?.json).toMatchObject({ model: 'gpt-4o' });
    // The second gpt-4o call is the policy's second: refused, whatever model the body names.
    const second = await s.call(toBig, {}, cheap);
    expect(second.status).toBe(429);
    expect((await error(second)).code).toBe('policy_rate_limited');
    expect(gw?.mock.requests).toHaveLength(1);
    // A target that sends the body's gpt-4o-mini is not this policy's.
    expect((await s.call({ provider: '@a' }, {}, cheap)).status).toBe(200);
  });

  test('a model policy counts a config request once when no target changes the model', async ({ redis }) => {
    const s = await start(redis.client, {}, () => [
      ratePolicy({
        conditions: [{ key: 'model', value: 'gpt-4o' }],
        groupBy: [{ key: 'api_key' }],
        unit: RateLimitUnit.RPD,
        value: 2,
      }),
    ]);
    expect((await s.call({ provider: '@a' })).status).toBe(200);
    expect((await s.call({ provider: '@a' })).status).toBe(200);
    const third = await s.call({ provider: '@a' });
    expect(third.status).toBe(429);
    expect((await error(third)).code).toBe('policy_rate_limited');
  });

  test("an integration's limits for the workspace apply to the providers over it", async ({ redis }) => {
    const int = randomUUID();
    const s = await start(redis.client, {}, (org, ws) => {
      const shared = integration(int, org, {
        credentials: { api_key: 'sk-m' },
        options: { custom_host: `${gw?.mock.url}/v1` },
      });
      const body = shared.body?.$case === 'integration' ? shared.body.value : undefined;
      const daily: RateLimit = { type: RateLimitType.REQUESTS, unit: RateLimitUnit.RPD, value: 1 };
      const workspaces = [{ workspaceId: ws, enabled: true, rateLimits: [daily], usageLimits: [] }];
      return [
        {
          ...shared,
          body: { $case: 'integration', value: { ...(body as NonNullable<typeof body>), workspaces } },
        },
        provider(randomUUID(), org, ws, 'c', { integrationId: int }),
      ];
    });
    const config = { strategy: { mode: 'fallback' }, targets: [{ provider: '@c' }, { provider: '@b' }] };
    expect((await s.call(config)).headers.get('x-service-last-used-option-index')).toBe('config.targets[0]');
    const second = await s.call(config);
    expect(second.status).toBe(200);
    expect(second.headers.get('x-service-last-used-option-index')).toBe('config.targets[1]');
  });

  test("a virtual key named by a target is limited by the virtual key's own limits", async ({ redis }) => {
    const s = await start(redis.client, {}, (org, ws, ids) => [
      withLimits(virtualKey(provider(ids.a as string, org, ws, 'a')), [
        { type: RateLimitType.REQUESTS, unit: RateLimitUnit.RPD, value: 1 },
      ]),
    ]);
    const config = { virtual_key: 'a' };
    expect((await s.call(config)).status).toBe(200);
    const refused = await s.call(config);
    expect(refused.status).toBe(429);
    expect((await error(refused)).code).toBe('virtual_key_rate_limited');
  });

  test("the headers' provider is charged only when a target calls it, once", async ({ redis }) => {
    const s = await start(
      redis.client,
      { a: { usage: [tokensBudget(1_000_000)] }, b: { usage: [tokensBudget(1_000_000)] } },
      () => [
        ratePolicy({
          conditions: [{ key: 'provider', value: 'a' }],
          groupBy: [{ key: 'provider' }],
          unit: RateLimitUnit.RPD,
          value: 1,
        }),
      ],
    );
    // The headers name @a, the config routes to @b: neither @a's budget nor its policy is charged.
    const toB = randomUUID();
    const first = await s.call({ provider: '@b' }, { 'x-service-provider': '@a', 'x-service-trace-id': toB });
    expect(first.status).toBe(200);
    await first.text();
    const routedToB = await gw?.eventFor(toB);
    expect(routedToB?.usageCharges.map((c) => [c.ownerKind, c.ownerId])).toEqual([
      [EntityKind.PROVIDER, s.ids.b],
    ]);
    expect(await redis.client.hget(budgetKey(s.org, s.ids.a as string), 'u')).toBeNull();
    // A target taking the headers' @a (it names no provider) is admitted for @a exactly once: its
    // policy (1 a day) admits this request and refuses the next.
    const toA = randomUUID();
    const second = await s.call(
      { retry: { attempts: 0 } },
      { 'x-service-provider': '@a', 'x-service-trace-id': toA },
    );
    expect(second.status).toBe(200);
    await second.text();
    const routedToA = await gw?.eventFor(toA);
    expect(routedToA?.usageCharges.map((c) => [c.ownerKind, c.ownerId])).toEqual([
      [EntityKind.PROVIDER, s.ids.a],
    ]);
    const third = await s.call({ retry: { attempts: 0 } }, { 'x-service-provider': '@a' });
    expect(third.status).toBe(429);
    expect((await error(third)).code).toBe('policy_rate_limited');
  });
});
