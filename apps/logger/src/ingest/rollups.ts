// Hourly rollups of newly inserted request rows: summed in memory, then one upsert-increment.
import { type Kysely, sql } from 'kysely';
import type { LogsDatabase } from '../db/schema.js';
import { isCacheHit, type RequestLogRow } from './request-row.js';

const HOUR_MS = 3_600_000;

interface RollupRow {
  bucket: Date;
  organisation_id: string | null;
  workspace_id: string | null;
  api_key_id: string | null;
  ai_service: string | null;
  provider_slug: string | null;
  model: string | null;
  status_code: number;
  config_id: string | null;
  prompt_id: string | null;
  requests: number;
  errors: number;
  cache_hits: number;
  input_tokens: number;
  output_tokens: number;
  cached_input_tokens: number;
  total_tokens: number;
  cost_micros: number;
  latency_ms_sum: number;
  latency_ms_max: number;
  first_seen_at: Date;
  last_seen_at: Date;
}

function receivedMs(row: RequestLogRow): number {
  return new Date(row.received_at).getTime();
}

/** Sums rows per (hour, dimensions), in a stable key order so that concurrent upserts lock alike. */
export function rollupRows(rows: readonly RequestLogRow[]): RollupRow[] {
  const groups = new Map<string, RollupRow>();
  for (const row of rows) {
    const at = receivedMs(row);
    const bucket = Math.floor(at / HOUR_MS) * HOUR_MS;
    const dims = [
      row.organisation_id ?? null,
      row.workspace_id ?? null,
      row.api_key_id ?? null,
      row.ai_service ?? null,
      row.provider_slug ?? null,
      row.model ?? null,
      row.status_code,
      row.config_id ?? null,
      row.prompt_id ?? null,
    ] as const;
    const key = JSON.stringify([bucket, ...dims]);
    let group = groups.get(key);
    if (!group) {
      group = {
        bucket: new Date(bucket),
        organisation_id: dims[0],
        workspace_id: dims[1],
        api_key_id: dims[2],
        ai_service: dims[3],
        provider_slug: dims[4],
        model: dims[5],
        status_code: dims[6],
        config_id: dims[7],
        prompt_id: dims[8],
        requests: 0,
        errors: 0,
        cache_hits: 0,
        input_tokens: 0,
        output_tokens: 0,
        cached_input_tokens: 0,
        total_tokens: 0,
        cost_micros: 0,
        latency_ms_sum: 0,
        latency_ms_max: 0,
        first_seen_at: new Date(at),
        last_seen_at: new Date(at),
      };
      groups.set(key, group);
    }
    group.requests += 1;
    if (row.status_code >= 400) group.errors += 1;
    if (isCacheHit(row.cache_status)) group.cache_hits += 1;
    group.input_tokens += Number(row.input_tokens);
    group.output_tokens += Number(row.output_tokens);
    group.cached_input_tokens += Number(row.cached_input_tokens);
    group.total_tokens += Number(row.total_tokens);
    group.cost_micros += Number(row.cost_micros);
    group.latency_ms_sum += row.latency_ms;
    group.latency_ms_max = Math.max(group.latency_ms_max, row.latency_ms);
    if (at < group.first_seen_at.getTime()) group.first_seen_at = new Date(at);
    if (at > group.last_seen_at.getTime()) group.last_seen_at = new Date(at);
  }
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row);
}

const CHUNK = 1000;

export async function upsertRollups(db: Kysely<LogsDatabase>, rows: readonly RequestLogRow[]): Promise<void> {
  const groups = rollupRows(rows);
  for (let at = 0; at < groups.length; at += CHUNK) {
    await db
      .insertInto('request_rollups_hourly')
      .values(groups.slice(at, at + CHUNK))
      .onConflict((oc) =>
        oc.constraint('request_rollups_hourly_key').doUpdateSet({
          requests: sql`request_rollups_hourly.requests + excluded.requests`,
          errors: sql`request_rollups_hourly.errors + excluded.errors`,
          cache_hits: sql`request_rollups_hourly.cache_hits + excluded.cache_hits`,
          input_tokens: sql`request_rollups_hourly.input_tokens + excluded.input_tokens`,
          output_tokens: sql`request_rollups_hourly.output_tokens + excluded.output_tokens`,
          cached_input_tokens: sql`request_rollups_hourly.cached_input_tokens + excluded.cached_input_tokens`,
          total_tokens: sql`request_rollups_hourly.total_tokens + excluded.total_tokens`,
          cost_micros: sql`request_rollups_hourly.cost_micros + excluded.cost_micros`,
          latency_ms_sum: sql`request_rollups_hourly.latency_ms_sum + excluded.latency_ms_sum`,
          latency_ms_max: sql`greatest(request_rollups_hourly.latency_ms_max, excluded.latency_ms_max)`,
          first_seen_at: sql`least(request_rollups_hourly.first_seen_at, excluded.first_seen_at)`,
          last_seen_at: sql`greatest(request_rollups_hourly.last_seen_at, excluded.last_seen_at)`,
        }),
      )
      .execute();
  }
}
