// The console's analytics at 100,000+ logs (docs/console.md "Responsiveness with 100,000 logs"):
// latency percentiles (summary, p95/p99 graphs) read every raw row of the range, and a heap row is
// about 1.3 kB (event, bodies), so a day of 100,000 logs was a 110 MB sequential scan per call. The
// organisation and workspace time indexes now carry latency_ms, so those scans are index-only
// (8 bytes more per index entry; no index is added, so ingest writes the same number of entries).
// Replaced in place under the same names: a partitioned index cannot be built concurrently, so the
// migration holds the table's lock while it rebuilds them (seconds per million rows).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    drop index if exists request_logs_org_time;
    create index request_logs_org_time on request_logs (organisation_id, received_at desc, id desc)
      include (latency_ms);
    drop index if exists request_logs_workspace_time;
    create index request_logs_workspace_time on request_logs (workspace_id, received_at desc)
      include (latency_ms);
  `.execute(db);
}
