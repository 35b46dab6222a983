// Spec part 3 for usage-limit alerts: the alerts a limit change (or a usage reset) clears. Alerts
// themselves are stored by the alert consumer (src/alerts); clearing one sets its `reset_at`, so it
// shows as reset and the same alert can be stored again if the gateway raises it anew.
import { type Kysely, sql } from 'kysely';
import { type AlertKind, type AlertSubjectKind, alertDb } from '../alerts/alerts.db.js';
import type { ControlDatabase } from '../db/schema.js';

export interface AlertResets {
  readonly threshold: boolean;
  readonly exhausted: boolean;
}

interface LimitValues {
  readonly credit_limit: number | null;
  readonly alert_threshold: number | null;
}

/**
 * Spec part 3: raising the credit limit resets both alerts; raising the alert threshold, or setting
 * it to null, resets the threshold alert. Lowering either resets nothing.
 */
export function alertResets(before: LimitValues, after: LimitValues): AlertResets {
  const creditRaised = (after.credit_limit ?? 0) > (before.credit_limit ?? 0);
  const thresholdRaised =
    before.alert_threshold !== null &&
    (after.alert_threshold === null || after.alert_threshold > before.alert_threshold);
  return { threshold: creditRaised || thresholdRaised, exhausted: creditRaised };
}

export interface AlertSubject {
  readonly kind: AlertSubjectKind;
  readonly id: string;
}

/**
 * Clears the given active alerts of a subject: every group, only groups where `only.key` has one of
 * `only.values`, or only the group equal to `group`. Call it inside the change's
 * transaction. Returns how many alerts were cleared.
 */
export async function resetAlerts(
  db: Kysely<ControlDatabase>,
  subject: AlertSubject,
  resets: AlertResets,
  only?: { key: string; values: readonly string[] },
  group?: Readonly<Record<string, string>>,
): Promise<number> {
  const kinds: AlertKind[] = [
    ...(resets.threshold ? (['threshold'] as const) : []),
    ...(resets.exhausted ? (['exhausted'] as const) : []),
  ];
  if (kinds.length === 0 || (only && only.values.length === 0)) return 0;
  let query = alertDb(db)
    .updateTable('alerts')
    .set({ reset_at: new Date() })
    .where('subject_kind', '=', subject.kind)
    .where('subject_id', '=', subject.id)
    .where('kind', 'in', kinds)
    .where('reset_at', 'is', null);
  if (only)
    query = query.where((eb) => eb(eb.ref('group_values', '->>').key(only.key), 'in', [...only.values]));
  if (group) query = query.where(sql<boolean>`group_values = ${JSON.stringify(group)}::jsonb`);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

const LIMIT_TYPES = ['cost', 'tokens'] as const;

/**
 * The alert group of a usage limit set directly on a key, workspace, provider or integration, as
 * the gateway reports it: its type, plus the workspace for an integration's per-workspace limit.
 */
export function entityLimitGroup(
  type: (typeof LIMIT_TYPES)[number],
  workspaceId?: string,
): Record<string, string> {
  return workspaceId === undefined ? { type } : { workspace_id: workspaceId, type };
}

function limitOfType(limits: unknown, type: string): LimitValues {
  const found = (Array.isArray(limits) ? (limits as Record<string, unknown>[]) : []).find(
    (l) => (l.type ?? 'cost') === type,
  );
  // No limit is no ceiling: removing a limit lifts it as a raise would.
  if (!found || typeof found.credit_limit !== 'number')
    return { credit_limit: Number.POSITIVE_INFINITY, alert_threshold: null };
  const threshold = found.alert_threshold;
  return {
    credit_limit: found.credit_limit,
    alert_threshold: typeof threshold === 'number' ? threshold : null,
  };
}

/**
 * Spec part 3 for limits set on an entity (stored `usage_limits` before and after an update): the
 * resets of each limit type. Exhaustion itself is derived, so reactivation needs nothing more.
 * Call it inside the update's transaction.
 */
export async function resetEntityLimitAlerts(
  db: Kysely<ControlDatabase>,
  subject: AlertSubject,
  before: unknown,
  after: unknown,
  workspaceId?: string,
): Promise<number> {
  let cleared = 0;
  for (const type of LIMIT_TYPES) {
    const resets = alertResets(limitOfType(before, type), limitOfType(after, type));
    cleared += await resetAlerts(db, subject, resets, undefined, entityLimitGroup(type, workspaceId));
  }
  return cleared;
}
