// Shared test helpers: one mock per test file, JSON calls, and readers for SSE and raw stream frames.
import { afterAll, afterEach, beforeAll } from 'vitest';
import { createMockProvider, type MockOptions, type MockProvider } from '../src/index.js';

/** Start a mock for the file, reset it after each test, close it at the end. */
export function useMock(options: MockOptions = {}): () => MockProvider {
  let mock: MockProvider | undefined;
  beforeAll(async () => {
    mock = await createMockProvider(options);
  });
  afterEach(() => mock?.reset());
  afterAll(async () => {
    await mock?.close();
  });
  return () => {
    if (!mock) throw new Error('mock not started');
    return mock;
  };
}

/** Parsed JSON as the assertions walk it: any shape, checked by the expectations themselves. */
// biome-ignore lint/suspicious/noExplicitAny: assertions index into arbitrary provider JSON
export type Json = any;

export async function json(res: Response): Promise<Json> {
  return res.json();
}

export const OPENAI_AUTH = { authorization: 'Bearer sk-test-key' };
export const ANTHROPIC_AUTH = { 'x-api-key': 'sk-ant-test', 'anthropic-version': '2023-06-01' };

export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  init: RequestInit = {},
): Promise<Response> {
  return fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    ...init,
  });
}

export interface SseEvent {
  event?: string;
  data: string;
}

/** Split an SSE body into events; asserts every frame is a well-formed `event:`/`data:` block. */
export function parseSse(text: string, separator = '\n\n'): SseEvent[] {
  if (!text.endsWith(separator))
    throw new Error(`SSE body does not end with a blank line: ${JSON.stringify(text.slice(-40))}`);
  return text
    .slice(0, -separator.length)
    .split(separator)
    .map((block) => {
      const lines = block.split(separator === '\n\n' ? '\n' : '\r\n');
      const event: SseEvent = { data: '' };
      for (const line of lines) {
        if (line.startsWith('event: ')) event.event = line.slice(7);
        else if (line.startsWith('data: ')) event.data = line.slice(6);
        else throw new Error(`unexpected SSE line: ${line}`);
      }
      return event;
    });
}

/** JSON payloads of `data:` events, `[DONE]` kept as the string. */
export function sseData(text: string): Json[] {
  return parseSse(text).map((e) => (e.data === '[DONE]' ? '[DONE]' : JSON.parse(e.data)));
}

/** Read a streamed body until `count` SSE frames (blank-line separated) arrived. */
export async function readFrames(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  count: number,
): Promise<{ frames: string[]; rest: string }> {
  const decoder = new TextDecoder();
  let buffer = '';
  const frames: string[] = [];
  while (frames.length < count) {
    const { done, value } = await reader.read();
    if (done) throw new Error(`stream ended after ${frames.length} frames`);
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf('\n\n');
    while (end >= 0) {
      frames.push(buffer.slice(0, end + 2));
      buffer = buffer.slice(end + 2);
      end = buffer.indexOf('\n\n');
    }
  }
  return { frames, rest: buffer };
}

/** Every byte until the stream ends or fails; `error` is what the failure was. */
export async function drain(body: ReadableStream<Uint8Array>): Promise<{ text: string; error?: unknown }> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return { text };
      text += decoder.decode(value, { stream: true });
    }
  } catch (error) {
    return { text, error };
  }
}
