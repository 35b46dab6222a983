import { defineConfig, mergeConfig } from 'vitest/config';
import { sharedConfig } from '../../vitest.shared.ts';

// The checks live in check/ (the rest of this folder is manifests).
export default mergeConfig(
  sharedConfig({ services: false }),
  defineConfig({ test: { include: ['check/**/*.test.ts'] } }),
);
