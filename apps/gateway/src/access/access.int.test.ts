// Control-plane mode end to end over a real HTTP data plane and the mock provider: API keys from the
// snapshot, the spec 5.1 credential combinations, managed providers and virtual keys with opened
// credentials, model allow-lists, saved configs, metadata defaults and identity in request events.
import { randomUUID } from 'node:crypto';
import { ApiKeyType, type Entity, EntityStatus } from '@aigw/proto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import {
  apiKey,
  type ControlPlaneGateway,
  integration,
  organisation,
  provider,
  savedConfig,
  startControlPlaneGateway,
  tombstone,
  virtualKey,
  workspace,
} from '../../test/control-plane-entities.js';

const ORG = randomUUID();
const WS = randomUUID();
const OTHER_WS = randomUUID();
const KEY = 'aigw_test-key-0001';
const KEY_ID = randomUUID();
const OPENAI_INT = randomUUID();
const ANTHROPIC_INT = randomUUID();
const OPENAI_PROVIDER = randomUUID();
const ANTHROPIC_PROVIDER = randomUUID();
const CONFIG_ID = randomUUID();
const chat = { model: 'gpt-4o', messages: [{ role: 'user', content: 'ping' }] };

let gw: ControlPlaneGateway;
let base: Entity[];

function post(headers: Record<string, string>, body: unknown = chat, path = '/chat/completions') {
  return fetch(`${gw.base}/v1${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

async function refusal(res: Response) {
  expect(res.headers.get('x-service-gateway-error')).toBe('true');
  return (
    (await res.json()) as { error: { code: string; type: string; param: string | null; message: string } }
  ).error;
}

beforeAll(async () => {
  const openaiIntegration = integration(OPENAI_INT, ORG, {
    credentials: { api_key: 'sk-managed-openai' },
    options: { custom_host: 'MOCK/v1' },
  });
  base = [
    organisation(ORG, { defaultMetadata: { env: 'prod', team: 'org' } }),
    workspace(WS, ORG, { defaultMetadata: { team: 'ws', region: 'eu' } }),
    workspace(OTHER_WS, ORG),
    apiKey(KEY, ORG, WS, { id: KEY_ID, userId: 'user-7', metadata: { team: 'key', a: '1' } }),
    openaiIntegration,
    integration(ANTHROPIC_INT, ORG, {
      aiProvider: 'anthropic',
      credentials: { api_key: 'sk-ant-managed', custom_headers: { 'x-tenant': 'secret-tenant' } },
      options: { custom_host: 'MOCK/v1' },
    }),
    provider(OPENAI_PROVIDER, ORG, WS, 'openai-prod', { integrationId: OPENAI_INT }),
    provider(ANTHROPIC_PROVIDER, ORG, WS, 'claude', {
      integrationId: ANTHROPIC_INT,
      aiProvider: 'anthropic',
    }),
    savedConfig(
      CONFIG_ID,
      ORG,
      WS,
      'fallback',
      {
        strategy: { mode: 'fallback' },
        targets: [{ provider: '@openai-prod' }],
      },
      { version: 4 },
    ),
  ];
  gw = await startControlPlaneGateway(
    [],
    {},
    { apiKeys: { openai: ['sk-managed-openai', 'sk-own'], anthropic: ['sk-ant-managed'] } },
  );
  // The mock's URL is known only now: put it into the entities' options.
  base = base.map((e) => withMockHost(e, gw.mock.url));
  gw.use(base);
});

afterAll(async () => {
  await gw?.close();
});

function withMockHost(entity: Entity, url: string): Entity {
  const body = entity.body;
  if (body?.$case !== 'integration' || body.value.options.custom_host === undefined) return entity;
  const options = { ...body.value.options, custom_host: body.value.options.custom_host.replace('MOCK', url) };
  return { ...entity, body: { $case: 'integration', value: { ...body.value, options } } };
}

describe('API keys', () => {
  it('requires x-service-api-key and refuses unknown keys, before any provider call', async () => {
    gw.mock.clear();
    const missing = await post({ 'x-service-provider': '@openai-prod' });
    expect(missing.status).toBe(401);
    expect(await refusal(missing)).toMatchObject({ code: 'missing_api_key', type: 'authentication_error' });
    const unknown = await post({ 'x-service-api-key': 'aigw_nope', 'x-service-provider': '@openai-prod' });
    expect(unknown.status).toBe(401);
    expect(await refusal(unknown)).toMatchObject({ code: 'invalid_api_key', param: 'x-service-api-key' });
    expect(gw.mock.requests).toEqual([]);
  });

  it('refuses a key without the completions.write scope with 403 on every provider route and on realtime', async () => {
    const raw = `aigw_${randomUUID()}`;
    gw.use([...base, apiKey(raw, ORG, WS, { scopes: ['logs.list'] })]);
    gw.mock.clear();
    for (const path of ['/chat/completions', '/embeddings']) {
      const res = await post({ 'x-service-api-key': raw, 'x-service-provider': '@openai-prod' }, chat, path);
      expect(res.status).toBe(403);
      expect(await refusal(res)).toMatchObject({
        code: 'insufficient_scope',
        type: 'permission_error',
        param: 'x-service-api-key',
      });
    }
    const ws = new WebSocket(`ws://127.0.0.1:${gw.port}/v1/realtime?model=gpt-4o-realtime`, {
      headers: { 'x-service-api-key': raw, 'x-service-provider': '@openai-prod' },
    });
    const status = await new Promise<number>((resolve) => {
      ws.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      ws.on('open', () => resolve(101));
    });
    expect(status).toBe(403);
    expect(gw.mock.requests).toEqual([]);
    gw.use(base);
  });

  it.each([
    ['expired (status)', { status: EntityStatus.EXPIRED }, 401, 'api_key_expired'],
    ['expired (time)', { expiresAtMs: Date.now() - 1000 }, 401, 'api_key_expired'],
    ['disabled', { status: EntityStatus.DISABLED }, 401, 'invalid_api_key'],
    ['archived', { status: EntityStatus.ARCHIVED }, 401, 'invalid_api_key'],
    ['an admin key', { type: ApiKeyType.ADMIN }, 403, 'workspace_key_required'],
  ] as const)('refuses a key that is %s', async (_case, fields, status, code) => {
    const raw = `aigw_${randomUUID()}`;
    const ws = 'type' in fields ? '' : WS;
    gw.use([...base, apiKey(raw, ORG, ws, fields)]);
    const res = await post({ 'x-service-api-key': raw, 'x-service-provider': '@openai-prod' });
    expect(res.status).toBe(status);
    expect((await refusal(res)).code).toBe(code);
    gw.use(base);
  });

  it('refuses a revoked (deleted) key, an archived workspace and a disabled organisation', async () => {
    const raw = `aigw_${randomUUID()}`;
    const key = apiKey(raw, ORG, WS);
    const headers = { 'x-service-api-key': raw, 'x-service-provider': '@openai-prod' };
    gw.use([...base, key]);
    expect((await post(headers)).status).toBe(200);
    gw.use([...base, tombstone(key)]);
    const revoked = await post(headers);
    expect([revoked.status, (await refusal(revoked)).code]).toEqual([401, 'invalid_api_key']);

    const archived = base.map((e) =>
      e.id === WS ? workspace(WS, ORG, { status: EntityStatus.ARCHIVED }) : e,
    );
    gw.use([...archived, key]);
    const ws = await post(headers);
    expect([ws.status, (await refusal(ws)).code]).toEqual([403, 'workspace_archived']);

    const disabled = base.map((e) =>
      e.id === ORG ? organisation(ORG, { status: EntityStatus.DISABLED }) : e,
    );
    gw.use([...disabled, key]);
    const org = await post(headers);
    expect([org.status, (await refusal(org)).code]).toEqual([403, 'organisation_disabled']);
    gw.use(base);
  });
});

describe('spec 5.1 credential combinations', () => {
  const key = { 'x-service-api-key': KEY };

  it('(a) API key + virtual key reaches the provider with the integration key', async () => {
    gw.use([...base, virtualKey(base.find((e) => e.id === OPENAI_PROVIDER) as Entity)]);
    gw.mock.clear();
    const res = await post({
      ...key,
      'x-service-virtual-key': 'openai-prod',
      authorization: 'Bearer sk-client',
    });
    expect(res.status).toBe(200);
    expect(gw.mock.requests[0]?.headers.authorization).toBe('Bearer sk-managed-openai');
    gw.use(base);
  });

  it('(b) API key + Authorization + provider name is accepted (the provider answers)', async () => {
    const res = await post({
      ...key,
      'x-service-provider': 'openai',
      authorization: 'Bearer sk-own',
      'x-service-request-timeout': '300',
    });
    // api.openai.com is not reachable from tests: what matters is that the gateway let it through.
    const error = res.headers.get('x-service-gateway-error') ? (await refusal(res)).code : 'provider';
    expect(['provider', 'upstream_unreachable', 'request_timeout', 'upstream_timeout']).toContain(error);
  });

  it('(c) API key + config: inline, saved by id and by slug', async () => {
    const inline = JSON.stringify({
      provider: 'openai',
      api_key: 'sk-own',
      custom_host: `${gw.mock.url}/v1`,
    });
    expect((await post({ ...key, 'x-service-config': inline })).status).toBe(200);
    for (const ref of [CONFIG_ID, 'fallback']) {
      gw.mock.clear();
      const res = await post({ ...key, 'x-service-config': ref, 'x-service-trace-id': `saved-${ref}` });
      expect(res.status).toBe(200);
      expect(res.headers.get('x-service-last-used-option-index')).toBe('config.targets[0]');
      expect(gw.mock.requests[0]?.headers.authorization).toBe('Bearer sk-managed-openai');
      const event = await gw.eventFor(`saved-${ref}`);
      expect({ id: event.configId, version: event.configVersion }).toEqual({ id: CONFIG_ID, version: 4 });
    }
  });

  it('(d) API key + Authorization + provider name + custom host', async () => {
    gw.mock.clear();
    const res = await post({
      ...key,
      'x-service-provider': 'openai',
      authorization: 'Bearer sk-own',
      'x-service-custom-host': `${gw.mock.url}/v1`,
    });
    expect(res.status).toBe(200);
    expect(gw.mock.requests[0]?.headers.authorization).toBe('Bearer sk-own');
  });

  it.each([
    ['nothing but the key', {}, 'missing_provider', 'x-service-provider'],
    [
      'a provider name without Authorization',
      { 'x-service-provider': 'openai' },
      'missing_provider_auth',
      'authorization',
    ],
    [
      'a virtual key and a provider name',
      { 'x-service-virtual-key': 'openai-prod', 'x-service-provider': 'openai' },
      'conflicting_credentials',
      'x-service-virtual-key',
    ],
    [
      'a managed provider with a custom host',
      { 'x-service-provider': '@openai-prod', 'x-service-custom-host': 'https://attacker.example/v1' },
      'conflicting_credentials',
      'x-service-custom-host',
    ],
    [
      'an unknown managed provider',
      { 'x-service-provider': '@nope' },
      'provider_not_found',
      'x-service-provider',
    ],
    ['an unknown saved config', { 'x-service-config': 'nope' }, 'config_not_found', 'x-service-config'],
  ] as const)('any other combination is a 400: %s', async (_case, headers, code, param) => {
    gw.mock.clear();
    const res = await post({ ...key, ...headers });
    expect(res.status).toBe(400);
    const error = await refusal(res);
    expect(error).toMatchObject({ code, param });
    expect(gw.mock.requests).toEqual([]);
  });

  it("uses the key's default config when the request names no provider", async () => {
    const raw = `aigw_${randomUUID()}`;
    gw.use([...base, apiKey(raw, ORG, WS, { configId: CONFIG_ID })]);
    gw.mock.clear();
    const res = await post({ 'x-service-api-key': raw, 'x-service-trace-id': 'default-config' });
    expect(res.status).toBe(200);
    expect((await gw.eventFor('default-config')).configId).toBe(CONFIG_ID);
    gw.use(base);
  });

  it('a key that may not set its default config aside runs it on every request, and refuses another config', async () => {
    const raw = `aigw_${randomUUID()}`;
    gw.use([...base, apiKey(raw, ORG, WS, { configId: CONFIG_ID, configEnforced: true })]);
    const enforced = { 'x-service-api-key': raw };
    // A managed provider named by the request: still the key's config (it serves targets naming none).
    gw.mock.clear();
    const named = await post({
      ...enforced,
      'x-service-provider': '@openai-prod',
      'x-service-trace-id': 'enforced-1',
    });
    expect(named.status).toBe(200);
    expect((await gw.eventFor('enforced-1')).configId).toBe(CONFIG_ID);
    // Another config, inline or saved, or a deployment: refused before the provider.
    for (const [header, value] of [
      ['x-service-config', JSON.stringify({ provider: '@openai-prod' })],
      ['x-service-deployment', 'anything'],
    ] as const) {
      gw.mock.clear();
      const res = await post({ ...enforced, [header]: value });
      expect(res.status, header).toBe(403);
      expect(await refusal(res)).toMatchObject({ code: 'config_override_not_allowed', param: header });
      expect(gw.mock.requests).toEqual([]);
    }
    // Naming the key's own config is no override.
    const own = await post({ ...enforced, 'x-service-config': CONFIG_ID });
    expect(own.status).toBe(200);
    await own.text();
    gw.use(base);
  });
});

describe('managed providers', () => {
  const key = { 'x-service-api-key': KEY };

  it('@slug sends the opened credentials as the provider expects them, never the client token', async () => {
    gw.mock.clear();
    const res = await post(
      { ...key, 'x-service-provider': '@claude', authorization: 'Bearer sk-client', 'x-tenant': 'client' },
      { model: 'claude-3-5-sonnet', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] },
      '/messages',
    );
    expect(res.status).toBe(200);
    expect(res.headers.get('x-service-provider')).toBe('anthropic');
    const seen = gw.mock.requests[0]?.headers;
    expect(seen?.['x-api-key']).toBe('sk-ant-managed');
    expect(seen?.authorization).toBeUndefined();
    expect(seen?.['x-tenant']).toBe('secret-tenant');
  });

  it("a provider's own credentials win over its integration's", async () => {
    const own = provider(randomUUID(), ORG, WS, 'own-key', {
      integrationId: OPENAI_INT,
      credentials: { api_key: 'sk-own' },
    });
    gw.use([...base, own]);
    gw.mock.clear();
    expect((await post({ ...key, 'x-service-provider': '@own-key' })).status).toBe(200);
    expect(gw.mock.requests[0]?.headers.authorization).toBe('Bearer sk-own');
    gw.use(base);
  });

  it("enforces the provider's and the integration's model allow-lists", async () => {
    const limited = provider(randomUUID(), ORG, WS, 'limited', {
      integrationId: OPENAI_INT,
      allowedModels: ['gpt-4o', 'gpt-4.1'],
    });
    const narrowed = base.map((e) => (e.id === OPENAI_INT ? withAllowed(e, ['gpt-4o']) : e));
    gw.use([...narrowed, limited]);
    gw.mock.clear();
    expect((await post({ ...key, 'x-service-provider': '@limited' })).status).toBe(200);
    const refused = await post(
      { ...key, 'x-service-provider': '@limited' },
      { ...chat, model: 'gpt-3.5-turbo' },
    );
    expect(refused.status).toBe(403);
    expect(await refusal(refused)).toMatchObject({ code: 'model_not_allowed', type: 'permission_error' });
    // In the provider's list but not in its integration's.
    const integrationOnly = await post(
      { ...key, 'x-service-provider': '@limited' },
      { ...chat, model: 'gpt-4.1' },
    );
    expect((await refusal(integrationOnly)).code).toBe('model_not_allowed');
    // Inside a config too.
    const config = JSON.stringify({ provider: '@limited', override_params: { model: 'o1' } });
    const viaConfig = await post({ ...key, 'x-service-config': config });
    expect(viaConfig.status).toBe(403);
    expect(gw.mock.requests).toHaveLength(1);
    gw.use(base);
  });

  it("refuses a provider whose integration is disabled or not shared with the key's workspace", async () => {
    const closed = base.map((e) =>
      e.id === OPENAI_INT
        ? withMockHost(
            integration(OPENAI_INT, ORG, {
              credentials: { api_key: 'sk-managed-openai' },
              options: { custom_host: 'MOCK/v1' },
              allowAllWorkspaces: true,
              workspaces: [{ workspaceId: WS, enabled: false }],
            }),
            gw.mock.url,
          )
        : e,
    );
    gw.use(closed);
    const res = await post({ ...key, 'x-service-provider': '@openai-prod' });
    expect(res.status).toBe(403);
    expect(await refusal(res)).toMatchObject({ code: 'provider_unavailable', type: 'permission_error' });
    gw.use(base);
  });

  it('config targets name managed providers and virtual keys', async () => {
    gw.use([...base, virtualKey(base.find((e) => e.id === ANTHROPIC_PROVIDER) as Entity)]);
    gw.mock.clear();
    const config = JSON.stringify({
      strategy: { mode: 'fallback', on_status_codes: [500] },
      targets: [
        { provider: '@openai-prod', override_params: { model: 'gpt-4o' } },
        { virtual_key: 'claude' },
      ],
    });
    const res = await post({
      ...key,
      'x-service-config': config,
      'x-mock-status': '500',
      'x-service-trace-id': 'config-managed',
    });
    // The first answered the mock's 500, so the fallback ran: each target with its own managed key.
    expect(res.headers.get('x-service-last-used-option-index')).toBe('config.targets[1]');
    expect(res.headers.get('x-service-provider')).toBe('anthropic');
    const keys = gw.mock.requests.map((r) => r.headers.authorization ?? r.headers['x-api-key']);
    expect(keys).toEqual(['Bearer sk-managed-openai', 'sk-ant-managed']);
    // The event names the target that answered, and each attempt its own managed provider.
    const event = await gw.eventFor('config-managed');
    expect(event.provider).toMatchObject({
      type: 'anthropic',
      slug: 'claude',
      providerId: ANTHROPIC_PROVIDER,
    });
    expect(event.virtualKeyId).toBe('');
    expect(event.attempts.map((a) => [a.provider?.slug, a.provider?.integrationId])).toEqual([
      ['openai-prod', OPENAI_INT],
      ['claude', ANTHROPIC_INT],
    ]);
    gw.use(base);
  });

  it('a credential that does not open is a 500, not a call without credentials', async () => {
    const bad = integration(randomUUID(), ORG, {
      envelope: Buffer.alloc(40, 1),
      options: { custom_host: `${gw.mock.url}/v1` },
    });
    const p = provider(randomUUID(), ORG, WS, 'broken', { integrationId: bad.id });
    gw.use([...base, bad, p]);
    gw.mock.clear();
    const res = await post({ ...key, 'x-service-provider': '@broken' });
    expect(res.status).toBe(500);
    expect((await refusal(res)).code).toBe('credentials_unavailable');
    expect(gw.mock.requests).toEqual([]);
    gw.use(base);
  });
});

describe('request events and metadata', () => {
  it('records identity and managed provider, with metadata defaults under the request metadata', async () => {
    const res = await post({
      'x-service-api-key': KEY,
      'x-service-provider': '@openai-prod',
      'x-service-trace-id': 'identity-1',
      'x-service-metadata': JSON.stringify({ a: '2' }),
    });
    expect(res.status).toBe(200);
    const event = await gw.eventFor('identity-1');
    expect(event).toMatchObject({
      organisationId: ORG,
      workspaceId: WS,
      apiKeyId: KEY_ID,
      userId: 'user-7',
      provider: {
        type: 'openai',
        slug: 'openai-prod',
        providerId: OPENAI_PROVIDER,
        integrationId: OPENAI_INT,
      },
    });
    expect(event.metadata).toEqual({ env: 'prod', team: 'key', region: 'eu', a: '2' });
    expect(event.requestBody?.data.length).toBeGreaterThan(0);
  });

  it('keeps no bodies for a workspace with body logging disabled', async () => {
    gw.use(base.map((e) => (e.id === WS ? workspace(WS, ORG, { disableBodyLogging: true }) : e)));
    const res = await post({
      'x-service-api-key': KEY,
      'x-service-provider': '@openai-prod',
      'x-service-trace-id': 'no-bodies',
    });
    expect(res.status).toBe(200);
    const event = await gw.eventFor('no-bodies');
    expect(event.requestBody).toBeUndefined();
    expect(event.responseBody).toBeUndefined();
    expect(event.tokens?.totalTokens).toBeGreaterThan(0);
    gw.use(base);
  });
});

describe('realtime', () => {
  it('refuses an upgrade without a key and proxies one with a managed provider', async () => {
    const url = `ws://127.0.0.1:${gw.port}/v1/realtime?model=gpt-4o-realtime`;
    const refused = new WebSocket(url, { headers: { 'x-service-provider': '@openai-prod' } });
    const status = await new Promise<number>((resolve) => {
      refused.on('unexpected-response', (_req, res) => resolve(res.statusCode ?? 0));
      refused.on('open', () => resolve(101));
    });
    expect(status).toBe(401);
    gw.mock.clear();
    const ws = new WebSocket(url, {
      headers: { 'x-service-api-key': KEY, 'x-service-provider': '@openai-prod' },
    });
    await new Promise<void>((resolve, reject) => {
      ws.on('open', () => resolve());
      ws.on('error', reject);
    });
    ws.close();
    expect(gw.mock.requests.findLast((r) => r.upgrade)?.headers.authorization).toBe(
      'Bearer sk-managed-openai',
    );
  });
});

function withAllowed(entity: Entity, allowedModels: string[]): Entity {
  const body = entity.body;
  if (body?.$case !== 'integration') return entity;
  return { ...entity, body: { $case: 'integration', value: { ...body.value, allowedModels } } };
}
