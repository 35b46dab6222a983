// Request logs partitioned by day on received_at, with a default partition so that an event of a day
// without its partition is still stored (partition maintenance moves it out later), and the hourly
// rollups that analytics read instead of raw rows. Optional strings are NULL when the event had ''.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table request_logs (
      id uuid not null,
      received_at timestamptz not null,
      ingested_at timestamptz not null default now(),
      completed_at timestamptz,
      trace_id text,
      span_id text,
      parent_span_id text,
      organisation_id text,
      workspace_id text,
      api_key_id text,
      user_id text,
      ai_service text,
      provider_slug text,
      provider_id text,
      integration_id text,
      virtual_key_id text,
      config_id text,
      config_version integer,
      prompt_id text,
      model text,
      model_requested text,
      model_served text,
      method text not null,
      path text not null,
      status_code integer not null,
      is_stream boolean not null,
      cache_status smallint not null,
      input_tokens bigint not null,
      output_tokens bigint not null,
      cached_input_tokens bigint not null,
      total_tokens bigint not null,
      tokens_estimated boolean not null,
      cost_micros bigint not null,
      currency text not null,
      latency_ms double precision not null,
      ttfb_ms double precision not null,
      upstream_ms double precision not null,
      gateway_overhead_ms double precision not null,
      metadata jsonb not null,
      error_code text,
      error_type text,
      error_message text,
      attempts integer not null,
      request_size_bytes bigint not null,
      response_size_bytes bigint not null,
      request_body bytea,
      request_body_content_type text,
      request_body_truncated boolean not null,
      response_body bytea,
      response_body_content_type text,
      response_body_truncated boolean not null,
      log_format text not null,
      gateway_instance_id text,
      event bytea not null,
      primary key (id, received_at)
    ) partition by range (received_at);

    create table request_logs_default partition of request_logs default;

    create index request_logs_org_time on request_logs (organisation_id, received_at desc, id desc);
    create index request_logs_workspace_time on request_logs (workspace_id, received_at desc);
    create index request_logs_api_key_time on request_logs (api_key_id, received_at desc);
    create index request_logs_trace on request_logs (trace_id);
    create index request_logs_metadata on request_logs using gin (metadata jsonb_path_ops);

    create table request_rollups_hourly (
      bucket timestamptz not null,
      organisation_id text,
      workspace_id text,
      api_key_id text,
      ai_service text,
      provider_slug text,
      model text,
      status_code integer not null,
      config_id text,
      prompt_id text,
      requests bigint not null,
      errors bigint not null,
      cache_hits bigint not null,
      input_tokens bigint not null,
      output_tokens bigint not null,
      cached_input_tokens bigint not null,
      total_tokens bigint not null,
      cost_micros bigint not null,
      latency_ms_sum double precision not null,
      latency_ms_max double precision not null,
      first_seen_at timestamptz not null,
      last_seen_at timestamptz not null,
      constraint request_rollups_hourly_key unique nulls not distinct (
        bucket, organisation_id, workspace_id, api_key_id, ai_service, provider_slug, model,
        status_code, config_id, prompt_id
      )
    );
    create index request_rollups_hourly_org_bucket on request_rollups_hourly (organisation_id, bucket);
  `.execute(db);
}
