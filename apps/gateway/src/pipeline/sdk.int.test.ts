// Acceptance: the official OpenAI and Anthropic clients work through the gateway unchanged, and
// every byte the provider sent reaches the client as sent.

import { RequestEvent } from '@aigw/proto';
import { test } from '@aigw/testkit';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, inject } from 'vitest';
import { eventFor, type Harness, startHarness } from '../../test/harness.js';

let h: Harness;
let client: OpenAI;

/** The last body the mock wrote, to compare with what the client received through the gateway. */
function lastSent(): Buffer {
  const response = h.mock.requests.at(-1)?.response;
  if (!response) throw new Error('the mock recorded no response');
  return response.body;
}

/** A stream with its random chunk ids and creation times replaced (they differ on every call). */
function normalise(stream: string): string {
  return stream.replace(/"id":"chatcmpl-[^"]+"/g, '"id":"x"').replace(/"created":\d+/g, '"created":0');
}

describe('official SDKs through the gateway', () => {
  test('set up', async ({ nats }) => {
    h = await startHarness(nats);
    client = new OpenAI({
      baseURL: `${h.base}/v1`,
      apiKey: 'sk-test',
      defaultHeaders: h.openaiHeaders,
      maxRetries: 0,
    });
    expect(inject('testkit')).toBeDefined();
  });

  test('chat completions, plain: parsed by the SDK and byte-identical to what the provider sent', async () => {
    const completion = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'hello there' }],
    });
    expect(completion.choices[0]?.message.content).toBe('hello there');
    expect(completion.usage?.total_tokens).toBeGreaterThan(0);
    const raw = await client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'same bytes' }] })
      .asResponse();
    expect(raw.headers.get('x-service-trace-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(Buffer.from(await raw.arrayBuffer()).equals(lastSent())).toBe(true);
  });

  test('chat completions, streaming: every chunk arrives, with the usage chunk, byte-identical', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-4o',
      messages: [{ role: 'user', content: 'stream these words please' }],
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let usage: number | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      if (chunk.usage) usage = chunk.usage.total_tokens;
    }
    expect(text).toBe('stream these words please');
    expect(usage).toBeGreaterThan(0);
    const raw = await client.chat.completions
      .create({
        model: 'gpt-4o',
        messages: [{ role: 'user', content: 'raw stream' }],
        stream: true,
        stream_options: { include_usage: true },
      })
      .asResponse();
    expect(raw.headers.get('content-type')).toContain('text/event-stream');
    expect(Buffer.from(await raw.arrayBuffer()).equals(lastSent())).toBe(true);
  });

  test('streaming without include_usage: the gateway asks for usage, the client gets the stream it would have got', async () => {
    const body = {
      model: 'gpt-4o',
      messages: [{ role: 'user' as const, content: 'three little words' }],
      stream: true as const,
    };
    // What the provider sends a client that did not ask for usage, straight from the provider.
    const direct = await fetch(`${h.mock.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer sk-test' },
      body: JSON.stringify(body),
    });
    const expected = normalise(await direct.text());
    expect(expected).not.toContain('usage');

    const raw = await client.chat.completions.create(body).asResponse();
    const received = await raw.text();
    // The provider was asked for usage and sent it...
    const upstream = h.mock.requests.at(-1);
    expect(upstream?.json).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    expect(upstream?.response?.body.toString('utf8')).toContain('"usage":{');
    // ...and the client got, byte for byte, what it would have got without it (ids and times aside).
    expect(normalise(received)).toBe(expected);
    // The request event carries the provider's own token counts, not an estimate.
    const traceId = raw.headers.get('x-service-trace-id') as string;
    const event = await eventFor(h, traceId);
    expect(event.tokens?.estimated).toBe(false);
    expect(event.tokens?.outputTokens).toBe(3);
  });

  test('embeddings, moderations and models', async () => {
    const embedding = await client.embeddings.create({
      model: 'text-embedding-3-small',
      input: ['a', 'b'],
      dimensions: 8,
    });
    expect(embedding.data.map((d) => d.embedding.length)).toEqual([8, 8]);
    const moderation = await client.moderations.create({ input: 'a calm sentence' });
    expect(Object.keys(moderation.results[0]?.categories ?? {})).toHaveLength(11);
    const raw = await client.moderations.create({ input: 'flag:violence here' }).asResponse();
    expect(Buffer.from(await raw.arrayBuffer()).equals(lastSent())).toBe(true);
    const models = [];
    for await (const model of client.models.list()) models.push(model.id);
    expect(models.length).toBeGreaterThan(0);
  });

  test('file upload (multipart, binary) and batch listing', async () => {
    const bytes = Buffer.from([0, 1, 2, 255, 254, 10, 13, 0, 42]);
    const file = await client.files.create({ file: await toFile(bytes, 'data.jsonl'), purpose: 'batch' });
    expect(file.bytes).toBe(bytes.length);
    const upload = h.mock.requests.at(-1);
    expect(upload?.parts?.find((p) => p.name === 'file')?.data.equals(bytes)).toBe(true);
    const page = await client.batches.list({ limit: 2 });
    expect(page.data).toHaveLength(2);
    expect(page.data[0]?.object).toBe('batch');
  });

  test('Anthropic messages, plain and streaming, with the bearer token converted to x-api-key', async () => {
    const anthropic = new Anthropic({
      baseURL: h.base,
      apiKey: null,
      authToken: 'sk-ant-test',
      defaultHeaders: { 'x-service-provider': 'anthropic', 'x-service-custom-host': `${h.mock.url}/v1` },
      maxRetries: 0,
    });
    const message = await anthropic.messages.create({
      model: 'claude-3-5-sonnet',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'hi claude' }],
    });
    expect(message.content[0]?.type === 'text' && message.content[0].text).toBe('hi claude');
    const sent = h.mock.requests.at(-1);
    expect(sent?.headers['x-api-key']).toBe('sk-ant-test');
    expect(sent?.headers.authorization).toBeUndefined();
    const stream = anthropic.messages.stream({
      model: 'claude-3-5-sonnet',
      max_tokens: 64,
      messages: [{ role: 'user', content: 'stream from claude' }],
    });
    const final = await stream.finalMessage();
    expect(final.content[0]?.type === 'text' && final.content[0].text).toBe('stream from claude');
    expect(final.usage.output_tokens).toBeGreaterThan(0);
  });

  test('every request produced one request event with usage and the model', async () => {
    const events = await h.events(12);
    expect(events.length).toBeGreaterThanOrEqual(12);
    const chat = events.find((e) => e.path === '/chat/completions' && !e.isStream);
    expect(chat).toMatchObject({
      method: 'POST',
      statusCode: 200,
      modelRequested: 'gpt-4o',
      provider: { type: 'openai' },
    });
    expect(chat?.tokens?.estimated).toBe(false);
    expect(chat?.tokens?.totalTokens).toBeGreaterThan(0);
    const streamed = events.find(
      (e) => e.path === '/chat/completions' && e.isStream && e.tokens?.totalTokens,
    );
    expect(streamed?.tokens?.estimated).toBe(false);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
    // Provider credentials travel in headers, which events never carry.
    const serialized = events
      .map(
        (e) =>
          `${JSON.stringify(RequestEvent.toJSON(e))}${e.requestBody?.data.toString('utf8')}${e.responseBody?.data.toString('utf8')}`,
      )
      .join('\n');
    expect(serialized).toContain('hello there');
    expect(serialized).not.toContain('sk-test');
    expect(serialized).not.toContain('sk-ant-test');
  });
});

afterAll(async () => {
  await h?.close();
});
beforeAll(() => undefined);
