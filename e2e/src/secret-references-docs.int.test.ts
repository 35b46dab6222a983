// Issue 19, secret references, through the whole stack with a simulated Vault (its KV v2 HTTP API):
// docs/admin-api/secret-references.md's curl examples run as written; an integration whose
// credential comes from a reference calls the mock provider with the referenced value, and after
// the value changes at the manager (and is resolved again) the next calls use the new one.
import { startFakeSecretManagers } from '@aigw/testkit/secret-managers';
import { describe, expect, onTestFinished } from 'vitest';
import { docExamples, lastJson, runExample } from './doc-examples.test-support.js';
import { pollUntil } from './enforcement-client.test-support.js';
import { PROVIDER_SECRET, test } from './enforcement-stack.test-support.js';

const PAGE = new URL('../../docs/admin-api/secret-references.md', import.meta.url);

describe('secret references (docs/admin-api/secret-references.md)', () => {
  test('the examples run as written; the gateway uses the referenced value, and the rotated one after', async ({
    e2e,
  }) => {
    const { stack } = e2e;
    const vault = await startFakeSecretManagers();
    onTestFinished(() => vault.close());
    vault.setVault('secret/team/openai', { api_key: PROVIDER_SECRET });
    const team = await stack.admin.post('/workspaces', { name: 'My team', slug: 'my-team' });
    const env = {
      CP: `${stack.admin.baseUrl()}/v1`,
      KEY: stack.admin.key,
      GW: `${stack.gatewayBase(0)}/v1`,
      KEY_WS: (await stack.admin.createKey(team.id, 'docs')).key,
      VAULT_ADDR: vault.url,
      VAULT_TOKEN: vault.vaultToken,
    };

    const examples = docExamples(PAGE);
    expect(examples.length).toBe(5);
    const [createReference, createIntegration, call, resolve, show] = examples as [
      (typeof examples)[0],
      (typeof examples)[0],
      (typeof examples)[0],
      (typeof examples)[0],
      (typeof examples)[0],
    ];
    for (const example of [createReference, createIntegration]) {
      const result = await runExample(example, env);
      expect([example.line, result]).toEqual([example.line, { ok: true, stdout: result.stdout }]);
    }
    expect(vault.requests.at(-1)).toEqual({ api: 'vault', path: 'secret/team/openai', authorised: true });
    // Not in the page (a real integration calls api.openai.com): here the provider is the mock.
    await stack.admin.put('/integrations/vault-openai', { options: { custom_host: `${stack.mock.url}/v1` } });
    // The mock accepts only PROVIDER_SECRET: a 200 proves the gateway sent the value read from Vault.
    const served = await pollUntil(
      () => runExample(call, env),
      (r) => r.ok,
      {
        boundMs: 15_000,
        intervalMs: 50,
        what: 'the gateway call with the referenced credential',
      },
    );
    expect(lastJson(served.value.stdout).object).toBe('chat.completion');

    // Rotated at the manager and resolved again: the next calls send the new value (the mock
    // refuses it, naming the key it got by its last characters), then the old one again.
    vault.setVault('secret/team/openai', { api_key: 'sk-rotated-at-vault-9f3e' });
    const resolved = await runExample(resolve, env);
    expect(resolved.ok).toBe(true);
    expect(lastJson(resolved.stdout).integrations).toEqual([
      expect.objectContaining({ resolved: true, changed: true, error: null }),
    ]);
    const refused = await pollUntil(
      () => runExample(call, env),
      (r) => !r.ok && JSON.stringify(lastJson(r.stdout)).includes('9f3e'),
      { boundMs: 15_000, intervalMs: 50, what: 'the rotated credential sent' },
    );
    expect(lastJson(refused.value.stdout).error.code).toBe('invalid_api_key');
    vault.setVault('secret/team/openai', { api_key: PROVIDER_SECRET });
    expect((await runExample(resolve, env)).ok).toBe(true);
    await pollUntil(
      () => runExample(call, env),
      (r) => r.ok,
      {
        boundMs: 15_000,
        intervalMs: 50,
        what: 'the rotated-back credential served',
      },
    );
    const shown = await runExample(show, env);
    expect(shown.ok).toBe(true);
    expect(lastJson(shown.stdout).secrets).toMatchObject({ error: null, withheld: false });
    // The caller never saw the secret.
    expect(served.value.stdout + refused.value.stdout).not.toContain(PROVIDER_SECRET);
  });
});
