// A client that leaves mid-stream (reliability-security.md section 7, row 23): the upstream call is
// cancelled, the budget reservation made at admission is settled (not held until its TTL), and the
// partial answer's tokens are charged.
import { request } from 'node:http';
import { UsageLimitType } from '@aigw/proto';
import { test } from '@aigw/testkit';
import { afterAll, describe, expect } from 'vitest';
import { type ControlPlaneGateway, startTenantGateway } from '../../test/control-plane-entities.js';
import { makeLimits, usagePolicy } from './limits.test-support.js';

let gw: ControlPlaneGateway | undefined;

afterAll(async () => {
  await gw?.close();
});

describe('a client that aborts a stream', () => {
  test('settles its budget reservation and charges what streamed', async ({ redis }) => {
    const tenant = await startTenantGateway(makeLimits(redis.client).limits, ({ org, ws }) => [
      {
        ...usagePolicy({
          type: UsageLimitType.TOKENS,
          creditLimit: 1_000,
          conditions: [{ key: 'workspace_id', value: ws }],
          groupBy: [{ key: 'workspace_id' }],
        }),
        organisationId: org,
      },
    ]);
    gw = tenant.gw;
    const { key } = tenant;
    const current = gw;
    // Each call reserves its max_tokens: one in flight leaves too little for a second.
    const body = JSON.stringify({
      model: 'gpt-4o',
      stream: true,
      max_tokens: 700,
      messages: [{ role: 'user', content: 'ping' }],
    });
    const headers = {
      'content-type': 'application/json',
      'x-service-api-key': key,
      'x-service-provider': '@openai-prod',
    };
    const call = (traceId: string) =>
      fetch(`${current.base}/v1/chat/completions`, {
        method: 'POST',
        headers: { ...headers, 'x-service-trace-id': traceId },
        body,
      });

    // A slow stream: the client reads its first chunk, then goes away.
    const aborted = await new Promise<void>((resolve, reject) => {
      const req = request(
        `${current.base}/v1/chat/completions`,
        {
          method: 'POST',
          headers: {
            ...headers,
            'x-service-trace-id': 'aborted',
            'x-mock-chunks': '50',
            'x-mock-chunk-delay-ms': '100',
          },
        },
        (res) => {
          if (res.statusCode !== 200) reject(new Error(`stream answered ${res.statusCode}`));
          res.once('data', () => {
            // While it streams, its reservation holds the budget.
            void call('while-streaming').then(async (second) => {
              expect(second.status).toBe(429);
              expect(((await second.json()) as { error: { code: string } }).error.code).toBe(
                'usage_limit_in_flight',
              );
              req.destroy();
              resolve();
            }, reject);
          });
        },
      );
      req.on('error', () => {});
      req.end(body);
    });
    await aborted;
    const event = await current.eventFor('aborted');
    expect(event.usageCharges.map((c) => c.amount)).toEqual([event.tokens?.totalTokens]);
    expect(event.tokens?.totalTokens).toBeGreaterThan(0);
    expect(event.tokens?.totalTokens).toBeLessThan(700);
    // Settled: the reservation is gone, so the same call is admitted again.
    const after = await call('after-abort');
    expect(after.status).toBe(200);
    await after.text();
    // The refused call never reached the provider.
    expect(current.mock.requests).toHaveLength(2);
  });
});
