// Issue 7 acceptance, end to end: what the control plane's admin API writes reaches two gateway
// replicas (snapshot + change events) and they enforce it; with the control plane down they keep
// serving, and a restarted replica serves its last-known-good file. Real Postgres, NATS, Redis.
// One stack serves the whole file; each test makes its own keys so tests stay apart.
import { describe, expect } from 'vitest';
import { chat, percentile } from './enforcement-client.test-support.js';
import { expectGatewayError, onBothReplicas, replicas } from './enforcement-expect.test-support.js';
import { test } from './enforcement-stack.test-support.js';

/** Longer than the gateway's debounce of last-known-good file writes (1 s). */

describe('gateways follow the control plane (issue 7)', () => {
  test('a key made through the admin API works on both replicas, and both refuse it once revoked or deleted', async ({
    e2e,
  }) => {
    const { stack, tenant } = e2e;
    const { admin } = stack;
    await admin.post('/policies/rate-limits', {
      name: 'generous per key',
      type: 'requests',
      unit: 'rpm',
      value: 1_000_000,
      conditions: [{ key: 'workspace_id', value: tenant.workspaceId }],
      group_by: [{ key: 'api_key' }],
      workspace_id: tenant.workspaceId,
    });
    const { id, key } = await admin.createKey(tenant.workspaceId, 'propagation');
    await onBothReplicas(e2e, key, 200, 'new key accepted');

    // 100 changes, alternately revoking and restoring the key; each replica's delay is measured
    // from the admin API's answer to the first request that shows the change there.
    const samples: number[] = [];
    const worstOfBoth: number[] = [];
    for (let change = 0; change < 100; change++) {
      const revoke = change % 2 === 0;
      await admin.put(`/api-keys/${id}`, { status: revoke ? 'disabled' : 'active' });
      const answered = performance.now();
      const hits = await onBothReplicas(e2e, key, revoke ? 401 : 200, revoke ? 'revocation' : 'restoration');
      const delays = hits.map((at) => at - answered);
      samples.push(...delays);
      worstOfBoth.push(Math.max(...delays));
    }
    const report = {
      perReplicaP50Ms: percentile(samples, 50).toFixed(1),
      perReplicaP99Ms: percentile(samples, 99).toFixed(1),
      bothReplicasP50Ms: percentile(worstOfBoth, 50).toFixed(1),
      bothReplicasP99Ms: percentile(worstOfBoth, 99).toFixed(1),
      maxMs: Math.max(...samples).toFixed(1),
    };
    console.log(`[snapshot propagation] 100 changes x 2 replicas: ${JSON.stringify(report)}`);

    await admin.delete(`/api-keys/${id}`);
    await onBothReplicas(e2e, key, 401, 'deleted key refused');
    for (const index of replicas) {
      expectGatewayError(
        await chat(stack.gatewayBase(index), { key, provider: tenant.provider }),
        401,
        'authentication_error',
        ['invalid_api_key'],
      );
    }
  }, 120_000);

  test('with the control plane down, both replicas serve the last snapshot, and a restarted one serves the last-known-good file', async ({
    e2e,
  }) => {
    const { stack, tenant } = e2e;
    const { key } = await stack.admin.createKey(tenant.workspaceId, 'survives the control plane');
    await onBothReplicas(e2e, key, 200, 'key accepted');
    // No wait for the debounced file write: a stopping gateway writes what is pending, and the
    // restart below depends on exactly that.

    await stack.stopControlPlane();
    try {
      for (const index of replicas) {
        const reply = await chat(stack.gatewayBase(index), { key, provider: tenant.provider });
        expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      }
      await stack.restartGateway(0);
      const reply = await chat(stack.gatewayBase(0), { key, provider: tenant.provider });
      expect(reply.status, JSON.stringify(reply.body)).toBe(200);
      expectGatewayError(
        await chat(stack.gatewayBase(0), { key: `${key}x`, provider: tenant.provider }),
        401,
        'authentication_error',
        ['invalid_api_key'],
      );
    } finally {
      await stack.startControlPlane();
    }
    // Back in sync: a change made now reaches the restarted replica too.
    const later = await stack.admin.createKey(tenant.workspaceId, 'after the outage');
    await onBothReplicas(e2e, later.key, 200, 'key made after the outage accepted');
  });
});
