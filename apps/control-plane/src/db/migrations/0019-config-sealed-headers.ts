// Sealed webhook headers of saved configs: the header values of the webhook and `partner.<name>`
// checks of a config's inline guardrails leave the body text for an envelope per config version
// (MASTER_KEY, AAD bound to the config id and its config version) plus a masked copy for responses,
// on the version row and on the config row (which mirrors its latest version). Migrations never see
// MASTER_KEY, so rows stored before this one keep their plaintext here and are sealed, one config
// per transaction, by the control plane's next start with MASTER_KEY
// (configs/configs.legacy-headers.ts; docs/secrets.md).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const table of ['configs', 'config_versions']) {
    await sql`
      alter table ${sql.table(table)}
        add column encrypted_headers bytea,
        -- {"<check path>": {"<header name>": "<masked value>"}}: what responses show.
        add column masked_headers jsonb check (masked_headers is null or jsonb_typeof(masked_headers) = 'object'),
        -- Both or neither: an envelope without its masked copy (or the reverse) is a half-sealed row.
        add constraint ${sql.raw(`${table}_sealed_headers_pair`)}
          check ((encrypted_headers is null) = (masked_headers is null));
    `.execute(db);
  }
}
