// Usage alerts: one UsageAlertEvent per threshold or exhausted transition of a budget counter (the
// store raises each transition once: its marks live with the counter, so replicas do not repeat
// it), and one per rate limit and window that refused a request.
import {
  EntityKind,
  RateLimitType,
  SCHEMA_VERSION,
  UsageAlertEvent,
  UsageAlertKind,
  UsageLimitType,
} from '@aigw/proto';
import type { BudgetItem, RateItem } from './plan.js';

/**
 * `<entity kind>:<entity id>:<group value>:<period start ms>:threshold@<threshold>/<limit>` or
 * `...:exhausted@<limit>`: the store raises each alert once per threshold and limit, so a raised
 * limit (spec part 3) alerts again, and its event must not be taken for a duplicate of the first
 * by JetStream (Nats-Msg-Id) or by the control plane's store (same key: src/alerts/alert-event.ts).
 */
export function alertId(budget: BudgetItem, kind: 'threshold' | 'exhausted'): string {
  const entityKind = (EntityKind[budget.owner.entityKind] ?? 'unspecified').toLowerCase();
  const level =
    kind === 'threshold'
      ? `threshold@${budget.threshold ?? -1}/${budget.limit}`
      : `exhausted@${budget.limit}`;
  return `${entityKind}:${budget.owner.id}:${budget.owner.group}:${budget.period.startMs}:${level}`;
}

export function alertEvent(
  budget: BudgetItem,
  kind: 'threshold' | 'exhausted',
  context: { organisationId: string; usage: number; occurredAtMs: number; instanceId: string },
): UsageAlertEvent {
  return UsageAlertEvent.fromPartial({
    schemaVersion: SCHEMA_VERSION,
    id: alertId(budget, kind),
    occurredAtMs: context.occurredAtMs,
    organisationId: context.organisationId,
    workspaceId: budget.owner.workspaceId,
    kind: kind === 'threshold' ? UsageAlertKind.THRESHOLD : UsageAlertKind.EXHAUSTED,
    entityKind: budget.owner.entityKind,
    entityId: budget.owner.id,
    groupValue: budget.owner.group,
    type: budget.type === 'cost' ? UsageLimitType.COST : UsageLimitType.TOKENS,
    usage: context.usage,
    creditLimit: budget.limit,
    ...(budget.threshold === undefined ? {} : { alertThreshold: budget.threshold }),
    periodStartMs: budget.period.startMs,
    instanceId: context.instanceId,
  });
}

/**
 * A rate limit that refused a request: `<entity kind>:<entity id>:<group>:<window start ms>:
 * rate_limited@<limit>/<requests|tokens>/<window ms>`, once per limit and window (every replica
 * that refuses in the window sends the same id, which JetStream and the control plane store once).
 */
export function rateAlertId(item: RateItem, windowStartMs: number): string {
  const entityKind = (EntityKind[item.owner.entityKind] ?? 'unspecified').toLowerCase();
  return `${entityKind}:${item.owner.id}:${item.owner.group}:${windowStartMs}:rate_limited@${item.limit}/${item.type}/${item.windowMs}`;
}

export function rateAlertEvent(
  item: RateItem,
  context: { organisationId: string; count: number; nowMs: number; instanceId: string },
): UsageAlertEvent {
  const windowStartMs = context.nowMs - (context.nowMs % item.windowMs);
  return UsageAlertEvent.fromPartial({
    schemaVersion: SCHEMA_VERSION,
    id: rateAlertId(item, windowStartMs),
    occurredAtMs: context.nowMs,
    organisationId: context.organisationId,
    workspaceId: item.owner.workspaceId,
    kind: UsageAlertKind.RATE_LIMITED,
    entityKind: item.owner.entityKind,
    entityId: item.owner.id,
    groupValue: item.owner.group,
    type: UsageLimitType.UNSPECIFIED,
    rateType: item.type === 'requests' ? RateLimitType.REQUESTS : RateLimitType.TOKENS,
    windowMs: item.windowMs,
    usage: context.count,
    creditLimit: item.limit,
    periodStartMs: windowStartMs,
    instanceId: context.instanceId,
  });
}
