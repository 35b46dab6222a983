// Deployments: a named, typed pointer (production or non-production) to one of its workspace's
// saved configs. A config a deployment runs cannot be deleted (the foreign key restricts it).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table deployments (
      id uuid primary key,
      organisation_id uuid not null references organisations (id),
      workspace_id uuid not null references workspaces (id),
      name text not null check (length(name) between 1 and 255),
      slug text not null check (slug ~ '^[a-z0-9][a-z0-9_-]{0,254}$'),
      description text check (length(description) <= 2000),
      type text not null check (type in ('production', 'non-production')),
      status text not null default 'active' check (status in ('active', 'archived')),
      config_id uuid not null references configs (id) on delete restrict,
      created_by_user_id uuid,
      created_by_api_key_id uuid,
      version bigint not null default 1,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (workspace_id, slug)
    );
    create index deployments_listing on deployments (organisation_id, workspace_id, created_at, id);
    create index deployments_config on deployments (config_id);
  `.execute(db);
}
