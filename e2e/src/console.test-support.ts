// The web console in a real browser: Debian's chromium driven by playwright-core (its executable,
// never a downloaded one), against the whole stack (logs stack: gateway, control plane serving
// /console, logger, mock provider). Every page records console errors and CSP violations, which the
// tests assert are none; screenshots go to artifacts/console/ (git-ignored).
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { test as base } from '@aigw/testkit';
import { type Browser, chromium, type Page } from 'playwright-core';
import { expect } from 'vitest';
import { type LogsStack, startLogsStack } from './logs-stack.test-support.js';

const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];
export const ARTIFACTS = fileURLToPath(new URL('../../artifacts/console/', import.meta.url));

/** CHROMIUM_PATH, else the first installed candidate; a clear failure when there is none. */
export function chromiumPath(): string {
  const path = process.env.CHROMIUM_PATH ?? CANDIDATES.find((candidate) => existsSync(candidate));
  if (!path)
    throw new Error(
      `no chromium found (tried ${CANDIDATES.join(', ')}): apt-get install -y chromium, or set CHROMIUM_PATH`,
    );
  return path;
}

export async function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    headless: true,
    // As root (CI) chromium's sandbox cannot start; the pages are our own.
    args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
  });
}

export interface ConsolePage {
  readonly page: Page;
  /** Console errors, page errors and CSP violations seen so far. */
  readonly problems: string[];
  close(): Promise<void>;
}

export async function openConsole(browser: Browser, controlPlaneBase: string): Promise<ConsolePage> {
  const context = await browser.newContext({
    baseURL: controlPlaneBase,
    viewport: { width: 1400, height: 900 },
  });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console: ${message.text()}`);
  });
  page.on('pageerror', (error) => problems.push(`page: ${error.message}`));
  await page.goto('/console/');
  return { page, problems, close: () => context.close() };
}

/** Signs in with a key or token through the form, and waits for the signed-in shell. */
export async function signIn(page: Page, credential: string): Promise<void> {
  await page.getByLabel('API key or token').fill(credential);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('caller').waitFor();
}

/**
 * Expected HTTP failures the page's own calls produce (a refused key) show as console errors in
 * Chromium; `allowed` names those a test provokes on purpose.
 */
export function expectNoProblems(console: ConsolePage, allowed: RegExp[] = []): void {
  expect(console.problems.filter((p) => !allowed.some((re) => re.test(p)))).toEqual([]);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });
}

/**
 * `test` with the file's logs stack (`stack`, its gateway's limits on the testkit's real Redis, as
 * in a deployment) and one chromium for the file (`browser`).
 */
export const consoleTest = base.extend<{ stack: LogsStack; browser: Browser }>({
  stack: [
    async ({ pg, nats, redis }, use) => {
      const stack = await startLogsStack({ pg, nats }, { REDIS_URL: redis.url });
      try {
        await use(stack);
      } finally {
        await stack.close();
      }
    },
    { scope: 'file' },
  ],
  browser: [
    // biome-ignore lint/correctness/noEmptyPattern: vitest fixtures take their dependencies first
    async ({}, use) => {
      const browser = await launchChromium();
      try {
        await use(browser);
      } finally {
        await browser.close();
      }
    },
    { scope: 'file' },
  ],
});

/**
 * The gateway's status for one chat completion with `key` through `provider` (`@slug`), with a
 * trace id when given (analytics groups by it).
 */
export async function gatewayStatus(
  stack: LogsStack,
  key: string,
  provider: string,
  traceId?: string,
): Promise<number> {
  const res = await fetch(`${stack.gatewayBase}/v1/chat/completions`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'x-service-api-key': key,
      'x-service-provider': provider,
      ...(traceId === undefined ? {} : { 'x-service-trace-id': traceId }),
    },
    body: JSON.stringify({
      model: 'gpt-4o-mini',
      messages: [{ role: 'user', content: 'hi' }],
      max_tokens: 3,
    }),
    signal: AbortSignal.timeout(10_000),
  });
  await res.arrayBuffer();
  return res.status;
}
