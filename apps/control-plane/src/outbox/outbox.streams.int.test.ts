// The control plane's streams on a real NATS: the changes stream is its own (created or updated),
// the audit stream is the logger's (created when missing, never changed).
import { test } from '@aigw/testkit';
import { describe, expect } from 'vitest';
import {
  AUDIT_MAX_AGE_MS,
  CHANGES_MAX_AGE_MS,
  ensureControlPlaneStreams,
  natsRoute,
} from './outbox.streams.js';

const NANOS_PER_MS = 1_000_000;

describe('control-plane streams', () => {
  test('creates both streams when missing, with a 2-minute duplicate window', async ({ nats }) => {
    await ensureControlPlaneStreams(nats.jsm, 1, nats.prefix);
    const changes = await nats.jsm.streams.info(nats.stream('AIGW_CHANGES'));
    expect(changes.config.subjects).toEqual([nats.subject('aigw', 'changes', 'v1', '*')]);
    expect(changes.config.max_age).toBe(CHANGES_MAX_AGE_MS * NANOS_PER_MS);
    expect(changes.config.duplicate_window).toBe(120_000 * NANOS_PER_MS);
    const audit = await nats.jsm.streams.info(nats.stream('AIGW_AUDIT'));
    expect(audit.config.subjects).toEqual([nats.subject('aigw', 'audit', 'v1')]);
    expect(audit.config.max_age).toBe(AUDIT_MAX_AGE_MS * NANOS_PER_MS);
    // A second start finds them and changes nothing.
    await ensureControlPlaneStreams(nats.jsm, 1, nats.prefix);
    expect((await nats.jsm.streams.info(nats.stream('AIGW_CHANGES'))).config.max_age).toBe(
      CHANGES_MAX_AGE_MS * NANOS_PER_MS,
    );
  });

  test('updates the changes stream but leaves the logger-owned audit stream as it is', async ({ nats }) => {
    const hourNanos = 3_600_000 * NANOS_PER_MS;
    await nats.jsm.streams.update(nats.stream('AIGW_CHANGES'), { max_age: hourNanos });
    await nats.jsm.streams.update(nats.stream('AIGW_AUDIT'), { max_age: hourNanos });
    await ensureControlPlaneStreams(nats.jsm, 1, nats.prefix);
    expect((await nats.jsm.streams.info(nats.stream('AIGW_CHANGES'))).config.max_age).toBe(
      CHANGES_MAX_AGE_MS * NANOS_PER_MS,
    );
    expect((await nats.jsm.streams.info(nats.stream('AIGW_AUDIT'))).config.max_age).toBe(hourNanos);
  });

  test('routes outbox subjects to their stream, namespaced or not, and refuses unknown ones', () => {
    expect(natsRoute('aigw.changes.v1.api_key')).toEqual({
      subject: 'aigw.changes.v1.api_key',
      stream: 'AIGW_CHANGES',
    });
    expect(natsRoute('aigw.audit.v1', 'NS')).toEqual({
      subject: 'NS.aigw.audit.v1',
      stream: 'NS_AIGW_AUDIT',
    });
    expect(() => natsRoute('aigw.requests.v1')).toThrow(/no stream captures/);
  });
});
