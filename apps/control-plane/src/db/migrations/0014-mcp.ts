// MCP integrations (an organisation's remote MCP servers: URL, transport, sealed credentials), MCP
// servers (an integration offered to one workspace under a slug, with capabilities and user access),
// and the sync state the control plane keeps from talking to each integration's server.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table mcp_integrations (
      id uuid primary key,
      organisation_id uuid not null references organisations (id),
      name text not null check (length(name) between 1 and 255),
      slug text not null check (slug ~ '^[a-z0-9][a-z0-9_-]{0,254}$'),
      description text not null default '',
      url text not null check (length(url) between 1 and 2048),
      transport text not null check (transport in ('streamable_http')),
      auth_type text not null check (auth_type in ('none', 'bearer', 'oauth_client_credentials')),
      encrypted_credentials bytea,
      masked_credentials jsonb,
      status text not null default 'active' check (status in ('active', 'archived')),
      tags jsonb not null default '{}'::jsonb check (jsonb_typeof(tags) = 'object'),
      version bigint not null default 1,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (organisation_id, slug),
      check ((auth_type = 'none') = (encrypted_credentials is null))
    );
    create index mcp_integrations_listing on mcp_integrations (organisation_id, created_at, id);
    create index mcp_integrations_tags on mcp_integrations using gin (tags);

    -- Written by the sync only (never versioned: gateways do not need it).
    create table mcp_integration_sync (
      mcp_integration_id uuid primary key references mcp_integrations (id) on delete cascade,
      status text not null check (status in ('pending', 'ok', 'error')),
      error text,
      metadata jsonb not null default '{}'::jsonb,
      tools jsonb not null default '[]'::jsonb,
      resources jsonb not null default '[]'::jsonb,
      prompts jsonb not null default '[]'::jsonb,
      attempted_at timestamptz,
      synced_at timestamptz
    );

    create table mcp_servers (
      id uuid primary key,
      organisation_id uuid not null references organisations (id),
      workspace_id uuid not null references workspaces (id),
      mcp_integration_id uuid not null references mcp_integrations (id),
      name text not null check (length(name) between 1 and 255),
      slug text not null check (slug ~ '^[a-z0-9][a-z0-9_-]{0,254}$'),
      description text not null default '',
      status text not null default 'active' check (status in ('active', 'archived')),
      capabilities jsonb not null default '{"tools":[],"resources":[],"prompts":[]}'::jsonb,
      user_access jsonb not null default '{"allow_all":true,"user_ids":[],"api_key_ids":[]}'::jsonb,
      created_by_user_id uuid,
      created_by_api_key_id uuid,
      version bigint not null default 1,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      unique (workspace_id, slug)
    );
    create index mcp_servers_listing on mcp_servers (organisation_id, workspace_id, created_at, id);
    create index mcp_servers_integration on mcp_servers (mcp_integration_id);
  `.execute(db);
}
