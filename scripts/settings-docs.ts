// The settings reference of each app, generated from its zod schema (apps/<app>/src/config.ts) so
// the docs cannot drift from the code: docs/settings/<app>.md (a table) and apps/<app>/.env.example.
// `pnpm docs:settings` writes both; e2e/src/settings-docs.test.ts (in `pnpm test`) fails when the
// committed files differ from what this renders. Every setting needs a `.describe()` text.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { settingsSchema as controlPlaneSettings } from '../apps/control-plane/src/config.ts';
import { settingsSchema as gatewaySettings } from '../apps/gateway/src/config.ts';
import { settingsSchema as loggerSettings } from '../apps/logger/src/config.ts';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

interface AppSettings {
  readonly app: 'gateway' | 'control-plane' | 'logger';
  readonly title: string;
  /** The app's own page (what the settings do in context). */
  readonly page: string;
  readonly schema: unknown;
}

export const APPS: readonly AppSettings[] = [
  { app: 'gateway', title: 'Gateway', page: 'gateway.md', schema: gatewaySettings },
  { app: 'control-plane', title: 'Control plane', page: 'control-plane.md', schema: controlPlaneSettings },
  { app: 'logger', title: 'Logger', page: 'logger.md', schema: loggerSettings },
];

export interface SettingRow {
  readonly name: string;
  readonly type: string;
  /** The default as it would be written in the environment; undefined: none. */
  readonly defaultValue: string | undefined;
  readonly required: boolean;
  readonly description: string;
  /** An example value, for settings without a default (`.meta({ examples })`). */
  readonly example: string | undefined;
}

/** The zod internals read here (zod 4): each schema's `_zod.def`. */
interface ZodLike {
  readonly _zod: { readonly def: Record<string, unknown> & { readonly type: string } };
  readonly description?: string;
  meta?(): Record<string, unknown> | undefined;
  readonly shape?: Record<string, ZodLike>;
  readonly minValue?: number | null;
  readonly maxValue?: number | null;
  readonly isInt?: boolean;
  readonly options?: readonly string[];
  readonly format?: string | null;
}

/** One row per setting, in the order of the schema; throws naming settings without a description. */
export function settingRows(app: AppSettings): SettingRow[] {
  const shape = (app.schema as ZodLike).shape;
  if (!shape) throw new Error(`${app.app}: settingsSchema is not a zod object`);
  const undescribed: string[] = [];
  const rows = Object.entries(shape).map(([name, schema]) => {
    const description = (schema.description ?? '').replace(/\s+/g, ' ').trim();
    if (description === '') undescribed.push(name);
    let node = schema;
    let defaultValue: string | undefined;
    let optional = false;
    // Wrappers: default, optional and pipes (transforms), outside in.
    for (;;) {
      const def = node._zod.def;
      if (def.type === 'default') {
        defaultValue ??= envValue(def.defaultValue);
        node = def.innerType as ZodLike;
      } else if (def.type === 'optional') {
        optional = true;
        node = def.innerType as ZodLike;
      } else if (def.type === 'pipe') {
        node = def.in as ZodLike;
      } else break;
    }
    const examples = schema.meta?.()?.examples;
    return {
      name,
      type: typeName(node),
      defaultValue,
      required: !optional && defaultValue === undefined,
      description,
      example: Array.isArray(examples) && examples.length > 0 ? String(examples[0]) : undefined,
    };
  });
  if (undescribed.length > 0) {
    throw new Error(
      `${app.app}: settings without a description: ${undescribed.join(', ')} (add .describe() in apps/${app.app}/src/config.ts)`,
    );
  }
  return rows;
}

function envValue(value: unknown): string {
  return Array.isArray(value) ? value.join(',') : String(value);
}

function typeName(node: ZodLike): string {
  const def = node._zod.def;
  switch (def.type) {
    case 'number': {
      const base = node.isInt ? 'integer' : 'number';
      const min = node.minValue;
      const max = node.maxValue;
      const finite = (n: number | null | undefined): n is number =>
        typeof n === 'number' && Number.isFinite(n) && Math.abs(n) < Number.MAX_SAFE_INTEGER;
      if (finite(min) && finite(max)) return `${base} ${min}..${max}`;
      if (finite(min)) return `${base} ≥ ${min}`;
      return base;
    }
    case 'string':
      if (node.format === 'email') return 'e-mail address';
      if (node.format === 'url') return 'URL';
      return 'string';
    case 'enum':
      return `one of ${(node.options ?? []).map((o) => `\`${o}\``).join(', ')}`;
    case 'boolean':
      return 'boolean';
    default:
      return def.type;
  }
}

const MiB = 1024 * 1024;

/** The default for a reader: `268435456 (256 MiB)`, `600000 (10 min)`. */
function readableDefault(name: string, value: string): string {
  const n = Number(value);
  if (value === '') return 'empty';
  if (!Number.isFinite(n) || n === 0) return `\`${value}\``;
  if (name.endsWith('_BYTES') && n >= MiB && n % MiB === 0) {
    return `\`${value}\` (${n >= 1024 * MiB && n % (1024 * MiB) === 0 ? `${n / (1024 * MiB)} GiB` : `${n / MiB} MiB`})`;
  }
  if (name.endsWith('_BYTES') && n >= 1024 && n % 1024 === 0) return `\`${value}\` (${n / 1024} KiB)`;
  if (name.endsWith('_MS') && n >= 60_000 && n % 60_000 === 0) {
    return `\`${value}\` (${n >= 3_600_000 && n % 3_600_000 === 0 ? `${n / 3_600_000} h` : `${n / 60_000} min`})`;
  }
  if (name.endsWith('_MS') && n >= 1000 && n % 1000 === 0) return `\`${value}\` (${n / 1000} s)`;
  return `\`${value}\``;
}

/**
 * `yes` when the schema needs a value; settings a cross-field check requires say so at the start of
 * their description: `Required, ...` (always) or `Required with X` / `Required unless X` (conditional).
 */
function requiredCell(row: SettingRow): string {
  if (row.required || /^Required[,.]/.test(row.description)) return 'yes';
  if (/^Required (with|unless)\b/.test(row.description)) return 'conditional';
  return '';
}

function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

export function renderMarkdown(app: AppSettings): string {
  const rows = settingRows(app);
  const lines = [
    `# ${app.title} settings`,
    '',
    `<!-- Generated by \`pnpm docs:settings\` from apps/${app.app}/src/config.ts: do not edit by hand. -->`,
    '',
    `Every setting of the ${app.title.toLowerCase()} is an environment variable, read once at start`,
    `(\`apps/${app.app}/src/config.ts\`); an invalid value stops the app with a message naming it.`,
    'An empty value counts as unset. What the settings do in context: [../' +
      app.page +
      '](../' +
      app.page +
      `). A template with every setting: [apps/${app.app}/.env.example](../../apps/${app.app}/.env.example).`,
    '',
    'This page and the `.env.example` file are generated from the schema by `pnpm docs:settings`;',
    '`pnpm test` fails when they differ from it.',
    '',
    '| Setting | Type | Default | Required | Description |',
    '| ------- | ---- | ------- | -------- | ----------- |',
    ...rows.map(
      (row) =>
        `| \`${row.name}\` | ${cell(row.type)} | ${row.defaultValue === undefined ? 'unset' : cell(readableDefault(row.name, row.defaultValue))} | ${requiredCell(row)} | ${cell(row.description)} |`,
    ),
    '',
  ];
  return lines.join('\n');
}

/** Wraps a comment at about 100 columns. */
function commentLines(text: string): string[] {
  const lines: string[] = [];
  let line = '#';
  for (const word of text.split(' ')) {
    if (line.length + 1 + word.length > 100 && line !== '#') {
      lines.push(line);
      line = '#';
    }
    line += ` ${word}`;
  }
  lines.push(line);
  return lines;
}

export function renderEnvExample(app: AppSettings): string {
  const rows = settingRows(app);
  const lines = [
    `# ${app.title} settings (docs/settings/${app.app}.md), generated by \`pnpm docs:settings\` from`,
    `# apps/${app.app}/src/config.ts: do not edit by hand. Empty values mean "use the default"; the`,
    '# values below are the defaults (or, for required settings, examples).',
  ];
  for (const row of rows) {
    lines.push('');
    lines.push(...commentLines(row.required ? `Required. ${row.description}` : row.description));
    lines.push(`${row.name}=${row.defaultValue ?? (row.required ? (row.example ?? '') : '')}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Every generated file, relative to the repository root. */
export function generatedFiles(): Array<{ path: string; content: string }> {
  return APPS.flatMap((app) => [
    { path: `docs/settings/${app.app}.md`, content: renderMarkdown(app) },
    { path: `apps/${app.app}/.env.example`, content: renderEnvExample(app) },
  ]);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const file of generatedFiles()) {
    writeFileSync(`${ROOT}${file.path}`, file.content);
    process.stdout.write(`wrote ${file.path}\n`);
  }
}
