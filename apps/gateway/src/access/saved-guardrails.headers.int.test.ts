// Saved guardrails whose webhook headers arrive sealed (`encrypted_headers`, the control plane's
// envelope): the gateway calls the webhook with the original headers, and fails closed (500
// credentials_unavailable, webhook never called) when the envelope does not open with its MASTER_KEY.
import { randomUUID } from 'node:crypto';
import type { Entity } from '@aigw/proto';
import { sealSecret, webhookHeadersAad } from '@aigw/secret-box';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ControlPlaneGateway, savedGuardrail } from '../../test/control-plane-entities.js';
import {
  type SealedWebhookFixture,
  type SealingContext,
  startSealedWebhookFixture,
} from '../../test/sealed-webhook.js';

let f: SealedWebhookFixture;

/** A guardrail as the control plane publishes it now: `headers: {}` in the body, values sealed. */
function sealedGuardrail(
  c: SealingContext,
  slug: string,
  key: Buffer,
  sealedFor?: string,
  checkIndex = '0',
): Entity {
  const id = randomUUID();
  const headers = { [checkIndex]: { authorization: c.secret, 'x-tenant': 'acme' } };
  return savedGuardrail(
    id,
    c.org,
    c.ws,
    slug,
    { checks: [{ id: 'webhook', parameters: { url: c.hookUrl, headers: {}, timeout: 5000 } }] },
    { encryptedHeaders: sealSecret(key, JSON.stringify(headers), webhookHeadersAad(sealedFor ?? id)) },
  );
}

function ask(target: ControlPlaneGateway, slug: string) {
  return fetch(`${target.base}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-api-key': f.key,
      'x-service-config': JSON.stringify({ provider: '@openai-prod', input_guardrails: [slug] }),
    },
    body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello' }] }),
  });
}

beforeAll(async () => {
  f = await startSealedWebhookFixture((c) => [
    sealedGuardrail(c, 'sealed-hook', c.masterKey),
    sealedGuardrail(c, 'foreign-key-hook', c.otherKey),
    // An envelope sealed for another guardrail: the AAD binds it to its owner.
    sealedGuardrail(c, 'moved-hook', c.masterKey, randomUUID()),
    // An envelope that opens but names a check the guardrail does not have.
    sealedGuardrail(c, 'mismatched-hook', c.masterKey, undefined, '3'),
  ]);
});

afterAll(async () => {
  await f?.close();
});

describe('sealed webhook headers of saved guardrails', () => {
  it('the webhook is called with the original headers, opened from the envelope', async () => {
    f.calls.length = 0;
    f.gw.mock.clear();
    const res = await ask(f.gw, 'sealed-hook');
    expect(res.status, await res.clone().text()).toBe(200);
    expect(f.calls).toHaveLength(1);
    expect(f.calls[0]).toMatchObject({ authorization: f.secret, 'x-tenant': 'acme' });
    expect(f.gw.mock.requests).toHaveLength(1);
    // Opened once per guardrail version: a second request uses the kept headers.
    expect((await ask(f.gw, 'sealed-hook')).status).toBe(200);
    expect(f.calls[1]).toMatchObject({ authorization: f.secret });
  });

  it('an envelope that does not open fails closed: 500 credentials_unavailable, the webhook never called', async () => {
    f.calls.length = 0;
    const cases: [ControlPlaneGateway, string][] = [
      [f.gw, 'foreign-key-hook'],
      [f.gw, 'moved-hook'],
      [f.gw, 'mismatched-hook'],
      [f.keyless, 'sealed-hook'],
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
      expect(body.error.message).not.toContain(f.secret);
      expect(target.mock.requests).toEqual([]);
    }
    expect(f.calls).toEqual([]);
  });
});
