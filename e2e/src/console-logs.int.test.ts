// Issue 22: the console's request logs, audit log and feedback pages in a real browser against the
// whole stack. A request made through the gateway appears in the logs list (the logger ingests
// asynchronously: the test refreshes until it does), is found by its trace id, opens in detail with
// its request body (as text, never markup) and model; feedback given on its trace shows on the
// feedback page and in the detail; the audit log lists the test's own admin actions; cursor paging
// and filters live in the URL. A workspace key of workspace B sees none of workspace A's requests,
// not even by opening one's URL.
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { consoleTest, expectNoProblems, openConsole, screenshot, signIn } from './console.test-support.js';
import type { Tenant } from './enforcement-stack.test-support.js';
import {
  callAs,
  chatUntilServed,
  createTenant,
  type LogsStack,
  pollUntil,
} from './logs-stack.test-support.js';

interface World {
  readonly stack: LogsStack;
  readonly a: Tenant;
  readonly b: Tenant;
  /** Workspace A's key: chat, logs, feedback. */
  readonly keyA: { id: string; key: string; name: string };
  /** Workspace B's key that makes requests, and the one that signs in to the console. */
  readonly gatewayKeyB: string;
  readonly consoleKeyB: string;
}

const test = consoleTest.extend<{ world: World }>({
  /** Workspaces A and B, A's key, B's gateway key and B's console key (logs.list, logs.view, feedback.list). */
  world: [
    async ({ stack }, use) => {
      const { admin } = stack;
      const a = await createTenant(admin, stack.mock, 'Console logs A');
      const b = await createTenant(admin, stack.mock, 'Console logs B');
      const name = `console logs A ${randomUUID().slice(0, 8)}`;
      const keyA = await admin.post('/api-keys/workspace/service', {
        name,
        workspace_id: a.workspaceId,
        scopes: ['completions.write', 'logs.list', 'logs.view', 'feedback.create', 'feedback.list'],
      });
      const gatewayKeyB = await admin.post('/api-keys/workspace/service', {
        name: 'console logs B gateway',
        workspace_id: b.workspaceId,
        scopes: ['completions.write'],
      });
      const consoleKeyB = await admin.post('/api-keys/workspace/service', {
        name: 'console logs B reader',
        workspace_id: b.workspaceId,
        scopes: ['logs.list', 'logs.view', 'feedback.list'],
      });
      await use({
        stack,
        a,
        b,
        keyA: { id: keyA.id, key: keyA.key, name },
        gatewayKeyB: gatewayKeyB.key,
        consoleKeyB: consoleKeyB.key,
      });
    },
    { scope: 'file' },
  ],
});

/** A chat completion through the gateway with `traceId` and `content`; the key must be synced. */
async function chat(world: World, tenant: Tenant, key: string, traceId: string, content: string) {
  const res = await fetch(`${world.stack.gatewayBase}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-api-key': key,
      'x-service-provider': tenant.provider,
      'x-service-trace-id': traceId,
    },
    body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content }], max_tokens: 3 }),
    signal: AbortSignal.timeout(10_000),
  });
  expect(res.status).toBe(200);
  await res.text();
}

/** The stored log ids of a trace's served requests, once there are `count` of them (admin view). */
async function storedLogs(world: World, traceId: string, count: number): Promise<string[]> {
  const { value } = await pollUntil(
    async () =>
      world.stack.admin.call('GET', `/logs?trace_id=${encodeURIComponent(traceId)}&status_code=200`),
    (reply) => reply.status === 200 && reply.body.data.length === count,
    { boundMs: 20_000, intervalMs: 100, what: `${count} stored logs of ${traceId}` },
  );
  return value.body.data.map((log: { id: string }) => log.id);
}

/** Clicks the page's Refresh until `probe` holds (the logger and audit ingest asynchronously). */
async function refreshUntil<T>(page: Page, probe: () => Promise<T>, expected: T): Promise<void> {
  await expect
    .poll(
      async () => {
        await page.getByRole('button', { name: 'Refresh' }).click();
        await page.locator('table[aria-busy="false"]').first().waitFor();
        return probe();
      },
      { timeout: 20_000, interval: 200 },
    )
    .toEqual(expected);
}

const rowsOf = (page: Page, text: string) => page.getByTestId('log-row').filter({ hasText: text });
const settled = (page: Page, testId: string) =>
  page.locator(`[data-testid="${testId}"][aria-busy="false"]`).waitFor();

describe('the console logs, audit and feedback pages', () => {
  test('a request made through the gateway is listed, found by trace id, filtered, and opens in detail with its body and feedback', async ({
    world,
    browser,
  }) => {
    const { stack, a, keyA } = world;
    const warmup = `console-warmup-${randomUUID()}`;
    await chatUntilServed(stack, a, keyA.key, warmup);
    const traceId = `console-trace-${randomUUID()}`;
    const content = '<img src=x data-testid="injected"><b>bold?</b> hello from the console test';
    await chat(world, a, keyA.key, traceId, content);

    const console = await openConsole(browser, stack.controlPlaneBase);
    const { page } = console;
    await signIn(page, stack.admin.key);
    await page
      .getByRole('navigation', { name: 'pages' })
      .getByRole('link', { name: 'Logs', exact: true })
      .click();
    await page.waitForURL(/\/console\/logs$/);
    // The logger stores the request about a second after it is served.
    await refreshUntil(page, () => rowsOf(page, traceId).count(), 1);
    const listed = rowsOf(page, traceId);
    await expect
      .poll(() => listed.locator('td').allTextContents())
      .toEqual([
        expect.any(String),
        '200',
        a.provider.slice(1),
        'gpt-4o-mini',
        expect.stringMatching(/^\d+$/),
        expect.stringMatching(/^\$\d/),
        expect.stringMatching(/ms|s$/),
        traceId,
        expect.any(String),
      ]);

    // The trace-id search narrows the list to that trace and is kept in the URL.
    await page.getByRole('searchbox', { name: 'Trace ID' }).fill(traceId);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL((url) => url.searchParams.get('trace_id') === traceId);
    await settled(page, 'logs-table');
    await expect.poll(() => page.getByTestId('log-row').count()).toBe(1);
    expect(await rowsOf(page, warmup).count()).toBe(0);

    // Filters of the logs API, applied from the form, are in the URL too; a reload keeps them.
    await page.getByLabel('Status codes').fill('200');
    await page.getByLabel('Model').fill('gpt-4o-mini');
    await page.getByLabel('Time range').selectOption('1h');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((url) => url.searchParams.get('status_code') === '200');
    const url = new URL(page.url());
    expect(Object.fromEntries(url.searchParams)).toEqual({
      trace_id: traceId,
      status_code: '200',
      model: 'gpt-4o-mini',
      range: '1h',
    });
    await page.reload();
    await settled(page, 'logs-table');
    await expect.poll(() => page.getByTestId('log-row').count()).toBe(1);
    expect(await page.getByLabel('Status codes').inputValue()).toBe('200');
    expect(await page.getByRole('searchbox', { name: 'Trace ID' }).inputValue()).toBe(traceId);
    // A filter no log matches empties the list; a bad value is the API's error beside its field.
    await page.getByLabel('Model').fill('no-such-model');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => page.getByTestId('logs-empty').isVisible()).toBe(true);
    await page.getByLabel('Status codes').fill('2000');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect
      .poll(() => page.getByLabel('Status codes').getAttribute('aria-invalid'), { timeout: 10_000 })
      .toBe('true');
    expect(await page.locator('#status_code-error').textContent()).toContain('3-digit HTTP status');
    await page.getByLabel('Status codes').fill('200');
    await page.getByLabel('Model').fill('');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await settled(page, 'logs-table');
    await expect.poll(() => page.getByTestId('log-row').count()).toBe(1);
    await screenshot(page, 'logs-list');

    // The row opens the request's detail: its model and its request body, as text.
    await page.getByTestId('log-row').click();
    const [logId] = await storedLogs(world, traceId, 1);
    await page.waitForURL((u) => u.pathname === `/console/logs/${logId}`);
    await page.getByTestId('log-detail').waitFor();
    expect(await page.getByTestId('log-model').textContent()).toBe('gpt-4o-mini');
    const body = page.getByTestId('request-body');
    expect(JSON.parse((await body.textContent()) ?? '')).toEqual({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content }],
      max_tokens: 3,
    });
    expect(await page.getByTestId('injected').count()).toBe(0);
    expect(await page.locator('.log-detail b').count()).toBe(0);
    expect(await page.getByTestId('response-body').textContent()).toContain('"choices"');
    expect(await page.getByTestId('log-facts').textContent()).toContain(traceId);
    expect(await page.getByTestId('log-attempts').locator('tbody tr').count()).toBe(1);
    expect(await page.getByTestId('cache-status').textContent()).toMatch(/^(miss|disabled)/);
    expect(await page.getByTestId('log-feedback-empty').isVisible()).toBe(true);

    // Feedback given on the trace (a workspace key: admin keys may not give it) shows in the detail.
    const given = await callAs(stack, keyA.key, 'POST', '/feedback', {
      trace_id: traceId,
      value: 7,
      weight: 0.5,
      metadata: { source: 'console-e2e' },
    });
    expect(given.status, JSON.stringify(given.body)).toBe(201);
    await page.reload();
    await page.getByTestId('log-feedback').waitFor();
    expect(await page.getByTestId('log-feedback').locator('tbody tr').allTextContents()).toEqual([
      expect.stringMatching(/^70\.5source=console-e2e/),
    ]);
    await screenshot(page, 'log-detail');
    // Back to the list keeps its filters.
    await page.getByRole('link', { name: '← Back to logs' }).click();
    await page.waitForURL(
      (u) => u.pathname === '/console/logs' && u.searchParams.get('trace_id') === traceId,
    );

    // The feedback page lists it, filtered by value from its form; its trace links to the logs.
    await page.getByRole('navigation', { name: 'pages' }).getByRole('link', { name: 'Feedback' }).click();
    await page.waitForURL(/\/console\/feedback$/);
    await settled(page, 'feedback-table');
    await page.getByLabel('Min value (-10..10)').fill('7');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((u) => u.searchParams.get('min_value') === '7');
    await settled(page, 'feedback-table');
    const feedbackRows = page.getByTestId('feedback-row');
    await expect.poll(() => feedbackRows.count()).toBe(1);
    expect(await feedbackRows.first().textContent()).toContain(traceId);
    expect(await feedbackRows.first().textContent()).toContain('source=console-e2e');
    await page.getByLabel('Min value (-10..10)').fill('8');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((u) => u.searchParams.get('min_value') === '8');
    await settled(page, 'feedback-table');
    await expect.poll(() => feedbackRows.count()).toBe(0);
    await page.getByLabel('Min value (-10..10)').fill('7');
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await expect.poll(() => feedbackRows.count()).toBe(1);
    await screenshot(page, 'feedback');
    await feedbackRows.first().getByRole('link', { name: traceId }).click();
    await page.waitForURL(
      (u) => u.pathname === '/console/logs' && u.searchParams.get('trace_id') === traceId,
    );
    await expect.poll(() => rowsOf(page, traceId).count()).toBe(1);

    expectNoProblems(console, [/400 \(Bad Request\)/]);
    await console.close();
  });

  test('the logs list pages through the server with cursors; page size and page are in the URL', async ({
    world,
    browser,
  }) => {
    const { stack, a } = world;
    const pager = await stack.admin.post('/api-keys/workspace/service', {
      name: 'console pager',
      workspace_id: a.workspaceId,
      scopes: ['completions.write'],
    });
    const prefix = `console-page-${randomUUID().slice(0, 8)}`;
    await chatUntilServed(stack, a, pager.key, `${prefix}-00`);
    for (let i = 1; i < 12; i++)
      await chat(world, a, pager.key, `${prefix}-${String(i).padStart(2, '0')}`, `page ${i}`);
    await pollUntil(
      async () => stack.admin.call('GET', `/logs?api_key_id=${pager.id}&status_code=200&page_size=100`),
      (reply) => reply.status === 200 && reply.body.data.length === 12,
      { boundMs: 20_000, intervalMs: 100, what: 'the 12 paged requests stored' },
    );

    const console = await openConsole(browser, stack.controlPlaneBase);
    const { page } = console;
    await signIn(page, stack.admin.key);
    await page.goto(`/console/logs?api_key_id=${pager.id}&status_code=200`);
    await settled(page, 'logs-table');
    await expect.poll(() => page.getByTestId('log-row').count()).toBe(12);
    await page.getByLabel('Rows per page').selectOption('10');
    await page.waitForURL((u) => u.searchParams.get('page_size') === '10');
    await settled(page, 'logs-table');
    await expect.poll(() => page.getByTestId('log-row').count()).toBe(10);
    const traces = () => page.getByTestId('log-row').locator('code.trace-id').allTextContents();
    const first = await traces();
    // Newest first: the last request made is at the top.
    expect(first[0]).toBe(`${prefix}-11`);
    await page.getByRole('button', { name: 'Next →' }).click();
    await page.waitForURL((u) => u.searchParams.has('cursor'));
    await settled(page, 'logs-table');
    await expect.poll(() => page.getByTestId('log-row').count()).toBe(2);
    const second = await traces();
    expect(second).toEqual([`${prefix}-01`, `${prefix}-00`]);
    expect(second.filter((t) => first.includes(t))).toEqual([]);
    expect(await page.getByTestId('page-status').textContent()).toBe('Page 2 · 2 rows · last page');
    expect(await page.getByRole('button', { name: 'Next →' }).isDisabled()).toBe(true);
    // The page's URL opens the same page (a shared link); "first page" leads back.
    const secondUrl = page.url();
    await page.goto(secondUrl);
    await settled(page, 'logs-table');
    await expect.poll(traces).toEqual(second);
    await page.getByRole('button', { name: '⇤ First page' }).click();
    await page.waitForURL((u) => !u.searchParams.has('cursor'));
    await settled(page, 'logs-table');
    await expect.poll(traces).toEqual(first);
    await page.getByRole('button', { name: 'Next →' }).click();
    await page.waitForURL((u) => u.searchParams.has('cursor'));
    await expect.poll(traces).toEqual(second);
    await page.getByRole('button', { name: '← Previous' }).click();
    await page.waitForURL((u) => !u.searchParams.has('cursor'));
    await expect.poll(traces).toEqual(first);
    expectNoProblems(console);
    await console.close();
  });

  test("the audit log lists the test's own admin actions with their details", async ({ world, browser }) => {
    const { stack, keyA } = world;
    const console = await openConsole(browser, stack.controlPlaneBase);
    const { page } = console;
    await signIn(page, stack.admin.key);
    await page.getByRole('navigation', { name: 'pages' }).getByRole('link', { name: 'Audit log' }).click();
    await page.waitForURL(/\/console\/audit$/);
    await page.getByLabel('Actions').fill('api_keys.create');
    await page.getByLabel('Resource id').fill(keyA.id);
    await page.getByRole('button', { name: 'Apply filters' }).click();
    await page.waitForURL((u) => u.searchParams.get('resource_id') === keyA.id);
    const rows = page.getByTestId('audit-row');
    await refreshUntil(page, () => rows.count(), 1);
    const cells = await rows.first().locator('td').allTextContents();
    expect(cells.slice(1, 5)).toEqual([
      'api_keys.create',
      `api_key ${keyA.id}`,
      expect.any(String),
      'success 201',
    ]);
    await rows.first().getByRole('button', { name: 'Details' }).click();
    const detail = page.getByTestId('audit-detail');
    await detail.waitFor();
    expect(await detail.textContent()).toContain('POST /v1/api-keys/workspace/service');
    const details = JSON.parse((await page.getByTestId('audit-request-details').textContent()) ?? '');
    expect(JSON.stringify(details)).toContain(keyA.name);
    // The whole list (no filter) holds the other admin actions of this test too.
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.waitForURL((u) => u.search === '');
    // The URL changes before the list is fetched again, and the table is not busy yet in between
    // (`settled` alone read the filtered rows once, 2026-11-27): wait for the wider list itself.
    await expect
      .poll(() => page.getByTestId('audit-row').locator('td:nth-child(2)').allTextContents(), {
        timeout: 20_000,
        interval: 200,
      })
      .toEqual(expect.arrayContaining(['workspaces.create', 'integrations.create', 'api_keys.create']));
    await settled(page, 'audit-table');
    // The record opened before stays open in the wider list.
    expect(await rows.filter({ hasText: keyA.id }).getByRole('button', { name: 'Hide' }).count()).toBe(1);
    expect(await detail.isVisible()).toBe(true);
    await screenshot(page, 'audit');
    expectNoProblems(console);
    await console.close();
  });

  test("a workspace B key sees its workspace's requests and none of workspace A's, even by URL", async ({
    world,
    browser,
  }) => {
    const { stack, a, b, keyA } = world;
    const traceA = `console-a-${randomUUID()}`;
    const traceB = `console-b-${randomUUID()}`;
    await chatUntilServed(stack, a, keyA.key, traceA);
    await chatUntilServed(stack, b, world.gatewayKeyB, traceB);
    const [logA] = await storedLogs(world, traceA, 1);
    await storedLogs(world, traceB, 1);

    const console = await openConsole(browser, stack.controlPlaneBase);
    const { page } = console;
    await signIn(page, world.consoleKeyB);
    expect(await page.getByTestId('caller').textContent()).toContain('Console logs B');
    await page
      .getByRole('navigation', { name: 'pages' })
      .getByRole('link', { name: 'Logs', exact: true })
      .click();
    await settled(page, 'logs-table');
    await expect.poll(() => rowsOf(page, traceB).count()).toBe(1);
    // Both logs are stored (checked above): the list B sees has B's and not A's.
    const table = (await page.getByTestId('logs-table').textContent()) ?? '';
    expect(table).toContain(traceB);
    expect(table).not.toContain(traceA);
    expect(table).not.toContain('console-trace-');
    // No organisation-wide workspace filter is offered to a workspace caller.
    expect(await page.getByLabel('Workspace (id or slug)').count()).toBe(0);
    // Searching A's trace finds nothing.
    await page.getByRole('searchbox', { name: 'Trace ID' }).fill(traceA);
    await page.getByRole('button', { name: 'Search' }).click();
    await page.waitForURL((u) => u.searchParams.get('trace_id') === traceA);
    await settled(page, 'logs-table');
    await expect.poll(() => page.getByTestId('logs-empty').isVisible()).toBe(true);
    expect(await page.getByTestId('log-row').count()).toBe(0);
    // A's log opened by its URL is the API's not-found, and nothing of the log.
    await page.goto(`/console/logs/${logA}`);
    const error = page.getByTestId('error');
    await error.waitFor();
    expect(await error.textContent()).toMatch(/^404 AB08 /);
    expect(await page.getByTestId('log-detail').count()).toBe(0);
    const shown = (await page.locator('main').textContent()) ?? '';
    expect(shown).not.toContain(traceA);
    expect(shown).not.toContain('gpt-4o-mini');
    await screenshot(page, 'logs-workspace-b-refused');
    // Its feedback page lists only its workspace's feedback (none given in B).
    await page.getByRole('navigation', { name: 'pages' }).getByRole('link', { name: 'Feedback' }).click();
    await settled(page, 'feedback-table');
    expect(await page.getByTestId('feedback-row').count()).toBe(0);
    expect(await page.getByLabel('Workspace (id or slug)').count()).toBe(0);
    expectNoProblems(console, [/404 \(Not Found\)/]);
    await console.close();
  });
});
