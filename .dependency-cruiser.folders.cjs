// Folder cycles in production code (`pnpm lint:deps`, after .dependency-cruiser.cjs): the folders of
// an app or package depend one way (the gateway: pipeline -> routing -> upstream -> formats, never
// back). Tests, test support and benches are left out (a test may reach across folders), and so are
// each app's composition root (app.ts, main.ts, index.ts), which depends on every folder by design
// while its folders depend on src/config.ts and src/errors.ts beside it.
const base = require('./.dependency-cruiser.cjs');

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-folder-cycle',
      severity: 'error',
      comment:
        'Folders of an app or package depend one way. A loop between two folders means one holds what belongs to the other.',
      scope: 'folder',
      from: { path: '^(apps|packages)/[^/]+/src/[^/]+' },
      to: { circular: true },
    },
  ],
  options: {
    ...base.options,
    exclude: {
      path: [
        base.options.exclude.path,
        '\\.(test|int\\.test|bench)\\.ts$',
        '\\.test-support\\.ts$',
        '/test/',
        '/bench/',
        '^apps/[^/]+/src/(app|main|index)\\.ts$',
      ].join('|'),
    },
  },
};
