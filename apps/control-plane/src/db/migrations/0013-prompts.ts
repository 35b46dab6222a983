// Prompts and prompt partials (one table, `kind`), their immutable versions, labels (named pointers
// to versions) and collections (nestable folders). A prompt row carries its published and latest
// version numbers so gateways and reads need no aggregate.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table prompt_collections (
      id uuid primary key,
      organisation_id uuid not null references organisations (id),
      workspace_id uuid not null references workspaces (id),
      parent_id uuid references prompt_collections (id),
      name text not null check (length(name) between 1 and 255),
      slug text not null check (slug ~ '^[a-z0-9][a-z0-9_-]{0,254}$'),
      created_by_user_id uuid,
      created_by_api_key_id uuid,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (workspace_id, slug)
    );
    create index prompt_collections_listing on prompt_collections (organisation_id, workspace_id, created_at, id);

    create table prompt_labels (
      id uuid primary key,
      organisation_id uuid not null references organisations (id),
      workspace_id uuid not null references workspaces (id),
      name text not null check (name ~ '^[a-z0-9][a-z0-9_-]{0,62}$'),
      description text check (length(description) <= 1024),
      created_by_user_id uuid,
      created_by_api_key_id uuid,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (workspace_id, name)
    );

    create table prompts (
      id uuid primary key,
      organisation_id uuid not null references organisations (id),
      workspace_id uuid not null references workspaces (id),
      kind text not null check (kind in ('prompt', 'partial')),
      collection_id uuid references prompt_collections (id),
      name text not null check (length(name) between 1 and 255),
      slug text not null check (slug ~ '^[a-z0-9][a-z0-9_-]{0,254}$'),
      status text not null default 'active' check (status in ('active', 'archived')),
      latest_version integer not null default 1 check (latest_version >= 1),
      default_version integer not null default 1 check (default_version >= 1),
      created_by_user_id uuid,
      created_by_api_key_id uuid,
      version bigint not null default 1,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (workspace_id, kind, slug)
    );
    create index prompts_listing on prompts (organisation_id, workspace_id, kind, created_at, id);
    create index prompts_collection on prompts (collection_id) where collection_id is not null;

    create table prompt_versions (
      prompt_id uuid not null references prompts (id) on delete cascade,
      version integer not null check (version >= 1),
      template text not null,
      model text,
      provider text,
      parameters jsonb not null default '{}' check (jsonb_typeof(parameters) = 'object'),
      variables jsonb not null default '{}' check (jsonb_typeof(variables) = 'object'),
      metadata jsonb not null default '{}' check (jsonb_typeof(metadata) = 'object'),
      description text,
      created_by_user_id uuid,
      created_by_api_key_id uuid,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (prompt_id, version)
    );

    create table prompt_version_labels (
      prompt_id uuid not null references prompts (id) on delete cascade,
      label_id uuid not null references prompt_labels (id),
      version integer not null,
      updated_at timestamptz not null default now(),
      primary key (prompt_id, label_id),
      foreign key (prompt_id, version) references prompt_versions (prompt_id, version)
    );
    create index prompt_version_labels_label on prompt_version_labels (label_id);
  `.execute(db);
}
