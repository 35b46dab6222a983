// Integrations (organisation-level provider credentials) and providers (their workspace instances;
// legacy virtual keys are rows of the same table). Credentials are stored only as AES-256-GCM
// envelopes plus a masked copy for display (docs/secrets.md).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table integrations (
      id uuid primary key,
      organisation_id uuid not null references organisations (id),
      name text not null check (length(name) between 1 and 255),
      slug text not null check (slug ~ '^[a-z0-9][a-z0-9_-]{0,254}$'),
      description text not null default '',
      ai_provider text not null check (ai_provider ~ '^[a-z0-9-]{1,64}$'),
      status text not null default 'active' check (status in ('active', 'disabled')),
      encrypted_credentials bytea,
      masked_credentials jsonb,
      options jsonb not null default '{}',
      allow_all_workspaces boolean not null default false,
      workspaces jsonb not null default '[]',
      allowed_models text[] not null default '{}',
      rate_limits jsonb not null default '[]',
      usage_limits jsonb not null default '[]',
      tags jsonb not null default '{}',
      version bigint not null default 1,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (organisation_id, slug),
      check ((encrypted_credentials is null) = (masked_credentials is null))
    );
    create index integrations_tags on integrations using gin (tags jsonb_path_ops);

    create table providers (
      id uuid primary key,
      organisation_id uuid not null references organisations (id),
      workspace_id uuid not null references workspaces (id),
      integration_id uuid references integrations (id),
      name text not null check (length(name) between 1 and 255),
      slug text not null check (slug ~ '^[a-z0-9][a-z0-9_-]{0,254}$'),
      note text not null default '',
      ai_provider text not null check (ai_provider ~ '^[a-z0-9-]{1,64}$'),
      status text not null default 'active' check (status in ('active', 'expired', 'disabled', 'archived')),
      encrypted_credentials bytea,
      masked_credentials jsonb,
      options jsonb not null default '{}',
      allowed_models text[] not null default '{}',
      rate_limits jsonb not null default '[]',
      usage_limits jsonb not null default '[]',
      expires_at timestamptz,
      tags jsonb not null default '{}',
      created_by_user_id uuid,
      created_by_api_key_id uuid,
      version bigint not null default 1,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (workspace_id, slug),
      check ((encrypted_credentials is null) = (masked_credentials is null)),
      check (integration_id is null or encrypted_credentials is null)
    );
    create index providers_org_workspace on providers (organisation_id, workspace_id);
    create index providers_integration on providers (integration_id) where integration_id is not null;
    create index providers_tags on providers using gin (tags jsonb_path_ops);
  `.execute(db);
}
