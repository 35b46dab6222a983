// An allow-list checks the model a call runs, also when the call does not name it: an image request
// without `model` runs OpenAI's default (dall-e-2), and a Responses call or a realtime session
// without one runs a model the gateway cannot know (a stored prompt's, the provider's default), so
// under a list they are refused rather than let through as "no model".
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import WebSocket from 'ws';
import {
  apiKey,
  type ControlPlaneGateway,
  integration,
  organisation,
  provider,
  startControlPlaneGateway,
  workspace,
} from '../../test/control-plane-entities.js';

let gw: ControlPlaneGateway;
const key = `aigw_${randomUUID()}`;

beforeAll(async () => {
  gw = await startControlPlaneGateway([]);
  const org = randomUUID();
  const ws = randomUUID();
  const int = randomUUID();
  gw.use([
    organisation(org),
    workspace(ws, org),
    apiKey(key, org, ws),
    integration(int, org, {
      credentials: { api_key: 'sk-managed' },
      options: { custom_host: `${gw.mock.url}/v1` },
    }),
    provider(randomUUID(), org, ws, 'images-new', {
      integrationId: int,
      allowedModels: ['gpt-image-1', 'gpt-4o'],
    }),
    provider(randomUUID(), org, ws, 'images-old', { integrationId: int, allowedModels: ['dall-e-2'] }),
  ]);
});

afterAll(() => gw?.close());

async function post(path: string, slug: string, body: unknown, viaConfig = false) {
  gw.mock.clear();
  const route: Record<string, string> = viaConfig
    ? { 'x-service-config': JSON.stringify({ provider: slug }) }
    : { 'x-service-provider': slug };
  const res = await fetch(`${gw.base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-api-key': key, ...route },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as { error?: { code?: string } };
  return { status: res.status, code: answer.error?.code, reached: gw.mock.requests.length > 0 };
}

const refused = { status: 403, code: 'model_not_allowed', reached: false };

describe('calls that name no model, under an allow-list', () => {
  test('an image request without a model is checked as dall-e-2, the model it runs', async () => {
    expect(await post('/v1/images/generations', '@images-new', { prompt: 'a cat' })).toEqual(refused);
    expect(
      await post('/v1/images/generations', '@images-new', { prompt: 'a cat', model: 'gpt-image-1' }),
    ).toMatchObject({
      status: 200,
      reached: true,
    });
    expect(await post('/v1/images/generations', '@images-old', { prompt: 'a cat' })).toMatchObject({
      status: 200,
      reached: true,
    });
    // The same through a config naming the provider.
    expect(await post('/v1/images/generations', '@images-new', { prompt: 'a cat' }, true)).toEqual(refused);
    expect(await post('/v1/images/generations', '@images-old', { prompt: 'a cat' }, true)).toMatchObject({
      status: 200,
      reached: true,
    });
  });

  test('a Responses call without a model (a stored prompt runs its own) is refused; naming an allowed one goes', async () => {
    expect(await post('/v1/responses', '@images-new', { prompt: { id: 'pmpt_123' }, input: 'hi' })).toEqual(
      refused,
    );
    expect(
      await post('/v1/responses', '@images-new', { prompt: { id: 'pmpt_123' }, input: 'hi' }, true),
    ).toEqual(refused);
    const named = await post('/v1/responses', '@images-new', { model: 'gpt-4o', input: 'hi' });
    expect(named.reached).toBe(true);
  });

  test('a realtime session without a model is refused before the provider', async () => {
    const session = new WebSocket(`ws://127.0.0.1:${gw.port}/v1/realtime`, {
      headers: { 'x-service-api-key': key, 'x-service-provider': '@images-new' },
    });
    // Closing a refused handshake reports an error of its own: not this test's subject.
    session.on('error', () => {});
    gw.mock.clear();
    const status = await new Promise<number>((resolve) => {
      session.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      session.on('open', () => resolve(101));
    });
    session.terminate();
    expect(status).toBe(403);
    expect(gw.mock.requests).toEqual([]);
  });
});
