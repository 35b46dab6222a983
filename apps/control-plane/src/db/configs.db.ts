// Typed view of the configs and config_versions tables (migration 0009), with the guardrails they
// reference, added to the control schema with `withTables` (no edit of the shared db/schema.ts).
import type { ColumnType, JSONColumnType, Kysely, Selectable } from 'kysely';
import type {
  CreatedAt,
  GuardrailTables,
  MaskedHeaders,
  Status,
  UpdatedAt,
  Version,
} from './guardrails.db.js';
import type { ControlDatabase } from './schema.js';

export interface ConfigsTable {
  id: string;
  organisation_id: string;
  workspace_id: string;
  name: string;
  slug: string;
  status: Status;
  /** The latest version number (config_versions.version). */
  config_version: ColumnType<number, number | undefined, number>;
  /** The latest version's JSON text, as stored in config_versions. */
  body: string;
  /** Guardrails the latest version references, resolved to ids (they cannot be deleted meanwhile). */
  guardrail_ids: ColumnType<string[], string[] | undefined, string[]>;
  /** Envelope of the webhook checks' header values (migration 0019, configs/configs.headers.ts). */
  encrypted_headers: Buffer | null;
  /** `{"<check path>": {"<header name>": "<masked value>"}}`, null with no envelope. */
  masked_headers: JSONColumnType<MaskedHeaders | null, string | null, string | null>;
  created_by_user_id: string | null;
  created_by_api_key_id: string | null;
  version: Version;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export interface ConfigVersionsTable {
  config_id: string;
  version: number;
  body: string;
  /** Envelope of the webhook checks' header values (migration 0019, configs/configs.headers.ts). */
  encrypted_headers: Buffer | null;
  /** `{"<check path>": {"<header name>": "<masked value>"}}`, null with no envelope. */
  masked_headers: JSONColumnType<MaskedHeaders | null, string | null, string | null>;
  created_by_user_id: string | null;
  created_by_api_key_id: string | null;
  created_at: CreatedAt;
}

export type ConfigTables = GuardrailTables & {
  configs: ConfigsTable;
  config_versions: ConfigVersionsTable;
};

export type ConfigDatabase = ControlDatabase & ConfigTables;
export type ConfigRow = Selectable<ConfigsTable>;
export type ConfigVersionRow = Selectable<ConfigVersionsTable>;

/** The control database with the tables of both families. */
export function configDb(db: Kysely<ControlDatabase>): Kysely<ConfigDatabase> {
  return db.withTables<ConfigTables>();
}
