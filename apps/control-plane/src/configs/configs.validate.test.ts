// Saved-config validation: the config schema's issues as AB01 with their JSON path, no credentials,
// and the references a config makes, each with the path where it is written.
import { AppError } from '@aigw/runtime';
import { describe, expect, it } from 'vitest';
import { configReferences, validateConfig } from './configs.validate.js';

function refusal(config: unknown): { code: unknown; param: unknown; message: string } {
  try {
    validateConfig(config);
  } catch (err) {
    expect(err).toBeInstanceOf(AppError);
    const e = err as AppError & { code?: unknown; param?: unknown };
    return { code: e.code, param: e.param, message: e.message };
  }
  throw new Error('expected a refusal');
}

describe('validateConfig', () => {
  it('stores the text as sent and accepts what the gateway accepts', () => {
    const config = { retry: { attempts: 2 }, provider: '@openai-prod', _note: 'kept' };
    expect(validateConfig(config).text).toBe(JSON.stringify(config));
  });

  it('refuses schema problems with AB01, the first path as param and up to three messages', () => {
    const result = refusal({
      strategy: { mode: 'loadbalance' },
      targets: [{ provider: '@a', weight: -1 }, { provider: '@b', overrideParams: {} }, { provider: 7 }],
      cache: { mode: 'fuzzy' },
    });
    expect(result.code).toBe('AB01');
    expect(result.param).toBe('config.cache.mode');
    expect(result.message).toMatch(
      /^Invalid config: config\.cache\.mode: .*; config\.targets\[0\]\.weight: /,
    );
    expect(result.message).toMatch(/\(and \d+ more\)$/);
  });

  it('refuses a config nested 5,000 deep with AB01 instead of overflowing the stack', () => {
    const deep = JSON.parse(`${'{"targets":['.repeat(5_000)}{}${']}'.repeat(5_000)}`);
    expect(refusal(deep)).toMatchObject({
      code: 'AB01',
      param: 'config',
      message: 'config: nests deeper than 128 levels',
    });
  });

  it('refuses an empty config', () => {
    expect(refusal({})).toMatchObject({ code: 'AB01', param: 'config' });
  });

  it('refuses provider credentials anywhere in the tree, naming the field', () => {
    expect(refusal({ provider: 'openai', api_key: 'sk-secret-value' })).toMatchObject({
      code: 'AB01',
      param: 'config.api_key',
    });
    const nested = refusal({
      strategy: { mode: 'fallback' },
      targets: [
        { provider: '@ok' },
        {
          provider: 'bedrock',
          aws_access_key_id: 'AKIA',
          aws_secret_access_key: 'secret',
          aws_region: 'us-east-1',
        },
      ],
    });
    expect(nested).toMatchObject({ code: 'AB01', param: 'config.targets[1].aws_secret_access_key' });
    expect(nested.message).not.toContain('secret"');
  });
});

describe('configReferences', () => {
  it('collects @slug providers, virtual keys and saved guardrails with their paths', () => {
    const config = {
      provider: '@root-provider',
      input_guardrails: ['pii-guard', { checks: [{ id: 'valid_json' }] }],
      strategy: { mode: 'fallback' },
      targets: [
        { virtual_key: 'legacy-vk', output_guardrails: ['0b1e7a4e-8c1b-4d5e-9f00-123456789abc'] },
        { provider: 'openai' },
      ],
    };
    expect(validateConfig(config).references).toEqual(configReferences(config));
    expect(configReferences(config)).toEqual({
      providers: [
        { slug: 'root-provider', path: 'config.provider' },
        { slug: 'legacy-vk', path: 'config.targets[0].virtual_key' },
      ],
      guardrails: [
        { ref: 'pii-guard', path: 'config.input_guardrails[0]' },
        { ref: '0b1e7a4e-8c1b-4d5e-9f00-123456789abc', path: 'config.targets[0].output_guardrails[0]' },
      ],
    });
  });
});
