// Issue 19, secret references, through the whole stack with a simulated Vault (its KV v2 HTTP API):
// docs/admin-api/secret-references.md's curl examples run as written; an integration and a virtual
// key whose credential comes from a reference call the mock provider with the referenced value, and
// after the value changes at the manager (and is resolved again) the next calls use the new one;
// workspace keys cannot read or resolve references, and a workspace a reference does not allow
// cannot use it (neither through an integration nor through a virtual key).
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
    expect(examples.length).toBe(7);
    const [createReference, createIntegration, call, createKey, callKey, resolve, show] = examples as [
      (typeof examples)[0],
      (typeof examples)[0],
      (typeof examples)[0],
      (typeof examples)[0],
      (typeof examples)[0],
      (typeof examples)[0],
      (typeof examples)[0],
    ];
    const results: Record<string, string> = {};
    for (const [name, example] of [
      ['reference', createReference],
      ['integration', createIntegration],
      ['key', createKey],
    ] as const) {
      vault.requests.length = 0;
      const result = await runExample(example, env);
      expect([example.line, result]).toEqual([example.line, { ok: true, stdout: result.stdout }]);
      results[name] = result.stdout;
      if (name !== 'reference') {
        expect(vault.requests).toEqual([{ api: 'vault', path: 'secret/team/openai', authorised: true }]);
      }
    }
    const virtualKey = lastJson(results.key ?? '');
    expect(virtualKey).toMatchObject({
      object: 'virtual-key',
      slug: 'vault-key',
      key: `****${PROVIDER_SECRET.slice(-4)}`,
      secrets: { error: null, withheld: false },
    });
    // Not in the page (a real integration or key calls api.openai.com): here the provider is the mock.
    await stack.admin.put('/integrations/vault-openai', { options: { custom_host: `${stack.mock.url}/v1` } });
    await stack.admin.put(`/virtual-keys/${virtualKey.id}`, {
      options: { custom_host: `${stack.mock.url}/v1` },
    });
    // The mock accepts only PROVIDER_SECRET: a 200 proves the gateway sent the value read from Vault.
    const callBoth = (when: string, done: (r: Awaited<ReturnType<typeof runExample>>) => boolean) =>
      Promise.all(
        [
          ['integration', call],
          ['virtual key', callKey],
        ].map(([what, example]) =>
          pollUntil(() => runExample(example as typeof call, env), done, {
            boundMs: 15_000,
            intervalMs: 50,
            what: `${what}: ${when}`,
          }),
        ),
      );
    const served = await callBoth('the gateway call with the referenced credential', (r) => r.ok);
    for (const { value } of served) expect(lastJson(value.stdout).object).toBe('chat.completion');

    // Rotated at the manager and resolved again: the next calls send the new value (the mock
    // refuses it, naming the key it got by its last characters), then the old one again.
    vault.setVault('secret/team/openai', { api_key: 'sk-rotated-at-vault-9f3e' });
    const resolved = await runExample(resolve, env);
    expect(resolved.ok).toBe(true);
    expect(lastJson(resolved.stdout).integrations).toEqual([
      expect.objectContaining({ slug: 'vault-openai', resolved: true, changed: true, error: null }),
    ]);
    expect(lastJson(resolved.stdout).virtual_keys).toEqual([
      { id: virtualKey.id, slug: 'vault-key', resolved: true, changed: true, error: null },
    ]);
    const refused = await callBoth(
      'the rotated credential sent',
      (r) => !r.ok && JSON.stringify(lastJson(r.stdout)).includes('9f3e'),
    );
    for (const { value } of refused) expect(lastJson(value.stdout).error.code).toBe('invalid_api_key');
    vault.setVault('secret/team/openai', { api_key: PROVIDER_SECRET });
    expect((await runExample(resolve, env)).ok).toBe(true);
    await callBoth('the rotated-back credential served', (r) => r.ok);
    const shown = await runExample(show, env);
    expect(shown.ok).toBe(true);
    expect(lastJson(shown.stdout).secrets).toMatchObject({ error: null, withheld: false });
    // The caller never saw the secret.
    const seen = [...served, ...refused].map(({ value }) => value.stdout).join('');
    expect(seen).not.toContain(PROVIDER_SECRET);
  });

  test('tenant isolation and escalation: workspace keys cannot read or use references; a workspace the reference does not allow cannot reach it', async ({
    e2e,
  }) => {
    const { stack } = e2e;
    const { admin } = stack;
    const vault = await startFakeSecretManagers();
    onTestFinished(() => vault.close());
    vault.setVault('secret/iso/openai', { api_key: PROVIDER_SECRET });
    const allowed = await admin.post('/workspaces', { name: 'Iso allowed' });
    const outside = await admin.post('/workspaces', { name: 'Iso outside' });
    const reference = await admin.post('/secret-references', {
      name: 'Iso vault',
      manager: 'vault_kv2',
      settings: { address: vault.url, path: 'iso/openai' },
      auth: { token: vault.vaultToken },
      allowed_workspaces: [allowed.id],
    });
    // A workspace (manager) key is refused (spec 5.4: owners and admins only), and
    // secret_references.* scopes cannot be given to a workspace key at all.
    const manager = await admin.post('/api-keys/workspace/service', {
      name: 'iso manager',
      workspace_id: allowed.id,
      scopes: ['providers.list', 'providers.read', 'completions.write', 'logs.list'],
    });
    const asManager = (method: string, path: string, body?: unknown) =>
      fetch(`${admin.baseUrl()}/v1${path}`, {
        method,
        headers: { 'x-service-api-key': manager.key, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }).then(async (res) => ({
        status: res.status,
        body: (await res.json()) as { error?: { code: string } },
      }));
    for (const [method, path] of [
      ['GET', '/secret-references'],
      ['GET', `/secret-references/${reference.id}`],
      ['POST', `/secret-references/${reference.id}/resolve`],
    ] as const) {
      const refused = await asManager(method, path);
      expect([method, path, refused.status, refused.body.error?.code]).toEqual([method, path, 403, 'AB03']);
    }
    const widened = await admin.call('POST', '/api-keys/workspace/service', {
      name: 'iso widened',
      workspace_id: allowed.id,
      scopes: ['secret_references.read'],
    });
    expect([widened.status, widened.body.error.code]).toEqual([400, 'AB01']);
    // Mapping it into an integration that reaches a workspace it does not allow: 400, nothing stored.
    const mapping = [{ field: 'api_key', secret_reference_id: reference.id, key: 'api_key' }];
    const tooWide = await admin.call('POST', '/integrations', {
      name: 'Iso too wide',
      ai_provider: 'openai',
      secret_mappings: mapping,
      workspaces: [{ id: allowed.id }, { id: outside.id }],
    });
    expect([tooWide.status, tooWide.body.error.code]).toEqual([400, 'AB01']);
    expect(tooWide.body.error.param).toBe('body.secret_mappings[0].secret_reference_id');
    // Mapped for the allowed workspace: its key is served with the referenced value; a key of the
    // other workspace cannot reach the provider.
    const integration = await admin.post('/integrations', {
      name: 'Iso vault openai',
      ai_provider: 'openai',
      secret_mappings: mapping,
      options: { custom_host: `${stack.mock.url}/v1` },
      workspaces: [{ id: allowed.id }],
      default_provider_slug: 'iso-openai',
    });
    expect(integration.credentials).toEqual({ api_key: `****${PROVIDER_SECRET.slice(-4)}` });
    const chat = (key: string) =>
      fetch(`${stack.gatewayBase(0)}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-api-key': key,
          'x-service-provider': '@iso-openai',
        },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] }),
      }).then(async (res) => ({
        status: res.status,
        body: (await res.json()) as { error?: { code: string } },
      }));
    const insider = (await admin.createKey(allowed.id, 'iso insider')).key;
    const outsider = (await admin.createKey(outside.id, 'iso outsider')).key;
    await pollUntil(
      () => chat(insider),
      (r) => r.status === 200,
      { boundMs: 15_000, intervalMs: 50, what: 'the allowed workspace served with the referenced value' },
    );
    const { value: refused } = await pollUntil(
      () => chat(outsider),
      (r) => r.status !== 401,
      { boundMs: 15_000, intervalMs: 50, what: 'the outside key known to the gateway' },
    );
    expect(refused.status).toBeGreaterThanOrEqual(400);
    expect(refused.status).toBeLessThan(500);
    expect(refused.body.error?.code).toBe('provider_not_found');

    // A virtual key: in the workspace the reference does not allow, refused with nothing created;
    // in the allowed one, served with the referenced value, which the other workspace cannot name.
    const keysOutside = async () =>
      (await admin.call('GET', `/virtual-keys?workspace_id=${outside.id}`)).body.total;
    const before = await keysOutside();
    const keyOutside = await admin.call('POST', '/virtual-keys', {
      workspace_id: outside.id,
      name: 'Iso key outside',
      provider: 'openai',
      secret_mappings: mapping,
      options: { custom_host: `${stack.mock.url}/v1` },
    });
    expect([keyOutside.status, keyOutside.body.error.code, keyOutside.body.error.param]).toEqual([
      400,
      'AB01',
      'body.secret_mappings[0].secret_reference_id',
    ]);
    expect(await keysOutside()).toBe(before);
    const key = await admin.post('/virtual-keys', {
      workspace_id: allowed.id,
      name: 'Iso key',
      slug: 'iso-key',
      provider: 'openai',
      secret_mappings: mapping,
      options: { custom_host: `${stack.mock.url}/v1` },
    });
    expect(key.key).toBe(`****${PROVIDER_SECRET.slice(-4)}`);
    const viaKey = (apiKey: string) =>
      fetch(`${stack.gatewayBase(0)}/v1/chat/completions`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-service-api-key': apiKey,
          'x-service-virtual-key': 'iso-key',
        },
        body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'Hello' }] }),
      }).then(async (res) => ({
        status: res.status,
        body: (await res.json()) as { error?: { code: string } },
      }));
    await pollUntil(
      () => viaKey(insider),
      (r) => r.status === 200,
      { boundMs: 15_000, intervalMs: 50, what: 'the virtual key served with the referenced value' },
    );
    const outsiderByKey = await viaKey(outsider);
    expect([outsiderByKey.status, outsiderByKey.body.error?.code]).toEqual([400, 'provider_not_found']);
  });
});
