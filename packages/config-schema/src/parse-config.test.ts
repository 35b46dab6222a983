// parseConfig / parseConfigJson / configErrorMessage: the API around the golden cases.
import { describe, expect, it } from 'vitest';
import { MAX_ISSUES } from './issues.js';
import { MAX_JSON_DEPTH } from './json-data.js';
import {
  CONFIG_ERROR_CODE,
  configErrorMessage,
  MAX_CONFIG_JSON_LENGTH,
  parseConfig,
  parseConfigJson,
} from './parse-config.js';
import { PROVIDER_FIELD_NAMES, SHARED_FIELD_NAMES } from './settings.schema.js';
import type { ConfigIssue, ConfigResult, NormalisedConfig } from './types.js';
import { KNOWN_FIELD_NAMES } from './unknown-keys.js';

function ok(result: ConfigResult): NormalisedConfig {
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.config;
}

function errors(result: ConfigResult): readonly ConfigIssue[] {
  if (result.ok) throw new Error('expected the config to be refused');
  return result.errors;
}

const leaf = (extra: Record<string, unknown> = {}) => ({ provider: 'openai', ...extra });

describe('parseConfigJson', () => {
  it('refuses text over the size limit before parsing it', () => {
    const text = JSON.stringify({ provider: 'openai', api_key: 'x'.repeat(MAX_CONFIG_JSON_LENGTH) });
    expect(errors(parseConfigJson(text))).toEqual([
      {
        path: 'config',
        code: 'too_large',
        message: `config: is longer than ${MAX_CONFIG_JSON_LENGTH} characters`,
      },
    ]);
  });

  it('never echoes the text of malformed JSON (it may hold credentials)', () => {
    const [issue] = errors(parseConfigJson('{"api_key": "sk-live-secret" oops}'));
    expect(issue?.code).toBe('invalid_json');
    expect(issue?.message).not.toContain('sk-live-secret');
    expect(issue?.message).toMatch(/^config: is not valid JSON/);
  });

  it('parses valid text like parseConfig', () => {
    expect(ok(parseConfigJson('{"provider":"openai"}'))).toEqual(ok(parseConfig({ provider: 'openai' })));
  });
});

describe('configErrorMessage', () => {
  const issue = (n: number): ConfigIssue => ({
    path: `config.targets[${n}]`,
    code: 'invalid_type',
    message: `config.targets[${n}]: must be an object, got a string`,
  });

  it('joins the first issues and counts the rest', () => {
    expect(configErrorMessage([issue(0)])).toBe(
      'Invalid config: config.targets[0]: must be an object, got a string',
    );
    expect(configErrorMessage([0, 1, 2, 3, 4].map(issue))).toBe(
      'Invalid config: config.targets[0]: must be an object, got a string; ' +
        'config.targets[1]: must be an object, got a string; ' +
        'config.targets[2]: must be an object, got a string (and 2 more)',
    );
    expect(configErrorMessage([0, 1].map(issue), 1)).toMatch(/\(and 1 more\)$/);
    expect(configErrorMessage([])).toBe('Invalid config');
  });

  it('uses the admin API validation code AB01', () => {
    expect(CONFIG_ERROR_CODE).toBe('AB01');
  });
});

describe('parseConfig', () => {
  it('returns a deep-frozen tree and leaves its input alone', () => {
    const input = { override_params: { model: 'a' }, strategy: { mode: 'fallback' }, targets: [leaf()] };
    const before = structuredClone(input);
    const config = ok(parseConfig(input));
    expect(input).toEqual(before);
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.targets[0]!.settings.override_params)).toBe(true);
    expect(config.settings.override_params).not.toBe(input.override_params);
  });

  it('reports the same issues in the same order whatever the key order', () => {
    const a = { zzz: 1, retry: { attempts: 99 }, targets: [{ provider: 3 }, { weight: 1 }], aaa: 2 };
    const b = { aaa: 2, targets: [{ provider: 3 }, { weight: 1 }], retry: { attempts: 99 }, zzz: 1 };
    expect(errors(parseConfig(a))).toEqual(errors(parseConfig(b)));
    expect(errors(parseConfig(a)).map((i) => i.path)).toEqual([
      'config.aaa',
      'config.retry.attempts',
      'config.targets[0].provider',
      'config.targets[1].weight',
      'config.zzz',
    ]);
  });

  it(`returns at most ${MAX_ISSUES} issues`, () => {
    const targets = Array.from({ length: 50 }, () => ({ provider: 1, api_key: 2, weight: 'x' }));
    const found = errors(parseConfig({ strategy: { mode: 'loadbalance' }, targets }));
    expect(found).toHaveLength(MAX_ISSUES);
    expect(found.at(-1)?.path).toBe('config.targets[33].api_key');
  });

  it('allows 500 nodes and refuses 501', () => {
    const group = (leaves: number) => ({
      strategy: { mode: 'fallback' },
      targets: Array.from({ length: leaves }, () => leaf()),
    });
    const targets = [...Array.from({ length: 49 }, () => group(9)), group(8)];
    expect(parseConfig({ strategy: { mode: 'fallback' }, targets }).ok).toBe(true);
    targets[49] = group(9);
    expect(errors(parseConfig({ strategy: { mode: 'fallback' }, targets })).map((i) => i.code)).toEqual([
      'too_many_nodes',
    ]);
  });

  it('merges override_params shallowly: a child key replaces the whole value', () => {
    const config = ok(
      parseConfig({
        override_params: { model: 'a', response_format: { type: 'json_object' }, n: 1 },
        targets: [leaf({ override_params: { response_format: { type: 'text' }, n: null } })],
      }),
    );
    expect(config.targets[0]!.settings.override_params).toEqual({
      model: 'a',
      response_format: { type: 'text' },
      n: null,
    });
  });

  it('drops every inherited provider field below a node that names another provider', () => {
    const config = ok(
      parseConfig({
        provider: 'openai',
        api_key: 'sk-openai',
        custom_host: 'https://proxy.example.com/v1',
        openai_project: 'p',
        request_timeout: 1000,
        strategy: { mode: 'fallback' },
        targets: [{ virtual_key: 'anthropic-vk' }, { provider: 'anthropic' }, { api_key: 'sk-other' }],
      }),
    );
    expect(config.targets.map((t) => t.settings)).toEqual([
      { virtual_key: 'anthropic-vk', request_timeout: 1000 },
      { provider: 'anthropic', request_timeout: 1000 },
      {
        provider: 'openai',
        api_key: 'sk-other',
        custom_host: 'https://proxy.example.com/v1',
        openai_project: 'p',
        request_timeout: 1000,
      },
    ]);
  });

  it('keeps weight-0 targets of a loadbalance node (drained, not dead)', () => {
    const config = ok(
      parseConfig({ strategy: { mode: 'loadbalance' }, targets: [leaf({ weight: 0 }), leaf({ weight: 2 })] }),
    );
    expect(config.targets.map((t) => t.weight)).toEqual([0, 2]);
  });

  it('knows a hint for every field it accepts', () => {
    for (const field of [...PROVIDER_FIELD_NAMES, ...SHARED_FIELD_NAMES]) {
      expect(KNOWN_FIELD_NAMES.has(field), field).toBe(true);
    }
  });
});

describe('opaque JSON values', () => {
  const nested = (depth: number): Record<string, unknown> => {
    let value: Record<string, unknown> = { leaf: true };
    for (let i = 0; i < depth; i++) value = { a: value };
    return value;
  };

  it('refuses override_params nested deeper than the limit, without overflowing the stack', () => {
    const text = `{"override_params":${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}}`;
    expect(errors(parseConfigJson(text))).toEqual([
      {
        path: 'config.override_params',
        code: 'invalid_value',
        message: `config.override_params: nests deeper than ${MAX_JSON_DEPTH} levels`,
      },
    ]);
    expect(parseConfig({ override_params: nested(MAX_JSON_DEPTH - 1) }).ok).toBe(true);
  });

  it('refuses values that are not JSON data, and the __proto__ key', () => {
    const found = errors(
      parseConfig({
        override_params: { when: new Date(0) },
        strategy: { mode: 'fallback' },
        targets: [
          { override_params: { f: () => 1 } },
          { override_params: JSON.parse('{"x":{"__proto__":{"polluted":true}}}') },
        ],
      }),
    );
    expect(found.map((i) => i.message)).toEqual([
      'config.override_params: must hold JSON data only, found a Date',
      'config.targets[0].override_params: must hold JSON data only, found a function',
      'config.targets[1].override_params: must not use the key "__proto__"',
    ]);
  });

  it('copies the values it keeps, so freezing the result never freezes the caller’s objects', () => {
    const params = { response_format: { type: 'json_object' } };
    const config = ok(parseConfig({ override_params: params }));
    expect(Object.isFrozen(params.response_format)).toBe(false);
    expect(config.settings.override_params).toEqual(params);
  });
});
