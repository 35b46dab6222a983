import { RequestEvent, RequestEventBatch, SCHEMA_VERSION } from '@aigw/proto';
import { describe, expect, it } from 'vitest';
import { frameBatch } from './batch.js';
import { eventEncoder } from './event-encoder.js';
import { decodeRecords, encodeRecord } from './spool-record.js';

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
    metadata: { team: 'search', ünïcode: '✓' },
    ...(bodyBytes > 0
      ? {
          requestBody: {
            data: Buffer.alloc(bodyBytes, 'x'),
            sizeBytes: bodyBytes,
            contentType: 'text/plain',
          },
        }
      : {}),
    latency: { totalUs: 2000, upstreamUs: 1500 },
    requestSizeBytes: 42,
  });

const same = (a: Uint8Array | undefined, b: Uint8Array) =>
  a !== undefined && Buffer.from(a).equals(Buffer.from(b));
const alone = (e: RequestEvent) => RequestEvent.encode(e).finish();

describe('eventEncoder', () => {
  it('one(): the bytes RequestEvent.encode gives, event after event, whatever their sizes', () => {
    const encoder = eventEncoder();
    for (const e of [event('a'), event('b', 3000), event('c'), event('d', 2 * 1024 * 1024), event('e')]) {
      const bytes = encoder.one(e);
      expect(same(bytes, alone(e))).toBe(true);
      expect(RequestEvent.decode(bytes).id).toBe(e.id);
    }
  });

  it('one(): throws where RequestEvent.encode throws, and encodes the next event cleanly', () => {
    const encoder = eventEncoder();
    const bad = event('bad', 10, -1);
    expect(() => alone(bad)).toThrow();
    expect(() => encoder.one(bad)).toThrow();
    const next = event('next', 10);
    expect(same(encoder.one(next), alone(next))).toBe(true);
  });

  it('one(): returns bytes that later encodes do not overwrite', () => {
    const encoder = eventEncoder();
    const first = encoder.one(event('first'));
    const copy = Buffer.from(first);
    encoder.one(event('second', 500));
    expect(Buffer.from(first).equals(copy)).toBe(true);
  });

  it('batch(): the bytes of frameBatch over events encoded alone, and of RequestEventBatch', () => {
    const encoder = eventEncoder();
    const events = [event('a'), event('b', 300), event('c', 70_000), event('d')];
    const bytes = encoder.batch(events, 768 * 1024);
    expect(same(bytes, frameBatch(events.map(alone)))).toBe(true);
    expect(same(bytes, RequestEventBatch.encode({ schemaVersion: SCHEMA_VERSION, events }).finish())).toBe(
      true,
    );
    expect(same(encoder.batch([event('z')], 768 * 1024), frameBatch([alone(event('z'))]))).toBe(true);
  });

  it('batch(): undefined when the framed events exceed the limit, except for a single event', () => {
    const encoder = eventEncoder();
    const events = [event('a', 600), event('b', 600)];
    const framed = frameBatch(events.map(alone)).length - 2;
    expect(encoder.batch(events, framed)).toBeDefined();
    expect(encoder.batch(events, framed - 1)).toBeUndefined();
    const big = event('big', 5000);
    expect(same(encoder.batch([big], 100), frameBatch([alone(big)]))).toBe(true);
  });

  it('batch(): undefined when an event cannot be encoded, and the next batch is clean', () => {
    const encoder = eventEncoder();
    expect(encoder.batch([event('a'), event('bad', 10, -1), event('c')], 768 * 1024)).toBeUndefined();
    const events = [event('x'), event('y', 20)];
    expect(same(encoder.batch(events, 768 * 1024), frameBatch(events.map(alone)))).toBe(true);
  });

  it('batchRecord(): the journal record of the batch, byte for byte, its payload the batch', () => {
    const encoder = eventEncoder();
    for (const events of [[event('a')], [event('a'), event('b', 300), event('c', 70_000)]]) {
      const id = `${events[0]!.id}+${events.length}`;
      const encoded = encoder.batchRecord(events, 768 * 1024, id);
      const batch = frameBatch(events.map(alone));
      expect(same(encoded?.payload, batch)).toBe(true);
      expect(same(encoded?.frame, encodeRecord(id, batch))).toBe(true);
      const decoded = decodeRecords(encoded!.frame);
      expect(decoded.damage).toBeUndefined();
      expect(decoded.records.map((r) => r.msgId)).toEqual([id]);
    }
  });

  it('batchRecord(): a non-ASCII id, and bytes that later batches do not overwrite', () => {
    const encoder = eventEncoder();
    const first = encoder.batchRecord([event('ü')], 768 * 1024, 'ü+1')!;
    const copy = Buffer.from(first.frame);
    encoder.batchRecord([event('second', 5000)], 768 * 1024, 'second+1');
    expect(first.frame.equals(copy)).toBe(true);
    expect(same(first.frame, encodeRecord('ü+1', frameBatch([alone(event('ü'))])))).toBe(true);
  });

  it('batchRecord(): undefined when an event cannot be encoded or the batch is too big; the next is clean', () => {
    const encoder = eventEncoder();
    expect(encoder.batchRecord([event('a'), event('bad', 10, -1)], 768 * 1024, 'a+2')).toBeUndefined();
    expect(encoder.batchRecord([event('a', 600), event('b', 600)], 100, 'a+2')).toBeUndefined();
    const events = [event('x'), event('y', 20)];
    const encoded = encoder.batchRecord(events, 768 * 1024, 'x+2');
    expect(same(encoded?.frame, encodeRecord('x+2', frameBatch(events.map(alone))))).toBe(true);
  });
});
