// Deployments at the gateway: `x-service-deployment` (or a deployment's slug in `x-service-config`)
// runs the saved config the deployment points at, moves with it, and only within its workspace.
import { randomUUID } from 'node:crypto';
import { type Entity, EntityStatus } from '@aigw/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  type ControlPlaneGateway,
  deployment,
  integration,
  organisation,
  provider,
  savedConfig,
  startControlPlaneGateway,
  workspace,
} from '../../test/control-plane-entities.js';
import { createApp } from '../app.js';
import { loadGatewayConfig } from '../config.js';

const ORG = randomUUID();
const WS = randomUUID();
const OTHER_WS = randomUUID();
const KEY = `aigw_${randomUUID()}`;
const OTHER_KEY = `aigw_${randomUUID()}`;
const INTEGRATION = randomUUID();
const BLUE = randomUUID();
const GREEN = randomUUID();
const PROD = randomUUID();
const chat = { model: 'gpt-4o', messages: [{ role: 'user', content: 'ping' }] };

let gw: ControlPlaneGateway;
let base: Entity[];

/** A config whose one target sends `model` to the mock, so the mock's requests say which config ran. */
const configSending = (id: string, slug: string, model: string, ws = WS) =>
  savedConfig(id, ORG, ws, slug, { targets: [{ provider: '@openai-prod', override_params: { model } }] });

function post(headers: Record<string, string>) {
  return fetch(`${gw.base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(chat),
  });
}

/** The model of every request the mock received since it was last cleared. */
const modelsSent = () =>
  gw.mock.requests.map((r) => (JSON.parse(r.body.toString()) as { model: string }).model);

async function errorOf(res: Response) {
  expect(res.headers.get('x-service-gateway-error')).toBe('true');
  return ((await res.json()) as { error: { code: string; param: string | null } }).error;
}

beforeAll(async () => {
  gw = await startControlPlaneGateway([], {}, { apiKeys: { openai: ['sk-managed'] } });
  base = [
    organisation(ORG),
    workspace(WS, ORG),
    workspace(OTHER_WS, ORG),
    apiKey(KEY, ORG, WS),
    apiKey(OTHER_KEY, ORG, OTHER_WS),
    integration(INTEGRATION, ORG, {
      credentials: { api_key: 'sk-managed' },
      options: { custom_host: `${gw.mock.url}/v1` },
    }),
    provider(randomUUID(), ORG, WS, 'openai-prod', { integrationId: INTEGRATION }),
    configSending(BLUE, 'blue', 'model-blue'),
    configSending(GREEN, 'green', 'model-green'),
    deployment(PROD, ORG, WS, 'prod', BLUE),
  ];
  gw.use(base);
});

afterAll(async () => {
  await gw?.close();
});

describe('deployments', () => {
  it("x-service-deployment runs the deployment's config, by slug or id, and the event names that config", async () => {
    for (const ref of ['prod', PROD]) {
      gw.mock.clear();
      const trace = `deployment-${ref}`;
      const res = await post({
        'x-service-api-key': KEY,
        'x-service-deployment': ref,
        'x-service-trace-id': trace,
      });
      expect(res.status).toBe(200);
      expect(modelsSent()).toEqual(['model-blue']);
      expect(gw.mock.requests[0]?.headers.authorization).toBe('Bearer sk-managed');
      expect(gw.mock.requests[0]?.headers['x-service-deployment']).toBeUndefined();
      expect((await gw.eventFor(trace)).configId).toBe(BLUE);
    }
  });

  it('a deployment moved to another config serves that config from the next request', async () => {
    gw.use([...base.filter((e) => e.id !== PROD), deployment(PROD, ORG, WS, 'prod', GREEN)]);
    gw.mock.clear();
    expect((await post({ 'x-service-api-key': KEY, 'x-service-deployment': 'prod' })).status).toBe(200);
    expect(modelsSent()).toEqual(['model-green']);
    gw.use(base);
  });

  it("a deployment's slug in x-service-config names it when no saved config has that slug", async () => {
    gw.mock.clear();
    expect((await post({ 'x-service-api-key': KEY, 'x-service-config': 'prod' })).status).toBe(200);
    expect(modelsSent()).toEqual(['model-blue']);
    // A saved config of that slug wins (configs are what x-service-config names first).
    gw.use([...base, configSending(randomUUID(), 'prod', 'model-config')]);
    gw.mock.clear();
    expect((await post({ 'x-service-api-key': KEY, 'x-service-config': 'prod' })).status).toBe(200);
    expect(modelsSent()).toEqual(['model-config']);
    gw.use(base);
  });

  it('another workspace, an archived or unknown deployment, or both headers: 400, nothing sent', async () => {
    gw.use([
      ...base,
      deployment(randomUUID(), ORG, WS, 'old', BLUE, { status: EntityStatus.ARCHIVED }),
      configSending(randomUUID(), 'theirs-config', 'model-theirs', OTHER_WS),
    ]);
    const cases: [Record<string, string>, string, string][] = [
      [
        { 'x-service-api-key': OTHER_KEY, 'x-service-deployment': 'prod' },
        'deployment_not_found',
        'x-service-deployment',
      ],
      [
        { 'x-service-api-key': OTHER_KEY, 'x-service-deployment': PROD },
        'deployment_not_found',
        'x-service-deployment',
      ],
      [
        { 'x-service-api-key': OTHER_KEY, 'x-service-config': 'prod' },
        'config_not_found',
        'x-service-config',
      ],
      [
        { 'x-service-api-key': KEY, 'x-service-deployment': 'old' },
        'deployment_not_found',
        'x-service-deployment',
      ],
      [
        { 'x-service-api-key': KEY, 'x-service-deployment': 'nope' },
        'deployment_not_found',
        'x-service-deployment',
      ],
      [
        { 'x-service-api-key': KEY, 'x-service-deployment': 'prod', 'x-service-config': 'blue' },
        'conflicting_credentials',
        'x-service-deployment',
      ],
    ];
    for (const [headers, code, param] of cases) {
      gw.mock.clear();
      const res = await post(headers);
      expect([JSON.stringify(headers), res.status]).toEqual([JSON.stringify(headers), 400]);
      expect(await errorOf(res)).toMatchObject({ code, param });
      expect(gw.mock.requests).toEqual([]);
    }
    gw.use(base);
  });
});

describe('deployments without a control plane', () => {
  it('x-service-deployment is a 400 config_unavailable', async () => {
    const standalone = createApp(loadGatewayConfig({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' }));
    await standalone.start();
    try {
      const res = await fetch(`http://127.0.0.1:${standalone.port}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-deployment': 'prod' },
        body: JSON.stringify(chat),
      });
      expect(res.status).toBe(400);
      expect(await errorOf(res)).toMatchObject({ code: 'config_unavailable', param: 'x-service-deployment' });
    } finally {
      await standalone.stop();
    }
  });
});
