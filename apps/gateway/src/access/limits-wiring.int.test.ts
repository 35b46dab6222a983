// The limits stage in the control-plane pipeline, on real Redis: a requests policy refuses with 429
// and `x-ratelimit-*` headers before the provider is called, and a tokens policy is charged with the
// answer's usage after it went out (settle), so the next request sees it. Daily windows: a window
// boundary between the calls of a test is as unlikely as it can be.
import { randomUUID } from 'node:crypto';
import { costOf } from '@aigw/pricing';
import { EntityKind, PeriodicReset, RateLimitType, RateLimitUnit, UsageLimitType } from '@aigw/proto';
import { test } from '@aigw/testkit';
import { afterEach, describe, expect } from 'vitest';
import {
  apiKey,
  type ControlPlaneGateway,
  integration,
  organisation,
  provider,
  startControlPlaneGateway,
  startTenantGateway,
  workspace,
} from '../../test/control-plane-entities.js';
import { gpt4oPrice, makeLimits, ratePolicy, usagePolicy } from '../limits/limits.test-support.js';
import { periodAt } from '../limits/periods.js';

const chat = { model: 'gpt-4o', messages: [{ role: 'user', content: 'ping' }] };
let gw: ControlPlaneGateway | undefined;

afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

async function start(redis: Parameters<typeof makeLimits>[0], policy: Parameters<typeof ratePolicy>[0]) {
  const tenant = await startTenantGateway(makeLimits(redis).limits, ({ org, ws }) => [
    {
      ...ratePolicy({
        conditions: [{ key: 'workspace_id', value: ws }],
        groupBy: [{ key: 'api_key' }],
        ...policy,
      }),
      organisationId: org,
    },
  ]);
  gw = tenant.gw;
  const current = tenant.gw;
  return (body: unknown = chat) =>
    fetch(`${current.base}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-api-key': tenant.key,
        'x-service-provider': '@openai-prod',
      },
      body: JSON.stringify(body),
    });
}

describe('limits in the /v1 pipeline', () => {
  test('a requests policy answers 429 with retry-after once its window is used, before the provider', async ({
    redis,
  }) => {
    const call = await start(redis.client, {
      type: RateLimitType.REQUESTS,
      unit: RateLimitUnit.RPD,
      value: 2,
    });
    const first = await call();
    expect(first.status).toBe(200);
    expect(Object.keys(Object.fromEntries(first.headers)).some((h) => h.startsWith('x-ratelimit-'))).toBe(
      true,
    );
    expect(first.headers.get('x-service-limits-degraded')).toBeNull();
    expect((await call()).status).toBe(200);
    gw?.mock.clear();
    const third = await call();
    expect(third.status).toBe(429);
    expect(third.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(third.headers.get('x-service-gateway-error')).toBe('true');
    expect(gw?.mock.requests).toEqual([]);
  });

  test("a tokens policy is charged with the answer's usage after it went out", async ({ redis }) => {
    const call = await start(redis.client, { type: RateLimitType.TOKENS, unit: RateLimitUnit.RPD, value: 5 });
    // The first is admitted on usage so far (none); its tokens (more than 5) are charged after it.
    expect((await call()).status).toBe(200);
    let refused: Response | undefined;
    for (let i = 0; i < 20 && !refused; i++) {
      const res = await call();
      if (res.status === 429) refused = res;
      else await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect(refused?.status).toBe(429);
  });

  test('the request event carries the budget counters the admission charged, with what settle added', async ({
    redis,
  }) => {
    const org = randomUUID();
    const ws = randomUUID();
    const int = randomUUID();
    const keyId = randomUUID();
    const key = `aigw_${randomUUID()}`;
    const { limits } = makeLimits(redis.client);
    gw = await startControlPlaneGateway([], {}, {}, limits);
    // Every 3 days from an anchor, grouped by API key and team: the event names the group and period.
    const anchor = Date.parse('2026-01-01T06:00:00Z');
    const spec = { periodicReset: PeriodicReset.WEEKLY, periodicResetDays: 3, nextUsageResetAtMs: anchor };
    const policy = {
      ...usagePolicy({
        type: UsageLimitType.COST,
        creditLimit: 1_000_000_000,
        periodicReset: PeriodicReset.WEEKLY,
        periodicResetDays: 3,
        nextUsageResetAtMs: anchor,
        conditions: [{ key: 'workspace_id', value: ws }],
        groupBy: [{ key: 'api_key' }, { key: 'metadata.team' }],
      }),
      organisationId: org,
    };
    const tokensPolicy = {
      ...usagePolicy({
        type: UsageLimitType.TOKENS,
        creditLimit: 1_000_000,
        conditions: [{ key: 'workspace_id', value: ws }],
        groupBy: [{ key: 'workspace_id' }],
      }),
      organisationId: org,
    };
    gw.use([
      organisation(org),
      workspace(ws, org),
      apiKey(key, org, ws, { id: keyId }),
      integration(int, org, {
        credentials: { api_key: 'sk-managed' },
        options: { custom_host: `${gw.mock.url}/v1` },
      }),
      provider(randomUUID(), org, ws, 'openai-prod', { integrationId: int }),
      { ...gpt4oPrice() },
      policy,
      tokensPolicy,
    ]);
    const before = Date.now();
    const res = await fetch(`${gw.base}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-api-key': key,
        'x-service-provider': '@openai-prod',
        'x-service-metadata': JSON.stringify({ team: 'search' }),
        'x-service-trace-id': 'charges-1',
      },
      body: JSON.stringify(chat),
    });
    expect(res.status).toBe(200);
    await res.text();
    const event = await gw.eventFor('charges-1');
    expect(event.usageChargesReported).toBe(true);
    const period = periodAt(spec, before);
    const [cost, tokens] = event.usageCharges;
    expect(event.usageCharges).toHaveLength(2);
    expect(cost).toMatchObject({
      ownerKind: EntityKind.USAGE_LIMIT_POLICY,
      ownerId: policy.id,
      groupValue: `api_key=${keyId}&metadata.team=search`,
      measure: UsageLimitType.COST,
      periodStartMs: period.startMs,
      periodEndMs: period.endMs,
    });
    expect(period.endMs - period.startMs).toBe(3 * 86_400_000);
    expect(cost?.counterKey).toMatch(
      new RegExp(`^lim:\\{${org}\\}:u:p:${policy.id}:[\\w-]{22}:${period.startMs}$`),
    );
    expect(tokens).toMatchObject({
      ownerKind: EntityKind.USAGE_LIMIT_POLICY,
      ownerId: tokensPolicy.id,
      groupValue: `workspace_id=${ws}`,
      measure: UsageLimitType.TOKENS,
      periodStartMs: 0,
      periodEndMs: 0,
    });
    // The amounts are what settle added to the very counters the keys name.
    expect(tokens?.amount).toBe(event.tokens?.totalTokens);
    expect(cost?.amount).toBeGreaterThan(0);
    // The event's cost is the same amount: logs, the ledger and the budget agree.
    expect(event.cost).toEqual({ amountMicros: cost?.amount, currency: 'USD' });
    for (const charge of event.usageCharges) {
      let u = 0;
      for (let i = 0; i < 50 && u !== charge.amount; i++) {
        u = Number(await redis.client.hget(charge.counterKey, 'u'));
        if (u !== charge.amount) await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(u).toBe(charge.amount);
    }
  });

  test('the request event is priced from the pricing snapshot with no limit applying, and not priced without a row', async () => {
    const org = randomUUID();
    const ws = randomUUID();
    const key = `aigw_${randomUUID()}`;
    gw = await startControlPlaneGateway([], {}, {});
    const price = gpt4oPrice();
    gw.use([organisation(org), workspace(ws, org), apiKey(key, org, ws), price]);
    const call = async (traceId: string, model: string) => {
      const res = await fetch(`${gw?.base}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-api-key': key,
          'x-service-provider': 'openai',
          'x-service-custom-host': `${gw?.mock.url}/v1`,
          authorization: 'Bearer sk-client',
          'x-service-trace-id': traceId,
        },
        body: JSON.stringify({ ...chat, model }),
      });
      expect(res.status).toBe(200);
      await res.text();
      return gw?.eventFor(traceId);
    };
    const priced = await call('priced-1', 'gpt-4o');
    const rates = price.body?.$case === 'modelPricing' ? price.body.value : undefined;
    const tokens = priced?.tokens;
    expect(tokens?.estimated).toBe(false);
    expect(tokens?.inputTokens).toBeGreaterThan(0);
    const expected = costOf(rates as NonNullable<typeof rates>, {
      inputTokens: tokens?.inputTokens ?? 0,
      outputTokens: tokens?.outputTokens ?? 0,
      cachedInputTokens: tokens?.cachedInputTokens ?? 0,
    });
    expect(expected).toBeGreaterThan(0);
    expect(priced?.cost).toEqual({ amountMicros: expected, currency: 'USD' });
    expect(priced?.usageChargesReported).toBe(false);
    // No pricing row matches this model: no cost rather than a made-up one.
    const unpriced = await call('priced-2', 'mistral-large');
    expect(unpriced?.tokens?.inputTokens).toBeGreaterThan(0);
    expect(unpriced?.cost).toBeUndefined();
  });
});
