// Saved guardrails whose webhook headers arrive sealed (`encrypted_headers`, the control plane's
// envelope): the gateway calls the webhook with the original headers, and fails closed (500
// credentials_unavailable, webhook never called) when the envelope does not open with its MASTER_KEY.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type Entity, EntityKind, EntityStatus } from '@aigw/proto';
import { parseMasterKey, sealSecret, webhookHeadersAad } from '@aigw/secret-box';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  type ControlPlaneGateway,
  integration,
  organisation,
  provider,
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

/** A guardrail as the control plane publishes it now: `headers: {}` in the body, values sealed. */
function sealedGuardrail(slug: string, key: Buffer, sealedFor?: string): Entity {
  const id = randomUUID();
  const headers = { '0': { authorization: SECRET, 'x-tenant': 'acme' } };
  return {
    kind: EntityKind.GUARDRAIL,
    id,
    version: 1,
    tombstone: false,
    organisationId: ORG,
    workspaceId: WS,
    updatedAtMs: Date.now(),
    body: {
      $case: 'guardrail',
      value: {
        name: slug,
        slug,
        status: EntityStatus.ACTIVE,
        bodyJson: JSON.stringify({
          checks: [{ id: 'webhook', parameters: { url: hookUrl, headers: {}, timeout: 5000 } }],
          actions: { deny: true },
          async: false,
        }),
        encryptedHeaders: sealSecret(key, JSON.stringify(headers), webhookHeadersAad(sealedFor ?? id)),
      },
    },
  };
}

function ask(target: ControlPlaneGateway, slug: string) {
  return fetch(`${target.base}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-api-key': KEY,
      'x-service-config': JSON.stringify({ provider: '@openai-prod', input_guardrails: [slug] }),
    },
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
    target.use([
      organisation(ORG),
      workspace(WS, ORG),
      apiKey(KEY, ORG, WS),
      integration(int, ORG, {
        credentials: { api_key: 'sk-managed' },
        options: { custom_host: `${target.mock.url}/v1` },
      }),
      provider(randomUUID(), ORG, WS, 'openai-prod', { integrationId: int }),
      sealedGuardrail('sealed-hook', masterKey),
      sealedGuardrail('foreign-key-hook', OTHER_KEY),
      // An envelope sealed for another guardrail: the AAD binds it to its owner.
      sealedGuardrail('moved-hook', masterKey, randomUUID()),
    ]);
  }
});

afterAll(async () => {
  await gw?.close();
  await keyless?.close();
  await new Promise((resolve) => (hook ? hook.close(resolve) : resolve(undefined)));
});

describe('sealed webhook headers of saved guardrails', () => {
  it('the webhook is called with the original headers, opened from the envelope', async () => {
    calls.length = 0;
    gw.mock.clear();
    const res = await ask(gw, 'sealed-hook');
    expect(res.status, await res.clone().text()).toBe(200);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ authorization: SECRET, 'x-tenant': 'acme' });
    expect(gw.mock.requests).toHaveLength(1);
    // Opened once per guardrail version: a second request uses the kept headers.
    expect((await ask(gw, 'sealed-hook')).status).toBe(200);
    expect(calls[1]).toMatchObject({ authorization: SECRET });
  });

  it('an envelope that does not open fails closed: 500 credentials_unavailable, the webhook never called', async () => {
    calls.length = 0;
    const cases: [ControlPlaneGateway, string][] = [
      [gw, 'foreign-key-hook'],
      [gw, 'moved-hook'],
      [keyless, 'sealed-hook'],
    ];
    for (const [target, slug] of cases) {
      target.mock.clear();
      const res = await ask(target, slug);
      const body = (await res.json()) as { error: { code: string; param: string; message: string } };
      expect(res.status, `${slug}: ${JSON.stringify(body)}`).toBe(500);
      expect(body.error).toMatchObject({
        code: 'credentials_unavailable',
        param: 'config.input_guardrails[0]',
      });
      expect(body.error.message).not.toContain(SECRET);
      expect(target.mock.requests).toEqual([]);
    }
    expect(calls).toEqual([]);
  });
});
