// Usage-limit and rate-limit alerts (spec parts 3 and 6): one row per alert a gateway raised, stored once per
// subject, group, period, kind and threshold while it is active, with its e-mail delivery state.
// Replaces policy_alerts (0008), which held alert marks nothing ever set.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop table policy_alerts;

    create table alerts (
      id uuid primary key,
      -- <subject kind>:<subject id>:<group>:<period start ms>:<kind>@<threshold/limit or limit>
      dedupe_key text not null,
      organisation_id uuid not null,
      workspace_id uuid,
      kind text not null check (kind in ('threshold', 'exhausted', 'rate_limited')),
      subject_kind text not null
        check (subject_kind in ('usage_limit_policy', 'rate_limit_policy', 'api_key', 'workspace', 'provider', 'integration')),
      subject_id uuid not null,
      group_values jsonb not null default '{}' check (jsonb_typeof(group_values) = 'object'),
      limit_type text not null check (limit_type in ('cost', 'tokens', 'requests')),
      -- In the limit's unit: USD for cost, tokens for tokens, requests for a request rate limit.
      -- Rate-limit alerts: the window's length (period_start is the window's start).
      window_ms integer,
      usage double precision not null,
      credit_limit double precision not null,
      alert_threshold double precision,
      period_start timestamptz,
      occurred_at timestamptz not null,
      gateway_instance text,
      created_at timestamptz not null default now(),
      -- Set when a limit change or a usage reset clears the alert (spec part 3).
      reset_at timestamptz,
      email_state text not null
        check (email_state in ('pending', 'sent', 'failed', 'off', 'no_recipients')),
      email_attempts integer not null default 0,
      email_next_attempt_at timestamptz,
      email_last_error text,
      email_sent_at timestamptz,
      email_recipients jsonb
    );
    create unique index alerts_active_once on alerts (dedupe_key) where reset_at is null;
    create index alerts_listing on alerts (organisation_id, occurred_at desc, id desc);
    create index alerts_subject on alerts (subject_kind, subject_id, occurred_at desc);
    create index alerts_email_due on alerts (email_next_attempt_at) where email_state = 'pending';
  `.execute(db);
}
