// The console is built once into dist/ and served by the control plane at /console: hashed file
// names under /console/assets (cached for a year), no inline script or style (the control plane's
// Content-Security-Policy allows only 'self'), JSX compiled for Preact by esbuild (no Babel).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  base: '/console/',
  esbuild: { jsx: 'automatic', jsxImportSource: 'preact' },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // The module-preload polyfill would be an inline script; every browser the console supports
    // has modulepreload.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
  },
  test: {
    include: ['src/**/*.test.ts'],
  },
});
