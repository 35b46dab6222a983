// Events read off the wire: each event's own bytes, bodies dropped without re-encoding, fields this
// logger does not know kept, malformed batches refused.
import { RequestEvent, RequestEventBatch, SCHEMA_VERSION } from '@aigw/proto';
import { describe, expect, it } from 'vitest';
import { batchBytes, requestEvent } from '../testing/request-events.js';
import { readBatch, withoutBodies } from './event-wire.js';

describe('event wire', () => {
  it('splits a batch into the bytes of each event, in order', () => {
    const events = [requestEvent(0), requestEvent(1), requestEvent(2)];
    const batch = readBatch(batchBytes(events));
    expect(batch.schemaVersion).toBe(SCHEMA_VERSION);
    expect(batch.events.map((bytes) => RequestEvent.decode(bytes))).toEqual(events);
    expect(batch.events.map((bytes) => Buffer.from(bytes))).toEqual(
      events.map((e) => Buffer.from(RequestEvent.encode(e).finish())),
    );
  });

  it('drops the request and response bodies and nothing else', () => {
    const event = requestEvent(7);
    expect(event.requestBody?.data.length).toBeGreaterThan(0);
    const stripped = RequestEvent.decode(withoutBodies(RequestEvent.encode(event).finish()));
    expect(stripped).toEqual({ ...event, requestBody: undefined, responseBody: undefined });
  });

  it('returns an event without bodies as it is', () => {
    const bytes = RequestEvent.encode({
      ...requestEvent(1),
      requestBody: undefined,
      responseBody: undefined,
    }).finish();
    expect(withoutBodies(bytes)).toBe(bytes);
  });

  it('keeps fields a newer gateway added', () => {
    const event = RequestEvent.encode(requestEvent(3)).finish();
    // Field 900, length-delimited, "new": unknown to this logger.
    const unknown = Uint8Array.from([0xa2, 0x38, 3, 0x6e, 0x65, 0x77]);
    const stored = withoutBodies(Uint8Array.from([...event, ...unknown]));
    expect(Buffer.from(stored.subarray(stored.length - unknown.length))).toEqual(Buffer.from(unknown));
  });

  it('refuses bytes that are not a batch', () => {
    expect(() => readBatch(Buffer.from('not protobuf \xff\xff'))).toThrow();
    // A length running past the end.
    expect(() => readBatch(Uint8Array.from([0x12, 0x40, 1, 2]))).toThrow(/past the end/);
    expect(readBatch(RequestEventBatch.encode({ schemaVersion: 0, events: [] }).finish())).toEqual({
      schemaVersion: 0,
      events: [],
    });
  });
});
