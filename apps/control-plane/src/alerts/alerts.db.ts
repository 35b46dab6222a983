// Typed view of the alerts table (migration 0012), added to the control schema with `withTables`
// so this feature needs no edit of the shared db/schema.ts.
import type { ColumnType, Insertable, JSONColumnType, Kysely, Selectable } from 'kysely';
import type { ControlDatabase } from '../db/schema.js';

/** Who an alert belongs to: a usage-limit or rate-limit policy, or an entity's own limit. */
export type AlertSubjectKind =
  | 'usage_limit_policy'
  | 'rate_limit_policy'
  | 'api_key'
  | 'workspace'
  | 'provider'
  | 'integration';
export type AlertKind = 'threshold' | 'exhausted' | 'rate_limited';
/** `off`: no SMTP_URL when it was stored; `no_recipients`: nobody to tell; `failed`: gave up. */
export type EmailState = 'pending' | 'sent' | 'failed' | 'off' | 'no_recipients';

export interface AlertRecipient {
  readonly user_id: string;
  readonly email: string;
  readonly reason: 'organisation_owner' | 'organisation_admin' | 'workspace_manager';
}

export type AlertsTable = {
  id: string;
  dedupe_key: string;
  organisation_id: string;
  workspace_id: string | null;
  kind: AlertKind;
  subject_kind: AlertSubjectKind;
  subject_id: string;
  group_values: JSONColumnType<Record<string, string>, string, string>;
  limit_type: 'cost' | 'tokens' | 'requests';
  window_ms: ColumnType<number | null, number | null | undefined, number | null>;
  usage: number;
  credit_limit: number;
  alert_threshold: number | null;
  period_start: Date | null;
  occurred_at: Date;
  gateway_instance: string | null;
  created_at: ColumnType<Date, Date | undefined, never>;
  reset_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  email_state: EmailState;
  email_attempts: ColumnType<number, number | undefined, number>;
  email_next_attempt_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  email_last_error: ColumnType<string | null, string | null | undefined, string | null>;
  email_sent_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  email_recipients: JSONColumnType<AlertRecipient[] | null, string | null | undefined, string | null>;
};

export type AlertTables = { alerts: AlertsTable };
export type AlertDatabase = ControlDatabase & AlertTables;
export type AlertRow = Selectable<AlertsTable>;
export type NewAlert = Insertable<AlertsTable>;

export function alertDb(db: Kysely<ControlDatabase>): Kysely<AlertDatabase> {
  return db.withTables<AlertTables>();
}
