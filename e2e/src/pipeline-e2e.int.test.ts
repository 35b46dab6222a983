// Issue 16 acceptance through the whole stack (control plane, logger and gateway on real Postgres,
// NATS and Redis, the mock provider upstream): no request kind walks around enforcement. A key
// without `completions.write` is refused; streams whose client did not ask for usage are charged and
// logged with the provider's token counts and a cost, and the client gets the stream it would have
// got; realtime sessions count against rate limits and are logged.
import { randomUUID } from 'node:crypto';
import { test as base } from '@aigw/testkit';
import { describe, expect } from 'vitest';
import WebSocket from 'ws';
import { pollUntil, type Reply } from './enforcement-client.test-support.js';
import { PROVIDER_SECRET } from './enforcement-stack.test-support.js';
import { createTenant, type LogsStack, startLogsStack } from './logs-stack.test-support.js';

type Tenant = Awaited<ReturnType<typeof createTenant>>;

const test = base.extend<{ world: { stack: LogsStack; tenant: Tenant } }>({
  world: [
    async ({ pg, nats, redis }, use) => {
      const stack = await startLogsStack({ pg, nats }, { REDIS_URL: redis.url });
      try {
        await use({ stack, tenant: await createTenant(stack.admin, stack.mock, 'Pipeline e2e') });
      } finally {
        await stack.close();
      }
    },
    { scope: 'file' },
  ],
});

function call(stack: LogsStack, key: string, provider: string, body: unknown, traceId: string) {
  return fetch(`${stack.gatewayBase}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-api-key': key,
      'x-service-provider': provider,
      'x-service-trace-id': traceId,
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(10_000),
  });
}

/** Calls until the gateway knows the key (its snapshot follows the control plane within a moment). */
async function untilKnown(stack: LogsStack, key: string, provider: string): Promise<void> {
  await pollUntil(
    async () =>
      (
        await call(
          stack,
          key,
          provider,
          { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
          randomUUID(),
        )
      ).status,
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

describe('one pipeline, nothing walks around enforcement (issue 16)', () => {
  test('a key holding only logs.list gets 403 on /v1/chat/completions', async ({ world }) => {
    const { stack, tenant } = world;
    const logsOnly = await stack.admin.createKey(tenant.workspaceId, 'logs only', { scopes: ['logs.list'] });
    const probe = await stack.admin.createKey(tenant.workspaceId, 'probe');
    await untilKnown(stack, probe.key, tenant.provider);
    // The logs-only key was created before the probe's: the gateway that knows the probe knows it.
    const res = await call(
      stack,
      logsOnly.key,
      tenant.provider,
      { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
      randomUUID(),
    );
    expect(res.status).toBe(403);
    expect(res.headers.get('x-service-gateway-error')).toBe('true');
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('insufficient_scope');
  });

  test('ten streams without include_usage against a small token budget stop at it; logs show provider tokens and a cost; the client gets its own stream', async ({
    world,
  }) => {
    const { stack, tenant } = world;
    await stack.admin.post('/model-pricing', {
      ai_provider: 'openai',
      model: 'gpt-4o-mini*',
      input_per_mtok: 1234.5,
      output_per_mtok: 2345.67,
    });
    const run = randomUUID();
    const { key } = await stack.admin.createKey(tenant.workspaceId, 'streams', {
      usage_limits: [{ type: 'tokens', credit_limit: 30 }],
    });
    // The probe spends a little of the budget; the streams use the rest.
    await untilKnown(stack, key, tenant.provider);
    const body = {
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'three little words' }],
      stream: true,
    };
    const direct = await fetch(`${stack.mock.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${PROVIDER_SECRET}` },
      body: JSON.stringify(body),
    });
    const normalise = (text: string) =>
      text.replace(/"id":"chatcmpl-[^"]+"/g, '"id":"x"').replace(/"created":\d+/g, '"created":0');
    expect(direct.status).toBe(200);
    const expected = normalise(await direct.text());

    const statuses: number[] = [];
    for (let n = 0; n < 10; n++) {
      const res = await call(stack, key, tenant.provider, body, `${run}-${n}`);
      const text = await res.text();
      statuses.push(res.status);
      if (res.status === 200) {
        expect(text).not.toContain('usage');
        expect(normalise(text)).toBe(expected);
      } else {
        expect(res.status).toBe(412);
      }
    }
    const admitted = statuses.filter((s) => s === 200).length;
    expect(admitted).toBeGreaterThan(0);
    expect(admitted).toBeLessThan(10);
    // Once refused, always refused: the budget is used up.
    expect(statuses.slice(statuses.indexOf(412)).every((s) => s === 412)).toBe(true);
    let tokens = 0;
    for (let n = 0; n < admitted; n++) {
      const log = await logOf(stack, `${run}-${n}`);
      expect(log.is_stream).toBe(true);
      expect(log.tokens).toMatchObject({ input: 3, output: 3, estimated: false });
      expect(log.cost).toBeGreaterThan(0);
      tokens += log.tokens.total;
    }
    // At most one request's worth over the budget.
    expect(tokens).toBeLessThanOrEqual(30 + 6);
  });

  test('a realtime session counts against a 2-requests-per-minute policy (the third is refused) and is logged', async ({
    world,
  }) => {
    const { stack, tenant } = world;
    const run = randomUUID();
    await stack.admin.post('/policies/rate-limits', {
      name: 'two sessions a minute',
      type: 'requests',
      unit: 'rpm',
      value: 2,
      conditions: [{ key: 'metadata.run', value: run }],
      group_by: [{ key: 'api_key' }],
      workspace_id: tenant.workspaceId,
    });
    const { key } = await stack.admin.createKey(tenant.workspaceId, 'realtime');
    await untilKnown(stack, key, tenant.provider);
    const open = (traceId: string) =>
      new Promise<{ status: number; ws: WebSocket }>((resolve) => {
        const ws = new WebSocket(
          `${stack.gatewayBase.replace('http', 'ws')}/v1/realtime?model=gpt-4o-realtime`,
          {
            headers: {
              'x-service-api-key': key,
              'x-service-provider': tenant.provider,
              'x-service-trace-id': traceId,
              'x-service-metadata': JSON.stringify({ run }),
            },
          },
        );
        ws.on('unexpected-response', (_req, res) => resolve({ status: res.statusCode ?? 0, ws }));
        ws.on('open', () => resolve({ status: 101, ws }));
      });
    const statuses: number[] = [];
    for (const n of [1, 2, 3]) {
      const { status, ws } = await open(`${run}-rt-${n}`);
      statuses.push(status);
      if (status === 101) {
        const done = new Promise<void>((resolve) =>
          ws.on('message', (data: Buffer) => {
            if (data.toString().includes('"response.done"')) resolve();
          }),
        );
        ws.send(JSON.stringify({ type: 'response.create' }));
        await done;
        ws.close();
        await new Promise((resolve) => ws.once('close', resolve));
      }
    }
    expect(statuses).toEqual([101, 101, 429]);
    const log = await logOf(stack, `${run}-rt-1`);
    expect(log).toMatchObject({ method: 'GET', path: '/realtime', status_code: 101 });
    expect(log.tokens).toMatchObject({ output: 4, estimated: false });
    const refused = await logOf(stack, `${run}-rt-3`);
    expect(refused.status_code).toBe(429);
  });
});
