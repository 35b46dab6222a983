// The gateway event -> alerts row translation: the once-key, group decoding, units, refusals.
import {
  EntityKind,
  RateLimitType,
  SCHEMA_VERSION,
  UsageAlertEvent,
  UsageAlertKind,
  UsageLimitType,
} from '@aigw/proto';
import { describe, expect, it } from 'vitest';
import { alertDedupeKey, alertRow, groupValues, invalidAlertEvent } from './alert-event.js';
import { retryDelayMs } from './alert-mailer.js';

const ORG = '0a0a0a0a-0000-4000-8000-000000000001';
const WS = '0a0a0a0a-0000-4000-8000-000000000002';
const POLICY = '0a0a0a0a-0000-4000-8000-000000000003';

function event(fields: Partial<UsageAlertEvent> = {}): UsageAlertEvent {
  return UsageAlertEvent.fromPartial({
    schemaVersion: SCHEMA_VERSION,
    id: 'x',
    occurredAtMs: Date.UTC(2026, 10, 3),
    organisationId: ORG,
    workspaceId: WS,
    kind: UsageAlertKind.THRESHOLD,
    entityKind: EntityKind.USAGE_LIMIT_POLICY,
    entityId: POLICY,
    groupValue: 'api_key=k%261&model=gpt-4o',
    type: UsageLimitType.COST,
    usage: 81_250_000,
    creditLimit: 100_000_000,
    alertThreshold: 80_000_000,
    periodStartMs: Date.UTC(2026, 10, 1),
    instanceId: 'gw-1',
    ...fields,
  });
}

describe('alert events', () => {
  it('are stored once per subject, group, period, kind and threshold (or limit)', () => {
    const base = alertDedupeKey(event());
    expect(base).toBe(
      `usage_limit_policy:${POLICY}:api_key=k%261&model=gpt-4o:${Date.UTC(2026, 10, 1)}:threshold@80000000/100000000`,
    );
    // Usage, time and reporting replica do not make another alert.
    expect(alertDedupeKey(event({ usage: 99_000_000, occurredAtMs: 1, instanceId: 'gw-2' }))).toBe(base);
    // A new threshold, a new limit, another period or group does (spec part 3 re-arms the alert).
    for (const other of [
      { alertThreshold: 90_000_000 },
      { creditLimit: 120_000_000 },
      { periodStartMs: Date.UTC(2026, 11, 1) },
      { groupValue: 'api_key=k2&model=gpt-4o' },
      { kind: UsageAlertKind.EXHAUSTED },
    ])
      expect(alertDedupeKey(event(other))).not.toBe(base);
    // An exhausted alert depends on the limit only.
    expect(alertDedupeKey(event({ kind: UsageAlertKind.EXHAUSTED, alertThreshold: 1 }))).toBe(
      alertDedupeKey(event({ kind: UsageAlertKind.EXHAUSTED, alertThreshold: 2 })),
    );
  });

  it('decode the group and give amounts in the limit unit', () => {
    expect(groupValues('api_key=k%261&model=gpt-4o')).toEqual({ api_key: 'k&1', model: 'gpt-4o' });
    expect(groupValues('')).toEqual({});
    const row = alertRow(event(), 'pending', new Date(5));
    expect(row).toMatchObject({
      organisation_id: ORG,
      workspace_id: WS,
      kind: 'threshold',
      subject_kind: 'usage_limit_policy',
      subject_id: POLICY,
      group_values: JSON.stringify({ api_key: 'k&1', model: 'gpt-4o' }),
      limit_type: 'cost',
      usage: 81.25,
      credit_limit: 100,
      alert_threshold: 80,
      period_start: new Date(Date.UTC(2026, 10, 1)),
      gateway_instance: 'gw-1',
      email_state: 'pending',
      email_next_attempt_at: new Date(5),
    });
    const tokens = alertRow(
      event({
        type: UsageLimitType.TOKENS,
        entityKind: EntityKind.VIRTUAL_KEY,
        usage: 900,
        creditLimit: 1000,
        periodStartMs: 0,
        workspaceId: '',
        groupValue: `workspace_id=${WS}&type=tokens`,
      }),
      'off',
    );
    expect(tokens).toMatchObject({
      subject_kind: 'provider',
      usage: 900,
      credit_limit: 1000,
      period_start: null,
      workspace_id: WS,
      email_state: 'off',
      email_next_attempt_at: null,
    });
  });

  it('that cannot be stored are named', () => {
    expect(invalidAlertEvent(event())).toBeUndefined();
    expect(invalidAlertEvent(event({ schemaVersion: 99 }))).toMatch(/schema_version/);
    expect(invalidAlertEvent(event({ kind: UsageAlertKind.UNSPECIFIED }))).toMatch(/kind/);
    expect(invalidAlertEvent(event({ entityKind: EntityKind.CONFIG }))).toMatch(/entity kind/);
    expect(invalidAlertEvent(event({ organisationId: 'nope' }))).toMatch(/uuid/);
    expect(invalidAlertEvent(event({ workspaceId: 'nope' }))).toMatch(/workspace_id/);
    expect(invalidAlertEvent(event({ occurredAtMs: 0 }))).toMatch(/occurred_at_ms/);
  });

  it('e-mail retries back off exponentially up to the maximum', () => {
    expect([1, 2, 3, 4, 10, 60].map((n) => retryDelayMs(n, 100, 1000))).toEqual([
      100, 200, 400, 800, 1000, 1000,
    ]);
  });

  it('of a rate limit: once per limit and window, counted in its unit, never a budget type', () => {
    const rate = (fields: Partial<UsageAlertEvent> = {}) =>
      event({
        kind: UsageAlertKind.RATE_LIMITED,
        entityKind: EntityKind.RATE_LIMIT_POLICY,
        type: UsageLimitType.UNSPECIFIED,
        rateType: RateLimitType.REQUESTS,
        windowMs: 60_000,
        usage: 60,
        creditLimit: 60,
        periodStartMs: Date.UTC(2026, 10, 3, 12, 5),
        ...fields,
      });
    const key = alertDedupeKey(rate());
    expect(key).toBe(
      `rate_limit_policy:${POLICY}:api_key=k%261&model=gpt-4o:${Date.UTC(2026, 10, 3, 12, 5)}:rate_limited@60/requests/60000`,
    );
    expect(alertDedupeKey(rate({ usage: 61, instanceId: 'gw-2' }))).toBe(key);
    expect(alertDedupeKey(rate({ periodStartMs: Date.UTC(2026, 10, 3, 12, 6) }))).not.toBe(key);
    expect(invalidAlertEvent(rate())).toBeUndefined();
    expect(alertRow(rate(), 'off')).toMatchObject({
      kind: 'rate_limited',
      subject_kind: 'rate_limit_policy',
      limit_type: 'requests',
      usage: 60,
      credit_limit: 60,
      window_ms: 60_000,
    });
    expect(invalidAlertEvent(rate({ windowMs: 0 }))).toBe('window_ms is not set');
    expect(invalidAlertEvent(rate({ rateType: RateLimitType.UNSPECIFIED }))).toContain('rate limit type');
    expect(invalidAlertEvent(event({ entityKind: EntityKind.RATE_LIMIT_POLICY }))).toContain(
      'only rate_limited',
    );
  });
});
