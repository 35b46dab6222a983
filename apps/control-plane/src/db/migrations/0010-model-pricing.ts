// Model pricing: platform rows (organisation_id null, applied from the seed file at startup) and
// organisation overrides, each unique per (ai_provider, model) in its scope. Prices are integer
// micro-units (USD) per million tokens, so cost sums are exact.
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    create table model_pricing (
      id uuid primary key,
      organisation_id uuid references organisations (id),
      ai_provider text not null check (ai_provider ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
      model text not null check (length(model) between 1 and 255 and model !~ '[*].'),
      currency text not null default 'USD' check (currency ~ '^[A-Z]{3}$'),
      input_micros_per_mtok bigint not null check (input_micros_per_mtok between 0 and 1000000000000),
      output_micros_per_mtok bigint not null check (output_micros_per_mtok between 0 and 1000000000000),
      cached_input_micros_per_mtok bigint not null
        check (cached_input_micros_per_mtok between 0 and 1000000000000),
      cache_write_micros_per_mtok bigint not null
        check (cache_write_micros_per_mtok between 0 and 1000000000000),
      request_micros bigint not null default 0 check (request_micros between 0 and 1000000000000),
      extra jsonb not null default '{}' check (jsonb_typeof(extra) = 'object'),
      version bigint not null default 1,
      created_at timestamptz not null default now(),
      updated_at timestamptz not null default now()
    );
    create unique index model_pricing_platform_key on model_pricing (ai_provider, model)
      where organisation_id is null;
    create unique index model_pricing_organisation_key on model_pricing (organisation_id, ai_provider, model)
      where organisation_id is not null;
  `.execute(db);
}
