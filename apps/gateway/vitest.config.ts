import { defaultServerConditions } from 'vite';
import { sharedConfig } from '../../vitest.shared.ts';

const config = sharedConfig({ services: true });
// Without vite's `module` condition, packages resolve as Node resolves them in production: the AWS
// SDK's @smithy packages would otherwise load their extensionless `dist-es` builds, which Node cannot.
const conditions = ['@aigw/source', ...defaultServerConditions.filter((c) => c !== 'module')];
config.resolve = { ...config.resolve, conditions };
config.ssr = { ...config.ssr, resolve: { ...config.ssr?.resolve, conditions } };

export default config;
