// A config target's own cost budget sees what images and transcriptions cost (real Redis, the
// gateway over the mock provider): each call of the target reserves the media units the request
// asks for and settles the measured ones, as the request's own budgets do (limits/media-budgets).
import { randomUUID } from 'node:crypto';
import { EntityKind, type UsageLimit, UsageLimitType } from '@aigw/proto';
import { test } from '@aigw/testkit';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect } from 'vitest';
import {
  apiKey,
  type ControlPlaneGateway,
  integration,
  organisation,
  provider,
  startControlPlaneGateway,
  workspace,
} from '../../test/control-plane-entities.js';
import { wavFile } from '../formats/audio-files.test-support.js';
import type { Admission } from '../limits/index.js';
import {
  admittedOf,
  attempt,
  DALLE2,
  DALLE3,
  makeLimits,
  refusedOf,
  snapshotOf,
  subject,
  usagePolicy,
  WHISPER1,
} from '../limits/limits.test-support.js';
import { TargetAdmissions } from './target-admissions.js';

let gw: ControlPlaneGateway | undefined;

afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

const PRICES = [DALLE3, DALLE2, WHISPER1];

const costBudget = (creditLimit: number): UsageLimit => ({
  type: UsageLimitType.COST,
  creditLimit,
  periodicReset: 0,
  periodicResetDays: 0,
  nextUsageResetAtMs: 0,
});

/** The provider `@a` (the mock) with a cost budget of its own, called through a config. */
async function start(redis: Redis, creditLimit: number) {
  const org = randomUUID();
  const ws = randomUUID();
  const int = randomUUID();
  const id = randomUUID();
  const key = `aigw_${randomUUID()}`;
  gw = await startControlPlaneGateway([], {}, {}, makeLimits(redis).limits);
  const a = provider(id, org, ws, 'a', { integrationId: int });
  if (a.body?.$case !== 'provider') throw new Error('not a provider');
  a.body.value.usageLimits = [costBudget(creditLimit)];
  gw.use([
    organisation(org),
    workspace(ws, org),
    apiKey(key, org, ws),
    integration(int, org, {
      credentials: { api_key: 'sk-m' },
      options: { custom_host: `${gw.mock.url}/v1` },
    }),
    a,
    ...PRICES,
  ]);
  const current = gw;
  const counter = `lim:{${org}}:u:provider:${id}:cost:0`;
  return {
    counter,
    call: (path: string, body: unknown, traceId: string) =>
      fetch(`${current.base}/v1${path}`, {
        method: 'POST',
        headers: {
          ...(body instanceof FormData ? {} : { 'content-type': 'application/json' }),
          'x-service-api-key': key,
          'x-service-config': JSON.stringify({ provider: '@a' }),
          'x-service-trace-id': traceId,
        },
        body: body instanceof FormData ? body : JSON.stringify(body),
      }),
  };
}

/** The target's charge in the event, once its counter holds it (settle runs after the answer). */
async function charged(redis: Redis, counter: string, traceId: string, total: number) {
  const event = await (gw as ControlPlaneGateway).eventFor(traceId);
  const charge = event.usageCharges.find((c) => c.ownerKind === EntityKind.PROVIDER);
  let u = -1;
  for (let j = 0; j < 200 && u !== total; j++) {
    u = Number((await redis.hget(counter, 'u')) ?? 0);
    if (u !== total) await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return { amount: charge?.amount, counter: u, key: charge?.counterKey, cost: event.cost?.amountMicros };
}

describe("a config target's own cost budget charges media units", () => {
  test('dall-e-3 images through a config are charged to the target, and it refuses once spent', async ({
    redis,
  }) => {
    const s = await start(redis.client, 100_000);
    const image = { model: 'dall-e-3', prompt: 'a sea otter' };
    const statuses: number[] = [];
    let total = 0;
    for (let i = 0; i < 6; i++) {
      const trace = `cfg-image-${i}`;
      const res = await s.call('/images/generations', image, trace);
      statuses.push(res.status);
      if (res.status !== 200) {
        expect(await res.json()).toMatchObject({
          error: { type: 'usage_limit_error', code: 'provider_usage_limit_exhausted' },
        });
        break;
      }
      await res.arrayBuffer();
      total += 40_000;
      // 0.04 USD an image, on the provider's counter and in the event alike
      expect(await charged(redis.client, s.counter, trace, total)).toEqual({
        amount: 40_000,
        counter: total,
        key: s.counter,
        cost: 40_000,
      });
    }
    // 2 fit, the 3rd starts below the limit and goes over, the 4th is refused before the provider
    expect(statuses).toEqual([200, 200, 200, 412]);
    expect(gw?.mock.requests.filter((r) => r.path === '/v1/images/generations')).toHaveLength(3);
  });

  test('a model-less image and a transcription answered as text are charged to the target', async ({
    redis,
  }) => {
    const s = await start(redis.client, 10_000_000);
    const res = await s.call('/images/generations', { prompt: 'x', n: 2, size: '256x256' }, 'cfg-default');
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    // priced as dall-e-2, OpenAI's default image model: 2 x 0.016 USD
    expect(await charged(redis.client, s.counter, 'cfg-default', 32_000)).toMatchObject({
      amount: 32_000,
      counter: 32_000,
    });

    const form = new FormData();
    form.append('model', 'whisper-1');
    form.append('response_format', 'text');
    form.append('file', new Blob([wavFile(62.3)], { type: 'audio/wav' }), 'clip.wav');
    const text = await s.call('/audio/transcriptions', form, 'cfg-text');
    expect(text.status).toBe(200);
    expect(await text.text()).toContain('Transcript of clip.wav');
    // the answer reports no seconds: the file's 62.3 s, billed as 63 s at 0.006 USD a minute
    expect(await charged(redis.client, s.counter, 'cfg-text', 32_000 + 6_300)).toMatchObject({
      amount: 6_300,
      counter: 38_300,
      cost: 6_300,
    });
  });
});

describe("a config target's admission reserves the media units asked for", () => {
  test("n images at the price of the target's model, a model-less request as dall-e-2", async ({ redis }) => {
    const { limits } = makeLimits(redis.client);
    const policy = usagePolicy({ type: UsageLimitType.COST, creditLimit: 100_000 });
    const snapshot = snapshotOf(...PRICES, policy);
    const path = '/images/generations';
    const resolver = {
      fromHeaders: undefined,
      resolve: () => {
        throw new Error('not called');
      },
      targetLimits: (_target: unknown, model: string) => ({
        snapshot,
        subject: subject({ apiKeyId: `key-${model || 'none'}`, model }),
      }),
    };
    const admissions = new TargetAdmissions(limits, resolver, {
      method: 'POST',
      path,
      contentType: 'application/json',
    });
    const leaf = (json: { model?: string; prompt: string; n: number }) => ({
      provider: 'openai',
      ref: undefined,
      model: json.model ?? '',
      json,
      body: Buffer.from(JSON.stringify(json)),
    });
    // Every call here has a scope (the resolver above), so an admission of its own.
    const admit = (l: ReturnType<typeof leaf>) => admissions.admit(l) as Promise<Admission>;
    // dall-e-3: 40000 an image; 2 held (80000), a third (120000 > 100000) waits for them
    const dalle3 = leaf({ model: 'dall-e-3', prompt: 'x', n: 1 });
    const held = await Promise.all([attempt(admit(dalle3)), attempt(admit(dalle3))]);
    expect(admittedOf(held)).toHaveLength(2);
    const third = await attempt(admit(dalle3));
    expect(refusedOf([third])[0]).toMatchObject({ status: 429, code: 'usage_limit_in_flight' });
    // no model: dall-e-2 at 1024x1024, 20000 an image; 3 images (60000) held, 3 more wait
    const noModel = leaf({ prompt: 'x', n: 3 });
    expect(admittedOf([await attempt(admit(noModel))])).toHaveLength(1);
    const waiting = await attempt(admit(noModel));
    expect(refusedOf([waiting])[0]).toMatchObject({ status: 429, code: 'usage_limit_in_flight' });
  });
});
