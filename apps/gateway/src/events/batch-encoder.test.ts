import { RequestEvent, RequestEventBatch } from '@aigw/proto';
import { describe, expect, it } from 'vitest';
import { frameBatch, MAX_BATCH_BYTES } from './batch.js';
import { encodeBatches } from './batch-encoder.js';
import { eventEncoder } from './event-encoder.js';
import { encodeRecord } from './spool-record.js';

const event = (id: string, bodyBytes = 0, statusCode = 200) =>
  RequestEvent.fromPartial({
    schemaVersion: 1,
    id,
    statusCode,
    path: '/chat/completions',
    ...(bodyBytes > 0 ? { requestBody: { data: Buffer.alloc(bodyBytes, 'b'), sizeBytes: bodyBytes } } : {}),
  });
const alone = (e: RequestEvent) => RequestEvent.encode(e).finish();

describe('encodeBatches', () => {
  it('builds lazy events and sends them in one batch, the bytes of events encoded alone', () => {
    const events = [event('a'), event('b', 100), event('c')];
    const failed: unknown[] = [];
    const batches = encodeBatches(eventEncoder(), [events[0]!, () => events[1]!, () => events[2]!], (err) =>
      failed.push(err),
    );
    expect(failed).toEqual([]);
    expect(batches).toHaveLength(1);
    expect(batches[0]).toMatchObject({ id: 'a+3', count: 3 });
    expect(Buffer.from(batches[0]!.bytes).equals(Buffer.from(frameBatch(events.map(alone))))).toBe(true);
    // Framed for the journal in the same pass: the record of the batch, the bytes a view into it.
    expect(batches[0]!.frame?.equals(encodeRecord('a+3', batches[0]!.bytes))).toBe(true);
  });

  it('leaves out, and reports, events that cannot be built or encoded', () => {
    const failed: unknown[] = [];
    const batches = encodeBatches(
      eventEncoder(),
      [
        event('a'),
        () => {
          throw new Error('no facts');
        },
        event('bad', 0, -1),
        event('d'),
      ],
      (err) => failed.push(err),
    );
    expect(failed).toHaveLength(2);
    expect(batches.map((b) => b.id)).toEqual(['a+2']);
    expect(RequestEventBatch.decode(batches[0]!.bytes).events.map((e) => e.id)).toEqual(['a', 'd']);
  });

  it('splits at 500 events and at the byte limit, in order', () => {
    const many = Array.from({ length: 501 }, (_, i) => event(`e${i}`));
    expect(encodeBatches(eventEncoder(), many, () => undefined).map((b) => b.count)).toEqual([500, 1]);
    const big = Math.floor(MAX_BATCH_BYTES / 2);
    const large = [event('x', big), event('y', big), event('z', 10)];
    const batches = encodeBatches(eventEncoder(), large, () => undefined);
    expect(batches.map((b) => b.id)).toEqual(['x+1', 'y+2']);
    expect(
      Buffer.from(batches[1]!.bytes).equals(Buffer.from(frameBatch([alone(large[1]!), alone(large[2]!)]))),
    ).toBe(true);
  });
});
