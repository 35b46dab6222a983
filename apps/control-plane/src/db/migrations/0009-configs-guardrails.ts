// Saved gateway configs with their immutable versions, and guardrails (named check sets) that configs
// reference. A config row carries its latest version's text so gateways and reads need no join.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table guardrails (
      id uuid primary key,
      organisation_id uuid not null references organisations (id),
      workspace_id uuid references workspaces (id),
      name text not null check (length(name) between 1 and 255),
      slug text not null check (slug ~ '^[a-z0-9][a-z0-9_-]{0,254}$'),
      status text not null default 'active' check (status in ('active', 'archived')),
      definition jsonb not null check (jsonb_typeof(definition) = 'object'),
      created_by_user_id uuid,
      created_by_api_key_id uuid,
      version bigint not null default 1,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create unique index guardrails_workspace_slug on guardrails (workspace_id, slug) where workspace_id is not null;
    create unique index guardrails_organisation_slug on guardrails (organisation_id, slug) where workspace_id is null;
    create index guardrails_listing on guardrails (organisation_id, created_at, id);

    create table configs (
      id uuid primary key,
      organisation_id uuid not null references organisations (id),
      workspace_id uuid not null references workspaces (id),
      name text not null check (length(name) between 1 and 255),
      slug text not null check (slug ~ '^[a-z0-9][a-z0-9_-]{0,254}$'),
      status text not null default 'active' check (status in ('active', 'archived')),
      config_version integer not null default 1 check (config_version >= 1),
      body text not null,
      guardrail_ids uuid[] not null default '{}',
      created_by_user_id uuid,
      created_by_api_key_id uuid,
      version bigint not null default 1,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (workspace_id, slug)
    );
    create index configs_listing on configs (organisation_id, workspace_id, created_at, id);
    create index configs_guardrails on configs using gin (guardrail_ids);

    create table config_versions (
      config_id uuid not null references configs (id) on delete cascade,
      version integer not null check (version >= 1),
      body text not null,
      created_by_user_id uuid,
      created_by_api_key_id uuid,
      created_at timestamptz not null default now(),
      primary key (config_id, version)
    );
  `.execute(db);
}
