// The response cache through the gateway app: a config's `cache` with Redis storage, replay of JSON
// and event streams, namespaces, force refresh, TTL, and semantic hits against the mock's embeddings.
import { randomUUID } from 'node:crypto';
import { createMockProvider, type MockProvider } from '@aigw/mock-provider';
import { CacheStatus } from '@aigw/proto';
import { test } from '@aigw/testkit';
import { afterAll, describe, expect } from 'vitest';
import { eventFor as eventOf, type Harness, startHarness } from '../../test/harness.js';

let h: Harness;
let embeddings: MockProvider;
const settle = () => new Promise((r) => setTimeout(r, 50));

function config(cache: Record<string, unknown>) {
  return JSON.stringify({ cache, provider: 'openai', api_key: 'sk-c', custom_host: `${h.mock.url}/v1` });
}

function ask(cacheConfig: string, content: string, headers: Record<string, string> = {}, stream = false) {
  return fetch(`${h.base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-config': cacheConfig, ...headers },
    body: JSON.stringify({ model: 'gpt-4o', stream, messages: [{ role: 'user', content }] }),
  });
}

async function answer(res: Response) {
  return { status: res.headers.get('x-service-cache-status'), text: await res.text() };
}

afterAll(async () => {
  await h?.close();
  await embeddings?.close();
});

const eventForTrace = (traceId: string) => eventOf(h, traceId);

describe('response cache end to end', () => {
  test('set up', async ({ nats, redis }) => {
    embeddings = await createMockProvider();
    h = await startHarness(nats, {
      REDIS_URL: redis.url,
      SEMANTIC_CACHE_EMBEDDINGS_URL: `${embeddings.url}/v1`,
      SEMANTIC_CACHE_EMBEDDINGS_API_KEY: 'sk-embeddings',
    });
  });

  test('the second identical request is a HIT with the same bytes, without calling the provider', async () => {
    const simple = config({ mode: 'simple', max_age: 60 });
    const question = `one two ${randomUUID()}`;
    const first = await ask(simple, question);
    expect(first.headers.get('content-encoding')).toBeNull();
    const a = await answer(first);
    expect(a.status).toBe('MISS');
    expect(h.mock.requests.at(-1)?.headers['accept-encoding']).toBe('identity');
    await settle();
    const calls = h.mock.requests.length;
    const trace = randomUUID();
    const second = await ask(simple, question, { 'x-service-trace-id': trace });
    expect(second.status).toBe(200);
    expect(second.headers.get('x-service-trace-id')).toBe(trace);
    expect(second.headers.get('x-service-last-used-option-index')).toBe('config');
    expect(second.headers.get('x-service-provider')).toBe('openai');
    const b = await answer(second);
    expect(b).toEqual({ status: 'HIT', text: a.text });
    expect(h.mock.requests.length).toBe(calls);
    const event = await eventForTrace(trace);
    expect(event.cacheStatus).toBe(CacheStatus.HIT);
    expect(event.attempts).toEqual([]);
    expect(event.statusCode).toBe(200);
    expect(event.upstreamStartedAtMs).toBe(0);
    expect(event.upstreamEndedAtMs).toBe(0);
    expect(event.latency?.upstreamUs).toBe(0);
    expect(event.responseSizeBytes).toBe(Buffer.byteLength(a.text));
  });

  test('a streamed answer is replayed as the same event-stream bytes', async () => {
    const simple = config({ mode: 'simple' });
    const question = `stream me ${randomUUID()}`;
    const first = await ask(simple, question, {}, true);
    const a = await answer(first);
    expect(a.status).toBe('MISS');
    expect(a.text).toBe(h.mock.requests.at(-1)?.response?.body.toString());
    await settle();
    const second = await ask(simple, question, {}, true);
    expect(second.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await answer(second)).toEqual({ status: 'HIT', text: a.text });
  });

  test('namespaces are separate partitions', async () => {
    const simple = config({ mode: 'simple' });
    const question = `namespaced ${randomUUID()}`;
    expect((await answer(await ask(simple, question, { 'x-service-cache-namespace': 'a' }))).status).toBe(
      'MISS',
    );
    await settle();
    expect((await answer(await ask(simple, question, { 'x-service-cache-namespace': 'a' }))).status).toBe(
      'HIT',
    );
    expect((await answer(await ask(simple, question, { 'x-service-cache-namespace': 'b' }))).status).toBe(
      'MISS',
    );
    expect((await answer(await ask(simple, question))).status).toBe('MISS');
  });

  test('force refresh calls the provider and replaces the entry', async () => {
    const simple = config({ mode: 'simple' });
    const question = `refresh ${randomUUID()}`;
    await answer(await ask(simple, question));
    await settle();
    const calls = h.mock.requests.length;
    const refreshed = await answer(await ask(simple, question, { 'x-service-cache-force-refresh': 'true' }));
    expect(refreshed.status).toBe('REFRESH');
    expect(h.mock.requests.length).toBe(calls + 1);
    await settle();
    expect(await answer(await ask(simple, question))).toEqual({ status: 'HIT', text: refreshed.text });
    const bad = await ask(simple, question, { 'x-service-cache-force-refresh': 'sometimes' });
    expect(bad.status).toBe(400);
  });

  test('entries expire after max_age', async () => {
    const short = config({ mode: 'simple', max_age: 1 });
    const question = `short lived ${randomUUID()}`;
    expect((await answer(await ask(short, question))).status).toBe('MISS');
    await settle();
    expect((await answer(await ask(short, question))).status).toBe('HIT');
    await new Promise((r) => setTimeout(r, 1_200));
    expect((await answer(await ask(short, question))).status).toBe('MISS');
  });

  test('failed answers are not stored', async () => {
    const simple = config({ mode: 'simple' });
    const question = `failing ${randomUUID()}`;
    const failed = await ask(simple, question, { 'x-mock-status': '500' });
    expect(failed.status).toBe(500);
    expect((await answer(failed)).status).toBe('MISS');
    await settle();
    expect((await answer(await ask(simple, question))).status).toBe('MISS');
  });

  test('semantic mode answers a close paraphrase and not a different question', async () => {
    const semantic = config({ mode: 'semantic', similarity_threshold: 0.9 });
    const ns = { 'x-service-cache-namespace': randomUUID() };
    const original = await answer(await ask(semantic, 'what is the capital city of france', ns));
    expect(original.status).toBe('SEMANTIC MISS');
    await settle();
    // 7 of 8 words shared: cosine sqrt(7/8) = 0.935 >= 0.9.
    const paraphrase = await answer(await ask(semantic, 'what is the capital city of france please', ns));
    expect(paraphrase).toEqual({ status: 'SEMANTIC HIT', text: original.text });
    // 6 of 7 words shared: cosine 6/7 = 0.857 < 0.9.
    const other = await answer(await ask(semantic, 'what is the capital city of spain', ns));
    expect(other.status).toBe('SEMANTIC MISS');
    expect(other.text).not.toBe(original.text);
    expect(embeddings.requests.at(-1)?.headers.authorization).toBe('Bearer sk-embeddings');
    await settle();
    expect((await answer(await ask(semantic, 'what is the capital city of spain', ns))).status).toBe('HIT');
  });
});
