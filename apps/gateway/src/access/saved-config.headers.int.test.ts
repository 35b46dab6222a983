// Saved configs whose inline guardrails' webhook headers arrive sealed (`encrypted_headers`, the
// control plane's envelope per config version): the gateway calls the webhook with the original
// headers (named by `x-service-config` or through a deployment), and fails closed (500
// credentials_unavailable, webhook and provider never called) when the envelope does not open.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { configHeadersAad, parseMasterKey, sealSecret } from '@aigw/secret-box';
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
  TEST_MASTER_KEY,
  workspace,
} from '../../test/control-plane-entities.js';

const ORG = randomUUID();
const WS = randomUUID();
const KEY = `aigw_${randomUUID()}`;
const SECRET = `Bearer whsec-${randomUUID()}`;
const OTHER_KEY = Buffer.alloc(32, 9);

const calls: IncomingHttpHeaders[] = [];
let hook: Server;
let hookUrl = '';
let gw: ControlPlaneGateway;
let keyless: ControlPlaneGateway;

/** A denying guardrail whose webhook passes only when called with the original Authorization. */
function hookGuardrail() {
  return {
    deny: true,
    checks: [{ id: 'webhook', parameters: { url: hookUrl, headers: {}, timeout: 5000 } }],
  };
}

/**
 * A config as the control plane publishes it now: `headers: {}` in the body, the values sealed for
 * config version 3 (or for `sealedFor`: another id or version the AAD must refuse). The webhook check
 * sits in a nested target, so the path of the sealed values reaches into the tree.
 */
function sealedConfig(slug: string, key: Buffer, sealedFor?: { id?: string; version?: number }) {
  const id = randomUUID();
  const body = {
    strategy: { mode: 'fallback' },
    targets: [{ provider: '@openai-prod', input_guardrails: [hookGuardrail()] }],
  };
  const headers = { 'targets.0.input_guardrails.0.checks.0': { authorization: SECRET, 'x-tenant': 'acme' } };
  const aad = configHeadersAad(sealedFor?.id ?? id, sealedFor?.version ?? 3);
  return savedConfig(id, ORG, WS, slug, body, {
    version: 3,
    encryptedHeaders: sealSecret(key, JSON.stringify(headers), aad),
  });
}

function ask(target: ControlPlaneGateway, header: string, ref: string) {
  return fetch(`${target.base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-api-key': KEY, [header]: ref },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] }),
  });
}

beforeAll(async () => {
  hook = createServer((req, res) => {
    calls.push(req.headers);
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ verdict: req.headers.authorization === SECRET }));
    });
  });
  await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/guard`;
  const masterKey = parseMasterKey(TEST_MASTER_KEY);
  gw = await startControlPlaneGateway([], {}, { apiKeys: { openai: ['sk-managed'] } });
  keyless = await startControlPlaneGateway([], { MASTER_KEY: '' }, { apiKeys: { openai: ['sk-managed'] } });
  for (const target of [gw, keyless]) {
    const int = randomUUID();
    const sealed = sealedConfig('sealed-config', masterKey);
    target.use([
      organisation(ORG),
      workspace(WS, ORG),
      apiKey(KEY, ORG, WS),
      integration(int, ORG, {
        credentials: { api_key: 'sk-managed' },
        options: { custom_host: `${target.mock.url}/v1` },
      }),
      provider(randomUUID(), ORG, WS, 'openai-prod', { integrationId: int }),
      sealed,
      deployment(randomUUID(), ORG, WS, 'prod', sealed.id),
      sealedConfig('foreign-key-config', OTHER_KEY),
      // Envelopes sealed for another config, and for another version of this one: the AAD binds both.
      sealedConfig('moved-config', masterKey, { id: randomUUID() }),
      sealedConfig('other-version-config', masterKey, { version: 2 }),
    ]);
  }
});

afterAll(async () => {
  await gw?.close();
  await keyless?.close();
  await new Promise((resolve) => (hook ? hook.close(resolve) : resolve(undefined)));
});

describe('sealed webhook headers of saved configs', () => {
  it('the webhook is called with the original headers, opened from the envelope', async () => {
    for (const [header, ref] of [
      ['x-service-config', 'sealed-config'],
      ['x-service-deployment', 'prod'],
    ] as const) {
      calls.length = 0;
      gw.mock.clear();
      const res = await ask(gw, header, ref);
      expect(res.status, `${ref}: ${await res.clone().text()}`).toBe(200);
      expect(calls).toHaveLength(1);
      expect(calls[0]).toMatchObject({ authorization: SECRET, 'x-tenant': 'acme' });
      expect(gw.mock.requests).toHaveLength(1);
    }
    // Kept per config version: a second request uses the same headers.
    expect((await ask(gw, 'x-service-config', 'sealed-config')).status).toBe(200);
    expect(calls.at(-1)).toMatchObject({ authorization: SECRET });
  });

  it('an envelope that does not open fails closed: 500 credentials_unavailable, webhook and provider never called', async () => {
    calls.length = 0;
    const cases: [ControlPlaneGateway, string, string][] = [
      [gw, 'x-service-config', 'foreign-key-config'],
      [gw, 'x-service-config', 'moved-config'],
      [gw, 'x-service-config', 'other-version-config'],
      [keyless, 'x-service-config', 'sealed-config'],
      [keyless, 'x-service-deployment', 'prod'],
    ];
    for (const [target, header, ref] of cases) {
      target.mock.clear();
      const res = await ask(target, header, ref);
      const body = (await res.json()) as { error: { code: string; param: string; message: string } };
      expect(res.status, `${ref}: ${JSON.stringify(body)}`).toBe(500);
      expect(body.error).toMatchObject({ code: 'credentials_unavailable', param: header });
      expect(body.error.message).not.toContain(SECRET);
      expect(target.mock.requests).toEqual([]);
    }
    expect(calls).toEqual([]);
  });
});
