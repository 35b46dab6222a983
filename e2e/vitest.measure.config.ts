// Measurements run by `pnpm bench`, never by `pnpm test`: they print numbers and assert only that
// every path answers the same (docs/decisions.md says which decision each one backs).
import type { ViteUserConfig } from 'vitest/config';
import { sharedConfig } from '../vitest.shared.ts';

const config = sharedConfig({ services: true, testTimeout: 300_000 });
const measure: ViteUserConfig = { ...config, test: { ...config.test, include: ['src/**/*.measure.ts'] } };
export default measure;
