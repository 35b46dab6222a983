// Streams whose client did not ask for usage (the OpenAI SDK's default) are charged with the
// provider's own token counts: a token budget stops them at its limit, and their request events
// carry those counts and a cost, on real Redis.
import { UsageLimitType } from '@aigw/proto';
import { test } from '@aigw/testkit';
import { afterEach, describe, expect } from 'vitest';
import { type ControlPlaneGateway, startTenantGateway } from '../../test/control-plane-entities.js';
import { gpt4oPrice, makeLimits, usagePolicy } from '../limits/limits.test-support.js';

let gw: ControlPlaneGateway | undefined;

afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

describe('stream usage the client did not ask for', () => {
  test('ten streamed calls against a small token budget stop at the budget, each event with real tokens and a cost', async ({
    redis,
  }) => {
    const tenant = await startTenantGateway(makeLimits(redis.client).limits, ({ org, ws }) => [
      gpt4oPrice(),
      {
        ...usagePolicy({
          type: UsageLimitType.TOKENS,
          creditLimit: 30,
          conditions: [{ key: 'workspace_id', value: ws }],
        }),
        organisationId: org,
      },
    ]);
    gw = tenant.gw;
    const { key } = tenant;
    const current = gw;
    const call = (n: number) =>
      fetch(`${current.base}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-api-key': key,
          'x-service-provider': '@openai-prod',
          'x-service-trace-id': `stream-${n}`,
        },
        body: JSON.stringify({
          model: 'gpt-4o',
          messages: [{ role: 'user', content: 'three little words' }],
          stream: true,
        }),
      });
    const statuses: number[] = [];
    let charged = 0;
    for (let n = 0; n < 10; n++) {
      const res = await call(n);
      const text = await res.text();
      statuses.push(res.status);
      if (res.status !== 200) continue;
      // The client sees no usage: it did not ask for it.
      expect(text).not.toContain('usage');
      const event = await current.eventFor(`stream-${n}`);
      expect(event.tokens).toMatchObject({ inputTokens: 3, outputTokens: 3, estimated: false });
      expect(event.cost?.amountMicros).toBeGreaterThan(0);
      charged += event.tokens?.totalTokens ?? 0;
    }
    // 6 tokens a call against 30: five calls use it up, the rest are refused with 412.
    expect(statuses.filter((s) => s === 200)).toHaveLength(5);
    expect(statuses.slice(5).every((s) => s === 412)).toBe(true);
    expect(charged).toBe(30);
  });

  test('a provider that reports no usage at all: the tokenizer estimates it, marked estimated, priced and charged', async ({
    redis,
  }) => {
    const tenant = await startTenantGateway(makeLimits(redis.client).limits, ({ org, ws }) => [
      gpt4oPrice(),
      {
        ...usagePolicy({
          type: UsageLimitType.TOKENS,
          creditLimit: 12,
          conditions: [{ key: 'workspace_id', value: ws }],
        }),
        organisationId: org,
      },
    ]);
    gw = tenant.gw;
    const { key } = tenant;
    const current = gw;
    const call = (n: number, stream: boolean) =>
      fetch(`${current.base}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-api-key': key,
          'x-service-provider': '@openai-prod',
          'x-service-trace-id': `silent-${n}`,
          // The mock answers like a self-hosted server that never reports usage.
          'x-mock-omit-usage': '1',
        },
        body: JSON.stringify({
          model: 'gpt-4o',
          messages: [{ role: 'user', content: 'three little words' }],
          // A plain call names no `stream` at all, as the SDKs send it.
          ...(stream ? { stream } : {}),
        }),
      });
    const first = await call(0, true);
    expect(first.status).toBe(200);
    expect(await first.text()).not.toContain('usage');
    const streamed = await current.eventFor('silent-0');
    // o200k_base: "three little words" is 3 tokens in and 3 out; nothing reported, so estimated.
    expect(streamed.tokens).toMatchObject({ inputTokens: 3, outputTokens: 3, estimated: true });
    expect(streamed.cost?.amountMicros).toBeGreaterThan(0);
    expect(streamed.usageCharges[0]?.amount).toBe(6);
    const plain = await call(1, false);
    expect(plain.status).toBe(200);
    await plain.text();
    const json = await current.eventFor('silent-1');
    expect(json.tokens).toMatchObject({ inputTokens: 3, outputTokens: 3, estimated: true });
    expect(json.cost?.amountMicros).toBeGreaterThan(0);
    // 12 tokens charged by the estimates: the budget is used up.
    expect((await call(2, true)).status).toBe(412);
  });
});
