import { createServer, type IncomingHttpHeaders, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { CacheSettings } from '@aigw/config-schema';
import { createMockProvider, type MockProvider } from '@aigw/mock-provider';
import { type RedisFixture, test } from '@aigw/testkit';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { createEmbedder } from './embedder.js';
import { createMemorySemanticIndex } from './memory-semantic-index.js';
import { createMemoryCacheStore } from './memory-store.js';
import { ResponseRecorder } from './recorder.js';
import { createRedisSemanticIndex } from './redis-semantic-index.js';
import { createRedisCacheStore } from './redis-store.js';
import { replay } from './replay.js';
import { type CacheFailureStage, createResponseCache, type ResponseCacheDeps } from './response-cache.js';

interface Exchange {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
  cache: string | undefined;
}

/**
 * A minimal gateway around the cache stage: lookup -> replay a hit, or forward to the mock while
 * recording -> store after the response. `settled()` waits for the stores still running.
 */
async function startGateway(deps: ResponseCacheDeps, upstream: string) {
  const cache = createResponseCache(deps);
  let settings: CacheSettings | undefined;
  const pending = new Set<Promise<void>>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks);
      const path = (req.url ?? '/').slice('/v1'.length);
      const lookup = await cache.lookup({
        settings,
        method: req.method ?? 'GET',
        path,
        provider: 'openai',
        url: `${upstream}/v1${path}`,
        body: raw.length > 0 ? JSON.parse(raw.toString()) : undefined,
        namespace: req.headers['x-service-cache-namespace'] as string | undefined,
        scope: req.headers['x-test-scope'] as string | undefined,
        forceRefresh: req.headers['x-service-cache-force-refresh'] === 'true',
      });
      const status = { 'x-service-cache-status': lookup.status };
      if (lookup.hit) {
        await replay(res, lookup.hit, status);
        return;
      }
      const recorder = new ResponseRecorder(1 << 20);
      const forwarded: Record<string, string> = {
        authorization: 'Bearer sk-test',
        'content-type': 'application/json',
      };
      const knob = req.headers['x-mock-status'];
      if (typeof knob === 'string') forwarded['x-mock-status'] = knob;
      const upstreamReq = request(
        `${upstream}/v1${path}`,
        { method: req.method, headers: forwarded },
        (upRes) => {
          recorder.head(upRes.statusCode ?? 502, upRes.headers);
          const { connection: _c, 'transfer-encoding': _t, 'keep-alive': _k, ...headers } = upRes.headers;
          res.writeHead(upRes.statusCode ?? 502, { ...headers, ...status });
          upRes.on('data', (chunk: Buffer) => {
            recorder.push(chunk);
            res.write(chunk);
          });
          upRes.on('end', () => {
            if (upRes.complete) recorder.end();
            res.end();
          });
        },
      );
      res.once('finish', () => {
        const stored = lookup.store(recorder.result());
        pending.add(stored);
        void stored.finally(() => pending.delete(stored));
      });
      upstreamReq.end(raw);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    use(next: CacheSettings | undefined) {
      settings = next;
    },
    async send(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Exchange> {
      const exchange = await new Promise<Exchange>((resolve, reject) => {
        const req = request(
          `${url}/v1${path}`,
          { method: body === undefined ? 'GET' : 'POST', headers },
          (res) => {
            const chunks: Buffer[] = [];
            res.on('data', (chunk: Buffer) => chunks.push(chunk));
            res.on('end', () =>
              resolve({
                status: res.statusCode ?? 0,
                headers: res.headers,
                body: Buffer.concat(chunks),
                cache: res.headers['x-service-cache-status'] as string | undefined,
              }),
            );
          },
        );
        req.on('error', reject);
        req.end(body === undefined ? undefined : JSON.stringify(body));
      });
      // The store runs after the response: let it land before the next request.
      await new Promise((resolve) => setImmediate(resolve));
      await Promise.all(pending);
      return exchange;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

type Gateway = Awaited<ReturnType<typeof startGateway>>;

const chat = (question: string, extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4o',
  messages: [
    { role: 'system', content: 'You answer geography questions.' },
    { role: 'user', content: question },
  ],
  ...extra,
});

const simple: CacheSettings = { mode: 'simple', max_age: 60 };

let mock: MockProvider;
beforeAll(async () => {
  mock = await createMockProvider();
});
afterAll(() => mock.close());

const providerCalls = (path = '/v1/chat/completions') => mock.requests.filter((r) => r.path === path).length;

type Backend = (redis: RedisFixture, failures: CacheFailureStage[]) => ResponseCacheDeps;

const backends: Array<[string, Backend]> = [
  [
    'memory',
    (_redis, failures) => ({
      store: createMemoryCacheStore({ maxEntries: 1000, maxBytes: 1 << 24 }),
      semantic: {
        index: createMemorySemanticIndex({ maxEntries: 1000, scanLimit: 1000 }),
        embed: createEmbedder({
          url: `${mock.url}/v1`,
          apiKey: 'sk-test',
          model: 'text-embedding-3-small',
          timeoutMs: 5000,
        }),
      },
      onError: (_err, stage) => failures.push(stage),
    }),
  ],
  [
    'redis',
    (redis, failures) => ({
      store: createRedisCacheStore(redis.client, { prefix: `rc:${Math.random()}:` }),
      semantic: {
        index: createRedisSemanticIndex(redis.client, { prefix: `si:${Math.random()}:`, scanLimit: 1000 }),
        embed: createEmbedder({
          url: `${mock.url}/v1`,
          apiKey: 'sk-test',
          model: 'text-embedding-3-small',
          timeoutMs: 5000,
        }),
      },
      onError: (_err, stage) => failures.push(stage),
    }),
  ],
];

for (const [name, backend] of backends) {
  describe(`response cache over ${name}`, () => {
    const withGateway = async (
      redis: RedisFixture,
      run: (gw: Gateway, failures: CacheFailureStage[]) => Promise<void>,
    ) => {
      const failures: CacheFailureStage[] = [];
      const gw = await startGateway(backend(redis, failures), mock.url);
      try {
        await run(gw, failures);
      } finally {
        await gw.close();
      }
    };

    test('answers the second identical request from the cache, byte for byte', async ({ redis }) => {
      await withGateway(redis, async (gw, failures) => {
        gw.use(simple);
        const calls = providerCalls();
        const first = await gw.send('/chat/completions', chat('Where is Lyon?'));
        expect(first.cache).toBe('MISS');
        const second = await gw.send('/chat/completions', chat('Where is Lyon?'), {
          'x-unrelated': 'ignored',
        });
        expect(second.cache).toBe('HIT');
        expect(second.status).toBe(200);
        expect(second.body.equals(first.body)).toBe(true);
        expect(providerCalls()).toBe(calls + 1);
        expect(failures).toEqual([]);
      });
    });

    test('replays a streamed answer as the same event stream bytes', async ({ redis }) => {
      await withGateway(redis, async (gw) => {
        gw.use(simple);
        const body = chat('Where is Lille?', { stream: true, stream_options: { include_usage: true } });
        const first = await gw.send('/chat/completions', body);
        expect(first.cache).toBe('MISS');
        expect(first.headers['content-type']).toMatch(/^text\/event-stream/);
        const second = await gw.send('/chat/completions', body);
        expect(second.cache).toBe('HIT');
        expect(second.headers['content-type']).toBe(first.headers['content-type']);
        expect(second.headers['transfer-encoding']).toBe('chunked');
        expect(second.body.equals(first.body)).toBe(true);
        // The plain request is another entry.
        expect((await gw.send('/chat/completions', chat('Where is Lille?'))).cache).toBe('MISS');
      });
    });

    test('partitions by namespace, ignoring metadata and other headers', async ({ redis }) => {
      await withGateway(redis, async (gw) => {
        gw.use(simple);
        const body = chat('Where is Nantes?');
        const a = await gw.send('/chat/completions', body, { 'x-service-cache-namespace': 'team-a' });
        expect(a.cache).toBe('MISS');
        expect(
          (await gw.send('/chat/completions', body, { 'x-service-cache-namespace': 'team-b' })).cache,
        ).toBe('MISS');
        expect((await gw.send('/chat/completions', body)).cache).toBe('MISS');
        const again = await gw.send('/chat/completions', body, {
          'x-service-cache-namespace': 'team-a',
          'x-service-metadata': '{"_user":"someone-else"}',
          'user-agent': 'another-client',
        });
        expect(again.cache).toBe('HIT');
        expect(again.body.equals(a.body)).toBe(true);
      });
    });

    test('force refresh calls the provider and stores the fresh answer', async ({ redis }) => {
      await withGateway(redis, async (gw) => {
        gw.use(simple);
        const body = chat('Where is Brest?');
        const first = await gw.send('/chat/completions', body);
        const calls = providerCalls();
        const refreshed = await gw.send('/chat/completions', body, {
          'x-service-cache-force-refresh': 'true',
        });
        expect(refreshed.cache).toBe('REFRESH');
        expect(providerCalls()).toBe(calls + 1);
        expect(refreshed.body.equals(first.body)).toBe(false);
        const after = await gw.send('/chat/completions', body);
        expect(after.cache).toBe('HIT');
        expect(after.body.equals(refreshed.body)).toBe(true);
      });
    });

    test('expires entries after max_age seconds', async ({ redis }) => {
      await withGateway(redis, async (gw) => {
        gw.use({ mode: 'simple', max_age: 1 });
        const body = chat('Where is Nice?');
        expect((await gw.send('/chat/completions', body)).cache).toBe('MISS');
        expect((await gw.send('/chat/completions', body)).cache).toBe('HIT');
        await sleep(1_300);
        expect((await gw.send('/chat/completions', body)).cache).toBe('MISS');
      });
    });

    test('is DISABLED without a cache setting or on endpoints it never caches, and stores no errors', async ({
      redis,
    }) => {
      await withGateway(redis, async (gw) => {
        gw.use(undefined);
        expect((await gw.send('/chat/completions', chat('Where is Metz?'))).cache).toBe('DISABLED');
        expect((await gw.send('/chat/completions', chat('Where is Metz?'))).cache).toBe('DISABLED');
        gw.use(simple);
        expect((await gw.send('/models', undefined)).cache).toBe('DISABLED');
        const failed = await gw.send('/chat/completions', chat('Where is Pau?'), { 'x-mock-status': '503' });
        expect([failed.status, failed.cache]).toEqual([503, 'MISS']);
        const retried = await gw.send('/chat/completions', chat('Where is Pau?'));
        expect([retried.status, retried.cache]).toEqual([200, 'MISS']);
        expect((await gw.send('/chat/completions', chat('Where is Pau?'))).cache).toBe('HIT');
      });
    });

    test('semantic: serves a paraphrase above the threshold and misses below it', async ({ redis }) => {
      await withGateway(redis, async (gw, failures) => {
        const original = chat('What is the capital of France?');
        // Shares 6 of its 7 words with the original: cosine about 0.93 with the mock's embeddings.
        const paraphrase = chat('what is the capital city of France');
        gw.use({ mode: 'semantic', max_age: 60, similarity_threshold: 0.9 });
        const first = await gw.send('/chat/completions', original);
        expect(first.cache).toBe('SEMANTIC MISS');
        expect((await gw.send('/chat/completions', original)).cache).toBe('HIT');
        const calls = providerCalls();
        const similar = await gw.send('/chat/completions', paraphrase);
        expect(similar.cache).toBe('SEMANTIC HIT');
        expect(similar.body.equals(first.body)).toBe(true);
        expect(providerCalls()).toBe(calls);
        expect((await gw.send('/chat/completions', chat('How do I bake sourdough bread?'))).cache).toBe(
          'SEMANTIC MISS',
        );

        gw.use({ mode: 'semantic', max_age: 60, similarity_threshold: 0.95 });
        const strict = await gw.send('/chat/completions', chat('what is the capital town of France'));
        expect(strict.cache).toBe('SEMANTIC MISS');
        expect(strict.body.equals(first.body)).toBe(false);
        expect(failures).toEqual([]);
      });
    });

    test('semantic: matches only the same namespace, tenant, model and parameters', async ({ redis }) => {
      await withGateway(redis, async (gw) => {
        gw.use({ mode: 'semantic', max_age: 60, similarity_threshold: 0.9 });
        const headers = { 'x-service-cache-namespace': 'geo', 'x-test-scope': 'ws-1' };
        await gw.send('/chat/completions', chat('What is the capital of Spain?'), headers);
        const paraphrase = chat('what is the capital city of Spain');
        const misses = [
          gw.send('/chat/completions', paraphrase, { ...headers, 'x-service-cache-namespace': 'other' }),
          gw.send('/chat/completions', paraphrase, { ...headers, 'x-test-scope': 'ws-2' }),
          gw.send('/chat/completions', { ...paraphrase, model: 'gpt-4o-mini' }, headers),
          gw.send('/chat/completions', { ...paraphrase, temperature: 1.5 }, headers),
        ];
        for (const miss of await Promise.all(misses)) expect(miss.cache).toBe('SEMANTIC MISS');
        expect((await gw.send('/chat/completions', paraphrase, headers)).cache).toBe('SEMANTIC HIT');
      });
    });
  });
}

describe('response cache without a working embeddings API', () => {
  test('semantic mode falls back to the simple key and reports MISS / HIT', async () => {
    const failures: CacheFailureStage[] = [];
    const gw = await startGateway(
      {
        store: createMemoryCacheStore({ maxEntries: 100, maxBytes: 1 << 24 }),
        semantic: {
          index: createMemorySemanticIndex({ maxEntries: 100, scanLimit: 100 }),
          // No such route on the mock: every embedding fails with 404.
          embed: createEmbedder({
            url: `${mock.url}/nowhere`,
            model: 'text-embedding-3-small',
            timeoutMs: 5000,
          }),
        },
        onError: (_err, stage) => failures.push(stage),
      },
      mock.url,
    );
    try {
      gw.use({ mode: 'semantic', max_age: 60, similarity_threshold: 0.5 });
      const first = await gw.send('/chat/completions', chat('What is the capital of Italy?'));
      expect(first.cache).toBe('MISS');
      expect(first.status).toBe(200);
      expect((await gw.send('/chat/completions', chat('What is the capital of Italy?'))).cache).toBe('HIT');
      expect((await gw.send('/chat/completions', chat('what is the capital city of Italy'))).cache).toBe(
        'MISS',
      );
      // One failed embedding per semantic lookup, none retried when storing.
      expect(failures).toEqual(['embed', 'embed']);
    } finally {
      await gw.close();
    }
  });

  test('a failing store is a MISS, never an error for the client', async () => {
    const failures: CacheFailureStage[] = [];
    const broken = {
      get: () => Promise.reject(new Error('down')),
      set: () => Promise.reject(new Error('down')),
    };
    const gw = await startGateway(
      { store: broken, onError: (_err, stage) => failures.push(stage) },
      mock.url,
    );
    try {
      gw.use(simple);
      const answer = await gw.send('/chat/completions', chat('Where is Rome?'));
      expect([answer.status, answer.cache]).toEqual([200, 'MISS']);
      expect(failures).toEqual(['get', 'set']);
    } finally {
      await gw.close();
    }
  });
});
