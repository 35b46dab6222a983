// Cost budgets see what images and speech cost (real Redis, the gateway over the mock provider):
// admission reserves n x the image price or the input's characters x the speech price, settle
// charges the measured units, and the request event's cost is the same amount as the budget's.
import { UsageLimitType } from '@aigw/proto';
import { test } from '@aigw/testkit';
import type { Redis } from 'ioredis';
import OpenAI, { toFile } from 'openai';
import { afterEach, describe, expect } from 'vitest';
import { type ControlPlaneGateway, startTenantGateway } from '../../test/control-plane-entities.js';
import { unreadAudioFiles } from '../formats/audio-duration.js';
import { wavFile } from '../formats/audio-files.test-support.js';
import {
  admittedOf,
  attempt,
  DALLE2,
  DALLE3,
  makeLimits,
  type mediaPrice,
  refusedOf,
  snapshotOf,
  subject,
  TTS1,
  usagePolicy,
  WHISPER1,
} from './limits.test-support.js';
import { requestEstimate } from './request-usage.js';

let gw: ControlPlaneGateway | undefined;

afterEach(async () => {
  await gw?.close();
  gw = undefined;
});

/**
 * A gateway whose tenant has a cost budget of `limit` micro-USD per API key and `price`; `model`:
 * the budget applies to that model only.
 */
async function start(
  redis: Redis,
  limit: number | { readonly limit: number; readonly model: string },
  ...prices: ReturnType<typeof mediaPrice>[]
) {
  const budget = typeof limit === 'number' ? { limit, model: undefined } : limit;
  const tenant = await startTenantGateway(makeLimits(redis).limits, ({ org, ws }) => [
    {
      ...usagePolicy({
        type: UsageLimitType.COST,
        creditLimit: budget.limit,
        conditions: [
          { key: 'workspace_id', value: ws },
          ...(budget.model ? [{ key: 'model', value: budget.model }] : []),
        ],
        groupBy: [{ key: 'api_key' }],
      }),
      organisationId: org,
    },
    ...prices,
  ]);
  gw = tenant.gw;
  const current = tenant.gw;
  const call = (path: string, body: unknown, traceId: string, headers: Record<string, string> = {}) =>
    fetch(`${current.base}/v1${path}`, {
      method: 'POST',
      headers: {
        ...(body instanceof FormData ? {} : { 'content-type': 'application/json' }),
        'x-service-api-key': tenant.key,
        'x-service-provider': '@openai-prod',
        'x-service-trace-id': traceId,
        ...headers,
      },
      body: body instanceof FormData ? body : JSON.stringify(body),
    });
  /** The official OpenAI SDK pointed at the gateway as the tenant (calls carry `traceId`). */
  const sdk = (traceId: string) =>
    new OpenAI({
      baseURL: `${current.base}/v1`,
      apiKey: 'sk-unused',
      maxRetries: 0,
      defaultHeaders: {
        'x-service-api-key': tenant.key,
        'x-service-provider': '@openai-prod',
        'x-service-trace-id': traceId,
      },
    });
  return Object.assign(call, { sdk });
}

/**
 * Calls until the budget refuses (at most `max` calls), each after the previous call's charge is in
 * its Redis counter (settle runs after the answer went out): the statuses, and each event's cost
 * and budget charge.
 */
async function spendUntilRefused(
  redis: Redis,
  call: (traceId: string) => Promise<Response>,
  max: number,
): Promise<{ statuses: number[]; costs: (number | undefined)[]; charged: number[]; refusal: unknown }> {
  const statuses: number[] = [];
  const costs: (number | undefined)[] = [];
  const charged: number[] = [];
  let total = 0;
  for (let i = 0; i < max; i++) {
    const traceId = `media-${i}-${Math.random().toString(36).slice(2)}`;
    const res = await call(traceId);
    statuses.push(res.status);
    if (res.status !== 200) return { statuses, costs, charged, refusal: await res.json() };
    await res.arrayBuffer();
    const event = await (gw as ControlPlaneGateway).eventFor(traceId);
    costs.push(event.cost?.amountMicros);
    const charge = event.usageCharges[0];
    charged.push(charge?.amount ?? 0);
    total += charge?.amount ?? 0;
    // The next call must see this one's charge, not its reservation still in flight.
    let u = -1;
    for (let j = 0; j < 200 && u !== total && charge; j++) {
      u = Number(await redis.hget(charge.counterKey, 'u'));
      if (u !== total) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(u).toBe(total);
  }
  return { statuses, costs, charged, refusal: undefined };
}

describe('cost budgets charge images and speech', () => {
  test('a budget of 10 cents stops dall-e-3 images after those it pays for, one request over at most', async ({
    redis,
  }) => {
    const call = await start(redis.client, 100_000, DALLE3);
    const image = { model: 'dall-e-3', prompt: 'a sea otter', size: '1024x1024' };
    const spent = await spendUntilRefused(
      redis.client,
      (traceId) => call('/images/generations', image, traceId),
      6,
    );
    // 0.04 USD an image: 2 fit, the 3rd starts below the limit (0.08) and goes over, the 4th is refused
    expect(spent.statuses).toEqual([200, 200, 200, 412]);
    expect(spent.costs).toEqual([40_000, 40_000, 40_000]);
    expect(spent.charged).toEqual([40_000, 40_000, 40_000]);
    expect(spent.refusal).toMatchObject({
      error: { type: 'usage_limit_error', code: 'policy_usage_limit_exhausted' },
    });
    // the refused request never reached the provider
    expect(gw?.mock.requests.filter((r) => r.path === '/v1/images/generations')).toHaveLength(3);
  });

  test('hd images cost their own price, n times', async ({ redis }) => {
    const call = await start(redis.client, 1_000_000, DALLE3);
    const res = await call(
      '/images/generations',
      { model: 'dall-e-2', prompt: 'unpriced model', n: 2 },
      'hd-0',
    );
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    // no price row for dall-e-2 here: no cost rather than a made-up one
    expect((await gw?.eventFor('hd-0'))?.cost).toBeUndefined();
    const hd = await call(
      '/images/generations',
      { model: 'dall-e-3', prompt: 'x', quality: 'hd', size: '1024x1024', n: 1 },
      'hd-1',
    );
    expect(hd.status).toBe(200);
    await hd.arrayBuffer();
    const event = await gw?.eventFor('hd-1');
    expect(event?.cost).toEqual({ amountMicros: 80_000, currency: 'USD' });
    expect(event?.usageCharges[0]?.amount).toBe(80_000);
  });

  test('a budget of 4 cents stops tts-1 speech by characters, one request over at most', async ({
    redis,
  }) => {
    const call = await start(redis.client, 40_000, TTS1);
    // 1000 characters at 15 USD per million = 0.015 USD a request
    const speech = { model: 'tts-1', input: 'a'.repeat(1000), voice: 'alloy' };
    const spent = await spendUntilRefused(
      redis.client,
      (traceId) => call('/audio/speech', speech, traceId),
      6,
    );
    expect(spent.statuses).toEqual([200, 200, 200, 412]);
    expect(spent.costs).toEqual([15_000, 15_000, 15_000]);
    expect(spent.charged).toEqual([15_000, 15_000, 15_000]);
    expect(gw?.mock.requests.filter((r) => r.path === '/v1/audio/speech')).toHaveLength(3);
  });
});

describe("an image request naming no model is priced as dall-e-2, OpenAI's default", () => {
  test('a budget on dall-e-2 admits, charges and stops model-less requests', async ({ redis }) => {
    // The budget applies to dall-e-2 only: a request naming no model is admitted as one.
    const call = await start(redis.client, { limit: 50_000, model: 'dall-e-2' }, DALLE2);
    const image = { prompt: 'a sea otter', n: 2 };
    const spent = await spendUntilRefused(
      redis.client,
      (traceId) => call('/images/generations', image, traceId),
      6,
    );
    // 2 images at dall-e-2's 1024x1024 default, 0.02 USD each: 40000 a request; the 3rd is refused
    expect(spent.statuses).toEqual([200, 200, 412]);
    expect(spent.costs).toEqual([40_000, 40_000]);
    expect(spent.charged).toEqual([40_000, 40_000]);
    expect(gw?.mock.requests.filter((r) => r.path === '/v1/images/generations')).toHaveLength(2);
    // The default prices the call; the event's requested model stays what the request named.
    const event = gw?.events.find((e) => e.path === '/images/generations');
    expect(event?.modelRequested).toBe('');
  });

  test('a model-less edit upload is priced as dall-e-2 from its form', async ({ redis }) => {
    const call = await start(redis.client, 1_000_000, DALLE2);
    const form = new FormData();
    form.append('n', '2');
    form.append('size', '256x256');
    form.append('prompt', 'add a hat');
    form.append('image', new Blob([new Uint8Array(2_048)], { type: 'image/png' }), 'otter.png');
    const res = await call('/images/edits', form, 'edit-default');
    expect(res.status).toBe(200);
    await res.arrayBuffer();
    const event = await gw?.eventFor('edit-default');
    // 2 x 0.016 USD
    expect(event?.cost).toEqual({ amountMicros: 32_000, currency: 'USD' });
    expect(event?.usageCharges[0]?.amount).toBe(32_000);
    // The default prices the call; the requested model stays what the form named: none.
    expect(event?.modelRequested).toBe('');
  });
});

/** A transcription upload of `file` as `name`, answered in `format`. */
function transcription(file: Uint8Array, format: string, name = 'clip.wav'): FormData {
  const form = new FormData();
  form.append('model', 'whisper-1');
  form.append('response_format', format);
  form.append('file', new Blob([file], { type: 'audio/wav' }), name);
  return form;
}

describe("a transcription whose answer reports no seconds is charged its file's duration", () => {
  test("text and json answers: the WAV header's 62.3 s, billed as 63 s, marked estimated", async ({
    redis,
  }) => {
    const call = await start(redis.client, 1_000_000, WHISPER1);
    const clip = wavFile(62.3);
    for (const format of ['text', 'json']) {
      const trace = `whisper-${format}`;
      const res = await call('/audio/transcriptions', transcription(clip, format), trace);
      expect(res.status).toBe(200);
      // the answer carries no seconds: nothing the provider measured
      expect(await res.text()).not.toContain('duration');
      const event = await gw?.eventFor(trace);
      // 63 seconds at 0.006 USD a minute = 6300 micro-USD, in the event and the budget alike
      expect(event?.cost).toEqual({ amountMicros: 6_300, currency: 'USD' });
      expect(event?.usageCharges[0]?.amount).toBe(6_300);
      expect(event?.tokens?.estimated).toBe(true);
    }
    // The seconds an answer reports still win, and are not marked estimated by the file.
    const verbose = await call('/audio/transcriptions', transcription(clip, 'verbose_json'), 'whisper-v');
    expect(verbose.status).toBe(200);
    // the mock hears 16000 bytes a second: 125 s
    expect(await verbose.json()).toMatchObject({ usage: { type: 'duration', seconds: 125 } });
    expect((await gw?.eventFor('whisper-v'))?.cost).toEqual({ amountMicros: 12_500, currency: 'USD' });
  });

  test('an unreadable file does not fail the request: nothing is charged, and it is counted', async ({
    redis,
  }) => {
    const call = await start(redis.client, 1_000_000, WHISPER1);
    const before = unreadAudioFiles();
    const res = await call('/audio/transcriptions', transcription(new Uint8Array(40_000), 'text'), 'unread');
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('Transcript of clip.wav');
    const event = await gw?.eventFor('unread');
    expect(event?.cost).toBeUndefined();
    expect(event?.usageCharges[0]?.amount).toBe(0);
    expect(unreadAudioFiles() - before).toBe(1);
  });
});

describe('an upload whose model follows its file (as the official OpenAI Node SDK sends it)', () => {
  /** The file first, then the fields: the order of the SDK's `transcriptions.create({ file, model })`. */
  function fileFirst(file: Uint8Array, format: string): FormData {
    const form = new FormData();
    form.append('file', new Blob([file], { type: 'audio/wav' }), 'clip.wav');
    form.append('model', 'whisper-1');
    form.append('response_format', format);
    return form;
  }

  test('is priced as its model, past the first 64 KiB of the upload', async ({ redis }) => {
    const call = await start(redis.client, 1_000_000, WHISPER1);
    // 62.3 s of 16 kHz 16-bit audio: about 2 MB before the model field
    const res = await call('/audio/transcriptions', fileFirst(wavFile(62.3), 'text'), 'file-first');
    expect(res.status).toBe(200);
    const event = await gw?.eventFor('file-first');
    // 63 seconds at 0.006 USD a minute, as when the model comes first
    expect(event?.cost).toEqual({ amountMicros: 6_300, currency: 'USD' });
    expect(event?.usageCharges[0]?.amount).toBe(6_300);
    // The log names the model the form asked for, though the upload streamed unread.
    expect(event?.modelRequested).toBe('whisper-1');
  });

  test("the official SDK's transcription of a 2 MB file is priced and logged as its model", async ({
    redis,
  }) => {
    const call = await start(redis.client, 1_000_000, WHISPER1);
    const file = await toFile(wavFile(62.3), 'clip.wav', { type: 'audio/wav' });
    const text = await call
      .sdk('sdk-transcription')
      .audio.transcriptions.create({ file, model: 'whisper-1', response_format: 'text' });
    expect(text).toContain('Transcript of clip.wav');
    const event = await gw?.eventFor('sdk-transcription');
    expect(event?.modelRequested).toBe('whisper-1');
    expect(event?.cost).toEqual({ amountMicros: 6_300, currency: 'USD' });
    expect(event?.usageCharges[0]?.amount).toBe(6_300);
  });

  test('is counted by a budget on that model (the model is read from the whole upload)', async ({
    redis,
  }) => {
    const call = await start(redis.client, { limit: 1_000_000, model: 'whisper-1' }, WHISPER1);
    const res = await call('/audio/transcriptions', fileFirst(wavFile(62.3), 'text'), 'file-first-model');
    expect(res.status).toBe(200);
    const event = await gw?.eventFor('file-first-model');
    expect(event?.usageCharges).toHaveLength(1);
    expect(event?.usageCharges[0]?.amount).toBe(6_300);
    expect(event?.modelRequested).toBe('whisper-1');
  });
});

describe('transcriptions are charged the seconds their answer reports', () => {
  test('verbose_json seconds at per_audio_minute; an answer without seconds of no readable audio is not charged', async ({
    redis,
  }) => {
    const call = await start(redis.client, 1_000_000, WHISPER1);
    const upload = (format: string) => {
      const form = new FormData();
      form.append('model', 'whisper-1');
      form.append('response_format', format);
      // the mock hears 16000 bytes a second: 2.5 s, billed as 3 s
      form.append('file', new Blob([new Uint8Array(40_000)], { type: 'audio/wav' }), 'clip.wav');
      return form;
    };
    const res = await call('/audio/transcriptions', upload('verbose_json'), 'whisper-1');
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ usage: { type: 'duration', seconds: 3 } });
    const event = await gw?.eventFor('whisper-1');
    // 3 seconds at 0.006 USD a minute = 300 micro-USD, in the event and the budget alike
    expect(event?.cost).toEqual({ amountMicros: 300, currency: 'USD' });
    expect(event?.usageCharges[0]?.amount).toBe(300);

    const plain = await call('/audio/transcriptions', upload('json'), 'whisper-2');
    expect(plain.status).toBe(200);
    expect(await plain.json()).not.toHaveProperty('usage');
    const unmeasured = await gw?.eventFor('whisper-2');
    expect(unmeasured?.cost).toBeUndefined();
    expect(unmeasured?.usageCharges[0]?.amount).toBe(0);
  });
});

describe('image uploads stream and are charged from their form', () => {
  test("an edit's n images at the form's size", async ({ redis }) => {
    const call = await start(redis.client, 1_000_000, DALLE2);
    const form = new FormData();
    form.append('model', 'dall-e-2');
    form.append('n', '3');
    form.append('size', '256x256');
    form.append('prompt', 'add a hat');
    form.append('image', new Blob([new Uint8Array(2_048)], { type: 'image/png' }), 'otter.png');
    const res = await call('/images/edits', form, 'edit-1');
    expect(res.status).toBe(200);
    expect(((await res.json()) as { data: unknown[] }).data).toHaveLength(3);
    const event = await gw?.eventFor('edit-1');
    // 3 x 0.016 USD
    expect(event?.cost).toEqual({ amountMicros: 48_000, currency: 'USD' });
    expect(event?.usageCharges[0]?.amount).toBe(48_000);
    expect(event?.modelRequested).toBe('dall-e-2');
  });
});

describe('image uploads reserve their form before the call', () => {
  test("an edit upload's n x price is held while it is in flight: a second one waits for it", async ({
    redis,
  }) => {
    // 50,000 micro-USD: one edit of 2 x 16,000 fits, a second one in flight beside it does not.
    const call = await start(redis.client, 50_000, DALLE2);
    const edit = () => {
      const form = new FormData();
      form.append('model', 'dall-e-2');
      form.append('n', '2');
      form.append('size', '256x256');
      form.append('prompt', 'add a hat');
      form.append('image', new Blob([new Uint8Array(2_048)], { type: 'image/png' }), 'otter.png');
      return form;
    };
    const slow = call('/images/edits', edit(), 'upload-slow', { 'x-mock-latency-ms': '3000' });
    // The first one was admitted (its reservation held) once the provider has it.
    const mock = (gw as ControlPlaneGateway).mock;
    for (let i = 0; i < 200 && !mock.requests.some((r) => r.path === '/v1/images/edits'); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(mock.requests.filter((r) => r.path === '/v1/images/edits')).toHaveLength(1);
    const second = await call('/images/edits', edit(), 'upload-second');
    expect(second.status).toBe(429);
    expect(((await second.json()) as { error: { code: string } }).error.code).toBe('usage_limit_in_flight');
    const first = await slow;
    expect(first.status).toBe(200);
    await first.arrayBuffer();
    const event = await gw?.eventFor('upload-slow');
    expect(event?.usageCharges[0]?.amount).toBe(32_000);
  });
});

describe('admission reserves the known media cost', () => {
  test('n images x price and characters x price are reserved before the call', async ({ redis }) => {
    const { limits } = makeLimits(redis.client);
    const policy = usagePolicy({ type: UsageLimitType.COST, creditLimit: 100_000 });
    const snapshot = snapshotOf(DALLE3, TTS1, policy);
    const images = { model: 'dall-e-3', prompt: 'x', n: 1 };
    const imageEstimate = requestEstimate(images, JSON.stringify(images).length, '/images/generations');
    const who = subject({ apiKeyId: 'key-reserve', model: 'dall-e-3' });
    // none settled: 40000 + 40000 held, a third (120000 > 100000) waits for them
    const outcomes = await Promise.all([
      attempt(limits.admit(snapshot, who, imageEstimate)),
      attempt(limits.admit(snapshot, who, imageEstimate)),
    ]);
    expect(admittedOf(outcomes)).toHaveLength(2);
    const third = await attempt(limits.admit(snapshot, who, imageEstimate));
    expect(refusedOf([third])[0]).toMatchObject({ status: 429, code: 'usage_limit_in_flight' });

    const speech = { model: 'tts-1', input: 'b'.repeat(4000), voice: 'alloy' };
    const speechEstimate = requestEstimate(speech, JSON.stringify(speech).length, '/audio/speech');
    expect(speechEstimate.media).toEqual({ characters: 4000 });
    const speaker = subject({ apiKeyId: 'key-speech', model: 'tts-1' });
    // 4000 characters = 60000 micro-USD: one admitted, the second (120000 > 100000) waits
    const first = await attempt(limits.admit(snapshot, speaker, speechEstimate));
    expect(admittedOf([first])).toHaveLength(1);
    const second = await attempt(limits.admit(snapshot, speaker, speechEstimate));
    expect(refusedOf([second])[0]).toMatchObject({ status: 429, code: 'usage_limit_in_flight' });
  });
});
