// Serves the web console (apps/console, built by `pnpm build`) at /console: static files only, the
// console holds no privilege of its own and calls /v1 with the signed-in caller's credential.
// Hashed assets are cached for a year; the page itself is revalidated on every load, so a release
// takes effect at once. Every answer carries a strict Content-Security-Policy: scripts, styles and
// connections from this origin only, nothing inline, no framing.
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { AppError, type Logger } from '@aigw/runtime';
import express, { type Express, type RequestHandler } from 'express';

export const CONSOLE_PATH = '/console';

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The built console of the @aigw/console package (its dist/ folder). */
export function defaultConsoleDir(): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@aigw/console/package.json')), 'dist');
}

const securityHeaders: RequestHandler = (_req, res, next) => {
  res.setHeader('content-security-policy', CONSOLE_CSP);
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('referrer-policy', 'no-referrer');
  res.setHeader('x-frame-options', 'DENY');
  res.setHeader('cross-origin-opener-policy', 'same-origin');
  next();
};

export function mountConsole(app: Express, options: { dir: string; log: Logger }): void {
  const index = join(options.dir, 'index.html');
  const built = existsSync(index);
  if (!built)
    options.log.warn(
      { dir: options.dir },
      'the web console is not built (run `pnpm build`): /console answers 503',
    );
  const router = express.Router();
  router.use(securityHeaders);
  if (!built) {
    router.use((_req, _res, next) =>
      next(
        new AppError(
          503,
          'server_error',
          'the web console is not built on this control plane (run `pnpm build`)',
          {
            code: 'console_not_built',
          },
        ),
      ),
    );
  } else {
    router.use(
      '/assets',
      express.static(join(options.dir, 'assets'), {
        immutable: true,
        maxAge: '365d',
        index: false,
        fallthrough: false,
      }),
    );
    // Every other path is a page of the single-page app: the same index.html, never cached stale.
    router.get(/.*/, (_req, res) => {
      res.setHeader('cache-control', 'no-cache');
      res.sendFile(index);
    });
  }
  // `/console` without its slash: relative asset paths need the slash (express also matches
  // `/console/` here, which goes on to the page).
  app.get(CONSOLE_PATH, (req, res, next) => {
    if (new URL(req.originalUrl, 'http://x').pathname === CONSOLE_PATH) res.redirect(301, `${CONSOLE_PATH}/`);
    else next();
  });
  app.use(CONSOLE_PATH, router);
}
