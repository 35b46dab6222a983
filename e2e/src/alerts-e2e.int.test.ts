// Usage-limit alerts through the whole stack: requests through a real gateway (limits on a real
// Redis) cross a usage-limits policy's alert threshold and then exhaust it; each alert reaches the
// control plane over NATS, is listed by `GET /alerts` and by the policy, and is e-mailed once
// through a real SMTP server to the organisation's owner and admins and the workspace's managers.
import { randomUUID } from 'node:crypto';
import { test } from '@aigw/testkit';
import { startSmtpServer } from '@aigw/testkit/smtp';
import { describe, expect } from 'vitest';
import { chatUntilServed, createTenant, pollUntil, startLogsStack } from './logs-stack.test-support.js';

describe('usage-limit alerts end to end', () => {
  test('a policy crossing its threshold, then its limit, is listed and e-mailed once per alert', async ({
    pg,
    nats,
    redis,
  }) => {
    const smtp = await startSmtpServer();
    const stack = await startLogsStack(
      { pg, nats },
      { REDIS_URL: redis.url },
      { SMTP_URL: smtp.url, SMTP_FROM: 'alerts@e2e.test', SMTP_POLL_MS: '50' },
    );
    try {
      const { admin } = stack;
      const tenant = await createTenant(admin, stack.mock, 'Alerts e2e');
      // Recipients besides the bootstrapped owner: an organisation admin and the workspace's manager.
      const org = (await admin.expect(200, 'GET', '/organisation')).id as string;
      const [orgAdmin, manager, member] = [randomUUID(), randomUUID(), randomUUID()];
      for (const [id, role] of [
        [orgAdmin, 'admin'],
        [manager, 'member'],
        [member, 'member'],
      ] as const)
        await pg.pool.query(
          'insert into control.users (id, organisation_id, email, role) values ($1, $2, $3, $4)',
          [id, org, `${id}@e2e.test`, role],
        );
      await pg.pool.query(
        "insert into control.workspace_members (workspace_id, user_id, role) values ($1, $2, 'manager'), ($1, $3, 'member')",
        [tenant.workspaceId, manager, member],
      );

      const policy = await admin.post('/policies/usage-limits', {
        name: 'e2e alerts',
        type: 'tokens',
        credit_limit: 40,
        alert_threshold: 1,
        conditions: [{ key: 'workspace_id', value: tenant.workspaceId }],
        group_by: [{ key: 'api_key' }],
        workspace_id: tenant.workspaceId,
      });
      const key = await admin.createKey(tenant.workspaceId, 'alerts e2e');
      await chatUntilServed(stack, tenant, key.key, 'alerts-e2e-0');

      // The first request used tokens: the threshold alert is listed and mailed.
      const { value: threshold } = await pollUntil(
        () => admin.expect(200, 'GET', `/alerts?policy_id=${policy.id}`),
        (list) => list.data.some((a: { kind: string; email: { state: string } }) => a.email.state === 'sent'),
        { boundMs: 20_000, intervalMs: 50, what: 'threshold alert e-mailed' },
      );
      expect(threshold.data[0]).toMatchObject({
        kind: 'threshold',
        policy_id: policy.id,
        workspace_id: tenant.workspaceId,
        group: { api_key: key.id },
        type: 'tokens',
        credit_limit: 40,
        alert_threshold: 1,
      });

      // Spend until the gateway refuses (412): the exhausted alert follows.
      await pollUntil(
        async () =>
          (
            await fetch(`${stack.gatewayBase}/v1/chat/completions`, {
              method: 'POST',
              headers: {
                'content-type': 'application/json',
                'x-service-api-key': key.key,
                'x-service-provider': tenant.provider,
              },
              body: JSON.stringify({
                model: 'gpt-4o-mini',
                messages: [{ role: 'user', content: 'hi' }],
                max_tokens: 3,
              }),
              signal: AbortSignal.timeout(10_000),
            })
          ).status,
        (status) => status === 412,
        { boundMs: 20_000, intervalMs: 10, what: 'usage limit exhausted' },
      );
      const { value: both } = await pollUntil(
        () => admin.expect(200, 'GET', `/policies/usage-limits/${policy.id}/alerts`),
        (list) =>
          list.total === 2 && list.data.every((a: { email: { state: string } }) => a.email.state === 'sent'),
        { boundMs: 20_000, intervalMs: 50, what: 'exhausted alert e-mailed' },
      );
      expect(both.data.map((a: { kind: string }) => a.kind)).toEqual(['exhausted', 'threshold']);
      expect((await admin.expect(200, 'GET', '/alerts?kind=exhausted')).total).toBe(1);

      const expected = ['owner@example.com', `${orgAdmin}@e2e.test`, `${manager}@e2e.test`].sort();
      expect(smtp.received).toHaveLength(2);
      expect(smtp.received.map((m) => m.subject).sort()).toEqual([
        'Usage alert threshold reached: Usage limits policy "e2e alerts"',
        'Usage limit reached: Usage limits policy "e2e alerts"',
      ]);
      for (const mail of smtp.received) expect([...mail.to].sort()).toEqual(expected);
    } finally {
      await stack.close();
      await smtp.close();
    }
  });
});
