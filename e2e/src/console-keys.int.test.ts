// Issue 22: the API keys, integrations and providers pages in a real browser against the whole
// stack. An integration pointing at the mock provider and a workspace service key are made through
// the forms; the key, shown once, works at the gateway, is kept nowhere in the page, stops working
// when rotated (the new one works) and when revoked. A scope a workspace key cannot hold is refused
// by the API, and the console shows its message by the scopes field.
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import {
  consoleTest,
  expectNoProblems,
  gatewayStatus,
  openConsole,
  screenshot,
  signIn,
} from './console.test-support.js';
import { PROVIDER_SECRET } from './enforcement-stack.test-support.js';
import { type LogsStack, pollUntil } from './logs-stack.test-support.js';

const test = consoleTest;

/** Polls the gateway until `key` through `provider` gets `status` (the gateway syncs asynchronously). */
async function gatewayUntil(stack: LogsStack, key: string, provider: string, status: number, what: string) {
  await pollUntil(
    () => gatewayStatus(stack, key, provider),
    (s) => s === status,
    { boundMs: 15_000, intervalMs: 50, what },
  );
}

/** The few browser globals pageKeeps reads (this package has no DOM types). */
interface StorageLike {
  readonly length: number;
  key(index: number): string | null;
  getItem(name: string): string | null;
}
interface BrowserGlobals {
  readonly sessionStorage: StorageLike;
  readonly localStorage: StorageLike;
  readonly location: { readonly href: string };
  readonly document: {
    readonly cookie: string;
    readonly documentElement: { readonly outerHTML: string };
    querySelectorAll(selector: string): ArrayLike<{ readonly value: string }>;
  };
}

/** Everything the page keeps: storage, cookies, the URL, and the document's markup and form values. */
async function pageKeeps(page: Page) {
  return page.evaluate(() => {
    const g = globalThis as unknown as BrowserGlobals;
    const all = (storage: StorageLike) =>
      Array.from({ length: storage.length }, (_, i) => {
        const name = storage.key(i) ?? '';
        return `${name}=${storage.getItem(name)}`;
      }).join('\n');
    return {
      session: all(g.sessionStorage),
      local: all(g.localStorage),
      cookies: g.document.cookie,
      url: g.location.href,
      html: g.document.documentElement.outerHTML,
      inputs: Array.from(g.document.querySelectorAll('input'))
        .map((input) => input.value)
        .join('\n'),
    };
  });
}

function expectKeptNowhere(kept: Awaited<ReturnType<typeof pageKeeps>>, secret: string) {
  for (const [where, text] of Object.entries(kept))
    expect(text, `${where} holds the secret`).not.toContain(secret);
}

describe('the API keys, integrations and providers pages', () => {
  test('an integration and a workspace key made through the forms serve at the gateway; rotate and revoke take effect there', async ({
    stack,
    browser,
  }) => {
    const workspace = await stack.admin.post('/workspaces', { name: 'Console keys' });
    const console = await openConsole(browser, stack.controlPlaneBase);
    const { page } = console;
    await page
      .context()
      .grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.controlPlaneBase });
    await signIn(page, stack.admin.key);
    const menu = page.getByRole('navigation', { name: 'pages' });

    // Integration: OpenAI type, the mock as custom host, the provider secret, access for the workspace.
    await menu.getByRole('link', { name: 'Integrations', exact: true }).click();
    await page.getByRole('button', { name: 'Create integration' }).click();
    const integrationDialog = page.getByRole('dialog', { name: 'Create an integration' });
    await integrationDialog.getByLabel('Provider type').selectOption('openai');
    await integrationDialog.getByLabel('Name', { exact: true }).fill('Console mock');
    const secretField = integrationDialog.getByLabel('API key', { exact: true });
    expect(await secretField.getAttribute('type')).toBe('password');
    await secretField.fill(PROVIDER_SECRET);
    await integrationDialog.getByLabel('Custom host (base URL)').fill(`${stack.mock.url}/v1`);
    await integrationDialog.getByLabel('Console keys').check();
    await integrationDialog.getByRole('button', { name: 'Create integration' }).click();
    await integrationDialog.waitFor({ state: 'detached' });
    const row = page.getByRole('row').filter({ hasText: 'Console mock' });
    const slug = (await row.locator('code').first().textContent()) ?? '';
    expect(slug).toBe('console-mock');
    // The credentials come back masked, as the API returns them; the secret is nowhere in the page.
    await expect
      .poll(() => row.getByTestId('integration-credentials').textContent())
      .toBe(`api_key ****${PROVIDER_SECRET.slice(-4)}`);
    expect(await row.textContent()).toContain(`${stack.mock.url}/v1`);
    expectKeptNowhere(await pageKeeps(page), PROVIDER_SECRET);
    await screenshot(page, 'integrations-list');

    // Editing shows the stored credentials masked and leaves the password fields empty; saving
    // without typing keeps them (the gateway serves with them below).
    await row.getByRole('button', { name: 'Edit Console mock' }).click();
    const editDialog = page.getByRole('dialog', { name: 'Edit integration "Console mock"' });
    expect(await editDialog.getByTestId('masked-credentials').textContent()).toContain(
      `api_key ****${PROVIDER_SECRET.slice(-4)}`,
    );
    expect(await editDialog.getByLabel('API key', { exact: true }).inputValue()).toBe('');
    expect(await editDialog.getByLabel('Custom host (base URL)').inputValue()).toBe(`${stack.mock.url}/v1`);
    await editDialog.getByLabel(/^Description/).fill('points at the mock provider');
    await editDialog.getByRole('button', { name: 'Save' }).click();
    await editDialog.waitFor({ state: 'detached' });
    expectKeptNowhere(await pageKeeps(page), PROVIDER_SECRET);

    // Its default provider is listed for the workspace; a second one is made through the form.
    await menu.getByRole('link', { name: 'Providers', exact: true }).click();
    await expect.poll(() => page.getByTestId(`provider-${slug}`).count()).toBe(1);
    await page.getByRole('button', { name: 'Create provider' }).click();
    const providerDialog = page.getByRole('dialog', { name: 'Create a provider' });
    await providerDialog.getByRole('combobox', { name: /^Workspace/ }).selectOption(workspace.id);
    const integrationSelect = providerDialog.getByRole('combobox', { name: /^Integration/ });
    await expect
      .poll(() => integrationSelect.locator('option').allTextContents())
      .toContain('Console mock (openai, console-mock)');
    await integrationSelect.selectOption({ label: 'Console mock (openai, console-mock)' });
    await providerDialog.getByLabel(/^Slug/).fill('console-second');
    await providerDialog.getByRole('button', { name: 'Create provider' }).click();
    await providerDialog.waitFor({ state: 'detached' });
    await expect.poll(() => page.getByTestId('provider-console-second').count()).toBe(1);

    // A workspace service key with completions.write, through the form.
    await menu.getByRole('link', { name: 'API keys', exact: true }).click();
    await page.getByRole('button', { name: 'Create API key' }).click();
    const create = page.getByRole('dialog', { name: 'Create an API key' });
    await create.getByLabel('Kind of key').selectOption({ label: 'Workspace service key' });
    await create.getByLabel('Name', { exact: true }).fill('gateway client');
    await create.getByRole('combobox', { name: /^Workspace/ }).selectOption(workspace.id);
    await create.getByRole('checkbox', { name: 'completions.write', exact: true }).check();
    await create.getByText('Limits and expiry').click();
    await create.getByRole('button', { name: 'Add a rate limit' }).click();
    await create.getByLabel('rate limit 1 value').fill('100000');
    await create.getByLabel('rate limit 1 unit').selectOption('rph');
    await screenshot(page, 'api-keys-create');
    await create.getByRole('button', { name: 'Create key' }).click();
    const shown = page.getByRole('dialog', { name: 'API key "gateway client" created' });
    const key = await shown.getByTestId('secret-once').inputValue();
    expect(key).toMatch(/^aigw_[A-Za-z0-9_-]{43}$/);
    expect(await shown.getByTestId('secret-warning').textContent()).toContain('you will not see it again');
    await shown.getByRole('button', { name: 'Copy' }).click();
    await expect.poll(() => shown.getByRole('status').textContent()).toBe('Copied to the clipboard.');
    const clipboard = () =>
      (
        globalThis as unknown as { navigator: { clipboard: { readText(): Promise<string> } } }
      ).navigator.clipboard.readText();
    expect(await page.evaluate(clipboard)).toBe(key);
    await screenshot(page, 'api-keys-shown-once');

    // The key serves at the gateway through both providers once the gateway has synced it.
    await gatewayUntil(stack, key, `@${slug}`, 200, 'the new key served through the integration');
    expect(await gatewayStatus(stack, key, '@console-second')).toBe(200);

    // Closed, the key is gone from the page: not in storage, the URL or the document.
    await shown.getByRole('button', { name: 'Done, I have copied it' }).click();
    await shown.waitFor({ state: 'detached' });
    expectKeptNowhere(await pageKeeps(page), key);
    const keyRow = page.getByRole('row').filter({ hasText: 'gateway client' });
    await expect.poll(() => keyRow.locator('code').textContent()).toBe(`aigw_...${key.slice(-4)}`);

    await screenshot(page, 'api-keys-list');

    // The list filters by type on the server: the bootstrap admin key is not a service key.
    await page.getByLabel('Type').selectOption({ label: 'workspace service' });
    await expect
      .poll(async () => (await page.getByTestId('keys-table').locator('tbody tr').allTextContents()).length)
      .toBe(1);
    expect(await page.getByTestId('pager-range').textContent()).toBe('1–1 of 1');

    // Rotate: the new key is shown once; the old one stops working at the gateway (no grace period:
    // the API replaces the secret at once), the new one works.
    await keyRow.getByRole('button', { name: 'gateway client' }).click();
    const detail = page.getByRole('dialog', { name: 'API key "gateway client"' });
    expect(await detail.getByTestId('key-scopes').textContent()).toBe('completions.write');
    expect(await detail.getByTestId('key-rate-limits').textContent()).toBe('100000 requests/hour');
    await detail.getByRole('button', { name: 'Rotate' }).click();
    await page
      .getByRole('dialog', { name: 'Rotate "gateway client"?' })
      .getByRole('button', { name: 'Rotate key' })
      .click();
    const rotated = page.getByRole('dialog', { name: 'API key "gateway client" rotated' });
    const newKey = await rotated.getByTestId('secret-once').inputValue();
    expect(newKey).toMatch(/^aigw_/);
    expect(newKey).not.toBe(key);
    await rotated.getByRole('button', { name: 'Done, I have copied it' }).click();
    await rotated.waitFor({ state: 'detached' });
    expectKeptNowhere(await pageKeeps(page), newKey);
    await gatewayUntil(stack, key, `@${slug}`, 401, 'the rotated-out key refused');
    await gatewayUntil(stack, newKey, `@${slug}`, 200, 'the rotated key served');

    // Revoke (delete), confirmed: the gateway refuses the key.
    await keyRow.getByRole('button', { name: 'gateway client' }).click();
    await detail.getByRole('button', { name: 'Revoke (delete)' }).click();
    const confirm = page.getByRole('dialog', { name: 'Revoke and delete "gateway client"?' });
    await confirm.getByRole('button', { name: 'Revoke and delete' }).click();
    await confirm.waitFor({ state: 'detached' });
    await expect.poll(() => keyRow.count()).toBe(0);
    await gatewayUntil(stack, newKey, `@${slug}`, 401, 'the revoked key refused');
    expect((await stack.admin.expect(200, 'GET', '/api-keys?type=service')).data).toEqual([]);

    expectNoProblems(console);
    await console.close();
  });

  test("a scope a workspace key cannot hold: the API's refusal is shown by the scopes field", async ({
    stack,
    browser,
  }) => {
    const workspace = await stack.admin.post('/workspaces', { name: 'Console scopes' });
    const console = await openConsole(browser, stack.controlPlaneBase);
    const { page } = console;
    await signIn(page, stack.admin.key);
    await page
      .getByRole('navigation', { name: 'pages' })
      .getByRole('link', { name: 'API keys', exact: true })
      .click();
    await page.getByRole('button', { name: 'Create API key' }).click();
    const create = page.getByRole('dialog', { name: 'Create an API key' });
    // Chosen for an admin key, then the kind changed: the scope stays chosen, flagged.
    await create.getByLabel('Kind of key').selectOption({ label: 'Organisation service key (admin)' });
    await create.getByRole('checkbox', { name: 'integrations.list', exact: true }).check();
    await create.getByRole('checkbox', { name: 'logs.list', exact: true }).check();
    await create.getByLabel('Kind of key').selectOption({ label: 'Workspace service key' });
    const groups = create.getByTestId('scope-groups');
    expect(await groups.getByRole('checkbox', { name: 'integrations.list', exact: true }).count()).toBe(0);
    expect(await groups.getByRole('checkbox', { name: 'logs.list', exact: true }).isChecked()).toBe(true);
    const flagged = create.getByTestId('scope-invalid').getByRole('checkbox', { name: 'integrations.list' });
    expect(await flagged.isChecked()).toBe(true);
    await create.getByLabel('Name', { exact: true }).fill('too broad');
    await create.getByRole('combobox', { name: /^Workspace/ }).selectOption(workspace.id);
    await create.getByRole('button', { name: 'Create key' }).click();
    const fieldError = create.getByTestId('field-error-body.scopes');
    await expect
      .poll(() => fieldError.textContent())
      .toBe('workspace keys cannot hold organisation scopes: integrations.list');
    expect(await create.getByTestId('scope-picker').getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'api-keys-scope-refused');
    // Shown by the field, not repeated in the form's banner; nothing was created.
    expect(await create.getByTestId('error').count()).toBe(0);
    expect((await stack.admin.expect(200, 'GET', `/api-keys?workspace_id=${workspace.id}`)).total).toBe(0);
    expectNoProblems(console, [/400 \(Bad Request\)/]);
    await console.close();
  });
});
