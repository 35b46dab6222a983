// Spec 2.6 in the console: secret mappings of integrations and virtual keys edited in a real browser
// against the whole stack, with a simulated Vault holding the provider secret. An integration whose
// api_key is mapped in its dialog stores the mapping (checked through the admin API) and serves at
// the gateway with the value read from Vault (the mock accepts only that one); a legacy virtual key
// is renamed and mapped in its edit dialog; a reference that does not allow the key's workspace is
// refused by the API and the dialog shows its message; a virtual key made from an integration shows
// its key and mappings read-only and saves its other fields.
import { startFakeSecretManagers } from '@aigw/testkit/secret-managers';
import { describe, expect, onTestFinished } from 'vitest';
import {
  consoleTest,
  expectNoProblems,
  gatewayStatus,
  openConsole,
  screenshot,
  signIn,
} from './console.test-support.js';
import { PROVIDER_SECRET } from './enforcement-stack.test-support.js';
import { pollUntil } from './logs-stack.test-support.js';

const test = consoleTest;

describe('the console edits secret mappings', () => {
  test('an integration and a virtual key mapped to a Vault secret through the dialogs; the API stores the mappings', async ({
    stack,
    browser,
  }) => {
    const { admin } = stack;
    const vault = await startFakeSecretManagers();
    onTestFinished(() => vault.close());
    vault.setVault('secret/team/openai', { api_key: PROVIDER_SECRET });
    const workspace = await admin.post('/workspaces', { name: 'Console mappings' });
    const reference = await admin.post('/secret-references', {
      name: 'Team OpenAI',
      slug: 'team-openai',
      manager: 'vault_kv2',
      settings: { address: vault.url, path: 'team/openai' },
      auth: { token: vault.vaultToken },
      allowed_workspaces: [workspace.id],
    });
    // Allows no workspace: mapping it for a workspace's key is refused by the API.
    await admin.post('/secret-references', {
      name: 'Elsewhere',
      slug: 'elsewhere',
      manager: 'vault_kv2',
      settings: { address: vault.url, path: 'team/openai' },
      auth: { token: vault.vaultToken },
    });
    const console = await openConsole(browser, stack.controlPlaneBase);
    const { page } = console;
    await signIn(page, stack.admin.key);
    const menu = page.getByRole('navigation', { name: 'pages' });

    // Integration: its API key is mapped to the reference instead of typed.
    await menu.getByRole('link', { name: 'Integrations', exact: true }).click();
    await page.getByRole('button', { name: 'Create integration' }).click();
    const create = page.getByRole('dialog', { name: 'Create an integration' });
    await create.getByLabel('Provider type').selectOption('openai');
    await create.getByLabel('Name', { exact: true }).fill('Vault mock');
    await create.getByLabel('Custom host (base URL)').fill(`${stack.mock.url}/v1`);
    await create.getByLabel('Console mappings').check();
    const mappings = create.getByTestId('secret-mappings');
    await mappings.getByRole('button', { name: 'Add a secret mapping' }).click();
    expect(await mappings.getByLabel('mapping 1 field').inputValue()).toBe('api_key');
    await mappings
      .getByLabel('mapping 1 secret reference')
      .selectOption({ label: 'Team OpenAI (team-openai)' });
    await mappings.getByLabel('mapping 1 key in the secret').fill('api_key');
    // The mapped field's credential input is not typed: it says where the value comes from.
    const apiKeyInput = create.getByLabel(/^API key/);
    expect(await apiKeyInput.isDisabled()).toBe(true);
    expect(await create.getByTestId('credential-api_key-mapped').textContent()).toContain(
      'Team OpenAI (team-openai)',
    );
    // openai's only credential is an API key: every mappable field is mapped, nothing more to add.
    expect(await mappings.getByRole('button', { name: 'Add a secret mapping' }).count()).toBe(0);
    await screenshot(page, 'integration-secret-mappings');
    await create.getByRole('button', { name: 'Create integration' }).click();
    await create.waitFor({ state: 'detached' });

    const integration = await admin.expect(200, 'GET', '/integrations/vault-mock');
    expect(integration.secret_mappings).toEqual([
      { field: 'api_key', secret_reference_id: reference.id, key: 'api_key' },
    ]);
    expect(integration.credentials).toEqual({ api_key: `****${PROVIDER_SECRET.slice(-4)}` });
    expect(integration.secrets).toMatchObject({ error: null, withheld: false });
    // The mock accepts only PROVIDER_SECRET: a 200 proves the gateway sent the value read from Vault.
    const { key: workspaceKey } = await admin.createKey(workspace.id, 'mappings');
    await pollUntil(
      () => gatewayStatus(stack, workspaceKey, '@vault-mock'),
      (status) => status === 200,
      { boundMs: 15_000, intervalMs: 50, what: 'the integration served with the value from Vault' },
    );

    // Editing shows the stored mapping with the reference's name; saving untouched changes nothing.
    const row = page.getByRole('row').filter({ hasText: 'Vault mock' });
    await row.getByRole('button', { name: 'Edit Vault mock' }).click();
    const edit = page.getByRole('dialog', { name: 'Edit integration "Vault mock"' });
    const editMappings = edit.getByTestId('secret-mappings');
    await expect
      .poll(() => editMappings.getByLabel('mapping 1 secret reference').inputValue())
      .toBe(reference.id);
    expect(await editMappings.getByLabel('mapping 1 key in the secret').inputValue()).toBe('api_key');
    expect(await edit.getByLabel(/^API key/).isDisabled()).toBe(true);
    await edit.getByRole('button', { name: 'Save' }).click();
    await edit.waitFor({ state: 'detached' });
    expect((await admin.expect(200, 'GET', '/integrations/vault-mock')).secret_mappings).toEqual(
      integration.secret_mappings,
    );

    // A legacy virtual key with its own typed key.
    const legacy = await admin.post('/virtual-keys', {
      workspace_id: workspace.id,
      name: 'Legacy key',
      slug: 'legacy-key',
      provider: 'openai',
      key: 'sk-legacy-typed-wxyz',
    });
    await menu.getByRole('link', { name: 'Providers', exact: true }).click();
    await page.getByRole('button', { name: 'Virtual keys (legacy)' }).click();
    const legacyRow = page.getByTestId('virtual-key-legacy-key');
    await legacyRow.getByRole('button', { name: 'Edit Legacy key' }).click();
    const vkDialog = page.getByRole('dialog', { name: 'Edit virtual key "Legacy key"' });
    await vkDialog.getByLabel('Name', { exact: true }).fill('Legacy key (Vault)');
    const vkMappings = vkDialog.getByTestId('secret-mappings');
    await vkMappings.getByRole('button', { name: 'Add a secret mapping' }).click();
    // A reference that does not allow the key's workspace: the API refuses it (400, nothing
    // changed), and the dialog shows its message by the mappings and stays open.
    await vkMappings
      .getByLabel('mapping 1 secret reference')
      .selectOption({ label: 'Elsewhere (elsewhere)' });
    await vkDialog.getByRole('button', { name: 'Save' }).click();
    const refusal = vkMappings.getByTestId('field-error-body.secret_mappings');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(/workspace/);
    const unchanged = await admin.expect(200, 'GET', `/virtual-keys/${legacy.id}`);
    expect(unchanged).toMatchObject({ name: 'Legacy key', secret_mappings: [], key: '****wxyz' });

    await vkMappings
      .getByLabel('mapping 1 secret reference')
      .selectOption({ label: 'Team OpenAI (team-openai)' });
    await vkMappings.getByLabel('mapping 1 key in the secret').fill('api_key');
    expect(await vkDialog.getByLabel(/^New key/).isDisabled()).toBe(true);
    expect(await vkDialog.getByTestId('key-mapped').textContent()).toContain('Team OpenAI (team-openai)');
    await vkDialog.getByRole('button', { name: 'Save' }).click();
    await vkDialog.waitFor({ state: 'detached' });
    const mapped = await admin.expect(200, 'GET', `/virtual-keys/${legacy.id}`);
    expect(mapped).toMatchObject({
      name: 'Legacy key (Vault)',
      secret_mappings: [{ field: 'api_key', secret_reference_id: reference.id, key: 'api_key' }],
      key: `****${PROVIDER_SECRET.slice(-4)}`,
      secrets: { error: null, withheld: false },
    });
    await expect
      .poll(() =>
        page.getByTestId('virtual-key-legacy-key').getByTestId('virtual-key-mappings').textContent(),
      )
      .toBe('api_key (key api_key)');

    // The integration's default provider seen as a virtual key: no credentials of its own, so its key
    // and mappings are shown read-only with the reason; its note still saves.
    const madeRow = page.getByTestId('virtual-key-vault-mock');
    await madeRow.getByRole('button', { name: 'Edit Vault mock' }).click();
    const madeDialog = page.getByRole('dialog', { name: 'Edit virtual key "Vault mock"' });
    expect(await madeDialog.getByTestId('virtual-key-key-read-only').textContent()).toMatch(/integration/);
    expect(await madeDialog.getByTestId('secret-mappings-read-only').textContent()).toMatch(/integration/);
    expect(await madeDialog.getByLabel(/^New key/).count()).toBe(0);
    expect(await madeDialog.getByRole('button', { name: 'Add a secret mapping' }).count()).toBe(0);
    await madeDialog.getByLabel(/^Note/).fill('made from Vault mock');
    await madeDialog.getByRole('button', { name: 'Save' }).click();
    await madeDialog.waitFor({ state: 'detached' });
    const made = await admin.expect(200, 'GET', `/virtual-keys?workspace_id=${workspace.id}`);
    expect(made.data.find((v: { slug: string }) => v.slug === 'vault-mock')).toMatchObject({
      note: 'made from Vault mock',
      integration_id: integration.id,
    });
    await screenshot(page, 'virtual-keys-edited');
    expectNoProblems(console, [/400 \(Bad Request\)/]);
    await console.close();
  });
});
