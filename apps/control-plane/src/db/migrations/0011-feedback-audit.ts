// Usage resets travel with their policy: `policies.usage_resets` holds the latest reset per group
// key and value (the rows of policy_usage_resets, kept in the same transaction), so every snapshot
// and change event of a usage-limits policy carries them to gateways (issue 17 item 2).
import { type Kysely, sql } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    alter table policies add column usage_resets jsonb not null default '[]';
    update policies p set usage_resets = r.resets
      from (
        select policy_id,
          jsonb_agg(jsonb_build_object(
            'group_key', group_key,
            'group_value', group_value,
            'reset_at_ms', (extract(epoch from reset_at) * 1000)::bigint
          ) order by group_key, group_value) as resets
        from policy_usage_resets group by policy_id
      ) r
      where r.policy_id = p.id;
  `.execute(db);
}
