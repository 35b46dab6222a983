// Invites: an `expired` status, given to a pending invite whose expiry passed when a new invite for
// the same email replaces it (the one-pending-invite index needs the old row out of `pending`).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table user_invites drop constraint user_invites_status_check;
    alter table user_invites add constraint user_invites_status_check
      check (status in ('pending', 'accepted', 'cancelled', 'expired'));
  `.execute(db);
}
