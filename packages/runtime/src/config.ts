// Settings: parse the environment once against a zod schema, report every bad setting, freeze.
import { isIP } from 'node:net';
import { z } from 'zod';

export class ConfigError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(`invalid settings:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
    this.problems = problems;
  }
}

export type Env = Readonly<Record<string, string | undefined>>;

/** Parse `env` with `schema`; throws ConfigError naming every bad setting. The result is deep-frozen. */
export function loadConfig<S extends z.ZodType>(schema: S, env: Env): Readonly<z.output<S>> {
  // Empty strings mean "unset": `FOO=` in a .env file must fall back to the default.
  const cleaned: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) {
    if (value !== undefined && value !== '') cleaned[key] = value;
  }
  const result = schema.safeParse(cleaned);
  if (!result.success) {
    throw new ConfigError(
      result.error.issues.map((issue) => {
        const name = issue.path.length > 0 ? issue.path.join('.') : '(settings)';
        const received = issue.path.length === 1 ? cleaned[String(issue.path[0])] : undefined;
        return received === undefined
          ? `${name}: ${issue.message}`
          : `${name}: ${issue.message} (got ${JSON.stringify(redactValue(name, received))})`;
      }),
    );
  }
  return deepFreeze(result.data);
}

function redactValue(name: string, value: string): string {
  if (/KEY|SECRET|PASSWORD|TOKEN/i.test(name)) return '<redacted>';
  // A URL's user and password (DATABASE_URL, SMTP_URL) are credentials too.
  return value.replace(/\/\/[^/?#\s]*@/, '//<redacted>@');
}

export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

// Reusable setting types, so every app spells the same thing the same way.

export const port = (fallback: number) => z.coerce.number().int().min(0).max(65535).default(fallback);

export const logLevel = z
  .enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  .default('info');

/** Spec part 8: feature flags are on unless set to `OFF` (any other value is a typo and rejected). */
export const featureFlag = z
  .enum(['ON', 'OFF', 'on', 'off', 'true', 'false'])
  .default('ON')
  .transform((v) => v === 'ON' || v === 'on' || v === 'true');

export const serviceUrl = (protocols: readonly string[]) =>
  z.string().refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    },
    { message: `must be a URL with scheme ${protocols.join(' or ')}` },
  );

export const durationMs = (fallback: number) =>
  z.coerce.number().int().min(0).max(3_600_000).default(fallback);

/** The names proxy-addr (express' `trust proxy`) gives address ranges. */
const PROXY_RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

/** `<ip>` or `<ip>/<prefix>` (the prefix in range for the family), or a range name. */
function proxyRange(entry: string): boolean {
  if (PROXY_RANGE_NAMES.has(entry)) return true;
  const slash = entry.indexOf('/');
  const family = isIP(slash < 0 ? entry : entry.slice(0, slash));
  if (family === 0) return false;
  if (slash < 0) return true;
  const prefix = entry.slice(slash + 1);
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 4 ? 32 : 128);
}

/**
 * Which proxies in front of an HTTP port are trusted to say who the client is (X-Forwarded-For,
 * -Proto, -Host), as express' `trust proxy`: a hop count (`1`: the nearest one, e.g. the
 * ingress), or a comma-separated list of addresses, CIDR ranges and the names `loopback`,
 * `linklocal`, `uniquelocal`. Unset: none (the socket's peer is the client). `true` (trust any
 * sender's headers) is refused: any client could then choose the address it is logged under.
 */
export const trustProxy = z
  .string()
  .trim()
  .optional()
  .transform((value, ctx): number | string[] | false => {
    if (value === undefined || value === '') return false;
    if (/^\d{1,2}$/.test(value)) return Number(value);
    const entries = value.split(',').map((entry) => entry.trim());
    const bad = entries.find((entry) => !proxyRange(entry));
    if (bad === undefined) return entries;
    ctx.addIssue({
      code: 'custom',
      message: `must be a hop count or a comma-separated list of addresses, CIDR ranges, loopback, linklocal or uniquelocal (not ${JSON.stringify(bad)})`,
    });
    return z.NEVER;
  });

/** Settings every app shares. */
export const baseSettings = {
  HOST: z.string().min(1).default('0.0.0.0').describe('Bind address of the HTTP port.'),
  LOG_LEVEL: logLevel.describe('Structured log level (JSON lines on stdout).'),
  SHUTDOWN_TIMEOUT_MS: durationMs(10_000).describe(
    'Drain deadline (ms) on SIGTERM or SIGINT: in-flight work gets this long; the process exits anyway 2 s after it.',
  ),
  INSTANCE_ID: z
    .string()
    .min(1)
    .optional()
    .describe(
      'Name of this replica in its logs, and where an app names its connections or events. Unset: the process id where a name is needed.',
    ),
};
