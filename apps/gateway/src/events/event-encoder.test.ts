import { RequestEvent } from '@aigw/proto';
import { describe, expect, it } from 'vitest';
import { eventEncoder } from './event-encoder.js';

const event = (id: string, bodyBytes = 0, statusCode = 200) =>
  RequestEvent.fromPartial({
    schemaVersion: 1,
    id,
    traceId: `trace-${id}`,
    receivedAtMs: 1_795_326_343_123,
    provider: { type: 'openai', customHost: 'http://127.0.0.1:9' },
    modelRequested: 'gpt-4o-mini',
    method: 'POST',
    path: '/chat/completions',
    statusCode,
    attempts: [{ targetPath: 'provider', statusCode: 200, latencyUs: 1234 }],
    tokens: { inputTokens: 3, outputTokens: 4, totalTokens: 7 },
    metadata: { team: 'search', 'ünïcode': '✓' },
    ...(bodyBytes > 0
      ? { requestBody: { data: Buffer.alloc(bodyBytes, 'x'), sizeBytes: bodyBytes, contentType: 'text/plain' } }
      : {}),
    latency: { totalUs: 2000, upstreamUs: 1500 },
    requestSizeBytes: 42,
  });

describe('eventEncoder', () => {
  it('gives the bytes RequestEvent.encode gives, event after event, whatever their sizes', () => {
    const encode = eventEncoder();
    for (const e of [event('a'), event('b', 3000), event('c'), event('d', 2 * 1024 * 1024), event('e')]) {
      const bytes = encode(e);
      expect(Buffer.from(bytes).equals(Buffer.from(RequestEvent.encode(e).finish()))).toBe(true);
      expect(RequestEvent.decode(bytes).id).toBe(e.id);
    }
  });

  it('throws where RequestEvent.encode throws, and encodes the next event cleanly', () => {
    const encode = eventEncoder();
    const bad = event('bad', 10, -1);
    expect(() => RequestEvent.encode(bad).finish()).toThrow();
    expect(() => encode(bad)).toThrow();
    const next = event('next', 10);
    expect(Buffer.from(encode(next)).equals(Buffer.from(RequestEvent.encode(next).finish()))).toBe(true);
  });

  it('returns bytes that later encodes do not overwrite', () => {
    const encode = eventEncoder();
    const first = encode(event('first'));
    const copy = Buffer.from(first);
    encode(event('second', 500));
    expect(Buffer.from(first).equals(copy)).toBe(true);
  });
});
