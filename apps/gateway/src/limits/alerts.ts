// Usage alerts: one UsageAlertEvent per threshold or exhausted transition of a budget counter. The
// store raises each transition once (its marks live with the counter), so replicas do not repeat it.
import { EntityKind, SCHEMA_VERSION, UsageAlertEvent, UsageAlertKind, UsageLimitType } from '@aigw/proto';
import type { BudgetItem } from './plan.js';

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
