// The settings reference cannot drift: docs/settings/<app>.md and apps/<app>/.env.example must be
// exactly what scripts/settings-docs.ts renders from each app's zod schema (`pnpm docs:settings`).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { APPS, generatedFiles, ROOT, renderEnvExample, settingRows } from '../../scripts/settings-docs.ts';

describe('the settings reference', () => {
  it.each(generatedFiles().map((file) => [file.path, file.content] as const))(
    '%s is what the schema generates',
    (path, generated) => {
      const committed = readFileSync(`${ROOT}${path}`, 'utf8');
      expect(committed, `${path} differs from the settings schema: run \`pnpm docs:settings\``).toBe(
        generated,
      );
    },
  );

  it('lists every setting of each schema once, each with a description', () => {
    for (const app of APPS) {
      const rows = settingRows(app);
      const names = rows.map((row) => row.name);
      expect(new Set(names).size).toBe(names.length);
      expect(names).toEqual(Object.keys((app.schema as { shape: object }).shape));
      for (const row of rows) expect([row.name, row.description.length > 10]).toEqual([row.name, true]);
    }
    const gateway = settingRows(APPS.find((app) => app.app === 'gateway') ?? APPS[0]!);
    expect(gateway.find((row) => row.name === 'EVENT_SPOOL_MAX_BYTES')).toMatchObject({
      type: 'integer 0..68719476736',
      defaultValue: String(256 * 1024 * 1024),
      required: false,
    });
  });

  it('refuses a setting without a description, naming it and where to add one', () => {
    const app = {
      app: 'logger' as const,
      title: 'Logger',
      page: 'logger.md',
      schema: z.object({
        DESCRIBED: z.string().describe('A described setting.'),
        BARE: z.string().default('x'),
      }),
    };
    expect(() => renderEnvExample(app)).toThrow(
      'logger: settings without a description: BARE (add .describe() in apps/logger/src/config.ts)',
    );
  });
});
