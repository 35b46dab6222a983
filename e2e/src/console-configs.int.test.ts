// Issue 22: the Configs and Policies pages in a real browser against the whole stack (limits on a
// real Redis). A config is created through the form, an invalid edit shows the API's error with its
// param and line beside the editor, a valid edit makes version 2, and the history shows the changed
// line removed and added. A usage-limit policy made through the form shows its key's current usage
// rising as requests go through the gateway, and a reset from the page brings it back to 0.
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { consoleTest, expectNoProblems, openConsole, screenshot, signIn } from './console.test-support.js';
import { chat } from './enforcement-client.test-support.js';
import { chatUntilServed, createTenant } from './logs-stack.test-support.js';

const test = consoleTest;

const VERSION_1 = `{
  "retry": { "attempts": 2 },
  "cache": { "mode": "simple", "max_age": 600 }
}`;
const INVALID = `{
  "retry": { "attempts": 2 },
  "cache": { "mode": "bogus", "max_age": 600 }
}`;
const VERSION_2 = `{
  "retry": { "attempts": 3 },
  "cache": { "mode": "simple", "max_age": 600 }
}`;

/** The usage-limit policy's budget: small, yet many requests of the prompt used (13 tokens each). */
const LIMIT = 500;

/** The rows of the version diff shown, as [kind, text]. */
async function diffRows(page: Page): Promise<[string, string][]> {
  return page
    .getByTestId('version-diff')
    .locator('tr')
    .evaluateAll((rows) =>
      rows.map((row) => [
        row.getAttribute('data-kind') ?? '',
        row.querySelector('td.diff-text')?.textContent?.trim() ?? '',
      ]),
    ) as Promise<[string, string][]>;
}

describe('the configs page', () => {
  test('create a config, see an invalid edit refused at its line, save version 2, diff 1 against 2', async ({
    stack,
    browser,
  }) => {
    const tenant = await createTenant(stack.admin, stack.mock, 'Console configs');
    const console = await openConsole(browser, stack.controlPlaneBase);
    const { page } = console;
    await signIn(page, stack.admin.key);
    await page.getByRole('navigation', { name: 'pages' }).getByRole('link', { name: 'Configs' }).click();
    await page.getByRole('button', { name: 'New config' }).click();

    await page.getByLabel('Name', { exact: true }).fill('Console e2e config');
    await page
      .locator(`#config-workspace option[value="${tenant.workspaceId}"]`)
      .waitFor({ state: 'attached' });
    await page.getByLabel('Workspace').selectOption(tenant.workspaceId);
    await page.getByLabel('Config (JSON)').fill(VERSION_1);
    await page.getByRole('button', { name: 'Create config' }).click();
    await expect.poll(() => page.getByTestId('config-version').textContent()).toBe('1');
    const configId = new URL(page.url()).pathname.split('/').pop() as string;
    const stored = await stack.admin.expect(200, 'GET', `/configs/${configId}`);
    expect(stored).toMatchObject({
      name: 'Console e2e config',
      workspace_id: tenant.workspaceId,
      version: 1,
      config: { retry: { attempts: 2 }, cache: { mode: 'simple', max_age: 600 } },
    });

    // An invalid edit: the API's message, its param, and the line it points to, beside the editor.
    await page.getByLabel('Config (JSON)').fill(INVALID);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const error = page.getByTestId('editor-error');
    await error.waitFor();
    expect(await page.getByTestId('editor-error-message').textContent()).toContain('config.cache.mode');
    expect(await page.getByTestId('editor-error-param').textContent()).toBe('config.cache.mode');
    expect(await page.getByTestId('editor-error-line').textContent()).toBe('line 3');
    expect(await error.locator('pre').textContent()).toBe('  "cache": { "mode": "bogus", "max_age": 600 }');
    expect(await page.getByLabel('Config (JSON)').getAttribute('aria-invalid')).toBe('true');
    await screenshot(page, 'config-editor-error');
    expect((await stack.admin.expect(200, 'GET', `/configs/${configId}`)).version).toBe(1);

    // A valid edit is version 2.
    await page.getByLabel('Config (JSON)').fill(VERSION_2);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect.poll(() => page.getByTestId('saved').textContent()).toBe('Saved as version 2.');
    expect(await page.getByTestId('config-version').textContent()).toBe('2');
    expect(await page.getByTestId('editor-error').count()).toBe(0);

    // History: both versions; the diff of 1 against 2 shows the changed line removed, then added.
    await page.getByRole('button', { name: 'Version history' }).click();
    await expect.poll(() => page.getByTestId('versions-table').locator('tbody tr').count()).toBe(2);
    await expect.poll(() => page.getByTestId('diff-stats').textContent()).toBe('1 line removed, 1 added');
    const rows = await diffRows(page);
    expect(rows.filter(([kind]) => kind !== 'same')).toEqual([
      ['removed', '"attempts": 2'],
      ['added', '"attempts": 3'],
    ]);
    expect(rows.filter(([kind]) => kind === 'same').map(([, text]) => text)).toContain('"mode": "simple",');
    await screenshot(page, 'config-version-diff');
    // The same version on both sides: no difference.
    await page.getByLabel('From version').selectOption('2');
    await expect.poll(() => page.getByTestId('diff-stats').textContent()).toBe('no difference');

    // The list, filtered to the tenant's workspace, shows the config at version 2.
    await page.getByRole('navigation', { name: 'pages' }).getByRole('link', { name: 'Configs' }).click();
    await page
      .locator(`#configs-workspace option[value="${tenant.workspaceId}"]`)
      .waitFor({ state: 'attached' });
    await page.getByLabel('Workspace').selectOption(tenant.workspaceId);
    const row = page.getByTestId('configs-table').locator('tbody tr');
    await expect.poll(() => row.count()).toBe(1);
    expect(await row.locator('td').allTextContents()).toEqual([
      'Console e2e config',
      'console-e2e-config',
      'Console configs',
      '2',
      'active',
      expect.any(String),
    ]);
    await screenshot(page, 'configs-list');
    expectNoProblems(console, [/status of 400 \(Bad Request\)/]);
    await console.close();
  });
});

describe('the policies page', () => {
  test('a usage-limit policy made in the form shows its key usage rising, and a reset brings it to 0', async ({
    stack,
    browser,
  }) => {
    const tenant = await createTenant(stack.admin, stack.mock, 'Console policies');
    const key = await stack.admin.createKey(tenant.workspaceId, 'console usage key');
    await chatUntilServed(stack, tenant, key.key, 'console-policies-0');
    const console = await openConsole(browser, stack.controlPlaneBase);
    const { page } = console;
    await signIn(page, stack.admin.key);
    await page.getByRole('navigation', { name: 'pages' }).getByRole('link', { name: 'Policies' }).click();
    await page.getByRole('button', { name: 'New usage-limit policy' }).click();

    await page.getByLabel('Name', { exact: true }).fill('Console tokens budget');
    await page
      .locator(`#policy-workspace option[value="${tenant.workspaceId}"]`)
      .waitFor({ state: 'attached' });
    await page.getByLabel('Workspace').selectOption(tenant.workspaceId);
    await page.getByLabel('Type').selectOption('tokens');
    expect(await page.getByLabel('Condition 1 key').inputValue()).toBe('workspace_id');
    await page.getByLabel('Condition 1 value').fill(tenant.workspaceId);
    expect(await page.getByLabel('Group by 1 key').inputValue()).toBe('api_key');
    // Without a credit limit the API refuses it, and its message is shown under that field.
    await page.getByRole('button', { name: 'Create policy' }).click();
    const limitError = page.locator('#policy-credit_limit-error');
    await limitError.waitFor();
    expect(await limitError.textContent()).toContain('credit_limit');
    expect(await page.getByLabel(/^Credit limit/).getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByTestId('error').count()).toBe(0);
    await page.getByLabel(/^Credit limit/).fill(String(LIMIT));
    await page.getByRole('button', { name: 'Create policy' }).click();
    await page.getByTestId('policy-summary').waitFor();
    const policyId = new URL(page.url()).searchParams.get('id') as string;
    expect(await stack.admin.expect(200, 'GET', `/policies/usage-limits/${policyId}`)).toMatchObject({
      name: 'Console tokens budget',
      type: 'tokens',
      credit_limit: LIMIT,
      conditions: [{ key: 'workspace_id', value: tenant.workspaceId }],
      group_by: [{ key: 'api_key' }],
      workspace_id: tenant.workspaceId,
    });

    // The key is listed with its usage; requests through the gateway make it rise (the gateway
    // counts once it has the policy; the ledger follows the logger).
    const keyRow = page.getByTestId(`entity-${key.id}`);
    await keyRow.waitFor();
    const usage = async () => Number(await keyRow.locator('.usage-bar').getAttribute('data-usage'));
    expect(await usage()).toBe(0);
    await expect
      .poll(
        async () => {
          expect(
            (await chat(stack.gatewayBase, { key: key.key, provider: tenant.provider, maxTokens: 3 })).status,
          ).toBe(200);
          await page.getByRole('button', { name: 'Refresh' }).click();
          return usage();
        },
        { timeout: 30_000, interval: 250 },
      )
      .toBeGreaterThan(0);
    const counted = await usage();
    expect(await keyRow.locator('progress').getAttribute('max')).toBe(String(LIMIT));
    expect(await keyRow.locator('progress').getAttribute('value')).toBe(String(counted));
    expect(await keyRow.getByTestId('usage-value').textContent()).toBe(`${counted} tokens`);
    // The ledger agrees with what the page shows.
    const entities = await stack.admin.expect(200, 'GET', `/policies/usage-limits/${policyId}/entities`);
    expect(entities.data.find((e: { id: string }) => e.id === key.id).current_usage).toBeGreaterThanOrEqual(
      counted,
    );
    await screenshot(page, 'policies-usage');

    // Reset from the page, after a confirmation: usage back to 0.
    await keyRow.getByRole('button', { name: 'Reset usage…' }).click();
    expect(await keyRow.textContent()).toContain(
      "Start console usage key (service key)'s usage again from 0?",
    );
    await keyRow.getByRole('button', { name: 'Confirm reset' }).click();
    await expect
      .poll(() => page.getByTestId('reset-notice').textContent())
      .toContain('Usage of console usage key');
    await expect.poll(usage).toBe(0);
    // The reset went through the API: it is in the audit log (written asynchronously).
    await expect
      .poll(
        async () =>
          (
            await stack.admin.expect(
              200,
              'GET',
              `/audit-logs?action=usage_limits_policies.reset_usage&resource_id=${policyId}`,
            )
          ).data.length,
        { timeout: 15_000 },
      )
      .toBe(1);

    // Editing the limit (PUT answers {}: the page reads the policy back).
    await page.getByText('Edit settings').click();
    await page.getByLabel(/^Credit limit/).fill('600');
    await page.getByRole('button', { name: 'Save changes' }).click();
    await expect.poll(() => page.getByTestId('policy-limit').textContent()).toBe('600 tokens (no reset)');
    expect((await stack.admin.expect(200, 'GET', `/policies/usage-limits/${policyId}`)).credit_limit).toBe(
      600,
    );

    // A rate-limit policy through the other tab; no usage column there; archived from its page.
    await page.getByRole('button', { name: 'All policies' }).click();
    await page
      .getByRole('navigation', { name: 'policy kinds' })
      .getByRole('link', { name: 'Rate limits' })
      .click();
    await page.getByRole('button', { name: 'New rate-limit policy' }).click();
    await page.getByLabel('Name', { exact: true }).fill('Console per-key rate');
    await page
      .locator(`#policy-workspace option[value="${tenant.workspaceId}"]`)
      .waitFor({ state: 'attached' });
    await page.getByLabel('Workspace').selectOption(tenant.workspaceId);
    await page.getByLabel(/^Limit/).fill('60');
    await page.getByLabel('Per').selectOption('rph');
    await page.getByLabel('Condition 1 value').fill(tenant.workspaceId);
    await page.getByRole('button', { name: 'Create policy' }).click();
    await expect.poll(() => page.getByTestId('policy-limit').textContent()).toBe('60 requests per hour');
    const rateId = new URL(page.url()).searchParams.get('id') as string;
    await page.getByTestId(`entity-${key.id}`).waitFor();
    expect(await page.getByTestId('entities-table').locator('th').allTextContents()).toEqual([
      'Kind',
      'Entity',
    ]);
    await page.getByRole('button', { name: 'Archive…' }).click();
    await page.getByRole('button', { name: 'Archive', exact: true }).click();
    await expect
      .poll(async () => (await stack.admin.expect(200, 'GET', `/policies/rate-limits/${rateId}`)).status)
      .toBe('archived');
    expectNoProblems(console, [/status of 400 \(Bad Request\)/]);
    await console.close();
  });

  test('a workspace key with only the usage-limit scopes sees its usage policies, no rate-limit part, no create', async ({
    stack,
    browser,
  }) => {
    const tenant = await createTenant(stack.admin, stack.mock, 'Console policies reader');
    const other = await createTenant(stack.admin, stack.mock, 'Console policies other');
    const policy = (workspace: string, name: string) =>
      stack.admin.post('/policies/usage-limits', {
        name,
        type: 'cost',
        credit_limit: 5,
        conditions: [{ key: 'workspace_id', value: workspace }],
        group_by: [{ key: 'api_key' }],
        workspace_id: workspace,
      });
    await policy(tenant.workspaceId, 'Reader budget');
    await policy(other.workspaceId, 'Other budget');
    const key = await stack.admin.post('/api-keys/workspace/service', {
      name: 'policies reader',
      workspace_id: tenant.workspaceId,
      scopes: ['usage_limits_policies.list', 'usage_limits_policies.read'],
    });
    const console = await openConsole(browser, stack.controlPlaneBase);
    const { page } = console;
    await signIn(page, key.key);
    const menu = page.getByRole('navigation', { name: 'pages' });
    await expect.poll(() => menu.getByRole('link').allTextContents()).toEqual(['Policies']);
    await menu.getByRole('link', { name: 'Policies' }).click();
    const names = page.getByTestId('policies-table').locator('tbody tr td:first-child');
    await expect.poll(() => names.allTextContents()).toEqual(['Reader budget']);
    expect(await page.getByRole('navigation', { name: 'policy kinds' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: /New .* policy/ }).count()).toBe(0);
    expect(await page.getByLabel('Workspace').count()).toBe(0);
    // Asking for the rate-limit view by address still shows the usage limits.
    await page.goto('/console/policies?kind=rate');
    await expect.poll(() => names.allTextContents()).toEqual(['Reader budget']);
    expect(await page.getByRole('heading', { name: 'Usage limits' }).count()).toBe(1);
    expectNoProblems(console);
    await console.close();
  });
});
