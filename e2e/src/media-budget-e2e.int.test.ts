// Cost budgets see images and speech across the whole stack: the control plane's platform price
// table (seed-prices.json) prices dall-e-3 and tts-1, a key's cost budget made through the admin
// API stops their requests after the units it pays for, and the logs show each request's cost.
// Real Postgres and NATS; the mock provider answers the image and speech endpoints.
import { test } from '@aigw/testkit';
import { describe, expect } from 'vitest';
import { chatUntilServed, createTenant, pollUntil, startLogsStack } from './logs-stack.test-support.js';

interface LogRow {
  readonly trace_id: string;
  readonly path: string;
  readonly model: string;
  readonly status_code: number;
  readonly cost: number | null;
}

describe('cost budgets charge images and speech end to end', () => {
  test("a key's cost budget stops dall-e-3 images and tts-1 speech; the logs show each cost", {
    timeout: 120_000,
  }, async ({ pg, nats }) => {
    const stack = await startLogsStack({ pg, nats });
    try {
      const tenant = await createTenant(stack.admin, stack.mock, 'Media budget');
      const probe = await stack.admin.createKey(tenant.workspaceId, 'probe');
      await chatUntilServed(stack, tenant, probe.key, 'media-budget-warmup');
      // Made before the image key: once that key is served, this one has reached the gateway too.
      // 4 cents: 1000 characters of tts-1 speech are 0.015 USD
      const speech = await stack.admin.createKey(tenant.workspaceId, 'four cents of speech', {
        usage_limits: [{ type: 'cost', credit_limit: 0.04 }],
      });
      // 10 cents: dall-e-3 standard 1024x1024 images are 0.04 USD each in the platform table
      const images = await stack.admin.createKey(tenant.workspaceId, 'ten cents of images', {
        usage_limits: [{ type: 'cost', credit_limit: 0.1 }],
      });
      const post = (key: string, path: string, body: unknown, traceId: string) =>
        fetch(`${stack.gatewayBase}/v1${path}`, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-service-api-key': key,
            'x-service-provider': tenant.provider,
            'x-service-trace-id': traceId,
          },
          body: JSON.stringify(body),
          signal: AbortSignal.timeout(10_000),
        });
      const logsOf = async (keyId: string): Promise<LogRow[]> => {
        const reply = await stack.admin.call('GET', `/logs?api_key_id=${keyId}&include_total=true`);
        return reply.status === 200 ? ((reply.body as { data: LogRow[] }).data ?? []) : [];
      };

      /** Sends until refused; each next request after the previous one is logged (settled before). */
      const spend = async (keyId: string, key: string, path: string, body: unknown) => {
        const statuses: number[] = [];
        let refusal: unknown;
        const before = (await logsOf(keyId)).length;
        for (let i = 0; i < 6 && refusal === undefined; i++) {
          const res = await post(key, path, body, `${keyId}-${i}`);
          statuses.push(res.status);
          if (res.status !== 200) {
            refusal = await res.json();
            break;
          }
          await res.arrayBuffer();
          await pollUntil(
            () => logsOf(keyId),
            (rows) => rows.length === before + i + 1,
            { what: `request ${i} logged`, boundMs: 30_000, intervalMs: 50 },
          );
        }
        return { statuses, refusal, logs: await logsOf(keyId) };
      };

      // The budget keys reach the gateway after the probe: wait until the first one is served.
      await pollUntil(
        async () =>
          (
            await post(
              images.key,
              '/chat/completions',
              {
                model: 'gpt-4o-mini',
                messages: [{ role: 'user', content: 'hi' }],
                max_tokens: 1,
              },
              'media-budget-sync-images',
            )
          ).status,
        (status) => status === 200,
        { what: 'the image key served', boundMs: 15_000, intervalMs: 25 },
      );
      await pollUntil(
        () => logsOf(images.id),
        (rows) => rows.length === 1,
        { what: 'the sync request logged', boundMs: 30_000, intervalMs: 50 },
      );

      const image = await spend(images.id, images.key, '/images/generations', {
        model: 'dall-e-3',
        prompt: 'a sea otter',
        size: '1024x1024',
      });
      // the sync chat cost a few micro-dollars: 2 images fit, the 3rd goes over, the 4th is refused
      expect(image.statuses).toEqual([200, 200, 200, 412]);
      expect(image.refusal).toMatchObject({ error: { code: 'api_key_usage_limit_exhausted' } });
      const imageLogs = image.logs.filter(
        (row) => row.path === '/images/generations' && row.status_code === 200,
      );
      expect(imageLogs.map((row) => [row.status_code, row.model, row.cost])).toEqual([
        [200, 'dall-e-3', 0.04],
        [200, 'dall-e-3', 0.04],
        [200, 'dall-e-3', 0.04],
      ]);

      const spoken = await spend(speech.id, speech.key, '/audio/speech', {
        model: 'tts-1',
        input: 'a'.repeat(1000),
        voice: 'alloy',
      });
      expect(spoken.statuses).toEqual([200, 200, 200, 412]);
      expect(
        spoken.logs
          .filter((row) => row.status_code === 200)
          .map((row) => [row.status_code, row.model, row.cost]),
      ).toEqual([
        [200, 'tts-1', 0.015],
        [200, 'tts-1', 0.015],
        [200, 'tts-1', 0.015],
      ]);
    } finally {
      await stack.close();
    }
  });
});
