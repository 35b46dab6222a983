import { sharedConfig } from '../vitest.shared.ts';

export default sharedConfig({ services: true, testTimeout: 60_000 });
