// Saved configs whose inline guardrails' webhook headers arrive sealed (`encrypted_headers`, the
// control plane's envelope per config version): the gateway calls the webhook with the original
// headers (named by `x-service-config` or through a deployment), and fails closed (500
// credentials_unavailable, webhook and provider never called) when the envelope does not open.
import { randomUUID } from 'node:crypto';
import { configHeadersAad, sealSecret } from '@aigw/secret-box';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ControlPlaneGateway, deployment, savedConfig } from '../../test/control-plane-entities.js';
import {
  type SealedWebhookFixture,
  type SealingContext,
  startSealedWebhookFixture,
} from '../../test/sealed-webhook.js';

let f: SealedWebhookFixture;

/** A denying guardrail whose webhook passes only when called with the original Authorization. */
function hookGuardrail(c: SealingContext) {
  return {
    deny: true,
    checks: [{ id: 'webhook', parameters: { url: c.hookUrl, headers: {}, timeout: 5000 } }],
  };
}

/**
 * A config as the control plane publishes it now: `headers: {}` in the body, the values sealed for
 * config version 3 (or for `sealedFor`: another id or version the AAD must refuse). The webhook check
 * sits in a nested target, so the path of the sealed values reaches into the tree.
 */
function sealedConfig(
  c: SealingContext,
  slug: string,
  key: Buffer,
  sealedFor?: { id?: string; version?: number },
) {
  const id = randomUUID();
  const body = {
    strategy: { mode: 'fallback' },
    targets: [{ provider: '@openai-prod', input_guardrails: [hookGuardrail(c)] }],
  };
  const headers = {
    'targets.0.input_guardrails.0.checks.0': { authorization: c.secret, 'x-tenant': 'acme' },
  };
  const aad = configHeadersAad(sealedFor?.id ?? id, sealedFor?.version ?? 3);
  return savedConfig(id, c.org, c.ws, slug, body, {
    version: 3,
    encryptedHeaders: sealSecret(key, JSON.stringify(headers), aad),
  });
}

function ask(target: ControlPlaneGateway, header: string, ref: string) {
  return fetch(`${target.base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-api-key': f.key, [header]: ref },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] }),
  });
}

beforeAll(async () => {
  f = await startSealedWebhookFixture((c) => {
    const sealed = sealedConfig(c, 'sealed-config', c.masterKey);
    return [
      sealed,
      deployment(randomUUID(), c.org, c.ws, 'prod', sealed.id),
      sealedConfig(c, 'foreign-key-config', c.otherKey),
      // Envelopes sealed for another config, and for another version of this one: the AAD binds both.
      sealedConfig(c, 'moved-config', c.masterKey, { id: randomUUID() }),
      sealedConfig(c, 'other-version-config', c.masterKey, { version: 2 }),
    ];
  });
});

afterAll(async () => {
  await f?.close();
});

describe('sealed webhook headers of saved configs', () => {
  it('the webhook is called with the original headers, opened from the envelope', async () => {
    for (const [header, ref] of [
      ['x-service-config', 'sealed-config'],
      ['x-service-deployment', 'prod'],
    ] as const) {
      f.calls.length = 0;
      f.gw.mock.clear();
      const res = await ask(f.gw, header, ref);
      expect(res.status, `${ref}: ${await res.clone().text()}`).toBe(200);
      expect(f.calls).toHaveLength(1);
      expect(f.calls[0]).toMatchObject({ authorization: f.secret, 'x-tenant': 'acme' });
      expect(f.gw.mock.requests).toHaveLength(1);
    }
    // Kept per config version: a second request uses the same headers.
    expect((await ask(f.gw, 'x-service-config', 'sealed-config')).status).toBe(200);
    expect(f.calls.at(-1)).toMatchObject({ authorization: f.secret });
  });

  it('an envelope that does not open fails closed: 500 credentials_unavailable, webhook and provider never called', async () => {
    f.calls.length = 0;
    const cases: [ControlPlaneGateway, string, string][] = [
      [f.gw, 'x-service-config', 'foreign-key-config'],
      [f.gw, 'x-service-config', 'moved-config'],
      [f.gw, 'x-service-config', 'other-version-config'],
      [f.keyless, 'x-service-config', 'sealed-config'],
      [f.keyless, 'x-service-deployment', 'prod'],
    ];
    for (const [target, header, ref] of cases) {
      target.mock.clear();
      const res = await ask(target, header, ref);
      const body = (await res.json()) as { error: { code: string; param: string; message: string } };
      expect(res.status, `${ref}: ${JSON.stringify(body)}`).toBe(500);
      expect(body.error).toMatchObject({ code: 'credentials_unavailable', param: header });
      expect(body.error.message).not.toContain(f.secret);
      expect(target.mock.requests).toEqual([]);
    }
    expect(f.calls).toEqual([]);
  });
});
