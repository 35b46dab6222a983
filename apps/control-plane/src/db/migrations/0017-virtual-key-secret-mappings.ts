// Secret mappings for virtual keys (issue 19): a provider row that holds its own credentials (a legacy
// virtual key) may take credential fields from secret references, resolved, sealed and refreshed as
// integrations' are (migration 0016); the same five columns, the same meaning.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table providers
      add column secret_mappings jsonb not null default '[]' check (jsonb_typeof(secret_mappings) = 'array'),
      add column secrets_resolved_at timestamptz,
      add column secrets_checked_at timestamptz,
      add column secrets_error text,
      add column secrets_withheld boolean not null default false,
      -- Only a key with its own credentials maps references; one using an integration's has none to fill.
      add constraint providers_secret_mappings_own_credentials
        check (secret_mappings = '[]'::jsonb or integration_id is null);
    create index providers_secret_mappings on providers using gin (secret_mappings jsonb_path_ops)
      where secret_mappings <> '[]'::jsonb;
  `.execute(db);
}
