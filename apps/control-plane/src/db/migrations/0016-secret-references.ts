// Secret references (spec 5.4): secrets kept in an external manager (HashiCorp Vault KV v2, AWS
// Secrets Manager, or the control plane's own environment), which integrations map credential
// fields to; the control plane resolves, seals and refreshes them.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table secret_references (
      id uuid primary key,
      organisation_id uuid not null references organisations (id),
      name text not null check (length(name) between 1 and 255),
      slug text not null check (slug ~ '^[a-z0-9][a-z0-9_-]{0,254}$'),
      description text check (length(description) <= 2000),
      manager text not null check (manager in ('vault_kv2', 'aws_secrets_manager', 'env')),
      settings jsonb not null check (jsonb_typeof(settings) = 'object'),
      encrypted_auth bytea,
      masked_auth text,
      allow_all_workspaces boolean not null default false,
      allowed_workspaces uuid[] not null default '{}',
      refresh_interval_seconds integer not null default 300 check (refresh_interval_seconds between 30 and 86400),
      created_by_user_id uuid,
      created_by_api_key_id uuid,
      version bigint not null default 1,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (organisation_id, slug)
    );
    create index secret_references_listing on secret_references (organisation_id, created_at, id);

    alter table integrations
      add column secret_mappings jsonb not null default '[]' check (jsonb_typeof(secret_mappings) = 'array'),
      add column secrets_resolved_at timestamptz,
      add column secrets_checked_at timestamptz,
      add column secrets_error text,
      add column secrets_withheld boolean not null default false;
    create index integrations_secret_mappings on integrations using gin (secret_mappings jsonb_path_ops)
      where secret_mappings <> '[]'::jsonb;
  `.execute(db);
}
