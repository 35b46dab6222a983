// The alerts table: storing a gateway's alert once while it is active, and the admin API's reads,
// narrowed to what the caller may see (its organisation; a workspace-bound caller, its workspace).
import type { UsageAlertEvent } from '@aigw/proto';
import { type Kysely, sql } from 'kysely';
import type { Principal } from '../auth/principal.js';
import { isUuid } from '../auth/visibility.js';
import { readPage } from '../db/page-read.js';
import type { ControlDatabase } from '../db/schema.js';
import { type Page, pageBounds } from '../http/list.js';
import { alertRow } from './alert-event.js';
import {
  type AlertKind,
  type AlertRow,
  type AlertSubjectKind,
  alertDb,
  type EmailState,
} from './alerts.db.js';

/**
 * Inserts the alert unless an active one with the same key exists (a redelivery, or the same
 * transition reported by two gateway replicas). Returns the new row's id, or null when it was known.
 */
export async function storeAlert(
  db: Kysely<ControlDatabase>,
  event: UsageAlertEvent,
  emailState: EmailState,
): Promise<string | null> {
  const inserted = await alertDb(db)
    .insertInto('alerts')
    .values(alertRow(event, emailState))
    .onConflict((oc) => oc.column('dedupe_key').where('reset_at', 'is', null).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted?.id ?? null;
}

export interface AlertFilters extends Page {
  readonly workspaceId?: string | undefined;
  readonly policyId?: string | undefined;
  readonly entityType?: AlertSubjectKind | undefined;
  /** The subject itself, or an entity its group names (an API key of a policy grouped by api_key). */
  readonly entityId?: string | undefined;
  readonly kinds?: readonly AlertKind[] | undefined;
  readonly startMs?: number | undefined;
  readonly endMs?: number | undefined;
  readonly active?: boolean | undefined;
}

export async function listAlerts(
  db: Kysely<ControlDatabase>,
  principal: Principal,
  filters: AlertFilters,
): Promise<{ rows: AlertRow[]; total: number }> {
  // Token callers may carry an organisation that is not a uuid: it matches nothing.
  if (!isUuid(principal.organisationId)) return { rows: [], total: 0 };
  const workspaceId = principal.workspaceId;
  if (workspaceId !== null && !isUuid(workspaceId)) return { rows: [], total: 0 };
  let query = alertDb(db)
    .selectFrom('alerts')
    .where('organisation_id', '=', principal.organisationId.toLowerCase());
  if (workspaceId !== null) query = query.where('workspace_id', '=', workspaceId.toLowerCase());
  if (filters.workspaceId !== undefined) query = query.where('workspace_id', '=', filters.workspaceId);
  if (filters.policyId !== undefined)
    query = query
      .where('subject_kind', 'in', ['usage_limit_policy', 'rate_limit_policy'])
      .where('subject_id', '=', filters.policyId);
  if (filters.entityType !== undefined) query = query.where('subject_kind', '=', filters.entityType);
  if (filters.entityId !== undefined) {
    const id = filters.entityId;
    query = query.where((eb) =>
      eb.or([
        eb('subject_id', '=', id),
        eb.exists(sql`(select 1 from jsonb_each_text(alerts.group_values) g where g.value = ${id})`),
      ]),
    );
  }
  if (filters.kinds !== undefined) query = query.where('kind', 'in', [...filters.kinds]);
  if (filters.startMs !== undefined) query = query.where('occurred_at', '>=', new Date(filters.startMs));
  if (filters.endMs !== undefined) query = query.where('occurred_at', '<', new Date(filters.endMs));
  if (filters.active !== undefined) query = query.where('reset_at', filters.active ? 'is' : 'is not', null);
  const { limit, offset } = pageBounds(filters);
  return readPage(db, query, (q) =>
    q.selectAll().orderBy('occurred_at', 'desc').orderBy('id', 'desc').limit(limit).offset(offset),
  );
}

const ENTITY_OBJECT: Record<AlertSubjectKind, string> = {
  usage_limit_policy: 'usage-limits-policy',
  rate_limit_policy: 'rate-limits-policy',
  api_key: 'api-key',
  workspace: 'workspace',
  provider: 'provider',
  integration: 'integration',
};

export function alertToApi(row: AlertRow) {
  return {
    object: 'alert' as const,
    id: row.id,
    kind: row.kind,
    organisation_id: row.organisation_id,
    workspace_id: row.workspace_id,
    policy_id:
      row.subject_kind === 'usage_limit_policy' || row.subject_kind === 'rate_limit_policy'
        ? row.subject_id
        : null,
    entity: { object: ENTITY_OBJECT[row.subject_kind], type: row.subject_kind, id: row.subject_id },
    group: row.group_values,
    type: row.limit_type,
    window_ms: row.window_ms,
    usage: row.usage,
    credit_limit: row.credit_limit,
    alert_threshold: row.alert_threshold,
    period_start: row.period_start?.toISOString() ?? null,
    occurred_at: row.occurred_at.toISOString(),
    created_at: row.created_at.toISOString(),
    reset_at: row.reset_at?.toISOString() ?? null,
    email: {
      state: row.email_state,
      attempts: row.email_attempts,
      sent_at: row.email_sent_at?.toISOString() ?? null,
      recipients: (row.email_recipients ?? []).map((r) => ({
        user_id: r.user_id,
        email: r.email,
        reason: r.reason,
      })),
    },
  };
}
