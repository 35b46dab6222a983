// Issue 22: the console is served by the control plane at /console with a strict CSP and caching
// headers, signs in with an admin or workspace key, and shows only the pages the caller's scopes
// allow. Real chromium, whole stack.
import { randomUUID } from 'node:crypto';
import { createApp as createControlPlane, loadControlPlaneConfig } from '@aigw/control-plane';
import { describe, expect } from 'vitest';
import { consoleTest, expectNoProblems, openConsole, screenshot, signIn } from './console.test-support.js';
import { AUDIENCE, ISSUER, startIssuer } from './jwt-issuer.test-support.js';
import { createTenant } from './logs-stack.test-support.js';

const test = consoleTest;

describe('the console shell', () => {
  test('served at /console with a strict CSP; hashed assets cached for a year, the page revalidated', async ({
    stack,
  }) => {
    const page = await fetch(`${stack.controlPlaneBase}/console/logs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(page.headers.get('content-security-policy')).not.toContain('unsafe-inline');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const html = await page.text();
    expect(html).not.toMatch(/<script>(?!<\/script>)|<script(?![^>]*\bsrc=)[^>]*>|style=/);
    const asset = html.match(/\/console\/assets\/[^"]+\.js/)?.[0];
    expect(asset).toBeDefined();
    const js = await fetch(`${stack.controlPlaneBase}${asset}`);
    expect(js.status).toBe(200);
    expect(js.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect((await fetch(`${stack.controlPlaneBase}/console/assets/missing.js`)).status).toBe(404);
    const redirect = await fetch(`${stack.controlPlaneBase}/console`, { redirect: 'manual' });
    expect([redirect.status, redirect.headers.get('location')]).toEqual([301, '/console/']);
  });

  test('an admin key signs in and sees every page; a wrong key is refused with the API message', async ({
    stack,
    browser,
  }) => {
    const console = await openConsole(browser, stack.controlPlaneBase);
    const { page } = console;
    await screenshot(page, 'sign-in');
    await page.getByLabel('API key or token').fill('aigw_not_a_real_key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect.poll(() => page.getByTestId('error').textContent()).toContain('401');
    await signIn(page, stack.admin.key);
    const menu = page.getByRole('navigation', { name: 'pages' });
    for (const title of ['Logs', 'Analytics', 'API keys', 'Configs', 'Policies', 'Audit log', 'Feedback'])
      await expect.poll(() => menu.getByRole('link', { name: title, exact: true }).count()).toBe(1);
    // The credential is in this tab's session storage only.
    const stored = await page.evaluate(() => ({
      session: Object.keys(sessionStorage),
      local: Object.keys(localStorage),
      cookies: (globalThis as unknown as { document: { cookie: string } }).document.cookie,
    }));
    expect(stored).toEqual({ session: ['aigw.console.credential'], local: [], cookies: '' });
    // A reload keeps the session; sign-out forgets it.
    await page.reload();
    await page.getByTestId('caller').waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key or token').waitFor();
    expect(await page.evaluate(() => Object.keys(sessionStorage))).toEqual([]);
    expectNoProblems(console, [/401 \(Unauthorized\)/]);
    await console.close();
  });

  test('a workspace key holding only logs.list sees only the logs page', async ({ stack, browser }) => {
    const tenant = await createTenant(stack.admin, stack.mock, 'Console shell');
    const key = await stack.admin.post('/api-keys/workspace/service', {
      name: 'logs reader',
      workspace_id: tenant.workspaceId,
      scopes: ['logs.list'],
    });
    const console = await openConsole(browser, stack.controlPlaneBase);
    await signIn(console.page, key.key);
    const menu = console.page.getByRole('navigation', { name: 'pages' });
    await expect.poll(() => menu.getByRole('link').allTextContents()).toEqual(['Logs']);
    expect(await console.page.getByTestId('caller').textContent()).toContain('Console shell');
    expectNoProblems(console);
    await console.close();
  });

  test('a workspace-bound JWT signs in as a bearer token and sees the pages its scopes allow', async ({
    stack,
    browser,
  }) => {
    const tenant = await createTenant(stack.admin, stack.mock, 'Console token');
    const organisation = (await stack.admin.expect(200, 'GET', '/organisation')) as { id: string };
    const issuer = await startIssuer();
    // A control plane of the same installation that also accepts tokens from this issuer.
    const plane = createControlPlane(
      loadControlPlaneConfig({
        ...stack.env,
        JWT_JWKS_URL: issuer.url,
        JWT_ISSUER: ISSUER,
        JWT_AUDIENCE: AUDIENCE,
      }),
    );
    await plane.start();
    try {
      const token = issuer.sign({
        sub: randomUUID(),
        organisation_id: organisation.id,
        workspace_id: tenant.workspaceId,
        role: 'manager',
        scope: 'logs.list analytics.view',
      });
      const console = await openConsole(browser, `http://127.0.0.1:${plane.ports.http}`);
      await signIn(console.page, token);
      const caller = await console.page.getByTestId('caller').textContent();
      expect(caller).toContain('Console token');
      expect(caller).toContain('(manager)');
      const menu = console.page.getByRole('navigation', { name: 'pages' });
      await expect.poll(() => menu.getByRole('link').allTextContents()).toEqual(['Logs', 'Analytics']);
      expect(
        await console.page.evaluate(
          () => JSON.parse(sessionStorage.getItem('aigw.console.credential') ?? '{}').kind,
        ),
      ).toBe('jwt');
      expectNoProblems(console);
      await console.close();
    } finally {
      await plane.stop();
      await issuer.close();
    }
  });
});
