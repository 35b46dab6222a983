// UsageAlertEvent (gateway, proto) -> alerts row: which subject it belongs to, its group, amounts in
// the limit's unit, and the key that stores it once per subject, group, period, kind and threshold.
import { randomUUID } from 'node:crypto';
import {
  EntityKind,
  isSupportedSchemaVersion,
  RateLimitType,
  type UsageAlertEvent,
  UsageAlertKind,
  UsageLimitType,
} from '@aigw/proto';
import { isUuid } from '../auth/visibility.js';
import type { AlertSubjectKind, EmailState, NewAlert } from './alerts.db.js';

const SUBJECTS: Partial<Record<EntityKind, AlertSubjectKind>> = {
  [EntityKind.USAGE_LIMIT_POLICY]: 'usage_limit_policy',
  [EntityKind.RATE_LIMIT_POLICY]: 'rate_limit_policy',
  [EntityKind.API_KEY]: 'api_key',
  [EntityKind.WORKSPACE]: 'workspace',
  [EntityKind.INTEGRATION]: 'integration',
  [EntityKind.PROVIDER]: 'provider',
  // A virtual key is a provider record (one table): its limits are the provider's.
  [EntityKind.VIRTUAL_KEY]: 'provider',
};

const MICROS_PER_USD = 1_000_000;

/**
 * `<entity kind>:<entity id>:<group>:<period start ms>:<kind>@<level>`; the level is
 * `<threshold>/<limit>` for a threshold alert and `<limit>` for an exhausted one, the marks the
 * gateway raises each alert once per (spec part 3: raising either re-arms the alert). The gateway
 * uses the same text as Nats-Msg-Id (apps/gateway/src/limits/alerts.ts).
 */
export function alertDedupeKey(event: UsageAlertEvent): string {
  const entityKind = (EntityKind[event.entityKind] ?? 'unspecified').toLowerCase();
  const level =
    event.kind === UsageAlertKind.RATE_LIMITED
      ? `rate_limited@${event.creditLimit}/${event.rateType === RateLimitType.REQUESTS ? 'requests' : 'tokens'}/${event.windowMs}`
      : event.kind === UsageAlertKind.THRESHOLD
        ? `threshold@${event.alertThreshold ?? -1}/${event.creditLimit}`
        : `exhausted@${event.creditLimit}`;
  return `${entityKind}:${event.entityId}:${event.groupValue}:${event.periodStartMs}:${level}`;
}

/** `api_key=k1&model=gpt-4o` -> `{ api_key: 'k1', model: 'gpt-4o' }` (values URI-encoded). */
export function groupValues(groupValue: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of groupValue.split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const decode = (s: string) => {
      try {
        return decodeURIComponent(s);
      } catch {
        return s;
      }
    };
    const key = decode(at < 0 ? pair : pair.slice(0, at));
    if (key !== '') out[key] = decode(at < 0 ? '' : pair.slice(at + 1));
  }
  return out;
}

/** Why an event cannot be stored (it is then terminated, never retried), or undefined. */
export function invalidAlertEvent(event: UsageAlertEvent): string | undefined {
  if (!isSupportedSchemaVersion(event.schemaVersion))
    return `unsupported schema_version ${event.schemaVersion}`;
  if (
    event.kind !== UsageAlertKind.THRESHOLD &&
    event.kind !== UsageAlertKind.EXHAUSTED &&
    event.kind !== UsageAlertKind.RATE_LIMITED
  )
    return `unknown alert kind ${event.kind}`;
  if (SUBJECTS[event.entityKind] === undefined) return `unknown entity kind ${event.entityKind}`;
  if (event.kind === UsageAlertKind.RATE_LIMITED) {
    if (event.rateType !== RateLimitType.REQUESTS && event.rateType !== RateLimitType.TOKENS)
      return `unknown rate limit type ${event.rateType}`;
    if (!(event.windowMs > 0)) return 'window_ms is not set';
  } else if (event.type !== UsageLimitType.COST && event.type !== UsageLimitType.TOKENS)
    return `unknown limit type ${event.type}`;
  else if (event.entityKind === EntityKind.RATE_LIMIT_POLICY)
    return 'a rate limit policy raises only rate_limited alerts';
  if (!isUuid(event.organisationId) || !isUuid(event.entityId))
    return 'organisation_id and entity_id must be uuids';
  if (event.workspaceId !== '' && !isUuid(event.workspaceId)) return 'workspace_id must be a uuid';
  if (!(event.occurredAtMs > 0)) return 'occurred_at_ms is not set';
  return undefined;
}

/** The row of a valid event (check `invalidAlertEvent` first). */
export function alertRow(event: UsageAlertEvent, emailState: EmailState, now = new Date()): NewAlert {
  const rate = event.kind === UsageAlertKind.RATE_LIMITED;
  const cost = !rate && event.type === UsageLimitType.COST;
  const unit = (n: number) => (cost ? n / MICROS_PER_USD : n);
  const group = groupValues(event.groupValue);
  // An organisation-level policy grouped by workspace belongs, for each group, to that workspace:
  // its members see it and its managers are told.
  const groupWorkspace =
    group.workspace_id !== undefined && isUuid(group.workspace_id) ? group.workspace_id : null;
  return {
    id: randomUUID(),
    dedupe_key: alertDedupeKey(event),
    organisation_id: event.organisationId.toLowerCase(),
    workspace_id: event.workspaceId !== '' ? event.workspaceId.toLowerCase() : groupWorkspace,
    kind: rate ? 'rate_limited' : event.kind === UsageAlertKind.THRESHOLD ? 'threshold' : 'exhausted',
    subject_kind: SUBJECTS[event.entityKind] as AlertSubjectKind,
    subject_id: event.entityId.toLowerCase(),
    group_values: JSON.stringify(group),
    limit_type: rate
      ? event.rateType === RateLimitType.REQUESTS
        ? 'requests'
        : 'tokens'
      : cost
        ? 'cost'
        : 'tokens',
    window_ms: rate ? event.windowMs : null,
    usage: unit(event.usage),
    credit_limit: unit(event.creditLimit),
    alert_threshold: event.alertThreshold === undefined ? null : unit(event.alertThreshold),
    period_start: event.periodStartMs > 0 ? new Date(event.periodStartMs) : null,
    occurred_at: new Date(event.occurredAtMs),
    gateway_instance: event.instanceId === '' ? null : event.instanceId.slice(0, 255),
    email_state: emailState,
    email_next_attempt_at: emailState === 'pending' ? now : null,
  };
}
