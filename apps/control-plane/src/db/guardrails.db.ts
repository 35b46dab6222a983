// Typed view of the guardrails table (migration 0009), added to the control schema with `withTables`
// so this family needs no edit of the shared db/schema.ts.
import type { ColumnType, JSONColumnType, Selectable } from 'kysely';

export type SavedStatus = 'active' | 'archived';

export type CreatedAt = ColumnType<Date, Date | undefined, never>;
export type UpdatedAt = ColumnType<Date, Date | undefined, Date>;
export type Version = ColumnType<string, number | undefined, number>;
export type Status = ColumnType<SavedStatus, SavedStatus | undefined, SavedStatus>;

/** Header names with masked values, by check index. */
export type MaskedHeaders = Record<string, Record<string, string>>;

export interface GuardrailsTable {
  id: string;
  organisation_id: string;
  /** Null: an organisation-level guardrail, usable from every workspace. */
  workspace_id: string | null;
  name: string;
  slug: string;
  status: Status;
  /** The normalised definition `{checks, actions, async}` (guardrails.checks.ts). */
  definition: JSONColumnType<Record<string, unknown>, string, string>;
  /** Envelope of the webhook checks' header values (migration 0018, guardrails.headers.ts). */
  encrypted_headers: Buffer | null;
  /** `{"<check index>": {"<header name>": "<masked value>"}}`, null with no envelope. */
  masked_headers: JSONColumnType<MaskedHeaders | null, string | null, string | null>;
  created_by_user_id: string | null;
  created_by_api_key_id: string | null;
  version: Version;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type GuardrailTables = {
  guardrails: GuardrailsTable;
};

export type GuardrailRow = Selectable<GuardrailsTable>;
