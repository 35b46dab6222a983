// Strategies, retries and timeouts end to end: the gateway app with configs whose targets are mock
// providers (one healthy, one always answering 429, one slow).
import { randomUUID } from 'node:crypto';
import { createMockProvider, type MockProvider } from '@aigw/mock-provider';
import { test } from '@aigw/testkit';
import { afterAll, describe, expect } from 'vitest';
import { eventFor as eventOf, type Harness, startHarness } from '../../test/harness.js';

let h: Harness;
let limited: MockProvider;
let slow: MockProvider;
const chat = (content = 'one two three', extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4o',
  messages: [{ role: 'user', content }],
  ...extra,
});

const target = (mock: MockProvider, key: string, extra: Record<string, unknown> = {}) => ({
  provider: 'openai',
  api_key: key,
  custom_host: `${mock.url}/v1`,
  ...extra,
});

function post(config: unknown, headers: Record<string, string> = {}, body: unknown = chat()) {
  return fetch(`${h.base}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-config': typeof config === 'string' ? config : JSON.stringify(config),
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

/** A conditional route (`then` is the config field's name). */
function when(query: Record<string, unknown>, name: string) {
  // biome-ignore lint/suspicious/noThenProperty: `then` is the config field's name; this is data, never awaited.
  return { query, then: name };
}

const routed = (res: Response) => ({
  status: res.status,
  retries: res.headers.get('x-service-retry-attempt-count'),
  option: res.headers.get('x-service-last-used-option-index'),
  cache: res.headers.get('x-service-cache-status'),
});

afterAll(async () => {
  await h?.close();
  await limited?.close();
  await slow?.close();
});

const eventForTrace = (traceId: string) => eventOf(h, traceId);

describe('strategies end to end', () => {
  test('set up', async ({ nats }) => {
    h = await startHarness(nats);
    limited = await createMockProvider({ status: 429, retryAfter: 0.05 });
    slow = await createMockProvider({ latencyMs: 3_000 });
  });

  test('fallback moves on from a 429 to the next target, which gets its own key as bearer', async () => {
    const trace = randomUUID();
    const res = await post(
      { strategy: { mode: 'fallback' }, targets: [target(limited, 'sk-first'), target(h.mock, 'sk-second')] },
      { 'x-service-trace-id': trace },
    );
    expect(routed(res)).toEqual({
      status: 200,
      retries: '0',
      option: 'config.targets[1]',
      cache: 'DISABLED',
    });
    expect(res.headers.get('x-service-provider')).toBe('openai');
    expect(((await res.json()) as { object: string }).object).toBe('chat.completion');
    expect(limited.requests.at(-1)?.headers.authorization).toBe('Bearer sk-first');
    expect(h.mock.requests.at(-1)?.headers.authorization).toBe('Bearer sk-second');
    const event = await eventForTrace(trace);
    expect(event.statusCode).toBe(200);
    expect(event.attempts.map((a) => [a.targetPath, a.statusCode, a.retryIndex])).toEqual([
      ['config.targets[0]', 429, 0],
      ['config.targets[1]', 200, 0],
    ]);
    expect(event.attempts[1]?.provider?.customHost).toBe(h.mock.url);
    expect(event.provider?.customHost).toBe(h.mock.url);
  });

  test('fallback with on_status_codes answers other statuses as they are', async () => {
    const res = await post({
      strategy: { mode: 'fallback', on_status_codes: [503] },
      targets: [target(limited, 'sk-first'), target(h.mock, 'sk-second')],
    });
    expect(routed(res)).toMatchObject({ status: 429, option: 'config.targets[0]' });
    expect(res.headers.get('x-service-gateway-error')).toBeNull();
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('rate_limit_exceeded');
  });

  test('loadbalance follows the weights within 5% over 2,000 requests', async () => {
    const config = JSON.stringify({
      strategy: { mode: 'loadbalance' },
      targets: [target(h.mock, 'sk-a', { weight: 0.7 }), target(h.mock, 'sk-b', { weight: 0.3 })],
    });
    const counts = new Map<string, number>();
    let next = 0;
    const worker = async () => {
      while (next < 2000) {
        next++;
        const res = await post(config);
        await res.arrayBuffer();
        expect(res.status).toBe(200);
        const option = res.headers.get('x-service-last-used-option-index') ?? '';
        counts.set(option, (counts.get(option) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    const first = (counts.get('config.targets[0]') ?? 0) / 2000;
    const second = (counts.get('config.targets[1]') ?? 0) / 2000;
    expect(first + second).toBe(1);
    expect(Math.abs(first - 0.7)).toBeLessThan(0.05);
  }, 120_000);

  test('conditional routes on metadata, with the target override_params', async () => {
    const config = {
      strategy: {
        mode: 'conditional',
        conditions: [when({ 'metadata.plan': { $eq: 'paid' } }, 'smart')],
        default: 'cheap',
      },
      targets: [
        target(h.mock, 'sk-smart', { name: 'smart', override_params: { model: 'gpt-4o' } }),
        target(h.mock, 'sk-cheap', { name: 'cheap', override_params: { model: 'gpt-4o-mini' } }),
      ],
    };
    const paid = await post(config, { 'x-service-metadata': '{"plan":"paid"}' }, chat('hi', { model: 'x' }));
    expect(routed(paid).option).toBe('config.targets[0]');
    expect(h.mock.requests.at(-1)?.json).toMatchObject({ model: 'gpt-4o' });
    const free = await post(config, { 'x-service-metadata': '{"plan":"free"}' }, chat('hi', { model: 'x' }));
    expect(routed(free).option).toBe('config.targets[1]');
    expect(h.mock.requests.at(-1)?.json).toMatchObject({
      model: 'gpt-4o-mini',
      messages: chat('hi').messages,
    });
  });

  test('a conditional dead end is a 400 that still carries the config headers', async () => {
    const res = await post({
      strategy: { mode: 'conditional', conditions: [when({ 'metadata.plan': 'paid' }, 'a')] },
      targets: [target(h.mock, 'sk', { name: 'a' })],
    });
    expect(routed(res)).toEqual({ status: 400, retries: '0', option: 'config', cache: 'DISABLED' });
    const body = (await res.json()) as { error: { code: string; param: string } };
    expect(body.error).toMatchObject({ code: 'no_matching_target', param: 'config.strategy' });
  });

  test('retries wait as retry-after asks, and each attempt is in the event', async () => {
    const trace = randomUUID();
    const started = Date.now();
    const res = await post(
      { retry: { attempts: 2, use_retry_after_header: true }, ...target(h.mock, 'sk') },
      {
        'x-service-trace-id': trace,
        'x-mock-scenario': trace,
        'x-mock-fail-first': '1',
        'x-mock-fail-status': '429',
        'x-mock-retry-after': '0.4',
      },
    );
    expect(routed(res)).toEqual({ status: 200, retries: '1', option: 'config', cache: 'DISABLED' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    const event = await eventForTrace(trace);
    expect(event.attempts.map((a) => [a.targetPath, a.statusCode, a.retryIndex])).toEqual([
      ['config', 429, 0],
      ['config', 200, 1],
    ]);
    expect(event.attempts[1]!.startedAtMs - event.attempts[0]!.startedAtMs).toBeGreaterThanOrEqual(400);
  });

  test('retries run out, then the last answer is relayed unchanged', async () => {
    const res = await post({ retry: { attempts: 2 }, ...target(limited, 'sk') });
    expect(routed(res)).toMatchObject({ status: 429, retries: '2' });
    expect(res.headers.get('retry-after-ms')).toBe('50');
  });

  test('a target timeout moves the fallback on', async () => {
    const trace = randomUUID();
    const res = await post(
      {
        strategy: { mode: 'fallback' },
        targets: [target(slow, 'sk', { request_timeout: 200 }), target(h.mock, 'sk')],
      },
      { 'x-service-trace-id': trace },
    );
    expect(routed(res)).toMatchObject({ status: 200, option: 'config.targets[1]' });
    const event = await eventForTrace(trace);
    expect(event.attempts[0]).toMatchObject({ targetPath: 'config.targets[0]', statusCode: 0 });
    expect(event.attempts[0]?.error?.code).toBe('request_timeout');
    expect(event.error).toBeUndefined();
  });

  test('the last target timing out answers 408 with the config headers', async () => {
    const res = await post(target(slow, 'sk', { request_timeout: 150 }));
    expect(routed(res)).toMatchObject({ status: 408, option: 'config', retries: '0' });
    expect(res.headers.get('x-service-gateway-error')).toBe('true');
  });

  test('a stream cut after its first byte is neither retried nor passed to a fallback', async () => {
    const trace = randomUUID();
    const before = h.mock.requests.length;
    const res = await post(
      {
        retry: { attempts: 3, on_status_codes: [500, 502] },
        strategy: { mode: 'fallback' },
        targets: [target(h.mock, 'a'), target(h.mock, 'b')],
      },
      { 'x-service-trace-id': trace, 'x-mock-cut-after-chunks': '2' },
      chat('one two three four five', { stream: true }),
    );
    expect(routed(res)).toMatchObject({ status: 200, option: 'config.targets[0]', retries: '0' });
    await expect(res.text()).rejects.toThrow();
    expect(h.mock.requests.length - before).toBe(1);
    const event = await eventForTrace(trace);
    expect(event.attempts).toHaveLength(1);
    expect(event.error?.code).toBe('upstream_interrupted');
  });

  test('a client that leaves during the strategy stops it, and the request still gets its event', async () => {
    const trace = randomUUID();
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 300);
    const res = await fetch(`${h.base}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-trace-id': trace,
        'x-service-config': JSON.stringify({
          strategy: { mode: 'fallback' },
          targets: [target(slow, 'sk'), target(h.mock, 'sk-never')],
        }),
      },
      body: JSON.stringify(chat()),
      signal: controller.signal,
    }).catch((err: unknown) => err);
    expect(res).toBeInstanceOf(Error);
    const event = await eventForTrace(trace);
    expect(event.attempts.map((a) => [a.targetPath, a.error?.code])).toEqual([
      ['config.targets[0]', 'client_closed'],
    ]);
    expect(h.mock.requests.some((r) => r.headers.authorization === 'Bearer sk-never')).toBe(false);
  });

  test('config errors are 400s naming the JSON path', async () => {
    const invalid = await post({
      strategy: { mode: 'fallback' },
      targets: [{ provider: 'openai', weight: 2 }],
    });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('x-service-gateway-error')).toBe('true');
    const err = ((await invalid.json()) as { error: { code: string; param: string; message: string } }).error;
    expect(err).toMatchObject({ code: 'invalid_config', param: 'config.targets[0].weight' });
    expect(err.message).toContain('config.targets[0].weight');
    const saved = await post('pc-1234');
    expect(saved.status).toBe(400);
    expect(((await saved.json()) as { error: { code: string } }).error.code).toBe('config_unavailable');
    const managed = await post({ provider: '@prod' });
    expect(((await managed.json()) as { error: { param: string } }).error.param).toBe('config.provider');
  });

  test('without a config the response carries none of the config headers', async () => {
    const res = await fetch(`${h.base}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...h.openaiHeaders, authorization: 'Bearer sk', 'content-type': 'application/json' },
      body: JSON.stringify(chat()),
    });
    expect(res.status).toBe(200);
    expect(routed(res)).toEqual({ status: 200, retries: null, option: null, cache: null });
  });
});
