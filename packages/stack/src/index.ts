// The local stack launcher, for `pnpm start` and the end-to-end tests.
export * from './apps.js';
export * from './process.js';
export * from './stack.js';
