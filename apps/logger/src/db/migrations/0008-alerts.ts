// usage_alerts goes: alerts are stored, listed and e-mailed by the control plane, which consumes
// AIGW_ALERTS itself (docs/decisions.md, "Alerts are the control plane's"). The rows held here were
// never read by anything; the events are still in the stream for the control plane's first start.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists usage_alerts`.execute(db);
}
