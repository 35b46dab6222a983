// A config with both a cache and guardrails through the gateway app: a cache hit still runs the
// output guardrails (they read metadata, which is no part of the cache key), and a request its
// input guardrails deny never counts as a cache hit.
import { randomUUID } from 'node:crypto';
import { CacheStatus } from '@aigw/proto';
import { type NatsFixture, test } from '@aigw/testkit';
import { afterAll, describe, expect } from 'vitest';
import { eventFor, type Harness, startHarness } from '../../test/harness.js';

let h: Harness | undefined;

async function harness(nats: NatsFixture): Promise<Harness> {
  h ??= await startHarness(nats);
  return h;
}

afterAll(async () => {
  await h?.close();
});

/** The cache stores off the client's path: wait until a lookup of `question` would find it. */
async function stored(gw: Harness, config: unknown, question: string, metadata: string): Promise<void> {
  for (let i = 0; i < 50; i++) {
    const res = await ask(gw, config, question, { 'x-service-metadata': metadata });
    await res.text();
    if (res.headers.get('x-service-cache-status') === 'HIT') return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error('the answer was never stored');
}

function ask(gw: Harness, config: unknown, content: string, headers: Record<string, string> = {}) {
  return fetch(`${gw.base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-config': JSON.stringify(config), ...headers },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content }] }),
  });
}

const needsTeam = (deny: boolean) => [
  { deny, checks: [{ id: 'required_metadata_keys', parameters: { keys: ['team'] } }] },
];

function cached(gw: Harness, extra: Record<string, unknown>) {
  return {
    provider: 'openai',
    api_key: 'sk-cg',
    custom_host: `${gw.mock.url}/v1`,
    cache: { mode: 'simple', max_age: 60 },
    ...extra,
  };
}

const TEAM = '{"team":"search"}';

describe('cache and guardrails together', () => {
  test('a cache hit runs the output guardrails: without the metadata they need it is denied', async ({
    nats,
  }) => {
    const gw = await harness(nats);
    const config = cached(gw, { output_guardrails: needsTeam(true) });
    const question = `cached ${randomUUID()}`;
    const first = await ask(gw, config, question, { 'x-service-metadata': TEAM });
    expect(first.status).toBe(200);
    expect(first.headers.get('x-service-cache-status')).toBe('MISS');
    const original = await first.text();
    await stored(gw, config, question, TEAM);

    const calls = gw.mock.requests.length;
    const trace = randomUUID();
    const denied = await ask(gw, config, question, { 'x-service-trace-id': trace });
    expect(denied.status).toBe(446);
    expect(denied.headers.get('x-service-cache-status')).toBe('HIT');
    expect(denied.headers.get('x-service-gateway-error')).toBe('true');
    const body = (await denied.json()) as {
      error: { code: string };
      hook_results: { after_request_hooks: Array<{ verdict: boolean; checks: Array<{ id: string }> }> };
    };
    expect(body.error.code).toBe('guardrail_denied');
    expect(body.hook_results.after_request_hooks).toMatchObject([
      { verdict: false, checks: [{ id: 'required_metadata_keys' }] },
    ]);
    const event = await eventFor(gw, trace);
    expect(event.statusCode).toBe(446);
    expect(event.cacheStatus).toBe(CacheStatus.HIT);
    expect(event.guardrailResults).toMatchObject([{ verdict: false, denied: true }]);

    const allowed = await ask(gw, config, question, { 'x-service-metadata': TEAM });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get('x-service-cache-status')).toBe('HIT');
    expect(await allowed.text()).toBe(original);
    expect(gw.mock.requests.length).toBe(calls);
  });

  test('a cache hit whose output guardrail fails without deny is a 246 with the stored body and results', async ({
    nats,
  }) => {
    const gw = await harness(nats);
    const config = cached(gw, { output_guardrails: needsTeam(false) });
    const question = `cached soft ${randomUUID()}`;
    const first = await ask(gw, config, question, { 'x-service-metadata': TEAM });
    const original = JSON.parse(await first.text()) as Record<string, unknown>;
    await stored(gw, config, question, TEAM);
    const res = await ask(gw, config, question);
    expect(res.status).toBe(246);
    expect(res.headers.get('x-service-cache-status')).toBe('HIT');
    const { hook_results, ...rest } = (await res.json()) as { hook_results: unknown };
    expect(rest).toEqual(original);
    expect(hook_results).toMatchObject({
      before_request_hooks: [],
      after_request_hooks: [{ verdict: false, deny: false }],
    });
  });

  test('a request its input guardrails deny is answered 446 with the cache DISABLED, never a HIT', async ({
    nats,
  }) => {
    const gw = await harness(nats);
    const config = cached(gw, { input_guardrails: needsTeam(true) });
    const question = `cached input ${randomUUID()}`;
    const first = await ask(gw, config, question, { 'x-service-metadata': TEAM });
    expect(first.headers.get('x-service-cache-status')).toBe('MISS');
    await first.text();
    await stored(gw, config, question, TEAM);
    const trace = randomUUID();
    const denied = await ask(gw, config, question, { 'x-service-trace-id': trace });
    expect(denied.status).toBe(446);
    expect(denied.headers.get('x-service-cache-status')).toBe('DISABLED');
    await denied.text();
    const event = await eventFor(gw, trace);
    expect(event.cacheStatus).toBe(CacheStatus.DISABLED);
    expect(event.attempts).toEqual([]);
  });
});
