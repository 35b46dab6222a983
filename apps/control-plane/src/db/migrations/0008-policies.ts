// Rate-limit and usage-limit policies (spec 2.1, 4.1), the alert state of usage limits (spec part 3)
// and per-entity usage resets. One `policies` table holds both kinds: they share ownership,
// conditions, group_by and status; the kind-specific columns are checked per kind.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table policies (
      id uuid primary key,
      kind text not null check (kind in ('rate_limits', 'usage_limits')),
      organisation_id uuid not null references organisations (id),
      workspace_id uuid references workspaces (id),
      name text not null check (length(name) between 1 and 255),
      type text not null,
      conditions jsonb not null check (jsonb_typeof(conditions) = 'array' and jsonb_array_length(conditions) >= 1),
      group_by jsonb not null check (jsonb_typeof(group_by) = 'array' and jsonb_array_length(group_by) >= 1),
      unit text,
      value bigint,
      credit_limit double precision,
      alert_threshold double precision,
      periodic_reset text check (periodic_reset in ('weekly', 'monthly')),
      periodic_reset_days integer check (periodic_reset_days between 1 and 365),
      next_usage_reset_at timestamptz,
      status text not null default 'active' check (status in ('active', 'archived')),
      version bigint not null default 1,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      check (
        case kind
          when 'rate_limits' then
            type in ('requests', 'tokens') and unit in ('rpm', 'rph', 'rpd') and value > 0
            and credit_limit is null and alert_threshold is null and periodic_reset is null
            and periodic_reset_days is null and next_usage_reset_at is null
          else
            type in ('cost', 'tokens') and unit is null and value is null and credit_limit > 0
            and (alert_threshold is null or (alert_threshold > 0 and alert_threshold < credit_limit))
            and (periodic_reset is null or periodic_reset_days is null)
        end
      )
    );
    create index policies_listing on policies (organisation_id, kind, status, created_at, id);
    create index policies_workspace on policies (workspace_id) where workspace_id is not null;

    create table policy_alerts (
      subject_kind text not null
        check (subject_kind in ('usage_limit_policy', 'api_key', 'workspace', 'provider', 'integration')),
      subject_id uuid not null,
      group_key text not null default '',
      group_values jsonb not null default '{}',
      threshold_alerted_at timestamptz,
      exhausted_alerted_at timestamptz,
      updated_at timestamptz not null default now(),
      primary key (subject_kind, subject_id, group_key)
    );

    create table policy_usage_resets (
      policy_id uuid not null references policies (id),
      group_key text not null,
      group_value text not null,
      entity_kind text not null check (entity_kind in ('api_key', 'workspace', 'user')),
      entity_id uuid not null,
      reset_at timestamptz not null,
      primary key (policy_id, group_key, group_value)
    );
  `.execute(db);
}
