import { RequestEvent, RequestEventBatch } from '@aigw/proto';
import { describe, expect, it } from 'vitest';
import { batchEventCount, batchMsgId, frameBatch } from './batch.js';

const event = (id: string, path: string) =>
  RequestEvent.fromPartial({ schemaVersion: 1, id, path, metadata: { k: 'v'.repeat(300) } });

describe('frameBatch', () => {
  it('is byte-identical to ts-proto encoding and decodes to the same events', () => {
    const events = [event('a', '/chat/completions'), event('b', '/embeddings'), event('c', '/x'.repeat(100))];
    const framed = frameBatch(events.map((e) => RequestEvent.encode(e).finish()));
    const reference = RequestEventBatch.encode({ schemaVersion: 1, events }).finish();
    expect(Buffer.from(framed).equals(Buffer.from(reference))).toBe(true);
    expect(RequestEventBatch.decode(framed).events).toEqual(events);
  });

  it('frames an empty batch and one with a large event (multi-byte lengths)', () => {
    expect(RequestEventBatch.decode(frameBatch([]))).toEqual({ schemaVersion: 1, events: [] });
    const big = RequestEvent.fromPartial({ id: 'big', path: 'p'.repeat(70_000) });
    expect(
      RequestEventBatch.decode(frameBatch([RequestEvent.encode(big).finish()])).events[0]?.path,
    ).toHaveLength(70_000);
  });

  it('derives message ids that carry the event count', () => {
    expect(batchMsgId('0b1c', 3)).toBe('0b1c+3');
    expect(batchEventCount('0b1c+3')).toBe(3);
    expect(batchEventCount('plain-uuid')).toBe(1);
    expect(batchEventCount('x+junk')).toBe(1);
  });
});
