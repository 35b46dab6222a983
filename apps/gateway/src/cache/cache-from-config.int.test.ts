import type { CacheSettings } from '@aigw/config-schema';
import { createMockProvider, type MockProvider } from '@aigw/mock-provider';
import { test } from '@aigw/testkit';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { loadGatewayConfig } from '../config.js';
import { createGatewayResponseCache } from './cache-from-config.js';
import type { CachedResponse } from './types.js';

const semantic: CacheSettings = { mode: 'semantic', max_age: 60, similarity_threshold: 0.9 };
const answer: CachedResponse = {
  status: 200,
  headers: { 'content-type': 'application/json' },
  body: Buffer.from('{"answer":"Paris"}'),
  streamed: false,
  storedAt: 1,
};
const request = (question: string) => ({
  settings: semantic,
  method: 'POST',
  path: '/chat/completions',
  provider: 'openai',
  url: 'https://api.openai.com/v1/chat/completions',
  body: { model: 'gpt-4o', messages: [{ role: 'user', content: question }] },
});

let mock: MockProvider;
beforeAll(async () => {
  mock = await createMockProvider();
});
afterAll(() => mock.close());

describe('cache settings', () => {
  test('have documented defaults and are validated', () => {
    const config = loadGatewayConfig({});
    expect(config).toMatchObject({
      CACHE_MEMORY_MAX_ENTRIES: 10_000,
      CACHE_MEMORY_MAX_BYTES: 256 * 1024 * 1024,
      CACHE_MAX_ENTRY_BYTES: 4 * 1024 * 1024,
      SEMANTIC_CACHE_EMBEDDINGS_MODEL: 'text-embedding-3-small',
      SEMANTIC_CACHE_EMBEDDINGS_TIMEOUT_MS: 2_000,
      SEMANTIC_CACHE_SCAN_LIMIT: 1000,
    });
    expect(config.SEMANTIC_CACHE_EMBEDDINGS_URL).toBeUndefined();
    expect(() => loadGatewayConfig({ SEMANTIC_CACHE_EMBEDDINGS_URL: 'ftp://x' })).toThrow(
      /SEMANTIC_CACHE_EMBEDDINGS_URL/,
    );
    expect(() => loadGatewayConfig({ SEMANTIC_CACHE_SCAN_LIMIT: '0' })).toThrow(/SEMANTIC_CACHE_SCAN_LIMIT/);
  });

  test('without an embeddings URL, semantic mode works as simple mode in memory', async () => {
    const cache = createGatewayResponseCache(loadGatewayConfig({}), undefined);
    const first = await cache.lookup(request('What is the capital of France?'));
    expect(first.status).toBe('MISS');
    await first.store(answer);
    const second = await cache.lookup(request('What is the capital of France?'));
    expect(second.status).toBe('HIT');
    expect(second.hit?.body.toString()).toBe('{"answer":"Paris"}');
    expect((await cache.lookup(request('what is the capital city of France'))).status).toBe('MISS');
  });

  test('with REDIS_URL and an embeddings URL, answers and vectors live in Redis', async ({ redis }) => {
    const config = loadGatewayConfig({
      SEMANTIC_CACHE_EMBEDDINGS_URL: `${mock.url}/v1`,
      SEMANTIC_CACHE_EMBEDDINGS_API_KEY: 'sk-test',
    });
    const cache = createGatewayResponseCache(config, redis.client);
    const first = await cache.lookup(request('What is the capital of France?'));
    expect(first.status).toBe('SEMANTIC MISS');
    await first.store(answer);
    const embeddings = mock.requests.filter((r) => r.path === '/v1/embeddings');
    expect(embeddings.at(-1)?.json).toEqual({
      model: 'text-embedding-3-small',
      input: 'What is the capital of France?',
    });
    expect(embeddings.at(-1)?.headers.authorization).toBe('Bearer sk-test');
    // A second cache over the same Redis (another replica) sees both.
    const replica = createGatewayResponseCache(config, redis.client);
    const similar = await replica.lookup(request('what is the capital city of France'));
    expect(similar.status).toBe('SEMANTIC HIT');
    expect(similar.similarity).toBeGreaterThan(0.9);
    expect(similar.hit?.body.toString()).toBe('{"answer":"Paris"}');
  });

  test('a semantic refresh embeds when storing, so paraphrases find the fresh answer', async ({ redis }) => {
    const config = loadGatewayConfig({
      SEMANTIC_CACHE_EMBEDDINGS_URL: `${mock.url}/v1`,
      SEMANTIC_CACHE_EMBEDDINGS_API_KEY: 'sk-test',
    });
    const cache = createGatewayResponseCache(config, redis.client);
    const embeddings = () => mock.requests.filter((r) => r.path === '/v1/embeddings').length;
    const before = embeddings();
    const refresh = await cache.lookup({ ...request('What is the capital of Peru?'), forceRefresh: true });
    expect(refresh.status).toBe('REFRESH');
    expect(embeddings()).toBe(before);
    await refresh.store({ ...answer, body: Buffer.from('{"answer":"Lima"}') });
    expect(embeddings()).toBe(before + 1);
    const similar = await cache.lookup(request('what is the capital city of Peru'));
    expect(similar.status).toBe('SEMANTIC HIT');
    expect(similar.hit?.body.toString()).toBe('{"answer":"Lima"}');
  });
});
