// Issue 16 acceptance through the whole stack (control plane, logger and gateway on real Postgres,
// NATS and Redis, the mock provider upstream): no request kind walks around enforcement. A key
// without `completions.write` is refused; streams whose client did not ask for usage are charged and
// logged with the provider's token counts and a cost, and the client gets the stream it would have
// got; realtime sessions count against rate limits and are logged; with limits in force, a body no
// stage needs still streams to the provider (docs/gateway.md, "When the gateway reads a body").
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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

/**
 * Calls until the gateway knows the key (its snapshot follows the control plane within a moment);
 * the trace id of the call that got through, whose usage counts against the key's budget too.
 */
async function untilKnown(stack: LogsStack, key: string, provider: string): Promise<string> {
  const { value } = await pollUntil(
    async () => {
      const traceId = randomUUID();
      const res = await call(
        stack,
        key,
        provider,
        { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] },
        traceId,
      );
      await res.arrayBuffer();
      return { status: res.status, traceId };
    },
    (probe) => probe.status !== 401,
    { boundMs: 15_000, intervalMs: 50, what: 'key synced' },
  );
  return value.traceId;
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
    const probe = await untilKnown(stack, key, tenant.provider);
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
    // The key's whole spend, the probe's included: refused once it reached the budget (usage >= 30),
    // and at most one request's worth over it.
    tokens += (await logOf(stack, probe)).tokens.total;
    expect(tokens).toBeGreaterThanOrEqual(30);
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

  test('with limits in force a body no stage needs streams: the provider has its first piece before the client sends the rest', async ({
    world,
  }) => {
    const { stack, tenant } = world;
    // Limits exist for the organisation (a requests policy, no model condition): no reason to read.
    const run = randomUUID();
    await stack.admin.post('/policies/rate-limits', {
      name: 'plenty',
      type: 'requests',
      unit: 'rpm',
      value: 10_000,
      conditions: [{ key: 'metadata.run', value: run }],
      group_by: [{ key: 'api_key' }],
      workspace_id: tenant.workspaceId,
    });
    let firstPiece: () => void = () => undefined;
    const arrived = new Promise<void>((resolve) => {
      firstPiece = resolve;
    });
    const received: Buffer[] = [];
    const upstream = createServer((req, res) => {
      req.on('data', (chunk: Buffer) => {
        received.push(chunk);
        firstPiece();
      });
      req.on('end', () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            object: 'list',
            data: [],
            model: 'm',
            usage: { prompt_tokens: 1, total_tokens: 1 },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    try {
      const integration = await stack.admin.post('/integrations', {
        name: 'streaming upstream',
        ai_provider: 'openai',
        credentials: { api_key: 'sk-stream' },
        options: { custom_host: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1` },
        workspaces: [{ id: tenant.workspaceId }],
      });
      const { key } = await stack.admin.createKey(tenant.workspaceId, 'streamed body');
      await untilKnown(stack, key, tenant.provider);
      const head = Buffer.from(`{"model":"text-embedding-3-small","input":"${'a'.repeat(32 * 1024)}`);
      const tail = Buffer.from('"}');
      let sentTail = false;
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(head);
        },
        async pull(controller) {
          // The rest goes only once the provider has the head: a gateway holding the body whole
          // never forwards it, and this guard ends the request with a clear error instead of a hang.
          let guard: NodeJS.Timeout | undefined;
          const held = new Promise<never>((_, reject) => {
            guard = setTimeout(
              () => reject(new Error('the gateway held the body: nothing reached the provider')),
              10_000,
            );
          });
          try {
            await Promise.race([arrived, held]);
          } finally {
            clearTimeout(guard);
          }
          sentTail = true;
          controller.enqueue(tail);
          controller.close();
        },
      });
      const res = await fetch(`${stack.gatewayBase}/v1/embeddings`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-api-key': key,
          'x-service-provider': `@${integration.slug}`,
          'x-service-metadata': JSON.stringify({ run }),
        },
        body,
        duplex: 'half',
        signal: AbortSignal.timeout(20_000),
      } as RequestInit);
      expect(res.status).toBe(200);
      expect(sentTail).toBe(true);
      expect(Buffer.concat(received).equals(Buffer.concat([head, tail]))).toBe(true);
    } finally {
      upstream.closeAllConnections();
      upstream.close();
    }
  });
});
