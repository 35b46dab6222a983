// The dependency rule of `pnpm lint:deps` catches what it is for: run with the repository's own rule
// files over a fixture tree holding one of each violation (testdata/dependency-rule), it reports a
// folder loop, a module cycle, an app importing another app and a package importing an app (each by
// a relative path, which is itself reaching into another package), and nothing else.
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { cruise, type IConfiguration, type ICruiseResult } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

const require = createRequire(import.meta.url);
const repo = fileURLToPath(new URL('../..', import.meta.url));
const fixture = fileURLToPath(new URL('../testdata/dependency-rule', import.meta.url));
const modules = require(`${repo}.dependency-cruiser.cjs`) as IConfiguration;
const folders = require(`${repo}.dependency-cruiser.folders.cjs`) as IConfiguration;

async function violations(config: IConfiguration): Promise<string[]> {
  const result = await cruise(['apps', 'packages'], {
    baseDir: fixture,
    ruleSet: { forbidden: config.forbidden ?? [] },
    validate: true,
    tsPreCompilationDeps: true,
    // The repository's own runs leave testdata out; here it is the tree under test.
    exclude: { path: '(^|/)node_modules/' },
  });
  const output = result.output as ICruiseResult;
  return [...new Set((output.summary.violations ?? []).map((v) => v.rule.name))].sort();
}

describe('the dependency rule', () => {
  it('reports a module cycle, an app importing another app and a package importing an app (by relative paths, so that too)', async () => {
    expect(await violations(modules)).toEqual([
      'no-app-to-app',
      'no-module-cycle',
      'no-package-to-app',
      'no-reaching-into-another-package',
    ]);
  });

  it('reports a loop between two folders of an app even without a module cycle', async () => {
    expect(await violations(folders)).toEqual(['no-folder-cycle']);
  });
});
