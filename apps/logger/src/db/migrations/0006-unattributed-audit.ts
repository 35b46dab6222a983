// Audit records without an organisation: refused tokens and invite accepts whose organisation cannot
// be known (an unverified or unknown credential) are kept rather than set aside (issue 23 item 3).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table audit_logs alter column organisation_id drop not null;
    create index audit_logs_unattributed_time on audit_logs (occurred_at desc, id desc)
      where organisation_id is null;
  `.execute(db);
}
