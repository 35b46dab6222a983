// Audit records, usage-limit alerts, the usage ledger, feedback and log exports; dead letters learn
// which event of a batch message they hold (one bad event is set aside, not its whole batch).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table audit_logs (
      id uuid primary key,
      occurred_at timestamptz not null,
      ingested_at timestamptz not null default now(),
      organisation_id text not null,
      workspace_id text,
      actor_type smallint not null,
      actor_user_id text,
      actor_api_key_id text,
      actor_display_name text,
      action text not null,
      resource_type text not null,
      resource_id text,
      ip text,
      user_agent text,
      request_method text,
      request_path text,
      request_details jsonb not null,
      outcome smallint not null,
      status_code integer not null,
      trace_id text
    );
    create index audit_logs_org_time on audit_logs (organisation_id, occurred_at desc, id desc);
    create index audit_logs_workspace_time on audit_logs (workspace_id, occurred_at desc);
    create index audit_logs_user_time on audit_logs (actor_user_id, occurred_at desc);
    create index audit_logs_action on audit_logs (organisation_id, action, occurred_at desc);
    create index audit_logs_resource on audit_logs (organisation_id, resource_type, resource_id);

    create table usage_alerts (
      id text primary key,
      occurred_at timestamptz not null,
      ingested_at timestamptz not null default now(),
      organisation_id text not null,
      workspace_id text,
      kind smallint not null,
      entity_kind smallint not null,
      entity_id text not null,
      group_value text not null,
      type smallint not null,
      usage bigint not null,
      credit_limit bigint not null,
      alert_threshold bigint,
      period_start timestamptz,
      instance_id text
    );
    create index usage_alerts_org_time on usage_alerts (organisation_id, occurred_at desc);
    create index usage_alerts_entity on usage_alerts (entity_kind, entity_id, period_start);

    create table usage_ledger (
      entity_kind text not null,
      entity_id text not null,
      group_value text not null default '',
      period_start timestamptz not null,
      period_end timestamptz not null,
      organisation_id text not null,
      cost_micros bigint not null default 0,
      tokens bigint not null default 0,
      requests bigint not null default 0,
      updated_at timestamptz not null default now(),
      primary key (entity_kind, entity_id, group_value, period_start)
    );
    create index usage_ledger_period on usage_ledger (period_end);

    create table feedback (
      id uuid primary key default gen_random_uuid(),
      trace_id text not null,
      organisation_id text not null,
      workspace_id text,
      value smallint not null check (value between -10 and 10),
      weight double precision not null default 1 check (weight between 0 and 1),
      metadata jsonb not null default '{}',
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      created_by text
    );
    create index feedback_org_trace on feedback (organisation_id, trace_id);
    create index feedback_org_time on feedback (organisation_id, created_at desc);

    create table log_exports (
      id uuid primary key default gen_random_uuid(),
      organisation_id text not null,
      workspace_id text,
      filters jsonb not null default '{}',
      fields text[] not null,
      format text not null check (format in ('jsonl', 'csv')),
      status text not null default 'pending'
        check (status in ('pending', 'running', 'succeeded', 'failed', 'cancelled')),
      progress double precision not null default 0 check (progress between 0 and 1),
      row_count bigint not null default 0,
      error text,
      content bytea,
      file_path text,
      created_by text,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now(),
      started_at timestamptz,
      completed_at timestamptz
    );
    create index log_exports_org_time on log_exports (organisation_id, created_at desc);
    create index log_exports_status on log_exports (status) where status in ('pending', 'running');

    alter table dead_letters add column event_index integer not null default -1;
    alter table dead_letters add column event_id text;
    alter table dead_letters add column deliveries integer not null default 1;
    alter table dead_letters drop constraint dead_letters_stream_seq;
    alter table dead_letters add constraint dead_letters_stream_seq_event unique (stream, stream_seq, event_index);
  `.execute(db);
}
