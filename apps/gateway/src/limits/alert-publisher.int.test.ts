// Usage alerts reach JetStream once per alert id, under the namespaced subject the logger reads.
import { randomUUID } from 'node:crypto';
import { EntityKind, UsageAlertEvent, UsageAlertKind, UsageLimitType } from '@aigw/proto';
import { createLogger } from '@aigw/runtime';
import { test } from '@aigw/testkit';
import { describe, expect, vi } from 'vitest';
import { alertsSubject, natsAlertPublisher } from './alert-publisher.js';

const log = createLogger({ app: 'gateway-test', level: 'silent' });

function alert(id: string): UsageAlertEvent {
  return UsageAlertEvent.fromPartial({
    schemaVersion: 1,
    id,
    occurredAtMs: Date.now(),
    organisationId: 'org-1',
    kind: UsageAlertKind.EXHAUSTED,
    entityKind: EntityKind.API_KEY,
    entityId: 'key-1',
    type: UsageLimitType.TOKENS,
    usage: 120,
    creditLimit: 100,
  });
}

describe('natsAlertPublisher', () => {
  test('publishes each alert id once under <namespace>.aigw.alerts.v1', async ({ nats }) => {
    const namespace = `ns${randomUUID().slice(0, 8)}`;
    const stream = nats.stream('ALERTS');
    await nats.jsm.streams.add({
      name: stream,
      subjects: [alertsSubject(namespace)],
      duplicate_window: 60e9,
    });
    const publish = natsAlertPublisher(Promise.resolve(nats.nc), namespace, log);

    publish(alert('a-1'));
    publish(alert('a-1'));
    publish(alert('a-2'));

    await vi.waitFor(async () => {
      const info = await nats.jsm.streams.info(stream);
      expect(info.state.last_seq).toBe(2);
    });
    const first = await nats.jsm.streams.getMessage(stream, { seq: 1 });
    expect(first?.subject).toBe(`${namespace}.aigw.alerts.v1`);
    expect(UsageAlertEvent.decode(first?.data ?? new Uint8Array()).id).toBe('a-1');
    const second = await nats.jsm.streams.getMessage(stream, { seq: 2 });
    expect(UsageAlertEvent.decode(second?.data ?? new Uint8Array()).id).toBe('a-2');
  });

  test('without NATS it drops the alert with a log line instead of throwing', () => {
    const warn = vi.fn();
    const publish = natsAlertPublisher(undefined, undefined, { ...log, warn } as unknown as typeof log);
    expect(() => publish(alert('a-3'))).not.toThrow();
    expect(warn).toHaveBeenCalledWith({ alertId: 'a-3' }, expect.stringContaining('NATS_URL'));
    expect(alertsSubject(undefined)).toBe('aigw.alerts.v1');
  });
});
