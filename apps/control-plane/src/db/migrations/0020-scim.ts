// SCIM 2.0 provisioning (docs/admin-api/scim.md): the identity provider's id of a user (`externalId`)
// and when SCIM deleted it. A SCIM-deleted user is a removed user SCIM no longer shows (RFC 7644
// 3.6 wants 404 after DELETE); the row stays, as every removed user's does.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table users
      add column external_id text check (length(external_id) between 1 and 1024),
      add column scim_deleted_at timestamptz;
    create index users_external_id on users (organisation_id, external_id) where external_id is not null;
  `.execute(db);
}
