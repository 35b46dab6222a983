// What every request with a config promises, through the gateway app: the config response headers
// on every kind of answer, each attempt in the request event, and endpoints the cache never stores.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMockProvider, type MockProvider } from '@aigw/mock-provider';
import { CacheStatus } from '@aigw/proto';
import { type NatsFixture, test } from '@aigw/testkit';
import { afterAll, describe, expect } from 'vitest';
import { eventFor, type Harness, startHarness } from '../../test/harness.js';

let h: Harness | undefined;
let closedPort = 0;
/** Answers every call with 503. */
let failing: MockProvider | undefined;

async function harness(nats: NatsFixture): Promise<Harness> {
  if (!h) {
    h = await startHarness(nats);
    failing = await createMockProvider({ status: 503 });
    // A port nobody listens on: a target there is unreachable (connection refused).
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    closedPort = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
  }
  return h;
}

afterAll(async () => {
  await h?.close();
  await failing?.close();
});

const target = (gw: Harness, extra: Record<string, unknown> = {}) => ({
  provider: 'openai',
  api_key: 'sk-contract',
  custom_host: `${gw.mock.url}/v1`,
  ...extra,
});

async function post(
  gw: Harness,
  config: unknown,
  headers: Record<string, string> = {},
  content = 'contract question',
) {
  const trace = randomUUID();
  const res = await fetch(`${gw.base}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-config': JSON.stringify(config),
      'x-service-trace-id': trace,
      ...headers,
    },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content }] }),
  });
  await res.arrayBuffer();
  return {
    trace,
    status: res.status,
    headers: {
      trace: res.headers.get('x-service-trace-id'),
      retries: res.headers.get('x-service-retry-attempt-count'),
      option: res.headers.get('x-service-last-used-option-index'),
      cache: res.headers.get('x-service-cache-status'),
    },
  };
}

const deny = {
  deny: true,
  checks: [{ id: 'contains', parameters: { words: ['forbidden'], operator: 'none' } }],
};
const soft = { checks: [{ id: 'contains', parameters: { words: ['forbidden'], operator: 'none' } }] };

interface Scenario {
  readonly name: string;
  readonly config: (gw: Harness) => unknown;
  readonly headers?: Record<string, string>;
  readonly content?: string;
  readonly status: number;
  readonly retries: string;
  readonly option: string;
  readonly cache: string;
  /** [target path, status, retry index] of each call, in order. */
  readonly attempts: ReadonlyArray<readonly [string, number, number]>;
}

const SCENARIOS: readonly Scenario[] = [
  {
    name: 'a plain answer',
    config: (gw) => target(gw),
    status: 200,
    retries: '0',
    option: 'config',
    cache: 'DISABLED',
    attempts: [['config', 200, 0]],
  },
  {
    name: 'retries, then a fallback that answers',
    config: (gw) => ({
      strategy: { mode: 'fallback' },
      targets: [
        target(gw, {
          retry: { attempts: 1, on_status_codes: [503] },
          custom_host: `${failing?.url}/v1`,
        }),
        target(gw, { cache: { mode: 'simple' } }),
      ],
    }),
    content: `fallback ${randomUUID()}`,
    status: 200,
    retries: '0',
    option: 'config.targets[1]',
    cache: 'MISS',
    attempts: [
      ['config.targets[0]', 503, 0],
      ['config.targets[0]', 503, 1],
      ['config.targets[1]', 200, 0],
    ],
  },
  {
    name: 'retries running out on the last target',
    config: (gw) => target(gw, { retry: { attempts: 2, on_status_codes: [500] } }),
    headers: { 'x-mock-status': '500' },
    status: 500,
    retries: '2',
    option: 'config',
    cache: 'DISABLED',
    attempts: [
      ['config', 500, 0],
      ['config', 500, 1],
      ['config', 500, 2],
    ],
  },
  {
    name: 'an input guardrail denying',
    config: (gw) => target(gw, { input_guardrails: [deny], cache: { mode: 'simple' } }),
    content: 'a forbidden word',
    status: 446,
    retries: '0',
    option: 'config',
    cache: 'DISABLED',
    attempts: [],
  },
  {
    name: 'an output guardrail failing without deny',
    config: (gw) => ({ strategy: { mode: 'single' }, targets: [target(gw, { output_guardrails: [soft] })] }),
    content: 'a forbidden word',
    status: 246,
    retries: '0',
    option: 'config.targets[0]',
    cache: 'DISABLED',
    attempts: [['config.targets[0]', 200, 0]],
  },
  {
    name: 'an unreachable target',
    config: () => ({
      provider: 'openai',
      api_key: 'sk',
      custom_host: `http://127.0.0.1:${closedPort}/v1`,
      retry: { attempts: 1, on_status_codes: [502] },
    }),
    status: 502,
    retries: '1',
    option: 'config',
    cache: 'DISABLED',
    attempts: [
      ['config', 0, 0],
      ['config', 0, 1],
    ],
  },
  {
    name: 'a target the gateway cannot prepare, then a fallback that answers',
    config: (gw) => ({
      strategy: { mode: 'fallback' },
      targets: [{ provider: 'no-such-provider', api_key: 'sk' }, target(gw)],
    }),
    status: 200,
    retries: '0',
    option: 'config.targets[1]',
    cache: 'DISABLED',
    attempts: [
      ['config.targets[0]', 0, 0],
      ['config.targets[1]', 200, 0],
    ],
  },
];

describe('every answer of a config run', () => {
  test.for(SCENARIOS)('$name carries the config headers and its attempts', async (scenario, { nats }) => {
    const gw = await harness(nats);
    const res = await post(gw, scenario.config(gw), scenario.headers, scenario.content);
    expect(res.status).toBe(scenario.status);
    expect(res.headers).toEqual({
      trace: res.trace,
      retries: scenario.retries,
      option: scenario.option,
      cache: scenario.cache,
    });
    const event = await eventFor(gw, res.trace);
    expect(event.statusCode).toBe(scenario.status);
    expect(event.attempts.map((a) => [a.targetPath, a.statusCode, a.retryIndex])).toEqual(scenario.attempts);
    for (const attempt of event.attempts) expect(attempt.startedAtMs).toBeGreaterThan(0);
    if (scenario.status === 502) {
      expect(event.attempts.map((a) => a.error?.code)).toEqual([
        'upstream_unreachable',
        'upstream_unreachable',
      ]);
    }
    if (scenario.name.startsWith('a target the gateway cannot prepare')) {
      expect(event.attempts[0]?.error?.code).toBe('unknown_provider');
      expect(event.attempts[0]?.provider?.type).toBe('no-such-provider');
    }
  });

  test('a cache hit carries them too, and records no attempt', async ({ nats }) => {
    const gw = await harness(nats);
    const config = target(gw, { cache: { mode: 'simple' } });
    const content = `hit ${randomUUID()}`;
    expect((await post(gw, config, {}, content)).headers.cache).toBe('MISS');
    let hit = await post(gw, config, {}, content);
    for (let i = 0; i < 50 && hit.headers.cache !== 'HIT'; i++) {
      await new Promise((r) => setTimeout(r, 20));
      hit = await post(gw, config, {}, content);
    }
    expect(hit.status).toBe(200);
    expect(hit.headers).toEqual({ trace: hit.trace, retries: '0', option: 'config', cache: 'HIT' });
    const event = await eventFor(gw, hit.trace);
    expect(event.cacheStatus).toBe(CacheStatus.HIT);
    expect(event.attempts).toEqual([]);
  });
});

/** A multipart body with a fixed boundary, so two uploads are byte-identical. */
function multipart(fields: Record<string, string>, file: { name: string; type: string; data: string }) {
  const boundary = 'contract-boundary-7f3a';
  const parts = Object.entries(fields).map(
    ([name, value]) => `--${boundary}\r\ncontent-disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
  );
  parts.push(
    `--${boundary}\r\ncontent-disposition: form-data; name="file"; filename="${file.name}"\r\n` +
      `content-type: ${file.type}\r\n\r\n${file.data}\r\n`,
  );
  return { body: `${parts.join('')}--${boundary}--\r\n`, type: `multipart/form-data; boundary=${boundary}` };
}

describe('endpoints the cache never stores', () => {
  const uploads = [
    {
      path: '/files',
      form: multipart({ purpose: 'batch' }, { name: 'in.jsonl', type: 'application/jsonl', data: '{"a":1}' }),
    },
    {
      path: '/audio/transcriptions',
      form: multipart({ model: 'whisper-1' }, { name: 'clip.wav', type: 'audio/wav', data: 'RIFF....' }),
    },
  ];

  test.for(uploads)(
    'POST $path twice: both reach the provider, DISABLED',
    async ({ path, form }, { nats }) => {
      const gw = await harness(nats);
      const config = JSON.stringify(target(gw, { cache: { mode: 'simple', max_age: 60 } }));
      const before = gw.mock.requests.length;
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${gw.base}/v1${path}`, {
          method: 'POST',
          headers: { 'content-type': form.type, 'x-service-config': config },
          body: form.body,
        });
        expect(res.status).toBe(200);
        expect(res.headers.get('x-service-cache-status')).toBe('DISABLED');
        await res.arrayBuffer();
        // Give a store that should not happen the time it would take.
        await new Promise((r) => setTimeout(r, 50));
      }
      expect(gw.mock.requests.length - before).toBe(2);
      expect(gw.mock.requests.at(-1)?.path).toBe(`/v1${path}`);
    },
  );

  test('a GET with a cache config is never stored either', async ({ nats }) => {
    const gw = await harness(nats);
    const config = JSON.stringify(target(gw, { cache: { mode: 'simple' } }));
    const before = gw.mock.requests.length;
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${gw.base}/v1/models`, { headers: { 'x-service-config': config } });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-service-cache-status')).toBe('DISABLED');
      await res.arrayBuffer();
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(gw.mock.requests.length - before).toBe(2);
  });
});
