// The pipeline holds every kind of answer until its request event is kept (issue 23 item 4): the
// publisher's whenKept is replaced by one that keeps each turn's events a few milliseconds late and
// records which it kept; a client that has a complete answer must find its event among them.
// Kinds: pass-through JSON and stream, a config with fallback, a cache miss and its hit, a
// translated call (OpenAI body to an Anthropic provider) as JSON and stream, and gateway errors.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMockProvider, type MockProvider } from '@aigw/mock-provider';
import { createLogger } from '@aigw/runtime';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadGatewayConfig } from '../config.js';
import { createGatewayPipeline } from './gateway-pipeline.js';

let mock: MockProvider;
let server: Server;
let base: string;
/** Trace ids of the events published, and of those kept. */
const published: string[] = [];
const kept = new Set<string>();

beforeAll(async () => {
  mock = await createMockProvider();
  const config = loadGatewayConfig({
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    CUSTOM_HOST_ALLOWLIST: '127.0.0.1',
  });
  /** Events published since the last keep: all kept together, as the journal's turn does. */
  let pending: string[] = [];
  const pipeline = createGatewayPipeline({
    config,
    instanceId: 'hold-test',
    log: createLogger({ app: 'gateway', level: 'silent' }),
    publish: (event) => {
      const built = typeof event === 'function' ? event() : event;
      published.push(built.traceId);
      pending.push(built.traceId);
    },
    whenKept: (done) => {
      // Later than the journal's setImmediate, so an answer not held would reach the client first.
      setTimeout(() => {
        for (const id of pending) kept.add(id);
        pending = [];
        done();
      }, 15);
    },
  });
  server = createServer((req, res) => void pipeline.http(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});

afterAll(async () => {
  server?.closeAllConnections();
  await new Promise((resolve) => server?.close(resolve));
  await mock?.close();
});

let n = 0;

/** Sends a chat completion; returns the status and the whole body once the client has it. */
async function ask(
  headers: Record<string, string>,
  body: Record<string, unknown> = {},
): Promise<{ traceId: string; status: number; text: string; keptWhenComplete: boolean }> {
  const traceId = `hold-${++n}`;
  const res = await fetch(`${base}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-trace-id': traceId, ...headers },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: traceId }], ...body }),
  });
  const text = await res.text();
  // Read in the turn the last byte arrived: nothing has been kept since.
  const keptWhenComplete = kept.has(traceId);
  return { traceId, status: res.status, text, keptWhenComplete };
}

const openai = () => ({
  'x-service-provider': 'openai',
  'x-service-custom-host': `${mock.url}/v1`,
  authorization: 'Bearer sk-test',
});

describe('completion hold through the pipeline', () => {
  test('a pass-through JSON answer and a streamed one complete only after their events are kept', async () => {
    const json = await ask(openai());
    expect(json.status).toBe(200);
    expect(json.text).toContain('"choices"');
    expect(json.keptWhenComplete).toBe(true);
    const stream = await ask(openai(), { stream: true });
    expect(stream.status).toBe(200);
    expect(stream.text).toContain('data: [DONE]');
    expect(stream.keptWhenComplete).toBe(true);
  });

  test('config answers (fallback, cache miss and hit) complete only after their events are kept', async () => {
    const config = JSON.stringify({
      strategy: { mode: 'fallback' },
      cache: { mode: 'simple', max_age: 60 },
      targets: [
        { provider: 'openai', api_key: 'sk-a', custom_host: 'http://127.0.0.1:1/v1' },
        { provider: 'openai', api_key: 'sk-b', custom_host: `${mock.url}/v1` },
      ],
    });
    const miss = await ask({ 'x-service-config': config }, { messages: [{ role: 'user', content: 'same' }] });
    expect(miss.status).toBe(200);
    expect(miss.keptWhenComplete).toBe(true);
    const hit = await ask({ 'x-service-config': config }, { messages: [{ role: 'user', content: 'same' }] });
    expect(hit.status).toBe(200);
    expect(hit.text).toBe(miss.text);
    expect(hit.keptWhenComplete).toBe(true);
  });

  test('translated answers (JSON and stream) complete only after their events are kept', async () => {
    const anthropic = { 'x-service-provider': 'anthropic', 'x-service-custom-host': `${mock.url}/v1` };
    const json = await ask({ ...anthropic, authorization: 'Bearer sk-ant' });
    expect(json.status).toBe(200);
    expect(json.text).toContain('"choices"');
    expect(json.keptWhenComplete).toBe(true);
    const stream = await ask({ ...anthropic, authorization: 'Bearer sk-ant' }, { stream: true });
    expect(stream.status).toBe(200);
    expect(stream.text).toContain('data: ');
    expect(stream.keptWhenComplete).toBe(true);
  });

  test('gateway error answers complete only after their events are kept', async () => {
    const unknown = await ask({ 'x-service-provider': 'no-such-provider' });
    expect(unknown.status).toBe(400);
    expect(JSON.parse(unknown.text).error.message).toBeTruthy();
    expect(unknown.keptWhenComplete).toBe(true);
    const unreachable = await ask({
      'x-service-provider': 'openai',
      'x-service-custom-host': 'http://127.0.0.1:1/v1',
    });
    expect(unreachable.status).toBe(502);
    expect(unreachable.keptWhenComplete).toBe(true);
  });

  test('every answer published exactly one event', () => {
    expect(published).toHaveLength(n);
    expect(new Set(published).size).toBe(n);
  });
});
