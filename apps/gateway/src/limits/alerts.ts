// Usage alerts: one UsageAlertEvent per threshold or exhausted transition of a budget counter. The
// store raises each transition once (its marks live with the counter), so replicas do not repeat it.
import { EntityKind, SCHEMA_VERSION, UsageAlertEvent, UsageAlertKind, UsageLimitType } from '@aigw/proto';
import type { BudgetItem } from './plan.js';

/** `<entity kind>:<entity id>:<group value>:<period start ms>:<threshold|exhausted>` (proto). */
export function alertId(budget: BudgetItem, kind: 'threshold' | 'exhausted'): string {
  const entityKind = (EntityKind[budget.owner.entityKind] ?? 'unspecified').toLowerCase();
  return `${entityKind}:${budget.owner.id}:${budget.owner.group}:${budget.period.startMs}:${kind}`;
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
