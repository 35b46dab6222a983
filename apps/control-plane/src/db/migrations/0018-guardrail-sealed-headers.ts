// Sealed webhook headers of saved guardrails: the header values of webhook and `partner.<name>`
// checks leave the `definition` jsonb for an envelope (MASTER_KEY, AAD bound to the guardrail id)
// plus a masked copy for responses. Migrations never see MASTER_KEY (they run from static modules,
// also in the `migrate` job), so rows stored before this migration keep their plaintext headers
// here and are sealed, one row per transaction, by the control plane's next start with MASTER_KEY
// (guardrails/guardrails.legacy-headers.ts; docs/secrets.md).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table guardrails
      add column encrypted_headers bytea,
      -- {"<check index>": {"<header name>": "<masked value>"}}: what responses show.
      add column masked_headers jsonb check (masked_headers is null or jsonb_typeof(masked_headers) = 'object'),
      -- Both or neither: an envelope without its masked copy (or the reverse) is a half-sealed row.
      add constraint guardrails_sealed_headers_pair
        check ((encrypted_headers is null) = (masked_headers is null));
  `.execute(db);
}
