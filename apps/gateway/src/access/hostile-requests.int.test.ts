// Hostile requests against a control-plane data plane (reliability-security.md section 7, rows 1-3,
// 6, 10 and 11): refused before any provider call, in the documented envelope, never a 500, and no
// key or credential in the gateway's own logs (written at trace level here) or request events.
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { createMockProvider, type MockProvider } from '@aigw/mock-provider';
import type { RequestEvent } from '@aigw/proto';
import { createLogger } from '@aigw/runtime';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  integration,
  organisation,
  provider,
  savedConfig,
  TEST_MASTER_KEY,
  virtualKey,
  workspace,
} from '../../test/control-plane-entities.js';
import { loadGatewayConfig } from '../config.js';
import { createGatewayPipeline } from '../pipeline/index.js';
import { Snapshot } from '../snapshot/index.js';
import { accessFromConfig } from './index.js';

const ORG = randomUUID();
const WS = randomUUID();
const THEIR_WS = randomUUID();
const KEY = `aigw_${randomUUID()}`;
const MANAGED_SECRET = `sk-managed-${randomUUID()}`;
const THEIR_CONFIG = randomUUID();
const INJECTION = "x' OR (SELECT pg_sleep(5)) IS NOT NULL--";
const chat = { model: 'gpt-4o', messages: [{ role: 'user', content: 'ping' }] };

let mock: MockProvider;
let gateway: Server;
let base: string;
/** Somewhere a credential must never reach: counts what arrives. */
let canary: Server;
let canaryUrl: string;
const canaryHits: IncomingMessage[] = [];
const logLines: string[] = [];
const events: RequestEvent[] = [];

beforeAll(async () => {
  mock = await createMockProvider({ apiKeys: { openai: [MANAGED_SECRET] } });
  canary = createServer((req, res) => {
    canaryHits.push(req);
    res.end('{}');
  });
  canary.listen(0, '127.0.0.1');
  await once(canary, 'listening');
  canaryUrl = `http://127.0.0.1:${(canary.address() as AddressInfo).port}/v1`;
  const shared = integration(randomUUID(), ORG, {
    credentials: { api_key: MANAGED_SECRET },
    options: { custom_host: `${mock.url}/v1` },
  });
  const theirs = provider(randomUUID(), ORG, THEIR_WS, 'theirs', { integrationId: shared.id });
  const snapshot = Snapshot.of(
    [
      organisation(ORG),
      workspace(WS, ORG),
      workspace(THEIR_WS, ORG),
      apiKey(KEY, ORG, WS),
      shared,
      provider(randomUUID(), ORG, WS, 'mine', { integrationId: shared.id }),
      theirs,
      virtualKey(theirs),
      savedConfig(THEIR_CONFIG, ORG, THEIR_WS, 'their-config', { targets: [{ provider: '@theirs' }] }),
    ],
    1,
  );
  const config = loadGatewayConfig({
    PORT: '0',
    LOG_LEVEL: 'trace',
    MASTER_KEY: TEST_MASTER_KEY,
    CUSTOM_HOST_ALLOWLIST: '127.0.0.1',
  });
  const log = createLogger({
    app: 'gateway-test',
    level: 'trace',
    destination: new Writable({
      write(chunk: Buffer, _encoding, done) {
        logLines.push(chunk.toString('utf8'));
        done();
      },
    }),
  });
  const pipeline = createGatewayPipeline({
    config,
    publish: (event) => events.push(event()),
    instanceId: 'test',
    log,
    access: accessFromConfig(config, { current: () => snapshot }, log),
  });
  gateway = createServer((req, res) => void pipeline.http(req, res));
  gateway.listen(0, '127.0.0.1');
  await once(gateway, 'listening');
  base = `http://127.0.0.1:${(gateway.address() as AddressInfo).port}`;
});

afterAll(async () => {
  gateway?.closeAllConnections();
  gateway?.close();
  canary?.close();
  await mock?.close();
});

async function send(
  headers: Record<string, string> | [string, string][],
  body: string = JSON.stringify(chat),
) {
  const res = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: Array.isArray(headers)
      ? [['content-type', 'application/json'], ...headers]
      : { 'content-type': 'application/json', ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, gatewayError: res.headers.get('x-service-gateway-error'), text };
}

function envelope(text: string) {
  return (
    JSON.parse(text) as { error: { code: string; type: string; param: string | null; message: string } }
  ).error;
}

describe('x-service-api-key', () => {
  it.each([
    ['empty', '', 'missing_api_key'],
    ['whitespace', '   ', 'missing_api_key'],
    ['a bare Bearer', 'Bearer', 'invalid_api_key'],
    ['the real key behind "Bearer "', `Bearer ${KEY}`, 'invalid_api_key'],
    ['the real key behind "bearer "', `bearer ${KEY}`, 'invalid_api_key'],
    ['SQL', INJECTION, 'invalid_api_key'],
    ['10 KB', 'a'.repeat(10_000), 'invalid_api_key'],
  ])('%s: 401, nothing sent upstream', async (_case, key, code) => {
    mock.clear();
    const res = await send({ 'x-service-api-key': key, 'x-service-provider': '@mine' });
    expect(res.status).toBe(401);
    expect(res.gatewayError).toBe('true');
    expect(envelope(res.text)).toMatchObject({
      code,
      type: 'authentication_error',
      param: 'x-service-api-key',
    });
    expect(res.text).not.toContain(key.trim() || '\u0000');
    expect(mock.requests).toEqual([]);
  });

  it('is not read from Authorization, which is the provider token', async () => {
    mock.clear();
    const res = await send({ authorization: `Bearer ${KEY}`, 'x-service-provider': '@mine' });
    expect([res.status, envelope(res.text).code]).toEqual([401, 'missing_api_key']);
    expect(mock.requests).toEqual([]);
  });

  it('sent twice, even as the valid key and another: 401, whichever comes first', async () => {
    mock.clear();
    for (const keys of [
      [KEY, 'aigw_other'],
      ['aigw_other', KEY],
      [KEY, KEY],
    ]) {
      const res = await send([
        ...keys.map((k): [string, string] => ['x-service-api-key', k]),
        ['x-service-provider', '@mine'],
      ]);
      expect([res.status, envelope(res.text).code]).toEqual([401, 'invalid_api_key']);
    }
    expect(mock.requests).toEqual([]);
  });
});

describe("another workspace's providers, virtual keys and configs", () => {
  it.each([
    ['@slug', { 'x-service-provider': '@theirs' }, 'provider_not_found', 'provider @theirs does not exist'],
    ['virtual key', { 'x-service-virtual-key': 'theirs' }, 'provider_not_found', 'does not exist'],
    [
      'saved config by slug',
      { 'x-service-config': 'their-config' },
      'config_not_found',
      'no active saved config',
    ],
    [
      'saved config by id',
      { 'x-service-config': THEIR_CONFIG },
      'config_not_found',
      'no active saved config',
    ],
    [
      'inline config target',
      { 'x-service-config': JSON.stringify({ targets: [{ provider: '@theirs' }] }) },
      'provider_not_found',
      'provider @theirs does not exist',
    ],
    [
      'inline config virtual key',
      { 'x-service-config': JSON.stringify({ targets: [{ virtual_key: 'theirs' }] }) },
      'provider_not_found',
      'does not exist',
    ],
  ])('%s: 400 as if it did not exist, nothing sent upstream', async (_case, headers, code, message) => {
    mock.clear();
    const res = await send({ 'x-service-api-key': KEY, ...headers });
    expect(res.status).toBe(400);
    const error = envelope(res.text);
    expect(error.code).toBe(code);
    expect(error.message).toContain(message);
    expect(res.text).not.toContain(THEIR_WS);
    expect(mock.requests).toEqual([]);
  });
});

describe('the managed credential goes to its own host only', () => {
  it('whatever the body or an inline config names as a host', async () => {
    mock.clear();
    const key = { 'x-service-api-key': KEY };
    const bodies = [
      {
        ...chat,
        api_base: canaryUrl,
        base_url: canaryUrl,
        api_key: 'sk-client',
        extra_headers: { host: 'x' },
      },
      { ...chat, model: 'http://169.254.169.254/' },
    ];
    for (const body of bodies) {
      expect((await send({ ...key, 'x-service-provider': '@mine' }, JSON.stringify(body))).status).toBe(200);
    }
    for (const config of [
      { provider: '@mine', custom_host: canaryUrl },
      { targets: [{ provider: '@mine', custom_host: canaryUrl, override_params: { api_base: canaryUrl } }] },
    ]) {
      expect((await send({ ...key, 'x-service-config': JSON.stringify(config) })).status).toBe(200);
    }
    const header = await send({ ...key, 'x-service-provider': '@mine', 'x-service-custom-host': canaryUrl });
    expect([header.status, envelope(header.text).code]).toEqual([400, 'conflicting_credentials']);
    expect(canaryHits).toEqual([]);
    expect(mock.requests.map((r) => r.headers.authorization)).toEqual(
      Array(4).fill(`Bearer ${MANAGED_SECRET}`),
    );
  });
});

describe('bodies the gateway cannot use', () => {
  const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
  it.each([
    ['not JSON', '{'],
    ['NaN', 'NaN'],
    ['a top-level array', '[]'],
    ['100 000 nested arrays', deep],
    [
      '100 000 nested arrays as content',
      `{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":${deep}}]}`,
    ],
  ])('%s: a 4xx in an envelope, never a 500', async (_case, body) => {
    const res = await send({ 'x-service-api-key': KEY, 'x-service-provider': '@mine' }, body);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(500);
    expect(envelope(res.text).type).toBe('invalid_request_error');
  });

  it('nested too deeply for the gateway to rewrite (stream usage): 400 saying so, nothing sent upstream', async () => {
    mock.clear();
    const body = `{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":${deep}}]}`;
    const res = await send({ 'x-service-api-key': KEY, 'x-service-provider': '@mine' }, body);
    expect(res.status).toBe(400);
    expect(res.gatewayError).toBe('true');
    expect(envelope(res.text)).toMatchObject({
      code: 'bad_request',
      message: 'The request JSON is nested too deeply to process',
    });
    expect(mock.requests).toEqual([]);
  });

  it('a client-made overflow is logged as a warning without a stack, not as a gateway error', async () => {
    const before = logLines.length;
    const body = `{"model":"gpt-4o","stream":true,"messages":[{"role":"user","content":${deep}}]}`;
    const res = await send({ 'x-service-api-key': KEY, 'x-service-provider': '@mine' }, body);
    expect(res.status).toBe(400);
    const lines = logLines.slice(before).map((line) => JSON.parse(line) as Record<string, unknown>);
    const about = lines.filter((l) => String(l.msg).includes('nested too deeply'));
    expect(about).toHaveLength(1);
    expect(about[0]).toMatchObject({ level: 'warn' });
    expect(lines.some((l) => l.level === 'error' || l.err !== undefined)).toBe(false);
  });
});

describe('logs and request events', () => {
  it('never hold an API key, a refused key or the managed credential', async () => {
    expect(logLines.length + events.length).toBeGreaterThan(0);
    const kept = [...logLines, ...events.map((e) => JSON.stringify(e))].join('\n');
    for (const secret of [KEY, INJECTION, MANAGED_SECRET]) expect(kept).not.toContain(secret);
  });
});
