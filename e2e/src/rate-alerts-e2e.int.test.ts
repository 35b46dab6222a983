// Rate-limit alerts (spec part 6) through the whole stack: a rate-limits policy that refuses
// requests at a real gateway (limits on a real Redis) raises one alert per limit and window, however
// many requests it refuses; the control plane stores it from NATS, lists it, and e-mails it through
// a real SMTP server. (Its own file: the stack bootstraps its admin key on an empty database.)
import { test } from '@aigw/testkit';
import { startSmtpServer } from '@aigw/testkit/smtp';
import { describe, expect } from 'vitest';
import { chatUntilServed, createTenant, pollUntil, startLogsStack } from './logs-stack.test-support.js';

describe('rate-limit alerts end to end', () => {
  test('a rate-limits policy that refuses requests raises one alert per window, listed and e-mailed (spec 6)', async ({
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
      const tenant = await createTenant(admin, stack.mock, 'Rate alerts e2e');
      const key = await admin.createKey(tenant.workspaceId, 'rate alerts e2e');
      await chatUntilServed(stack, tenant, key.key, 'rate-alerts-e2e-0');
      const policy = await admin.post('/policies/rate-limits', {
        name: 'e2e rate',
        type: 'requests',
        unit: 'rph',
        value: 2,
        conditions: [{ key: 'workspace_id', value: tenant.workspaceId }],
        group_by: [{ key: 'api_key' }],
        workspace_id: tenant.workspaceId,
      });
      // Call until the gateway has the policy and refuses, then a few more refusals.
      const call = async () =>
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
        ).status;
      await pollUntil(call, (status) => status === 429, {
        boundMs: 20_000,
        intervalMs: 10,
        what: 'rate limited',
      });
      for (let i = 0; i < 5; i++) expect(await call()).toBe(429);

      const { value: listed } = await pollUntil(
        () => admin.expect(200, 'GET', `/alerts?policy_id=${policy.id}&kind=rate_limited`),
        (list) => list.data.some((a: { email: { state: string } }) => a.email.state === 'sent'),
        { boundMs: 20_000, intervalMs: 50, what: 'rate alert e-mailed' },
      );
      // Six refusals in one window: one alert.
      expect(listed.total).toBe(1);
      expect(listed.data[0]).toMatchObject({
        kind: 'rate_limited',
        policy_id: policy.id,
        entity: { type: 'rate_limit_policy', id: policy.id },
        group: { api_key: key.id },
        type: 'requests',
        credit_limit: 2,
        window_ms: 3_600_000,
      });
      expect(smtp.received.map((m) => m.subject)).toEqual([
        'Rate limit reached: Rate limits policy "e2e rate"',
      ]);
      expect(smtp.received[0]?.to).toContain('owner@example.com');
    } finally {
      await stack.close();
      await smtp.close();
    }
  });
});
