// Typed view of the secret_references table (migration 0016), added with `withTables` like the
// other families.
import type { ColumnType, Kysely, Selectable } from 'kysely';
import type { CreatedAt, UpdatedAt, Version } from './guardrails.db.js';
import type { ControlDatabase, Json } from './schema.js';

export type SecretManager = 'vault_kv2' | 'aws_secrets_manager' | 'env';

export interface SecretReferencesTable {
  id: string;
  organisation_id: string;
  name: string;
  slug: string;
  description: string | null;
  manager: SecretManager;
  /** Where the secret is (non-secret): address, mount and path; region and secret id; variable name. */
  settings: Json<Record<string, string>>;
  /** AES-256-GCM envelope of the manager credentials (Vault token, AWS keys), AAD `secret_reference:<id>`. */
  encrypted_auth: Buffer | null;
  masked_auth: string | null;
  allow_all_workspaces: ColumnType<boolean, boolean | undefined, boolean>;
  allowed_workspaces: ColumnType<string[], string[] | undefined, string[]>;
  refresh_interval_seconds: ColumnType<number, number | undefined, number>;
  created_by_user_id: string | null;
  created_by_api_key_id: string | null;
  version: Version;
  created_at: CreatedAt;
  updated_at: UpdatedAt;
}

export type SecretReferenceTables = { secret_references: SecretReferencesTable };
export type SecretReferenceRow = Selectable<SecretReferencesTable>;

export function secretReferenceDb(
  db: Kysely<ControlDatabase>,
): Kysely<ControlDatabase & SecretReferenceTables> {
  return db.withTables<SecretReferenceTables>();
}
