// An integration (or a virtual key holding its own credentials) whose credentials come from secret
// references the control plane could not resolve within their refresh window arrives with
// `credential_error` and no envelope: the gateway refuses to use it (403 provider_unavailable naming
// why) and never calls the provider without credentials.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiKey,
  type ControlPlaneGateway,
  integration,
  organisation,
  provider,
  startControlPlaneGateway,
  virtualKey,
  workspace,
} from '../../test/control-plane-entities.js';

const ORG = randomUUID();
const WS = randomUUID();
const KEY = `aigw_${randomUUID()}`;
const INTEGRATION = randomUUID();
let gw: ControlPlaneGateway;
// A virtual key (a provider row with no integration) whose own credentials were withheld.
const vaultKey = provider(randomUUID(), ORG, WS, 'vault-key', {
  credentialError:
    'its credentials come from secret references that could not be resolved: secret reference "key-vault": Vault secret secret/key/openai: 127.0.0.1:8200 answered 503',
});

beforeAll(async () => {
  gw = await startControlPlaneGateway([], {}, { apiKeys: { openai: ['sk-from-vault'] } });
  const base = [organisation(ORG), workspace(WS, ORG), apiKey(KEY, ORG, WS)];
  gw.use([
    ...base,
    integration(INTEGRATION, ORG, {
      options: { custom_host: `${gw.mock.url}/v1` },
      credentialError:
        'its credentials come from secret references that could not be resolved: secret reference "team-openai": Vault secret secret/team/openai: 127.0.0.1:8200 answered 503',
    }),
    provider(randomUUID(), ORG, WS, 'vault-openai', { integrationId: INTEGRATION }),
    vaultKey,
    virtualKey(vaultKey),
  ]);
});

afterAll(async () => {
  await gw?.close();
});

describe('withheld credentials', () => {
  it('are a 403 provider_unavailable naming why, and nothing reaches the provider', async () => {
    gw.mock.clear();
    const res = await fetch(`${gw.base}/v1/chat/completions`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'x-service-api-key': KEY,
        'x-service-provider': '@vault-openai',
      },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    });
    expect(res.status).toBe(403);
    const { error } = (await res.json()) as { error: { code: string; message: string; param: string } };
    expect(error.code).toBe('provider_unavailable');
    expect(error.message).toContain('could not be resolved');
    expect(error.message).toContain('answered 503');
    expect(error.param).toBe('x-service-provider');
    expect(gw.mock.requests).toEqual([]);
  });

  it('of a virtual key: 403 provider_unavailable by its slug or as @provider, nothing reaches the provider', async () => {
    gw.mock.clear();
    for (const [header, value] of [
      ['x-service-virtual-key', 'vault-key'],
      ['x-service-provider', '@vault-key'],
    ] as const) {
      const res = await fetch(`${gw.base}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-service-api-key': KEY, [header]: value },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
      });
      expect(res.status).toBe(403);
      const { error } = (await res.json()) as { error: { code: string; message: string; param: string } };
      expect(error.code).toBe('provider_unavailable');
      expect(error.message).toContain('could not be resolved');
      expect(error.message).toContain('answered 503');
      expect(error.param).toBe(header);
    }
    expect(gw.mock.requests).toEqual([]);
  });
});
