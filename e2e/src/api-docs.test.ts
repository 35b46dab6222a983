// The console's typed client cannot drift from the admin API: apps/console/src/api/schema.d.ts must
// be exactly what scripts/api-docs.ts generates from the routes' OpenAPI document (`pnpm docs:api`).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedApiFiles, ROOT } from '../../scripts/api-docs.ts';

describe("the console's API types", () => {
  it('are what the OpenAPI document generates', async () => {
    const files = await generatedApiFiles();
    expect(files.map((f) => f.path)).toEqual(['apps/console/src/api/schema.d.ts']);
    for (const file of files) {
      const committed = readFileSync(`${ROOT}${file.path}`, 'utf8');
      expect(committed === file.content, `${file.path} is stale: run \`pnpm docs:api\``).toBe(true);
      expect(committed).toContain('"/logs": {');
    }
  });
});
