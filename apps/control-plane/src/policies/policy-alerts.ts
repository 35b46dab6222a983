// Usage-limit alerts (spec part 3 and 6): per policy and group, whether the threshold and the
// exhausted alert were raised; the resets a limit change causes; and the alert record itself, with
// its recipients, written to the outbox as a system AuditEvent for the logger. E-mail is out of scope.
import { randomUUID } from 'node:crypto';
import { type AuditEvent, AuditOutcome, SCHEMA_VERSION } from '@aigw/proto';
import { type Kysely, sql } from 'kysely';
import { SYSTEM_ACTOR } from '../auth/principal.js';
import { isUuid } from '../auth/visibility.js';
import type { ControlDatabase } from '../db/schema.js';
import { recordAudit } from '../outbox/outbox.js';
import type { AlertSubjectKind, PolicyGroupBy, PolicyRow } from './policies.db.js';
import { policyDb } from './policies.db.js';

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

/** Clears the given alerts of a subject: every group, or only groups where `key` has one of `values`. */
export async function resetAlerts(
  db: Kysely<ControlDatabase>,
  subject: AlertSubject,
  resets: AlertResets,
  only?: { key: string; values: readonly string[] },
): Promise<number> {
  return clearAlerts(db, subject, resets, { only });
}

async function clearAlerts(
  db: Kysely<ControlDatabase>,
  subject: AlertSubject,
  resets: AlertResets,
  filter: { only?: { key: string; values: readonly string[] } | undefined; groupKey?: string },
): Promise<number> {
  if (!resets.threshold && !resets.exhausted) return 0;
  const { only, groupKey } = filter;
  let query = policyDb(db)
    .updateTable('policy_alerts')
    .set({
      ...(resets.threshold ? { threshold_alerted_at: null } : {}),
      ...(resets.exhausted ? { exhausted_alerted_at: null } : {}),
      updated_at: new Date(),
    })
    .where('subject_kind', '=', subject.kind)
    .where('subject_id', '=', subject.id);
  if (only) query = query.where((eb) => eb(eb.ref('group_values', '->>').key(only.key), 'in', only.values));
  if (groupKey !== undefined) query = query.where('group_key', '=', groupKey);
  const result = await query.executeTakeFirst();
  return Number(result.numUpdatedRows);
}

const LIMIT_TYPES = ['cost', 'tokens'] as const;

/**
 * The alert group of a usage limit set directly on a key, workspace, provider or integration: its
 * type, plus the workspace for an integration's per-workspace limit (subject kind `integration`).
 */
export function entityLimitGroup(
  type: (typeof LIMIT_TYPES)[number],
  workspaceId?: string,
): { key: string; values: Record<string, string> } {
  const values: Record<string, string> =
    workspaceId === undefined ? { type } : { workspace_id: workspaceId, type };
  return { key: JSON.stringify(Object.entries(values)), values };
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
    cleared += await clearAlerts(db, subject, resets, { groupKey: entityLimitGroup(type, workspaceId).key });
  }
  return cleared;
}

/** One canonical text per group: the policy's group_by keys in order, with this group's values. */
export function groupKey(
  groupBy: readonly PolicyGroupBy[],
  values: Readonly<Record<string, string>>,
): string {
  return JSON.stringify(groupBy.map((g) => [g.key, values[g.key] ?? '']));
}

export interface AlertRecipient {
  readonly user_id: string;
  readonly email: string;
  readonly reason: 'organisation_owner' | 'organisation_admin' | 'workspace_manager';
}

/**
 * Spec part 6: alerts go to workspace admins and managers and to organisation admins. Workspaces
 * have managers (their admins are the organisation's owners and admins), so: every active owner and
 * admin of the organisation, and the managers of the given workspaces.
 */
export async function alertRecipients(
  db: Kysely<ControlDatabase>,
  organisationId: string,
  workspaceIds: readonly string[],
): Promise<AlertRecipient[]> {
  const admins = await db
    .selectFrom('users')
    .select(['id', 'email', 'role'])
    .where('organisation_id', '=', organisationId)
    .where('status', '=', 'active')
    .where('role', 'in', ['owner', 'admin'])
    .orderBy('email')
    .execute();
  const managers =
    workspaceIds.length === 0
      ? []
      : await db
          .selectFrom('workspace_members')
          .innerJoin('users', 'users.id', 'workspace_members.user_id')
          .select(['users.id', 'users.email'])
          .where('users.organisation_id', '=', organisationId)
          .where('users.status', '=', 'active')
          .where('workspace_members.role', '=', 'manager')
          .where('workspace_members.workspace_id', 'in', [...workspaceIds])
          .orderBy('users.email')
          .execute();
  const recipients = new Map<string, AlertRecipient>();
  for (const a of admins) {
    const reason = a.role === 'owner' ? 'organisation_owner' : 'organisation_admin';
    recipients.set(a.id, { user_id: a.id, email: a.email, reason });
  }
  for (const m of managers) {
    if (!recipients.has(m.id))
      recipients.set(m.id, { user_id: m.id, email: m.email, reason: 'workspace_manager' });
  }
  return [...recipients.values()];
}

export interface UsageLimitAlert {
  readonly object: 'usage_limit_alert';
  readonly alert: 'threshold' | 'exhausted';
  readonly policy_id: string;
  readonly policy_name: string;
  readonly organisation_id: string;
  readonly workspace_id: string | null;
  readonly group: Readonly<Record<string, string>>;
  readonly type: string;
  /** Usage in the policy's unit (USD for cost, tokens for tokens). */
  readonly usage: number;
  readonly credit_limit: number;
  readonly alert_threshold: number | null;
  readonly recipients: readonly AlertRecipient[];
  readonly raised_at: string;
}

/**
 * Usage of one group reached a limit: records the alert once (until a reset of part 3 clears it)
 * and writes it to the outbox as a system AuditEvent (`usage_limits_policies.alert`). Returns the
 * alert, or null when usage is below the threshold or this alert was already raised. Call it inside
 * a transaction.
 */
export async function raiseUsageAlert(
  db: Kysely<ControlDatabase>,
  policy: PolicyRow,
  input: { group: Readonly<Record<string, string>>; usage: number; at?: Date },
): Promise<UsageLimitAlert | null> {
  const limit = policy.credit_limit ?? Number.POSITIVE_INFINITY;
  const alert =
    input.usage >= limit
      ? 'exhausted'
      : policy.alert_threshold !== null && input.usage >= policy.alert_threshold
        ? 'threshold'
        : null;
  if (policy.status !== 'active' || alert === null) return null;
  const at = input.at ?? new Date();
  const column = alert === 'exhausted' ? 'exhausted_alerted_at' : 'threshold_alerted_at';
  // An exhausted group is past its threshold too: one alert, and no threshold alert after it.
  const marks =
    alert === 'exhausted'
      ? { exhausted_alerted_at: at, threshold_alerted_at: at }
      : { threshold_alerted_at: at };
  const raised = await policyDb(db)
    .insertInto('policy_alerts')
    .values({
      subject_kind: 'usage_limit_policy',
      subject_id: policy.id,
      group_key: groupKey(policy.group_by, input.group),
      group_values: JSON.stringify(input.group),
      ...marks,
      updated_at: at,
    })
    .onConflict((oc) =>
      oc
        .columns(['subject_kind', 'subject_id', 'group_key'])
        .doUpdateSet({
          ...marks,
          threshold_alerted_at: sql<Date>`coalesce(policy_alerts.threshold_alerted_at, excluded.threshold_alerted_at)`,
          updated_at: at,
        })
        .where(`policy_alerts.${column}`, 'is', null),
    )
    .returning('subject_id')
    .executeTakeFirst();
  if (!raised) return null;
  const workspaces = [policy.workspace_id, input.group.workspace_id].filter(
    (w): w is string => w !== undefined && w !== null && isUuid(w),
  );
  const record: UsageLimitAlert = {
    object: 'usage_limit_alert',
    alert,
    policy_id: policy.id,
    policy_name: policy.name,
    organisation_id: policy.organisation_id,
    workspace_id: policy.workspace_id,
    group: input.group,
    type: policy.type,
    usage: input.usage,
    credit_limit: policy.credit_limit ?? 0,
    alert_threshold: policy.alert_threshold,
    recipients: await alertRecipients(db, policy.organisation_id, [...new Set(workspaces)]),
    raised_at: at.toISOString(),
  };
  await recordAudit(db, alertAuditEvent(record));
  return record;
}

function alertAuditEvent(alert: UsageLimitAlert): AuditEvent {
  return {
    schemaVersion: SCHEMA_VERSION,
    id: randomUUID(),
    occurredAtMs: Date.parse(alert.raised_at),
    organisationId: alert.organisation_id,
    workspaceId: alert.workspace_id ?? '',
    actor: SYSTEM_ACTOR,
    action: 'usage_limits_policies.alert',
    resourceType: 'usage_limits_policy',
    resourceId: alert.policy_id,
    ip: '',
    userAgent: '',
    requestMethod: '',
    requestPath: '',
    requestDetailsJson: JSON.stringify(alert),
    outcome: AuditOutcome.SUCCESS,
    statusCode: 0,
    traceId: '',
  };
}
