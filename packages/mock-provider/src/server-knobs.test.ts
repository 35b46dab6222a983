import { describe, expect, it } from 'vitest';
import { ANTHROPIC_AUTH, json, OPENAI_AUTH, postJson, useMock } from '../test/helpers.js';
import { createMockProvider, DEFAULT_AWS_CREDENTIALS } from './server.js';
import { signAwsRequest } from './sigv4.js';

const mock = useMock();
const chatBody = { model: 'gpt-4o', messages: [{ role: 'user', content: 'knob test' }] };
const chat = (headers: Record<string, string> = {}) =>
  postJson(`${mock().url}/v1/chat/completions`, chatBody, { ...OPENAI_AUTH, ...headers });

async function timed(call: () => Promise<Response>): Promise<{ res: Response; elapsed: number }> {
  const started = performance.now();
  const res = await call();
  return { res, elapsed: performance.now() - started };
}

// Timers may fire up to a millisecond early against performance.now(); the bound stays a lower bound.
const SLACK_MS = 2;

describe('latencyMs', () => {
  it('delays the response headers by at least the per-request header value', async () => {
    const { res, elapsed } = await timed(() => chat({ 'x-mock-latency-ms': '250' }));
    expect(res.status).toBe(200);
    expect(elapsed).toBeGreaterThanOrEqual(250 - SLACK_MS);
  });

  it('applies a server-wide value from options and from POST /_mock/config', async () => {
    const slow = await createMockProvider({ latencyMs: 200 });
    try {
      const { elapsed } = await timed(() =>
        postJson(`${slow.url}/v1/chat/completions`, chatBody, OPENAI_AUTH),
      );
      expect(elapsed).toBeGreaterThanOrEqual(200 - SLACK_MS);
    } finally {
      await slow.close();
    }
    const configured = await postJson(`${mock().url}/_mock/config`, { latencyMs: 150 });
    expect((await json(configured)).latencyMs).toBe(150);
    const { elapsed } = await timed(() => chat());
    expect(elapsed).toBeGreaterThanOrEqual(150 - SLACK_MS);
  });
});

describe('status', () => {
  it('answers with the status in each provider shape', async () => {
    const openai = await chat({ 'x-mock-status': '429' });
    expect(openai.status).toBe(429);
    expect((await json(openai)).error).toMatchObject({
      type: 'requests',
      code: 'rate_limit_exceeded',
      param: null,
    });

    const anthropic = await postJson(
      `${mock().url}/v1/messages`,
      { model: 'c', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] },
      { ...ANTHROPIC_AUTH, 'x-mock-status': '529' },
    );
    expect(anthropic.status).toBe(529);
    expect(await json(anthropic)).toMatchObject({ type: 'error', error: { type: 'overloaded_error' } });

    const url = `${mock().url}/model/m/converse`;
    const body = JSON.stringify({ messages: [{ role: 'user', content: [{ text: 'x' }] }] });
    const headers = signAwsRequest({
      method: 'POST',
      url,
      body,
      region: 'us-east-1',
      credentials: DEFAULT_AWS_CREDENTIALS,
      headers: { 'x-mock-status': '429' },
    });
    const bedrock = await fetch(url, { method: 'POST', headers, body });
    expect(bedrock.status).toBe(429);
    expect(bedrock.headers.get('x-amzn-errortype')).toMatch(/^ThrottlingException:/);
    expect(Object.keys(await json(bedrock))).toEqual(['message']);

    const vertex = await postJson(
      `${mock().url}/v1/projects/p/locations/l/publishers/google/models/g:generateContent`,
      { contents: [{ role: 'user', parts: [{ text: 'x' }] }] },
      { authorization: 'Bearer t', 'x-mock-status': '503' },
    );
    expect((await json(vertex)).error).toMatchObject({ code: 503, status: 'UNAVAILABLE' });

    const azure = await postJson(
      `${mock().url}/openai/deployments/d/chat/completions?api-version=2024-10-21`,
      chatBody,
      {
        'api-key': 'k',
        'x-mock-status': '500',
      },
    );
    expect(azure.status).toBe(500);
    expect((await json(azure)).error).toMatchObject({ type: 'server_error', code: '500' });
  });

  it('applies a server-wide status until it is reset with null, and never before auth', async () => {
    mock().configure({ status: 503 });
    expect((await chat()).status).toBe(503);
    const unauthenticated = await postJson(`${mock().url}/v1/chat/completions`, chatBody);
    expect(unauthenticated.status).toBe(401);
    mock().configure({ status: null });
    expect((await chat()).status).toBe(200);
  });
});

describe('failFirst and failStatus', () => {
  it('fails the first N calls with 500, then succeeds', async () => {
    mock().configure({ failFirst: 2 });
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await chat()).status);
    expect(statuses).toEqual([500, 500, 200, 200]);
    const failure = await chat({ 'x-mock-status': '400' });
    expect(failure.status).toBe(400);
  });

  it('uses failStatus and keeps separate counters per x-mock-scenario', async () => {
    const a = { 'x-mock-fail-first': '1', 'x-mock-fail-status': '429', 'x-mock-scenario': 'a' };
    const b = { ...a, 'x-mock-scenario': 'b' };
    const seq = [await chat(a), await chat(b), await chat(a), await chat(b)].map((r) => r.status);
    expect(seq).toEqual([429, 429, 200, 200]);
  });

  it('resets counters through DELETE /_mock/counters, resetCounters() and configure()', async () => {
    const headers = { 'x-mock-fail-first': '1', 'x-mock-scenario': 'reset-me' };
    expect((await chat(headers)).status).toBe(500);
    expect((await chat(headers)).status).toBe(200);
    expect((await fetch(`${mock().url}/_mock/counters?scenario=reset-me`, { method: 'DELETE' })).status).toBe(
      204,
    );
    expect((await chat(headers)).status).toBe(500);
    mock().resetCounters('reset-me');
    expect((await chat(headers)).status).toBe(500);
    mock().configure({ failFirst: 1 });
    expect((await chat()).status).toBe(500);
    expect((await chat()).status).toBe(200);
    mock().configure({ failFirst: 1 });
    expect((await chat()).status).toBe(500);
  });

  it('does not count calls rejected by auth', async () => {
    mock().configure({ failFirst: 1 });
    expect((await postJson(`${mock().url}/v1/chat/completions`, chatBody)).status).toBe(401);
    expect((await chat()).status).toBe(500);
    expect((await chat()).status).toBe(200);
  });
});

describe('retryAfter', () => {
  it('sets retry-after and retry-after-ms on failures only', async () => {
    const failed = await chat({ 'x-mock-status': '429', 'x-mock-retry-after': '2' });
    expect(failed.headers.get('retry-after')).toBe('2');
    expect(failed.headers.get('retry-after-ms')).toBe('2000');
    const ok = await chat({ 'x-mock-retry-after': '2' });
    expect(ok.status).toBe(200);
    expect(ok.headers.get('retry-after')).toBeNull();
    mock().configure({ retryAfter: 0.5, failFirst: 1 });
    const fractional = await chat();
    expect(fractional.status).toBe(500);
    expect(fractional.headers.get('retry-after')).toBe('1');
    expect(fractional.headers.get('retry-after-ms')).toBe('500');
  });
});

describe('knob validation', () => {
  it('answers 400 for an unusable header value and for an unknown config knob', async () => {
    const bad = await chat({ 'x-mock-latency-ms': 'soon' });
    expect(bad.status).toBe(400);
    expect((await json(bad)).error.message).toMatch(/latencyMs/);
    const unknown = await postJson(`${mock().url}/_mock/config`, { latency: 5 });
    expect(unknown.status).toBe(400);
    expect((await json(unknown)).error.message).toMatch(/unknown knob: latency/);
    expect(() => mock().configure({ status: 42 })).toThrow(/HTTP status/);
  });
});
