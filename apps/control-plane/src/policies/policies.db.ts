// Typed view of the policy tables (migration 0008), added to the control schema with `withTables`
// so this family needs no edit of the shared db/schema.ts.
import type { ColumnType, JSONColumnType, Kysely, Selectable } from 'kysely';
import type { ControlDatabase } from '../db/schema.js';

export type PolicyKind = 'rate_limits' | 'usage_limits';
export type PolicyStatus = 'active' | 'archived';

export interface PolicyCondition {
  readonly key: string;
  readonly value: string;
}

export interface PolicyGroupBy {
  readonly key: string;
}

type Json<T extends object> = JSONColumnType<T, string, string>;

/** The latest usage reset of one group key and value (usage limits policies; '[]' otherwise). */
export interface StoredUsageReset {
  readonly group_key: string;
  readonly group_value: string;
  readonly reset_at_ms: number;
}

export type PoliciesTable = {
  id: string;
  kind: PolicyKind;
  organisation_id: string;
  workspace_id: string | null;
  name: string;
  type: string;
  conditions: Json<PolicyCondition[]>;
  group_by: Json<PolicyGroupBy[]>;
  /** Written by the usage reset route only (migration 0011); '[]' by default. */
  usage_resets: ColumnType<StoredUsageReset[], string | undefined, string>;
  unit: string | null;
  /** bigint: pg returns it as a string. */
  value: ColumnType<string | null, number | null | undefined, number>;
  credit_limit: number | null;
  alert_threshold: number | null;
  periodic_reset: 'weekly' | 'monthly' | null;
  periodic_reset_days: number | null;
  next_usage_reset_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
  status: ColumnType<PolicyStatus, PolicyStatus | undefined, PolicyStatus>;
  version: ColumnType<string, number | undefined, number>;
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
};

export type ResetEntityKind = 'api_key' | 'workspace' | 'user';

export type PolicyUsageResetsTable = {
  policy_id: string;
  /** The group_by key whose value is reset (`api_key`, `workspace_id`, `metadata._user`). */
  group_key: string;
  group_value: string;
  entity_kind: ResetEntityKind;
  entity_id: string;
  reset_at: Date;
};

export type PolicyTables = {
  policies: PoliciesTable;
  policy_usage_resets: PolicyUsageResetsTable;
};

export type PolicyDatabase = ControlDatabase & PolicyTables;
export type PolicyRow = Selectable<PoliciesTable>;

export function policyDb(db: Kysely<ControlDatabase>): Kysely<PolicyDatabase> {
  return db.withTables<PolicyTables>();
}
