// Which way dependencies may point (docs/decisions.md, "Dependencies point one way"), checked by
// `pnpm lint:deps` in `pnpm test`: apps -> packages -> packages/proto, no app imports another app,
// no package imports an app, no import reaches into another workspace package's files, and no
// import cycle, neither between modules nor between the top-level folders of an app or package.
// Folder cycles are checked on production code alone by .dependency-cruiser.folders.cjs.

/** Tests, test support and benches: held to the boundaries, not to the module-cycle rule. */
const TEST_CODE = '\\.(test|int\\.test|bench)\\.ts$|\\.test-support\\.ts$|/test/|/bench/';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-module-cycle',
      severity: 'error',
      comment: 'A module must not depend on itself through others: split the shared part out.',
      from: { pathNot: TEST_CODE },
      to: { circular: true },
    },
    {
      name: 'no-app-to-app',
      severity: 'error',
      comment: 'Apps talk through proto contracts (gRPC, NATS), never through each other’s code.',
      from: { path: '^apps/([^/]+)/' },
      to: { path: '^apps/', pathNot: '^apps/$1/' },
    },
    {
      name: 'no-package-to-app',
      severity: 'error',
      comment: 'Packages are libraries the apps use; they never depend on an app.',
      from: { path: '^packages/' },
      to: { path: '^apps/' },
    },
    {
      name: 'no-reaching-into-another-package',
      severity: 'error',
      comment:
        'Another workspace package is used through its name and exports, never by a relative path. ' +
        'Benches are the exception: the gateway bench starts the whole stack as `pnpm start` does, and ' +
        'a package dependency on @aigw/stack would make the build graph cyclic (stack builds the apps).',
      from: { path: '^(apps|packages)/([^/]+)/', pathNot: '^apps/[^/]+/bench/' },
      to: { dependencyTypes: ['local'], path: '^(apps|packages)/', pathNot: '^$1/$2/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules|coverage|testdata)/|\\.d\\.ts$' },
    // Type-only imports count: a cycle through types is still a cycle of knowledge.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.base.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['@aigw/source', 'import', 'require', 'node', 'default'],
      extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'],
      mainFields: ['module', 'main', 'types'],
    },
  },
};
