// One vitest baseline for every package: workspace imports resolve to TypeScript sources
// (the "@aigw/source" export condition), and packages that need real services opt into the
// testkit global setup, which starts Postgres, Redis and NATS once per run.
import { fileURLToPath } from 'node:url';
import { defaultServerConditions } from 'vite';
import { defineConfig, type ViteUserConfig } from 'vitest/config';

// Without vite's `module` condition packages resolve as Node resolves them in production: the AWS
// SDK's @smithy packages would otherwise load their extensionless `dist-es` builds, which Node cannot.
const conditions = ['@aigw/source', ...defaultServerConditions.filter((c) => c !== 'module')];
const globalSetup = fileURLToPath(new URL('./packages/testkit/src/global-setup.ts', import.meta.url));

export interface SharedOptions {
  /** Start real Postgres, Redis and NATS for this package's tests (see packages/testkit). */
  services?: boolean;
  /** Per-test timeout in ms (default 20 s: tests talk to real servers). */
  testTimeout?: number;
  /** Test files (default: src and test `*.test.ts`). */
  include?: string[];
}

export function sharedConfig(options: SharedOptions = {}): ViteUserConfig {
  return defineConfig({
    resolve: { conditions },
    ssr: { resolve: { conditions } },
    test: {
      include: options.include ?? ['src/**/*.test.ts', 'test/**/*.test.ts'],
      benchmark: { include: ['src/**/*.bench.ts'] },
      testTimeout: options.testTimeout ?? 20_000,
      hookTimeout: 60_000,
      globalSetup: options.services ? [globalSetup] : [],
      pool: 'forks',
      reporters: ['default'],
    },
  });
}
