// Golden files: testdata/<case>.in.json (or .in.txt for text that is not JSON) -> <case>.out.json, the
// normalised config or the exact issues. Refresh with UPDATE_GOLDEN=1, then format and review the diff.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { parseConfigJson } from './parse-config.js';
import { STRATEGY_MODES } from './strategy.schema.js';
import { CONFIG_ISSUE_CODES, type ConfigNode, type ConfigResult } from './types.js';

const DIR = fileURLToPath(new URL('../testdata/', import.meta.url));
const UPDATE = process.env.UPDATE_GOLDEN === '1';
const INPUT = /\.in\.(json|txt)$/;

const inputs = readdirSync(DIR)
  .filter((file) => INPUT.test(file))
  .sort();
const caseName = (file: string): string => file.replace(INPUT, '');

/** What a golden output holds: the result as JSON would carry it. */
function run(file: string): unknown {
  const result: ConfigResult = parseConfigJson(readFileSync(`${DIR}${file}`, 'utf8'));
  return JSON.parse(JSON.stringify(result));
}

function readOutput(name: string): unknown {
  const path = `${DIR}${name}.out.json`;
  return existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : undefined;
}

describe('config golden files', () => {
  it.each(inputs)('%s', (file) => {
    const name = caseName(file);
    const actual = run(file);
    const expected = readOutput(name);
    // Only changed files are rewritten, so unchanged ones keep their formatter layout.
    if (UPDATE && !isDeepStrictEqual(actual, expected)) {
      writeFileSync(`${DIR}${name}.out.json`, `${JSON.stringify(actual, null, 2)}\n`);
      return;
    }
    expect(expected, `${name}.out.json is missing: run with UPDATE_GOLDEN=1`).toBeDefined();
    expect(actual).toStrictEqual(expected);
  });

  it('has enough cases, no output without an input, and ok/err names that match the result', () => {
    expect(inputs.length).toBeGreaterThanOrEqual(40);
    const names = inputs.map(caseName);
    const orphans = readdirSync(DIR)
      .filter((file) => file.endsWith('.out.json'))
      .map((file) => file.slice(0, -'.out.json'.length))
      .filter((name) => !names.includes(name));
    expect(orphans).toEqual([]);
    for (const name of names) {
      const output = readOutput(name) as ConfigResult | undefined;
      if (output) expect(output.ok, name).toBe(name.startsWith('ok-'));
    }
  });

  it('covers every issue code but too_large, and every strategy mode', () => {
    const codes = new Set<string>();
    const modes = new Set<string>();
    const collectModes = (node: ConfigNode): void => {
      if (node.strategy) modes.add(node.strategy.mode);
      node.targets.forEach(collectModes);
    };
    for (const file of inputs) {
      const output = readOutput(caseName(file)) as ConfigResult | undefined;
      if (!output) continue;
      if (output.ok) collectModes(output.config);
      else for (const issue of output.errors) codes.add(issue.code);
    }
    expect(CONFIG_ISSUE_CODES.filter((code) => code !== 'too_large' && !codes.has(code))).toEqual([]);
    expect(STRATEGY_MODES.filter((mode) => !modes.has(mode))).toEqual([]);
  });
});
