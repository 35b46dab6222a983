// Tenancy: organisations, users, workspaces and their members, invites, API keys, and tombstones of
// deleted entities (kept so gateways never resurrect an entity from a delayed change).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table organisations (
      id uuid primary key,
      name text not null check (length(name) between 1 and 255),
      slug text not null unique check (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
      status text not null default 'active' check (status in ('active', 'disabled')),
      settings jsonb not null default '{}',
      default_metadata jsonb not null default '{}',
      version bigint not null default 1,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );

    create table users (
      id uuid primary key,
      organisation_id uuid not null references organisations (id),
      email text not null check (email = lower(email) and length(email) between 3 and 320),
      first_name text not null default '',
      last_name text not null default '',
      role text not null check (role in ('owner', 'admin', 'member')),
      status text not null default 'active' check (status in ('active', 'removed')),
      version bigint not null default 1,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (organisation_id, email)
    );

    create table workspaces (
      id uuid primary key,
      organisation_id uuid not null references organisations (id),
      name text not null check (length(name) between 1 and 255),
      slug text not null check (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
      description text not null default '',
      status text not null default 'active' check (status in ('active', 'archived')),
      default_metadata jsonb not null default '{}',
      settings jsonb not null default '{}',
      usage_limits jsonb not null default '[]',
      rate_limits jsonb not null default '[]',
      version bigint not null default 1,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (organisation_id, slug)
    );

    create table workspace_members (
      workspace_id uuid not null references workspaces (id),
      user_id uuid not null references users (id),
      role text not null check (role in ('manager', 'member')),
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      primary key (workspace_id, user_id)
    );
    create index workspace_members_user on workspace_members (user_id);

    create table user_invites (
      id uuid primary key,
      organisation_id uuid not null references organisations (id),
      email text not null check (email = lower(email)),
      role text not null check (role in ('admin', 'member')),
      workspaces jsonb not null default '[]',
      token_hash text not null unique,
      status text not null default 'pending' check (status in ('pending', 'accepted', 'cancelled')),
      invited_by_user_id uuid,
      invited_by_api_key_id uuid,
      accepted_user_id uuid,
      expires_at timestamptz not null,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create unique index user_invites_one_pending on user_invites (organisation_id, email) where status = 'pending';

    create table api_keys (
      id uuid primary key,
      organisation_id uuid not null references organisations (id),
      workspace_id uuid references workspaces (id),
      user_id uuid references users (id),
      type text not null check (type in ('admin', 'workspace', 'service')),
      name text not null check (length(name) between 1 and 255),
      description text not null default '',
      key_hash text not null unique,
      last4 text not null,
      scopes text[] not null,
      status text not null default 'active' check (status in ('active', 'expired', 'disabled', 'archived')),
      expires_at timestamptz,
      usage_limits jsonb not null default '[]',
      rate_limits jsonb not null default '[]',
      defaults jsonb not null default '{}',
      created_by_user_id uuid,
      created_by_api_key_id uuid,
      version bigint not null default 1,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      rotated_at timestamptz,
      check ((type = 'admin') = (workspace_id is null)),
      check (type <> 'workspace' or user_id is not null)
    );
    create index api_keys_org_workspace on api_keys (organisation_id, workspace_id);
    create index api_keys_expiring on api_keys (expires_at) where status = 'active' and expires_at is not null;

    create table tombstones (
      kind integer not null,
      id uuid not null,
      organisation_id uuid,
      workspace_id uuid,
      version bigint not null,
      deleted_at timestamptz not null default now(),
      primary key (kind, id)
    );
  `.execute(db);
}
