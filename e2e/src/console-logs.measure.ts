// Issue 22 "pages stay responsive with 100,000 logs in the store": the console's logs page in real
// chromium against the whole stack with 100,000 request logs stored (request events published as the
// gateway publishes them, ingested by the logger; one every 850 ms over the last day). Measures the time from
// the user's action to the rendered rows for: the first page, a trace-id search, the next page, a
// filtered view (status, model, last hour), and a log's detail. Part of `pnpm bench` (e2e's bench
// script runs src/*.measure.ts); it asserts only that each view shows what it should, and prints
// the numbers (docs/console.md "Logs" quotes them).
import { randomUUID } from 'node:crypto';
import { CacheStatus, RequestEvent, RequestEventBatch, SCHEMA_VERSION } from '@aigw/proto';
import { type NatsFixture, test } from '@aigw/testkit';
import type { Page } from 'playwright-core';
import { describe, expect } from 'vitest';
import { launchChromium, openConsole, signIn } from './console.test-support.js';
import { createTenant, pollUntil, startLogsStack } from './logs-stack.test-support.js';

const ROWS = 100_000;
const ROUNDS = 5;

/**
 * `count` request events as the gateway publishes them (batches of 500 on the requests subject),
 * for the logger to ingest: one every 850 ms back from now, trace `bulk-<n>`, the given tenant.
 */
async function publishLogs(
  nats: NatsFixture,
  tenant: { organisationId: string; workspaceId: string; apiKeyId: string; provider: string },
  count: number,
) {
  const now = Date.now();
  for (let from = 0; from < count; from += 500) {
    const events = Array.from({ length: Math.min(500, count - from) }, (_, k) => {
      const n = from + k + 1;
      const received = now - n * 850;
      const input = 10 + (n % 7);
      const output = 5 + (n % 11);
      const body = JSON.stringify({
        model: 'gpt-4o-mini',
        messages: [{ role: 'user', content: `bulk ${n}` }],
      });
      return RequestEvent.fromPartial({
        schemaVersion: SCHEMA_VERSION,
        id: randomUUID(),
        traceId: `bulk-${n}`,
        receivedAtMs: received,
        completedAtMs: received + 40,
        organisationId: tenant.organisationId,
        workspaceId: tenant.workspaceId,
        apiKeyId: tenant.apiKeyId,
        provider: { type: 'openai', slug: tenant.provider, providerId: '', integrationId: '' },
        modelRequested: n % 3 === 0 ? 'gpt-4o' : 'gpt-4o-mini',
        modelServed: n % 3 === 0 ? 'gpt-4o' : 'gpt-4o-mini',
        method: 'POST',
        path: '/chat/completions',
        statusCode: n % 10 === 0 ? 429 : 200,
        cacheStatus: n % 4 === 0 ? CacheStatus.HIT : CacheStatus.MISS,
        tokens: {
          inputTokens: input,
          outputTokens: output,
          totalTokens: input + output,
          cachedInputTokens: 0,
        },
        cost: { amountMicros: 100 + (n % 13) * 10, currency: 'USD' },
        metadata: { _user: `user-${n % 4}` },
        latency: {
          totalUs: 1000 + (n % 17) * 250,
          timeToFirstByteUs: 400,
          upstreamUs: 900,
          gatewayOverheadUs: 100,
        },
        attempts: [{ model: 'gpt-4o-mini', statusCode: n % 10 === 0 ? 429 : 200 }],
        requestBody: { data: Buffer.from(body), contentType: 'application/json', sizeBytes: body.length },
        requestSizeBytes: body.length,
      });
    });
    const payload = RequestEventBatch.encode({ schemaVersion: SCHEMA_VERSION, events }).finish();
    await nats.js.publish(`${nats.prefix}.aigw.requests.v1`, payload, { msgID: `bulk-${from}` });
  }
}

/** Milliseconds from `act` to the logs table showing `rows` rows for which `done` holds. */
async function timed(
  page: Page,
  act: () => Promise<unknown>,
  rows: number,
  done: () => Promise<boolean> = async () => true,
): Promise<number> {
  const start = performance.now();
  await act();
  await expect
    .poll(async () => (await page.getByTestId('log-row').count()) === rows && (await done()), { interval: 5 })
    .toBe(true);
  return performance.now() - start;
}

async function median(run: () => Promise<number>): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < ROUNDS; i++) times.push(await run());
  times.sort((a, b) => a - b);
  return Math.round(times[Math.floor(times.length / 2)]!);
}

describe('the console logs page with 100,000 logs stored', () => {
  test('first page, trace search, next page, filters and detail stay fast', async ({ pg, nats }) => {
    const stack = await startLogsStack({ pg, nats });
    const browser = await launchChromium();
    try {
      const tenant = await createTenant(stack.admin, stack.mock, 'Console measure');
      const key = await stack.admin.post('/api-keys/workspace/service', {
        name: 'measure',
        workspace_id: tenant.workspaceId,
        scopes: ['completions.write'],
      });
      const started = performance.now();
      await publishLogs(
        nats,
        {
          organisationId: (await stack.admin.expect(200, 'GET', '/organisation')).id,
          workspaceId: tenant.workspaceId,
          apiKeyId: key.id,
          provider: tenant.provider.slice(1),
        },
        ROWS,
      );
      const stored = async () =>
        Number(
          (await pg.pool.query("select count(*) as n from logs.request_logs where trace_id like 'bulk-%'"))
            .rows[0].n,
        );
      await pollUntil(stored, (n) => n === ROWS, {
        boundMs: 240_000,
        intervalMs: 1000,
        what: `${ROWS} logs stored`,
      });
      const seeded = Math.round(performance.now() - started);
      await pg.pool.query('analyze logs.request_logs');

      const console = await openConsole(browser, stack.controlPlaneBase);
      const { page } = console;
      await signIn(page, stack.admin.key);
      const firstPage = await median(() => timed(page, () => page.goto('/console/logs'), 50));
      const settled = () => page.locator('[data-testid="logs-table"][aria-busy="false"]').waitFor();
      const search = await median(async () => {
        await page.goto('/console/logs');
        await settled();
        await page.getByRole('searchbox', { name: 'Trace ID' }).fill('bulk-54321');
        return timed(
          page,
          () => page.getByRole('button', { name: 'Search' }).click(),
          1,
          async () => ((await page.getByTestId('log-row').textContent()) ?? '').includes('bulk-54321'),
        );
      });
      const nextPage = await median(async () => {
        await page.goto('/console/logs?page_size=200');
        await settled();
        await expect.poll(() => page.getByTestId('log-row').count()).toBe(200);
        const first = await page.getByTestId('log-row').first().textContent();
        return timed(
          page,
          () => page.getByRole('button', { name: 'Next →' }).click(),
          200,
          async () => (await page.getByTestId('log-row').first().textContent()) !== first,
        );
      });
      const filtered = await median(() =>
        timed(
          page,
          () => page.goto('/console/logs?status_code=200&model=gpt-4o-mini&range=1h&page_size=100'),
          100,
        ),
      );
      const detail = await median(async () => {
        await page.goto('/console/logs?trace_id=bulk-77777');
        await expect.poll(() => page.getByTestId('log-row').count()).toBe(1);
        const start = performance.now();
        await page.getByTestId('log-row').click();
        await page.getByTestId('request-body').waitFor();
        return performance.now() - start;
      });
      await console.close();
      globalThis.console.log(
        `console logs page, ${ROWS} logs stored (published and ingested in ${seeded} ms), median of ${ROUNDS} (ms): ` +
          JSON.stringify({ firstPage, traceSearch: search, nextPage200: nextPage, filtered, detail }),
      );
    } finally {
      await browser.close();
      await stack.close();
    }
  });
});
