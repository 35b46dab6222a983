// Issue 20 through the whole stack (control plane, logger and gateway on real Postgres, NATS and
// Redis, the mock provider upstream): an OpenAI-shaped call translated to Anthropic is logged under
// Anthropic with the provider's token counts and priced at Anthropic's price, JSON and streamed, and
// a cost budget stops translated streams (docs/unified-api.md, "Usage, cost and the request event").
import { randomUUID } from 'node:crypto';
import { test as base } from '@aigw/testkit';
import { describe, expect } from 'vitest';
import { pollUntil, type Reply } from './enforcement-client.test-support.js';
import { createTenant, type LogsStack, startLogsStack } from './logs-stack.test-support.js';

type Tenant = Awaited<ReturnType<typeof createTenant>>;

interface World {
  readonly stack: LogsStack;
  readonly tenant: Tenant;
  /** `@<slug>` of the tenant's Anthropic integration (the mock, answering in Anthropic's shape). */
  readonly anthropic: string;
}

const test = base.extend<{ world: World }>({
  world: [
    async ({ pg, nats, redis }, use) => {
      const stack = await startLogsStack({ pg, nats }, { REDIS_URL: redis.url });
      try {
        const tenant = await createTenant(stack.admin, stack.mock, 'Unified e2e');
        const integration = await stack.admin.post('/integrations', {
          name: 'Unified e2e anthropic',
          ai_provider: 'anthropic',
          credentials: { api_key: 'sk-ant-e2e' },
          options: { custom_host: `${stack.mock.url}/v1` },
          workspaces: [{ id: tenant.workspaceId }],
        });
        // One US dollar a token, in and out: a call's cost in USD is its token count.
        await stack.admin.post('/model-pricing', {
          ai_provider: 'anthropic',
          model: 'claude-3-5-haiku*',
          input_per_mtok: 1_000_000,
          output_per_mtok: 1_000_000,
        });
        await use({ stack, tenant, anthropic: `@${integration.slug}` });
      } finally {
        await stack.close();
      }
    },
    { scope: 'file' },
  ],
});

const MODEL = 'claude-3-5-haiku-latest';

function chat(world: World, key: string, body: Record<string, unknown>, traceId: string) {
  return fetch(`${world.stack.gatewayBase}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-api-key': key,
      'x-service-provider': world.anthropic,
      'x-service-trace-id': traceId,
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
}

/** Calls until the gateway knows the key; the probe names an unpriced model, so it costs nothing. */
async function untilKnown(world: World, key: string): Promise<void> {
  const probe = { model: 'claude-unpriced', messages: [{ role: 'user', content: 'hi' }] };
  await pollUntil(
    async () => (await chat(world, key, probe, randomUUID())).status,
    (status) => status !== 401,
    { boundMs: 15_000, intervalMs: 50, what: 'key synced' },
  );
}

/** The stored request log of a trace id, once the logger has it. */
async function logOf(stack: LogsStack, traceId: string): Promise<Reply['body']> {
  const { value } = await pollUntil(
    () => stack.admin.expect(200, 'GET', `/logs?trace_id=${traceId}`),
    (list) => list.data.length > 0,
    { boundMs: 20_000, intervalMs: 100, what: `log of ${traceId}` },
  );
  return value.data[0];
}

describe('the unified API through the whole stack: usage, cost and budgets of translated calls', () => {
  test("a call translated to Anthropic is logged with Anthropic's token counts and priced, JSON and streamed", async ({
    world,
  }) => {
    const { stack, tenant } = world;
    const { key } = await stack.admin.createKey(tenant.workspaceId, 'translated');
    await untilKnown(world, key);
    const run = randomUUID();
    const ask = { model: MODEL, messages: [{ role: 'user', content: 'three little words' }] };

    const json = await chat(world, key, ask, `${run}-json`);
    expect(json.status).toBe(200);
    const answer = (await json.json()) as { object: string; usage: { prompt_tokens: number } };
    expect(answer.object).toBe('chat.completion');

    const streamed = await chat(world, key, { ...ask, stream: true }, `${run}-stream`);
    expect(streamed.status).toBe(200);
    expect(await streamed.text()).toContain('"object":"chat.completion.chunk"');

    for (const [traceId, isStream] of [
      [`${run}-json`, false],
      [`${run}-stream`, true],
    ] as const) {
      const log = await logOf(stack, traceId);
      expect(log).toMatchObject({ ai_service: 'anthropic', model: MODEL, is_stream: isStream });
      // The mock counts words: three in, three echoed back out; Anthropic reported them.
      expect(log.tokens).toMatchObject({ input: 3, output: 3, estimated: false });
      expect(log.cost).toBeCloseTo(6, 6);
    }
  });

  test('ten translated streams against a 30 USD cost budget stop at it, at most one request over', async ({
    world,
  }) => {
    const { stack, tenant } = world;
    const { key } = await stack.admin.createKey(tenant.workspaceId, 'translated budget', {
      usage_limits: [{ type: 'cost', credit_limit: 30 }],
    });
    await untilKnown(world, key);
    const run = randomUUID();
    const body = { model: MODEL, messages: [{ role: 'user', content: 'three little words' }], stream: true };
    const statuses: number[] = [];
    for (let n = 0; n < 10; n++) {
      const res = await chat(world, key, body, `${run}-${n}`);
      await res.text();
      statuses.push(res.status);
    }
    const admitted = statuses.filter((s) => s === 200).length;
    expect(admitted).toBeGreaterThan(0);
    expect(admitted).toBeLessThan(10);
    // Once refused, always refused (412 exhausted): the budget is used up.
    expect(statuses.slice(admitted)).toEqual(Array(10 - admitted).fill(412));
    let cost = 0;
    for (let n = 0; n < admitted; n++) {
      const log = await logOf(stack, `${run}-${n}`);
      expect(log.tokens.estimated).toBe(false);
      cost += log.cost;
    }
    // Each call costs 6 USD: the budget is passed by at most one request's worth.
    expect(cost).toBeGreaterThanOrEqual(30);
    expect(cost).toBeLessThanOrEqual(30 + 6);
  });
});
