// Realtime sessions under the same rules as requests, on real Redis: a requests policy counts each
// session (the third in its window is refused before the provider is reached), every session is a
// request event with the usage of its turns, and a token budget stops a session whose turns used it.

import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import {
  type Entity,
  EntityStatus,
  RateLimitType,
  RateLimitUnit,
  type RequestEvent,
  UsageLimitType,
} from '@aigw/proto';
import { test } from '@aigw/testkit';
import { afterEach, describe, expect } from 'vitest';
import WebSocket from 'ws';
import {
  type ControlPlaneGateway,
  managedTenant,
  startControlPlaneGateway,
  startTenantGateway,
} from '../../test/control-plane-entities.js';
import { makeLimits, ratePolicy, usagePolicy } from '../limits/limits.test-support.js';

let gw: ControlPlaneGateway | undefined;

afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

async function start(redis: Parameters<typeof makeLimits>[0], policy: (ws: string) => Entity) {
  const tenant = await startTenantGateway(makeLimits(redis).limits, ({ org, ws }) => [
    { ...policy(ws), organisationId: org },
  ]);
  gw = tenant.gw;
  const current = tenant.gw;
  return (traceId: string) =>
    new WebSocket(`ws://127.0.0.1:${current.port}/v1/realtime?model=gpt-4o-realtime`, {
      headers: {
        'x-service-api-key': tenant.key,
        'x-service-provider': '@openai-prod',
        'x-service-trace-id': traceId,
      },
    });
}

/** Opens the session or returns the status the upgrade was refused with. */
function opened(ws: WebSocket): Promise<number> {
  return new Promise((resolve) => {
    ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
    ws.on('open', () => resolve(101));
  });
}

/** Messages of a session as they arrive. */
function inbox(ws: WebSocket) {
  const received: { type: string; error?: { code?: string } }[] = [];
  ws.on('message', (data: Buffer) => received.push(JSON.parse(data.toString())));
  return async (type: string, count = 1) => {
    for (let i = 0; i < 200 && received.filter((m) => m.type === type).length < count; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return received.filter((m) => m.type === type);
  };
}

describe('realtime sessions in the pipeline', () => {
  test('a 2-requests-per-minute policy admits two sessions and refuses the third; each is a request event with its usage', async ({
    redis,
  }) => {
    const session = await start(redis.client, (ws) =>
      ratePolicy({
        type: RateLimitType.REQUESTS,
        unit: RateLimitUnit.RPM,
        value: 2,
        conditions: [{ key: 'workspace_id', value: ws }],
      }),
    );
    for (const traceId of ['rt-1', 'rt-2']) {
      const ws = session(traceId);
      const wait = inbox(ws);
      expect(await opened(ws)).toBe(101);
      ws.send(JSON.stringify({ type: 'response.create' }));
      expect(await wait('response.done')).toHaveLength(1);
      ws.close();
      await once(ws, 'close');
    }
    gw?.mock.clear();
    const third = session('rt-3');
    expect(await opened(third)).toBe(429);
    expect(gw?.mock.requests).toEqual([]);

    const event: RequestEvent | undefined = await gw?.eventFor('rt-1');
    expect(event).toMatchObject({
      method: 'GET',
      path: '/realtime',
      statusCode: 101,
      modelRequested: 'gpt-4o-realtime',
    });
    // 'hello from the mock': 4 output tokens, 9 input (the mock's count), as response.done said.
    expect(event?.tokens).toMatchObject({ inputTokens: 9, outputTokens: 4, estimated: false });
    const refused = await gw?.eventFor('rt-3');
    expect(refused?.statusCode).toBe(429);
    expect(refused?.error?.code).toBe('policy_rate_limited');
  });

  test('a token budget is charged turn by turn and stops the session once it is used up', async ({
    redis,
  }) => {
    const session = await start(redis.client, (ws) =>
      usagePolicy({
        type: UsageLimitType.TOKENS,
        creditLimit: 20,
        conditions: [{ key: 'workspace_id', value: ws }],
      }),
    );
    const ws = session('rt-budget');
    const wait = inbox(ws);
    expect(await opened(ws)).toBe(101);
    ws.send(JSON.stringify({ type: 'response.create' }));
    expect(await wait('response.done')).toHaveLength(1);
    // 13 of 20 tokens used: the session goes on. The second turn brings it to 26: it is stopped.
    ws.send(JSON.stringify({ type: 'response.create' }));
    const [code] = (await once(ws, 'close')) as [number];
    expect(code).toBe(1008);
    const errors = await wait('error');
    expect(errors[0]?.error?.code).toBe('policy_usage_limit_exhausted');
    const event = await gw?.eventFor('rt-budget');
    expect(event?.tokens).toMatchObject({ inputTokens: 18, outputTokens: 8 });
    expect(event?.usageCharges.reduce((sum, c) => sum + c.amount, 0)).toBe(26);
    // A new session is refused at the door: the budget is exhausted.
    expect(await opened(session('rt-after'))).toBe(412);
  });

  test('turns whose response.done events arrive back to back are each charged: the budget still stops the session', async ({
    redis,
  }) => {
    const session = await start(redis.client, (ws) =>
      usagePolicy({
        type: UsageLimitType.TOKENS,
        creditLimit: 20,
        conditions: [{ key: 'workspace_id', value: ws }],
      }),
    );
    const ws = session('rt-back-to-back');
    const wait = inbox(ws);
    expect(await opened(ws)).toBe(101);
    // Both turns at once: the second response.done reaches the gateway while the first is settled.
    ws.send(JSON.stringify({ type: 'response.create' }));
    ws.send(JSON.stringify({ type: 'response.create' }));
    // 13 + 13 tokens of a 20-token budget: the second turn exhausts it and the session is stopped.
    // (A hang guard, not a timed assertion: an uncharged turn would leave the session open.)
    let guard: NodeJS.Timeout | undefined;
    const closed = await Promise.race([
      once(ws, 'close') as Promise<[number]>,
      new Promise<[number]>((resolve) => {
        guard = setTimeout(() => resolve([0]), 10_000);
      }),
    ]);
    clearTimeout(guard);
    expect(closed[0], 'the session was not stopped: a turn went uncharged').toBe(1008);
    expect((await wait('error'))[0]?.error?.code).toBe('policy_usage_limit_exhausted');
    const event = await gw?.eventFor('rt-back-to-back');
    expect(event?.usageCharges.reduce((sum, c) => sum + c.amount, 0)).toBe(26);
  });
});

describe('realtime sessions under an allow-list', () => {
  test("a session's model (the `model` query parameter) must be in the provider's allowed_models", async () => {
    const key = `aigw_${randomUUID()}`;
    gw = await startControlPlaneGateway([]);
    const current = gw;
    gw.use(
      managedTenant(gw, {
        org: randomUUID(),
        ws: randomUUID(),
        key,
        allowedModels: ['gpt-4o-mini-realtime'],
      }),
    );
    const session = (model: string) =>
      new WebSocket(`ws://127.0.0.1:${current.port}/v1/realtime?model=${model}`, {
        headers: { 'x-service-api-key': key, 'x-service-provider': '@openai-prod' },
      });
    const refused = session('gpt-4o-realtime');
    expect(await opened(refused)).toBe(403);
    expect(gw.mock.requests).toEqual([]);
    const allowed = session('gpt-4o-mini-realtime');
    expect(await opened(allowed)).toBe(101);
    allowed.close();
    await once(allowed, 'close');
  });
});

describe('realtime sessions and a credential withdrawn', () => {
  test('a session whose API key is disabled ends at its next turn, as a new request would be refused', async () => {
    const ids = { org: randomUUID(), ws: randomUUID(), key: `aigw_${randomUUID()}` };
    const key = ids.key;
    gw = await startControlPlaneGateway([]);
    const current = gw;
    const tenant = (status: EntityStatus) => managedTenant(current, { ...ids, keyFields: { status } });
    gw.use(tenant(EntityStatus.ACTIVE));
    const session = new WebSocket(`ws://127.0.0.1:${current.port}/v1/realtime?model=gpt-4o-realtime`, {
      headers: {
        'x-service-api-key': key,
        'x-service-provider': '@openai-prod',
        'x-service-trace-id': 'rt-revoked',
      },
    });
    const wait = inbox(session);
    expect(await opened(session)).toBe(101);
    session.send(JSON.stringify({ type: 'response.create' }));
    expect(await wait('response.done')).toHaveLength(1);
    // The key is disabled while the session is open: its next turn is its last.
    gw.use(tenant(EntityStatus.DISABLED));
    session.send(JSON.stringify({ type: 'response.create' }));
    const [code] = (await once(session, 'close')) as [number];
    expect(code).toBe(1008);
    expect((await wait('error'))[0]?.error?.code).toBe('invalid_api_key');
    expect((await gw.eventFor('rt-revoked')).error?.code).toBe('invalid_api_key');
  });
});
