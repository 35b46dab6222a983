// Issue 17 item 2 end to end: a usage-limit policy with a tiny budget refuses a key with 412 on two
// gateway replicas; a reset through the admin API reaches both (outbox -> NATS -> snapshot change),
// `current_usage` reads 0, the next request is admitted, and the reset is in the audit log.
// The budget (20 tokens) holds one request of the prompt below (13 tokens) but not two: after the
// reset each replica admits one, which the second can do only if it counts from the reset too.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createApp as createGateway, type GatewayApp, loadGatewayConfig } from '@aigw/gateway';
import { test, waitReady } from '@aigw/testkit';
import { type LocalServiceHandle, startLocalRedis } from '@aigw/testkit/services';
import { describe, expect } from 'vitest';
import { chat } from './enforcement-client.test-support.js';
import { chatUntilServed, createTenant, pollUntil, startLogsStack } from './logs-stack.test-support.js';

describe('usage reset end to end', () => {
  test('412 on every gateway, reset through the admin API, current_usage 0, then 200 on every gateway', async ({
    pg,
    nats,
  }) => {
    const redis: LocalServiceHandle = await startLocalRedis();
    const stack = await startLogsStack({ pg, nats }, { REDIS_URL: redis.url });
    let second: GatewayApp | undefined;
    try {
      const { admin } = stack;
      // A second replica on the same Redis and control plane.
      second = createGateway(
        loadGatewayConfig({
          PORT: '0',
          HOST: '127.0.0.1',
          LOG_LEVEL: 'silent',
          NATS_URL: nats.url,
          NATS_NAMESPACE: nats.prefix,
          REDIS_URL: redis.url,
          CONTROL_PLANE_GRPC_URL: `127.0.0.1:${stack.controlPlane.ports.grpc}`,
          SNAPSHOT_SERVICE_TOKEN: stack.env.SNAPSHOT_SERVICE_TOKEN as string,
          MASTER_KEY: stack.env.MASTER_KEY as string,
          SNAPSHOT_LKG_PATH: join(mkdtempSync(join(tmpdir(), 'aigw-reset-lkg-')), 'snapshot.bin'),
          CUSTOM_HOST_ALLOWLIST: '127.0.0.1',
          REQUEST_EVENTS_SUBJECT: `${nats.prefix}.aigw.requests.v1`,
          EVENT_SPOOL_DIR: mkdtempSync(join(tmpdir(), 'aigw-reset-spool-')),
        }),
      );
      await second.start();
      await waitReady(`http://127.0.0.1:${second.port}`);
      const gateways = [stack.gatewayBase, `http://127.0.0.1:${second.port}`];

      const tenant = await createTenant(admin, stack.mock, 'Reset e2e');
      const policy = await admin.post('/policies/usage-limits', {
        name: 'tiny per key',
        type: 'tokens',
        credit_limit: 20,
        conditions: [{ key: 'workspace_id', value: tenant.workspaceId }],
        group_by: [{ key: 'api_key' }],
        periodic_reset: 'monthly',
        workspace_id: tenant.workspaceId,
      });
      const key = await admin.createKey(tenant.workspaceId, 'reset-e2e');
      const call = (base: string) => chat(base, { key: key.key, provider: tenant.provider, maxTokens: 3 });
      // Two requests use the budget up (the second is admitted below the limit).
      await chatUntilServed(stack, tenant, key.key, 'reset-e2e-0');
      for (const base of gateways) {
        const refused = await pollUntil(
          () => call(base),
          (r) => r.status === 412,
          { boundMs: 15_000, intervalMs: 50, what: `412 from ${base}` },
        );
        expect(refused.value.body.error.code).toBe('policy_usage_limit_exhausted');
      }
      const entityUsage = async () => {
        const entities = await admin.expect(200, 'GET', `/policies/usage-limits/${policy.id}/entities`);
        return entities.data.find((e: { id: string }) => e.id === key.id)?.current_usage as number | null;
      };
      // The ledger has caught up with what the gateway counted.
      await pollUntil(entityUsage, (usage) => (usage ?? 0) >= 20, {
        boundMs: 15_000,
        intervalMs: 100,
        what: 'current_usage above the budget',
      });

      const reset = await admin.expect(
        200,
        'POST',
        `/policies/usage-limits/${policy.id}/entities/${key.id}/reset`,
        {},
      );
      expect(reset).toMatchObject({
        object: 'policy_usage_reset',
        group_by_key: 'api_key',
        group_values: [key.id],
      });
      const resetAt = performance.now();
      expect(await entityUsage()).toBe(0);
      // Every replica admits the key again (polled: the change travels outbox -> NATS -> gateway);
      // the second one's admission is below the limit only in the period started by the reset.
      const admittedAfterMs: number[] = [];
      for (const base of gateways) {
        const admitted = await pollUntil(
          () => call(base),
          (r) => r.status === 200,
          { boundMs: 15_000, intervalMs: 10, what: `200 from ${base} after the reset` },
        );
        admittedAfterMs.push(Math.round(admitted.at - resetAt));
      }
      // Measured, not asserted: how long the reset took to reach each replica.
      console.info(`usage reset reached the gateways after ${admittedAfterMs.join(', ')} ms`);
      // Usage counts again from the reset: the requests just admitted show up, and the budget bites.
      await pollUntil(entityUsage, (usage) => (usage ?? 0) >= 20, {
        boundMs: 15_000,
        intervalMs: 100,
        what: 'current_usage counting after the reset',
      });
      await pollUntil(
        () => call(gateways[0] as string),
        (r) => r.status === 412,
        { boundMs: 15_000, intervalMs: 50, what: '412 again once the new period is used up' },
      );

      const audit = await pollUntil(
        () =>
          admin.call('GET', `/audit-logs?action=usage_limits_policies.reset_usage&resource_id=${policy.id}`),
        (r) => r.status === 200 && r.body.data.length === 1,
        { boundMs: 15_000, intervalMs: 100, what: 'the reset in the audit log' },
      );
      expect(audit.value.body.data[0]).toMatchObject({
        action: 'usage_limits_policies.reset_usage',
        resource_type: 'usage_limits_policy',
        resource_id: policy.id,
        status_code: 200,
      });
    } finally {
      await second?.stop();
      await stack.close();
      await redis.stop();
    }
  });
});
