// A retrieval is not new usage: the answer of a GET that repeats what its creation already charged
// (a stored chat completion, a response) is neither charged to budgets nor logged as tokens, and a
// listing's size is never taken for tokens. Two objects are charged when retrieved, because their
// creation could not be: a Batch and a Response created with `background: true`; and those once,
// however often they are read, on whichever replica (claims in Redis). Real Redis; the provider is
// a local server answering OpenAI's documented shapes.
import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Entity, EntityKind, EntityStatus, UsageLimitType } from '@aigw/proto';
import { test } from '@aigw/testkit';
import { afterEach, describe, expect } from 'vitest';
import {
  type ControlPlaneGateway,
  managedTenant,
  startControlPlaneGateway,
} from '../../test/control-plane-entities.js';
import { gpt4oPrice, makeLimits, usagePolicy } from '../limits/limits.test-support.js';

const usage = (input: number, output: number) => ({
  input_tokens: input,
  output_tokens: output,
  total_tokens: input + output,
  input_tokens_details: { cached_tokens: 0 },
  output_tokens_details: { reasoning_tokens: 0 },
});

/** What OpenAI answers these retrievals (API reference: chat completions, responses, batches, models). */
const ANSWERS: Record<string, unknown> = {
  '/v1/chat/completions/chatcmpl-stored': {
    id: 'chatcmpl-stored',
    object: 'chat.completion',
    created: 1_764_000_000,
    model: 'gpt-4o-2024-08-06',
    choices: [{ index: 0, message: { role: 'assistant', content: 'stored' }, finish_reason: 'stop' }],
    usage: { prompt_tokens: 1000, completion_tokens: 1000, total_tokens: 2000 },
  },
  '/v1/responses/resp_foreground': {
    id: 'resp_foreground',
    object: 'response',
    status: 'completed',
    background: false,
    model: 'gpt-4o-2024-08-06',
    output: [],
    usage: usage(1000, 1000),
  },
  '/v1/responses/resp_background': {
    id: 'resp_background',
    object: 'response',
    status: 'completed',
    background: true,
    model: 'gpt-4o-2024-08-06',
    output: [],
    usage: usage(30, 20),
  },
  '/v1/batches/batch_done': {
    id: 'batch_done',
    object: 'batch',
    endpoint: '/v1/chat/completions',
    model: 'gpt-4o-2024-08-06',
    input_file_id: 'file-in',
    completion_window: '24h',
    status: 'completed',
    output_file_id: 'file-out',
    created_at: 1_764_000_000,
    completed_at: 1_764_000_600,
    request_counts: { total: 2, completed: 2, failed: 0 },
    usage: usage(300, 200),
  },
  '/v1/responses/resp_streamed': {
    id: 'resp_streamed',
    object: 'response',
    status: 'completed',
    background: true,
    model: 'gpt-4o-2024-08-06',
    output: [],
    usage: usage(7, 3),
  },
  '/v1/models': {
    object: 'list',
    data: Array.from({ length: 40 }, (_, i) => ({ id: `model-${i}`, object: 'model', owned_by: 'openai' })),
  },
};

let gw: ControlPlaneGateway | undefined;
let upstream: Server | undefined;

afterEach(async () => {
  await gw?.close();
  gw = undefined;
  upstream?.closeAllConnections();
  upstream?.close();
  upstream = undefined;
});

async function startUpstream(): Promise<string> {
  upstream = createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/v1/responses') {
      // A background Response created streaming: its generation streams, and ends with its usage.
      req.resume();
      const done = { ...(ANSWERS['/v1/responses/resp_streamed'] as object) };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(
        `event: response.created\ndata: ${JSON.stringify({ type: 'response.created', response: { ...done, status: 'queued', usage: null } })}\n\n`,
      );
      res.end(
        `event: response.completed\ndata: ${JSON.stringify({ type: 'response.completed', response: done })}\n\n`,
      );
      return;
    }
    const answer = ANSWERS[(req.url ?? '').split('?')[0] ?? ''];
    res.writeHead(answer ? 200 : 404, { 'content-type': 'application/json' });
    res.end(JSON.stringify(answer ?? { error: { message: 'not found' } }));
  });
  upstream.listen(0, '127.0.0.1');
  await new Promise((resolve) => upstream?.once('listening', resolve));
  return `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
}

describe('retrievals and usage', () => {
  test('a retrieval is charged only for what its creation could not charge, and a listing is no tokens', async ({
    redis,
  }) => {
    const host = await startUpstream();
    const org = randomUUID();
    const ws = randomUUID();
    const key = `aigw_${randomUUID()}`;
    gw = await startControlPlaneGateway([], {}, {}, makeLimits(redis.client).limits, redis.client);
    // A second replica on the same Redis.
    const replica = await startControlPlaneGateway([], {}, {}, makeLimits(redis.client).limits, redis.client);
    const tenant = [
      ...managedTenant(gw, { org, ws, key, host }),
      gpt4oPrice(),
      {
        ...usagePolicy({
          type: UsageLimitType.TOKENS,
          creditLimit: 1_000_000,
          conditions: [{ key: 'workspace_id', value: ws }],
          groupBy: [{ key: 'workspace_id' }],
        }),
        organisationId: org,
      },
    ];
    gw.use(tenant);
    replica.use(tenant);
    const call = async (
      path: string,
      on: ControlPlaneGateway = gw as ControlPlaneGateway,
      body?: unknown,
    ) => {
      const traceId = randomUUID();
      const res = await fetch(`${on.base}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: {
          'x-service-api-key': key,
          'x-service-provider': '@openai-prod',
          'x-service-trace-id': traceId,
          'content-type': 'application/json',
        },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      expect(res.status, path).toBe(200);
      await res.text();
      const event = await on.eventFor(traceId);
      return { tokens: event.tokens, cost: event.cost, charged: event.usageCharges[0]?.amount };
    };
    const get = (path: string, on?: ControlPlaneGateway) => call(path, on);
    const nothing = { tokens: undefined, cost: undefined, charged: 0 };

    // Repeats of what the creation charged: no tokens, no cost, nothing added to the budget.
    for (const path of ['/v1/chat/completions/chatcmpl-stored', '/v1/responses/resp_foreground']) {
      expect(await get(path), path).toEqual(nothing);
    }
    // A listing is not a model call: its size is not tokens either.
    expect(await get('/v1/models')).toEqual(nothing);

    // A background response and a batch report their usage only when retrieved: charged then.
    const background = await get('/v1/responses/resp_background');
    expect(background.tokens).toMatchObject({ inputTokens: 30, outputTokens: 20, totalTokens: 50 });
    expect(background.charged).toBe(50);
    expect(background.cost?.amountMicros).toBeGreaterThan(0);
    const batch = await get('/v1/batches/batch_done');
    expect(batch.tokens).toMatchObject({ inputTokens: 300, outputTokens: 200, totalTokens: 500 });
    expect(batch.charged).toBe(500);

    // Once: read again, on this replica or another, they are repeats.
    for (const path of ['/v1/responses/resp_background', '/v1/batches/batch_done']) {
      expect(await get(path), path).toEqual(nothing);
      expect(await get(path, replica), path).toEqual(nothing);
    }

    // A background Response created streaming is charged by its stream; reading it back is a repeat.
    const created = await call('/v1/responses', gw, {
      model: 'gpt-4o',
      input: 'hi',
      background: true,
      stream: true,
    });
    expect(created.tokens).toMatchObject({ inputTokens: 7, outputTokens: 3 });
    expect(created.charged).toBe(10);
    expect(await get('/v1/responses/resp_streamed', replica)).toEqual(nothing);
    await replica.close();
  });
});

describe('retrievals through a config', () => {
  test("a config target's own limits and the request's event share the one claim", async ({ redis }) => {
    const host = await startUpstream();
    const org = randomUUID();
    const key = `aigw_${randomUUID()}`;
    gw = await startControlPlaneGateway([], {}, {}, makeLimits(redis.client).limits, redis.client);
    gw.use([
      ...managedTenant(gw, { org, ws: randomUUID(), key, host }),
      gpt4oPrice(),
      // A provider policy is decided per call of a config target (limits.md "Config targets").
      {
        ...usagePolicy({
          type: UsageLimitType.TOKENS,
          creditLimit: 1_000_000,
          conditions: [{ key: 'provider', value: 'openai-prod' }],
          groupBy: [{ key: 'provider' }],
        }),
        organisationId: org,
      },
    ]);
    const read = async () => {
      const traceId = randomUUID();
      const res = await fetch(`${gw?.base}/v1/batches/batch_done`, {
        headers: {
          'x-service-api-key': key,
          'x-service-config': JSON.stringify({ provider: '@openai-prod' }),
          'x-service-trace-id': traceId,
        },
      });
      expect(res.status).toBe(200);
      await res.text();
      const event = await (gw as ControlPlaneGateway).eventFor(traceId);
      return { tokens: event.tokens?.totalTokens, charged: event.usageCharges.map((c) => c.amount) };
    };
    expect(await read()).toEqual({ tokens: 500, charged: [500] });
    expect(await read()).toEqual({ tokens: undefined, charged: [0] });
  });
});

describe('prompt completions and usage', () => {
  test("a prompt completion is charged its answer's usage, as the chat completion it is", async ({
    redis,
  }) => {
    const org = randomUUID();
    const ws = randomUUID();
    const key = `aigw_${randomUUID()}`;
    gw = await startControlPlaneGateway([], {}, {}, makeLimits(redis.client).limits);
    const prompt: Entity = {
      kind: EntityKind.PROMPT,
      id: randomUUID(),
      version: 1,
      tombstone: false,
      organisationId: org,
      workspaceId: ws,
      updatedAtMs: 0,
      body: {
        $case: 'prompt',
        value: {
          name: 'Greeting',
          slug: 'greeting',
          collectionId: '',
          status: EntityStatus.ACTIVE,
          defaultVersion: 1,
          versions: [
            {
              version: 1,
              template: JSON.stringify([{ role: 'user', content: 'Say hello to {{name}}' }]),
              model: 'gpt-4o',
              parametersJson: '{}',
              variableDefaultsJson: '{}',
              provider: '@openai-prod',
            },
          ],
          labels: {},
        },
      },
    };
    gw.use([
      ...managedTenant(gw, { org, ws, key }),
      gpt4oPrice(),
      prompt,
      {
        ...usagePolicy({
          type: UsageLimitType.TOKENS,
          creditLimit: 1_000_000,
          conditions: [{ key: 'workspace_id', value: ws }],
          groupBy: [{ key: 'workspace_id' }],
        }),
        organisationId: org,
      },
    ]);
    for (const stream of [false, true]) {
      const traceId = randomUUID();
      const res = await fetch(`${gw.base}/v1/prompts/greeting/completions`, {
        method: 'POST',
        headers: {
          'x-service-api-key': key,
          'x-service-trace-id': traceId,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ variables: { name: 'Ada' }, stream }),
      });
      expect(res.status).toBe(200);
      await res.text();
      const event = await gw.eventFor(traceId);
      expect(event.tokens?.totalTokens, `stream: ${stream}`).toBeGreaterThan(0);
      expect(event.usageCharges[0]?.amount, `stream: ${stream}`).toBe(event.tokens?.totalTokens);
    }
  });
});
