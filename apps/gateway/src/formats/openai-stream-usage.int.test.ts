// include_usage asked for on the client's behalf: the client must receive the bytes it would have
// received without it. Checked against the mock provider (a real HTTP server speaking OpenAI's
// exact shapes), called with and without include_usage.
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createMockProvider, type MockProvider } from '@aigw/mock-provider';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  StreamUsageStripper,
  streamUsageTransform,
  withoutNullUsage,
  withStreamUsage,
} from './openai-stream-usage.js';
import type { Usage } from './types.js';

let mock: MockProvider;
beforeAll(async () => {
  mock = await createMockProvider();
});
afterAll(async () => {
  await mock.close();
});

async function call(path: string, body: unknown, headers: Record<string, string> = {}): Promise<Buffer> {
  const res = await fetch(`${mock.url}${path}`, {
    method: 'POST',
    headers: { authorization: 'Bearer sk-test-key', 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  expect(res.status).toBe(200);
  return Buffer.from(await res.arrayBuffer());
}

/** Only `id` and `created` differ between two calls (random id, clock). */
const normalise = (bytes: Buffer) =>
  bytes
    .toString('utf8')
    .replace(/"id":"[^"]*"/g, '"id":"X"')
    .replace(/"created":\d+/g, '"created":0');

/** The stripper's output when the upstream bytes arrive cut at `cuts`. */
function stripCut(bytes: Buffer, cuts: readonly number[]): { out: Buffer; usages: Usage[] } {
  const usages: Usage[] = [];
  const stripper = new StreamUsageStripper((usage) => usages.push(usage));
  const pieces: Buffer[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    pieces.push(...stripper.push(bytes.subarray(from, cut)));
    from = cut;
  }
  pieces.push(...stripper.end());
  return { out: Buffer.concat(pieces), usages };
}

const messages = [
  { role: 'system', content: 'be brief' },
  { role: 'user', content: 'say something "quoted", with usage:null inside and ünïcödé 😀 words' },
];

describe('withStreamUsage', () => {
  it('sets include_usage on a streaming request and keeps every other field', () => {
    const body = {
      model: 'gpt-4o',
      messages,
      stream: true,
      stream_options: { include_obfuscation: false },
      n: 2,
    };
    const { body: sent, changed } = withStreamUsage(body);
    expect(changed).toBe(true);
    expect(sent).toEqual({ ...body, stream_options: { include_obfuscation: false, include_usage: true } });
    expect(body.stream_options).toEqual({ include_obfuscation: false });
    expect(withStreamUsage({ model: 'm', messages, stream: true }).body.stream_options).toEqual({
      include_usage: true,
    });
    expect(
      withStreamUsage({ model: 'm', messages, stream: true, stream_options: { include_usage: false } }),
    ).toMatchObject({ changed: true, body: { stream_options: { include_usage: true } } });
  });

  it('leaves a request alone when the client asked for usage or does not stream', () => {
    const asked = { model: 'm', messages, stream: true, stream_options: { include_usage: true } };
    expect(withStreamUsage(asked)).toEqual({ body: asked, changed: false });
    const plain = { model: 'm', messages };
    expect(withStreamUsage(plain)).toEqual({ body: plain, changed: false });
  });
});

describe('StreamUsageStripper against the mock provider', () => {
  const cases = [
    { name: 'chat', path: '/v1/chat/completions', body: { model: 'gpt-4o', messages, stream: true } },
    {
      name: 'chat, n=2',
      path: '/v1/chat/completions',
      body: { model: 'gpt-4o', messages, stream: true, n: 2 },
    },
    {
      name: 'completions',
      path: '/v1/completions',
      body: { model: 'gpt-3.5-turbo-instruct', prompt: 'one two three four five', stream: true },
    },
  ];
  for (const { name, path, body } of cases) {
    it(`${name}: the client gets the bytes of a call without include_usage, cut anywhere`, async () => {
      const direct = await call(path, body);
      const { body: sent, changed } = withStreamUsage(body);
      expect(changed).toBe(true);
      const upstream = await call(path, sent);
      // The two differ before stripping: the check below is not comparing a stream with itself.
      expect(normalise(upstream)).not.toBe(normalise(direct));
      expect(normalise(upstream)).toContain('"usage":null');
      const json = (await call(path, { ...body, stream: false }).then((b) => JSON.parse(String(b)))) as {
        usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number };
      };
      const expected = {
        inputTokens: json.usage.prompt_tokens,
        outputTokens: json.usage.completion_tokens,
        totalTokens: json.usage.total_tokens,
        cachedInputTokens: 0,
        estimated: false,
      };
      // Every single cut, and every byte on its own.
      const all = Array.from({ length: upstream.length - 1 }, (_, i) => i + 1);
      for (const cuts of [[], all, ...all.map((i) => [i])]) {
        const { out, usages } = stripCut(upstream, cuts);
        expect(normalise(out)).toBe(normalise(direct));
        expect(usages).toEqual([expected]);
      }
    });
  }

  it('works as a Node Transform on a real response body', async () => {
    const body = { model: 'gpt-4o', messages, stream: true };
    const direct = await call('/v1/chat/completions', body);
    const res = await fetch(`${mock.url}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        authorization: 'Bearer sk-test-key',
        'content-type': 'application/json',
        'x-mock-chunks': '7',
      },
      body: JSON.stringify(withStreamUsage(body).body),
    });
    const usages: Usage[] = [];
    const out: Buffer[] = [];
    await pipeline(
      Readable.fromWeb(res.body as import('node:stream/web').ReadableStream),
      streamUsageTransform((usage) => usages.push(usage)),
      async (source: AsyncIterable<Buffer>) => {
        for await (const piece of source) out.push(piece);
      },
    );
    expect(usages).toHaveLength(1);
    // Seven content pieces instead of one per word: compare with a direct call cut the same way.
    const direct7 = await call('/v1/chat/completions', body, { 'x-mock-chunks': '7' });
    expect(normalise(Buffer.concat(out))).toBe(normalise(direct7));
    expect(normalise(direct7)).not.toBe(normalise(direct));
  });
});

describe('StreamUsageStripper on other byte layouts', () => {
  const onUsage = () => undefined;

  it('handles CRLF and CR line ends, comments, and a usage chunk cut across pushes', () => {
    const upstream = [
      ': keep-alive\r\n\r\n',
      'data: {"id":"a","choices":[{"index":0,"delta":{"content":"hi ,\\"usage\\":null}"}}],"usage":null}\r\n\r\n',
      'data: {"usage":null,"id":"a","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\r\r',
      'data: {"id":"a","choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}\r\n\r\n',
      'data: [DONE]\r\n\r\n',
    ].join('');
    const expected = [
      ': keep-alive\r\n\r\n',
      'data: {"id":"a","choices":[{"index":0,"delta":{"content":"hi ,\\"usage\\":null}"}}]}\r\n\r\n',
      'data: {"id":"a","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\r\r',
      'data: [DONE]\r\n\r\n',
    ].join('');
    const bytes = Buffer.from(upstream);
    for (let i = 0; i <= bytes.length; i++) {
      const { out, usages } = stripCut(bytes, [i]);
      expect(out.toString()).toBe(expected);
      expect(usages.map((u) => u.totalTokens)).toEqual([5]);
    }
  });

  it('drops the LF of a CRLF that arrives after the usage chunk it ends', () => {
    const stripper = new StreamUsageStripper(onUsage);
    expect(stripper.push(Buffer.from('data: {"choices":[],"usage":{"prompt_tokens":1}}\r\n\r'))).toEqual([]);
    expect(Buffer.concat(stripper.push(Buffer.from('\ndata: [DONE]\n\n'))).toString()).toBe(
      'data: [DONE]\n\n',
    );
  });

  it('sends each event as soon as its blank line arrives', () => {
    const stripper = new StreamUsageStripper(onUsage);
    expect(stripper.push(Buffer.from('data: {"a":1,"usage":null}\n'))).toEqual([]);
    expect(Buffer.concat(stripper.push(Buffer.from('\ndata: {"b"'))).toString()).toBe('data: {"a":1}\n\n');
    expect(Buffer.concat(stripper.end()).toString()).toBe('data: {"b"');
  });

  it('keeps a content chunk that carries usage, and reports it', () => {
    const usages: Usage[] = [];
    const stripper = new StreamUsageStripper((u) => usages.push(u));
    const chunk =
      'data: {"choices":[{"delta":{"content":"x"}}],"usage":{"prompt_tokens":4,"completion_tokens":1}}\n\n';
    expect(Buffer.concat(stripper.push(Buffer.from(chunk))).toString()).toBe(chunk);
    expect(usages.map((u) => u.inputTokens)).toEqual([4]);
  });

  it('removes only a top-level null usage from JSON text', () => {
    expect(withoutNullUsage('{"usage":null,"a":1}')).toBe('{"a":1}');
    expect(withoutNullUsage('{"a":1, "usage" : null }')).toBe('{"a":1 }');
    expect(withoutNullUsage('{"usage": null}')).toBe('{}');
    expect(withoutNullUsage('{"a":{"usage":null},"b":"\\"usage\\":null"}')).toBeUndefined();
    expect(withoutNullUsage('{"usage":{"x":1}}')).toBeUndefined();
  });
});
