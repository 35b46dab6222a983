import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import {
  ANTHROPIC_AUTH,
  drain,
  type Json,
  OPENAI_AUTH,
  parseSse,
  postJson,
  readFrames,
  sseData,
  useMock,
} from '../test/helpers.js';

const mock = useMock();
const chatBody = { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'alpha beta gamma' }] };
// role chunk, three content chunks, finish chunk, [DONE]
const CHAT_FRAMES = 6;
const chat = (headers: Record<string, string>, init: RequestInit = {}) =>
  postJson(`${mock().url}/v1/chat/completions`, chatBody, { ...OPENAI_AUTH, ...headers }, init);
const anthropicBody = {
  model: 'c',
  max_tokens: 50,
  stream: true,
  messages: [{ role: 'user', content: 'alpha beta gamma' }],
};

describe('stallAfterChunks', () => {
  it('sends N chunks, then nothing more while the connection stays open, until the client aborts', async () => {
    const controller = new AbortController();
    const res = await chat({ 'x-mock-stall-after-chunks': '2' }, { signal: controller.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const { frames, rest } = await readFrames(reader, 2);
    expect(frames).toHaveLength(2);
    expect(rest).toBe('');
    const pending = reader.read();
    const outcome = await Promise.race([
      pending.then(() => 'more data or end'),
      sleep(400).then(() => 'quiet'),
    ]);
    expect(outcome).toBe('quiet');
    controller.abort();
    await expect(pending).rejects.toThrow();
    expect((await fetch(`${mock().url}/_mock/health`)).status).toBe(200);
  });

  it('with 0 sends only the headers; a server-wide value applies to Anthropic streams too', async () => {
    const controller = new AbortController();
    const res = await chat({ 'x-mock-stall-after-chunks': '0' }, { signal: controller.signal });
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = reader.read();
    expect(await Promise.race([first.then(() => 'data'), sleep(300).then(() => 'quiet')])).toBe('quiet');
    controller.abort();
    await expect(first).rejects.toThrow();

    mock().configure({ stallAfterChunks: 1 });
    const anthropicAbort = new AbortController();
    const anthropic = await postJson(`${mock().url}/v1/messages`, anthropicBody, ANTHROPIC_AUTH, {
      signal: anthropicAbort.signal,
    });
    const anthropicReader = anthropic.body!.getReader();
    const { frames } = await readFrames(anthropicReader, 1);
    expect(frames[0]).toMatch(/^event: message_start\n/);
    const next = anthropicReader.read();
    expect(await Promise.race([next.then(() => 'data'), sleep(300).then(() => 'quiet')])).toBe('quiet');
    anthropicAbort.abort();
    await expect(next).rejects.toThrow();
  });
});

describe('cutAfterChunks', () => {
  it('sends N chunks, then the client sees the connection fail', async () => {
    const res = await chat({ 'x-mock-cut-after-chunks': '3' });
    expect(res.status).toBe(200);
    const { text, error } = await drain(res.body!);
    expect(error).toBeDefined();
    expect(parseSse(text)).toHaveLength(3);
    expect(text).not.toContain('[DONE]');
  });

  it('cuts after all frames when N equals their number, and is ignored when N is larger', async () => {
    const exact = await drain((await chat({ 'x-mock-cut-after-chunks': String(CHAT_FRAMES) })).body!);
    expect(exact.error).toBeDefined();
    expect(parseSse(exact.text)).toHaveLength(CHAT_FRAMES);
    const larger = await drain((await chat({ 'x-mock-cut-after-chunks': String(CHAT_FRAMES + 1) })).body!);
    expect(larger.error).toBeUndefined();
    expect(sseData(larger.text).at(-1)).toBe('[DONE]');
  });

  it('applies server-wide through POST /_mock/config', async () => {
    await postJson(`${mock().url}/_mock/config`, { cutAfterChunks: 2 });
    const res = await postJson(`${mock().url}/v1/messages`, anthropicBody, ANTHROPIC_AUTH);
    const { text, error } = await drain(res.body!);
    expect(error).toBeDefined();
    expect(parseSse(text).map((e) => e.event)).toEqual(['message_start', 'content_block_start']);
  });
});

describe('chunkDelayMs', () => {
  it('spaces the chunks so the whole stream takes at least (frames - 1) x delay', async () => {
    const started = performance.now();
    const res = await chat({ 'x-mock-chunk-delay-ms': '60' });
    const text = await res.text();
    const elapsed = performance.now() - started;
    expect(parseSse(text)).toHaveLength(CHAT_FRAMES);
    expect(elapsed).toBeGreaterThanOrEqual((CHAT_FRAMES - 1) * 60 - 2 * CHAT_FRAMES);
  });
});

describe('chunks', () => {
  it('splits the content into exactly N content chunks for OpenAI, Anthropic and Vertex streams', async () => {
    const openai = sseData(await (await chat({ 'x-mock-chunks': '5' })).text()) as Json[];
    const contentChunks = openai.slice(1, -2);
    expect(contentChunks).toHaveLength(5);
    expect(contentChunks.map((c) => c.choices[0].delta.content).join('')).toBe('alpha beta gamma');

    mock().configure({ chunks: 2 });
    const anthropic = parseSse(
      await (await postJson(`${mock().url}/v1/messages`, anthropicBody, ANTHROPIC_AUTH)).text(),
    );
    const deltas = anthropic
      .filter((e) => e.event === 'content_block_delta')
      .map((e) => JSON.parse(e.data).delta.text);
    expect(deltas).toEqual(['alpha be', 'ta gamma']);

    const vertex = await postJson(
      `${mock().url}/v1/projects/p/locations/l/publishers/google/models/g:streamGenerateContent?alt=sse`,
      { contents: [{ role: 'user', parts: [{ text: 'alpha beta gamma' }] }] },
      { authorization: 'Bearer t', 'x-mock-chunks': '1' },
    );
    expect(parseSse(await vertex.text(), '\r\n\r\n')).toHaveLength(1);
  });
});
