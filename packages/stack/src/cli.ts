#!/usr/bin/env node
// `pnpm start`: run the whole stack in the foreground until Ctrl-C or SIGTERM.
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startStack } from './stack.js';

const rootDir = fileURLToPath(new URL('../../..', import.meta.url));
const out = (line: string) => process.stdout.write(`${line}\n`);

try {
  const stack = await startStack({ rootDir, dataDir: join(rootDir, '.aigw'), env: process.env, out });
  let stopping: Promise<void> | undefined;
  const shutdown = (reason: string, exitCode: number) => {
    stopping ??= (async () => {
      out(`[stack] ${reason}: stopping`);
      const codes = await stack.stop();
      out(`[stack] stopped: ${JSON.stringify(codes)}`);
      process.exit(exitCode);
    })();
  };
  process.on('SIGINT', () => shutdown('SIGINT', 0));
  process.on('SIGTERM', () => shutdown('SIGTERM', 0));
  void stack.crashed.then(({ app, code }) => shutdown(`${app} exited unexpectedly (${code})`, 1));
} catch (err) {
  process.stderr.write(`[stack] cannot start: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
}
