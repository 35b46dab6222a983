// Issue 22, the Analytics page in real chromium against the whole stack: an admin sees the summary
// and the requests graph grow after chat completions made through the gateway, groups them by model,
// keeps range and group-by in the URL, sees the API refuse an inverted custom range; a workspace key
// sees its own workspace's traffic only.
import { randomUUID } from 'node:crypto';
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
import { chatUntilServed, createTenant } from './logs-stack.test-support.js';

const test = consoleTest;

const digits = (text: string | null) => Number((text ?? '').replace(/[^0-9]/g, ''));

/**
 * The summary's and the requests graph's counts after a click on Refresh (the page loads once per
 * view; both answer for the same range, but each reads the store when its own call arrives).
 */
async function refreshedRequests(page: Page): Promise<[number, number]> {
  await page.getByRole('button', { name: 'Refresh' }).click();
  await page.getByTestId('summary-requests-value').waitFor();
  await expect
    .poll(() => page.getByRole('button', { name: 'Refresh' }).getAttribute('aria-busy'))
    .toBe('false');
  await expect.poll(() => page.getByTestId('chart-requests').getAttribute('aria-busy')).toBe('false');
  return [
    digits(await page.getByTestId('summary-requests-value').textContent()),
    digits(await page.getByTestId('chart-requests-total').textContent()),
  ];
}

describe('the analytics page', () => {
  test('an admin sees the summary and the requests graph grow with gateway traffic, grouped by model', async ({
    stack,
    browser,
  }) => {
    const tenant = await createTenant(stack.admin, stack.mock, 'Analytics A');
    const key = await stack.admin.post('/api-keys/workspace/service', {
      name: 'analytics traffic',
      workspace_id: tenant.workspaceId,
      scopes: ['completions.write'],
    });

    const console = await openConsole(browser, stack.controlPlaneBase);
    const { page } = console;
    await signIn(page, stack.admin.key);
    await page.getByRole('navigation', { name: 'pages' }).getByRole('link', { name: 'Analytics' }).click();
    await page.getByTestId('summary-requests-value').waitFor();
    const before = digits(await page.getByTestId('summary-requests-value').textContent());
    const graphBefore = digits(await page.getByTestId('chart-requests-total').textContent());
    expect(graphBefore).toBe(before);

    const N = 4;
    await chatUntilServed(stack, tenant, key.key, `analytics-${randomUUID()}`);
    for (let i = 1; i < N; i++)
      expect(await gatewayStatus(stack, key.key, tenant.provider, `analytics-${randomUUID()}`)).toBe(200);

    // The logger stores requests about a second after they are served: refresh until they count.
    await expect
      .poll(() => refreshedRequests(page), { timeout: 30_000, interval: 500 })
      .toEqual([before + N, before + N]);
    // Every chart drew its canvas; the latency chart has its four series.
    for (const id of ['requests', 'cost', 'tokens', 'latency', 'errors', 'error_rate', 'cache_hit_rate'])
      await expect.poll(() => page.getByTestId(`chart-${id}`).locator('canvas').count()).toBeGreaterThan(0);
    expect(await page.getByTestId('chart-latency-total').textContent()).toMatch(
      /average .* · p50 .* · p95 .* · p99 /,
    );
    expect(digits(await page.getByTestId('summary-tokens-value').textContent())).toBeGreaterThan(0);
    await screenshot(page, 'analytics-admin');

    // Group by model: the model of the requests, counted by the API.
    await page.getByLabel('Group by').selectOption('model');
    await expect.poll(() => new URL(page.url()).searchParams.get('group')).toBe('model');
    const modelRow = page.getByTestId('group-row').filter({ hasText: 'gpt-4o-mini' });
    await expect.poll(() => modelRow.count()).toBe(1);
    expect(digits(await modelRow.locator('td').first().textContent())).toBe(before + N);
    await screenshot(page, 'analytics-group-model');

    // The range is in the URL too, and a reload keeps the view.
    await page.getByRole('button', { name: '1h', exact: true }).click();
    await expect.poll(() => new URL(page.url()).searchParams.get('range')).toBe('1h');
    await page.reload();
    await page.getByTestId('summary-requests-value').waitFor();
    expect(await page.getByRole('button', { name: '1h', exact: true }).getAttribute('aria-pressed')).toBe(
      'true',
    );
    expect(await page.getByLabel('Group by').inputValue()).toBe('model');
    await expect.poll(() => modelRow.count()).toBe(1);
    expect(digits(await page.getByTestId('summary-requests-value').textContent())).toBe(before + N);

    // A custom range whose end is before its start: the API refuses it and the page says so.
    await page.getByRole('button', { name: 'Custom' }).click();
    await page.getByLabel('From', { exact: true }).fill('2026-11-02T10:00');
    await page.getByLabel('To', { exact: true }).fill('2026-11-01T10:00');
    await page.getByRole('button', { name: 'Apply' }).click();
    await expect.poll(() => page.getByTestId('error').textContent()).toContain('400');
    expect(new URL(page.url()).searchParams.get('range')).toBe('custom');
    await screenshot(page, 'analytics-custom-refused');
    expectNoProblems(console, [/400 \(Bad Request\)/]);
    await console.close();
  });

  test('a workspace key sees its own workspace only', async ({ stack, browser }) => {
    const mine = await createTenant(stack.admin, stack.mock, 'Analytics mine');
    const other = await createTenant(stack.admin, stack.mock, 'Analytics other');
    const viewer = await stack.admin.post('/api-keys/workspace/service', {
      name: 'analytics viewer',
      workspace_id: mine.workspaceId,
      scopes: ['completions.write', 'analytics.view'],
    });
    const stranger = await stack.admin.post('/api-keys/workspace/service', {
      name: 'other traffic',
      workspace_id: other.workspaceId,
      scopes: ['completions.write'],
    });
    await chatUntilServed(stack, mine, viewer.key, `mine-${randomUUID()}`);
    expect(await gatewayStatus(stack, viewer.key, mine.provider, `analytics-${randomUUID()}`)).toBe(200);
    for (let i = 0; i < 3; i++) await chatUntilServed(stack, other, stranger.key, `other-${randomUUID()}`);
    // Every request is stored before the page looks (else "2" could be seen before the others land).
    await expect
      .poll(
        async () =>
          (await stack.admin.call('GET', `/analytics/summary?workspace_id=${other.workspaceId}`)).body,
        { timeout: 30_000, interval: 250 },
      )
      .toMatchObject({ requests: 3 });
    await expect
      .poll(
        async () =>
          (await stack.admin.call('GET', `/analytics/summary?workspace_id=${mine.workspaceId}`)).body,
        {
          timeout: 30_000,
          interval: 250,
        },
      )
      .toMatchObject({ requests: 2 });

    const console = await openConsole(browser, stack.controlPlaneBase);
    const { page } = console;
    await signIn(page, viewer.key);
    await page.goto('/console/analytics?group=workspace');
    await page.getByTestId('summary-requests-value').waitFor();
    await expect.poll(() => refreshedRequests(page), { timeout: 30_000, interval: 500 }).toEqual([2, 2]);
    // Grouped by workspace: one row, this workspace, with its two requests.
    await expect.poll(() => page.getByTestId('group-row').allTextContents()).toHaveLength(1);
    const row = page.getByTestId('group-row').first();
    expect(await row.locator('th').textContent()).toBe(mine.workspaceId);
    expect(digits(await row.locator('td').first().textContent())).toBe(2);
    expect(await page.getByText(other.workspaceId).count()).toBe(0);
    await screenshot(page, 'analytics-workspace');
    expectNoProblems(console);
    await console.close();
  });
});
