// What the console knows of the admin API cannot drift: apps/console/src/api/schema.d.ts and
// catalogue.ts must be exactly what scripts/api-docs.ts generates from the control plane (`pnpm docs:api`).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedApiFiles, ROOT } from '../../scripts/api-docs.ts';

describe("the console's API types", () => {
  it('are what the OpenAPI document generates', async () => {
    const files = await generatedApiFiles();
    expect(files.map((f) => f.path)).toEqual([
      'apps/console/src/api/schema.d.ts',
      'apps/console/src/api/catalogue.ts',
    ]);
    expect(files[0]?.content).toContain('"/logs": {');
    expect(files[1]?.content).toContain("'logs.list'");
    expect(files[1]?.content).toContain("'openai-compatible'");
    for (const file of files) {
      const committed = readFileSync(`${ROOT}${file.path}`, 'utf8');
      expect(committed === file.content, `${file.path} is stale: run \`pnpm docs:api\``).toBe(true);
    }
  });
});
