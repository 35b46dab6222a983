// Golden files for every provider's translation: testdata/providers/<case>.in.json (a ProviderRequest
// without body, plus the JSON body when there is one) -> <case>.out.json (the UpstreamTarget or the
// gateway error). Refresh with UPDATE_GOLDEN=1 and review the diff.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { AppError } from '@aigw/runtime';
import { describe, expect, it } from 'vitest';
import { createBedrockProvider } from './bedrock.js';
import { getProvider, PROVIDER_IDS } from './registry.js';
import type { CloudOptions, ProviderDefinition, ProviderRequest } from './types.js';

const DIR = fileURLToPath(new URL('../../testdata/providers/', import.meta.url));
const UPDATE = process.env.UPDATE_GOLDEN === '1';
/** Signatures depend on the clock: Bedrock cases are signed at this instant. */
const SIGNED_AT = new Date('2024-05-01T12:00:00Z');

interface GoldenInput {
  readonly provider: string;
  readonly request: {
    readonly method: string;
    readonly path: string;
    readonly search: string;
    readonly headers: Record<string, string>;
    readonly token: string | null;
    readonly cloud: CloudOptions;
    readonly customHost: string | null;
  };
  /** The request body, sent as its JSON text. */
  readonly json?: unknown;
}

function providerFor(id: string): ProviderDefinition {
  const provider = getProvider(id);
  if (!provider) throw new Error(`unknown provider ${id} in a golden file`);
  return provider.id === 'bedrock' ? createBedrockProvider({ now: () => SIGNED_AT }) : provider;
}

async function run(input: GoldenInput): Promise<unknown> {
  const provider = providerFor(input.provider);
  const { token, customHost, ...rest } = input.request;
  const base: Omit<ProviderRequest, 'json' | 'body'> = {
    ...rest,
    token: token ?? undefined,
    customHost: customHost === null ? undefined : new URL(customHost),
  };
  let needsBody: boolean | undefined;
  try {
    needsBody = provider.needsBody(base);
    const body = needsBody && input.json !== undefined ? Buffer.from(JSON.stringify(input.json)) : undefined;
    const target = await provider.buildTarget({ ...base, ...(body && { body, json: input.json }) });
    return {
      needsBody,
      url: target.url.href,
      setHeaders: target.setHeaders,
      removeHeaders: target.removeHeaders,
    };
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return {
      ...(needsBody !== undefined && { needsBody }),
      error: { status: err.status, code: err.code, param: err.param, message: err.message },
    };
  }
}

const cases = readdirSync(DIR)
  .filter((name) => name.endsWith('.in.json'))
  .map((name) => name.slice(0, -'.in.json'.length))
  .sort();

describe('provider golden files', () => {
  it.each(cases)('%s', async (name) => {
    const input = JSON.parse(readFileSync(`${DIR}${name}.in.json`, 'utf8')) as GoldenInput;
    const actual = await run(input);
    const outPath = `${DIR}${name}.out.json`;
    const expected: unknown = existsSync(outPath) ? JSON.parse(readFileSync(outPath, 'utf8')) : undefined;
    // Only changed files are rewritten, so unchanged ones keep their formatter layout.
    if (UPDATE && !isDeepStrictEqual(actual, expected)) {
      writeFileSync(outPath, `${JSON.stringify(actual, null, 2)}\n`);
      return;
    }
    expect(expected, `${name}.out.json is missing: run with UPDATE_GOLDEN=1`).toBeDefined();
    expect(actual).toEqual(expected);
  });

  it('has at least one case per provider and no output without an input', () => {
    const covered = new Set(
      cases.map(
        (name) => (JSON.parse(readFileSync(`${DIR}${name}.in.json`, 'utf8')) as GoldenInput).provider,
      ),
    );
    expect(PROVIDER_IDS.filter((id) => !covered.has(id))).toEqual([]);
    const orphans = readdirSync(DIR)
      .filter((name) => name.endsWith('.out.json'))
      .filter((name) => !cases.includes(name.slice(0, -'.out.json'.length)));
    expect(orphans).toEqual([]);
  });
});
