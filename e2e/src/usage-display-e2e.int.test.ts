// Issue 8 item 4 end to end: requests through a real gateway are charged by the logger's usage
// ledger (from the gateway's usage charges) and shown by the control plane as `current_usage` of
// the key's own limits and of a usage-limits policy's entity. Its own file: the stack bootstraps its
// own database.
import { test } from '@aigw/testkit';
import { describe, expect } from 'vitest';
import { chatUntilServed, createTenant, pollUntil, startLogsStack } from './logs-stack.test-support.js';

const DAY = 86_400_000;
const iso = (ms: number) => new Date(ms).toISOString();
const monthStart = (ms: number) => Date.UTC(new Date(ms).getUTCFullYear(), new Date(ms).getUTCMonth(), 1);
/** Monday 00:00 UTC of the week holding `ms` (1970-01-05 was a Monday). */
const weekStart = (ms: number) => ms - ((((ms - 4 * DAY) % (7 * DAY)) + 7 * DAY) % (7 * DAY));

describe('current_usage end to end', () => {
  test("requests through the gateway show up as the key's and the policy entity's current_usage", async ({
    pg,
    nats,
  }) => {
    const stack = await startLogsStack({ pg, nats });
    try {
      const { admin } = stack;
      const tenant = await createTenant(admin, stack.mock, 'Usage e2e');
      const limits = [
        { type: 'cost', credit_limit: 100, periodic_reset: 'monthly' },
        {
          type: 'tokens',
          credit_limit: 1_000_000,
          periodic_reset_days: 2,
          next_usage_reset_at: iso(Date.now() + 5 * DAY),
        },
      ];
      // An organisation price high enough that a 2-token request costs whole micro-USD, the
      // policy, then the key: change events reach the gateway in order, so once it serves the key
      // it holds the other two.
      await admin.post('/model-pricing', {
        ai_provider: 'openai',
        model: 'gpt-4o-mini*',
        input_per_mtok: 1234.5,
        output_per_mtok: 2345.67,
      });
      const policy = await admin.post('/policies/usage-limits', {
        name: 'e2e per key',
        type: 'cost',
        credit_limit: 100,
        conditions: [{ key: 'workspace_id', value: tenant.workspaceId }],
        group_by: [{ key: 'api_key' }],
        periodic_reset: 'weekly',
        workspace_id: tenant.workspaceId,
      });
      const key = await admin.createKey(tenant.workspaceId, 'e2e', { usage_limits: limits });
      for (let i = 0; i < 4; i++) await chatUntilServed(stack, tenant, key.key, `usage-e2e-${i}`);
      // The reference: what the ledger holds once the logger stored the 4 requests (charged from
      // the gateway's usage charges), and the tokens of the stored request logs.
      const ledgerRow = async (kind: string, id: string, group: string, start: number) => {
        const { rows } = await pg.pool.query<{ cost: string; tokens: string; requests: string }>(
          `select cost_micros::text as cost, tokens::text as tokens, requests::text as requests
             from logs.usage_ledger
            where entity_kind = $1 and entity_id = $2 and group_value = $3
              and period_start = to_timestamp($4::bigint / 1000.0)`,
          [kind, id, group, start],
        );
        return rows[0] ?? { cost: '0', tokens: '0', requests: '0' };
      };
      const month = monthStart(Date.now());
      const { value: keyMonth } = await pollUntil(
        () => ledgerRow('api_key', key.id, '', month),
        (r) => Number(r.requests) >= 4,
        { boundMs: 20_000, intervalMs: 100, what: 'ledger charged' },
      );
      const { rows: logged } = await pg.pool.query<{ tokens: string; cost: string }>(
        `select sum(total_tokens)::text as tokens, sum(cost_micros)::text as cost
           from logs.request_logs where api_key_id = $1`,
        [key.id],
      );
      const perKey = await ledgerRow(
        'usage_limit_policy',
        policy.id,
        `api_key=${key.id}`,
        weekStart(Date.now()),
      );
      expect(Number(keyMonth.cost)).toBeGreaterThan(0);
      expect(Number(perKey.cost)).toBe(Number(keyMonth.cost));
      // The logs carry the same cost the budgets were charged (the events are priced alike).
      expect(Number(logged[0]?.cost)).toBe(Number(keyMonth.cost));

      const shown = await admin.expect(200, 'GET', `/api-keys/${key.id}`);
      expect(shown.usage_limits).toMatchObject([
        { type: 'cost', current_usage: Number(keyMonth.cost) / 1e6 },
        { type: 'tokens', current_usage: Number(logged[0]?.tokens) },
      ]);
      // Fractional USD: a few requests of a cheap model cost cents.
      expect(Number.isInteger(shown.usage_limits[0].current_usage)).toBe(false);
      const entities = await admin.expect(200, 'GET', `/policies/usage-limits/${policy.id}/entities`);
      const mine = entities.data.find((e: { id: string }) => e.id === key.id);
      expect(mine.current_usage).toBe(Number(perKey.cost) / 1e6);
    } finally {
      await stack.close();
    }
  });
});
