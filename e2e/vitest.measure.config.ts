// Measurements run by `pnpm bench`, never by `pnpm test`: they print numbers and assert only that
// every path answers the same (docs/decisions.md says which decision each one backs).
import { sharedConfig } from '../vitest.shared.ts';

export default sharedConfig({ services: true, testTimeout: 300_000, include: ['src/**/*.measure.ts'] });
