import { AppError } from '@aigw/runtime';
import { beforeEach, describe, expect, it } from 'vitest';
import { clearParsedConfigs, readConfigHeader } from './config-header.js';

function refused(value: string | string[]): AppError {
  try {
    readConfigHeader({ 'x-service-config': value });
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a rejection');
}

beforeEach(() => clearParsedConfigs());

describe('readConfigHeader', () => {
  it('answers undefined without the header (or with an empty one)', () => {
    expect(readConfigHeader({})).toBeUndefined();
    expect(readConfigHeader({ 'x-service-config': '  ' })).toBeUndefined();
  });

  it('parses an inline config into the normalised tree', () => {
    const config = readConfigHeader({
      'x-service-config': JSON.stringify({
        strategy: { mode: 'fallback' },
        targets: [
          { provider: 'openai', api_key: 'sk-a' },
          { provider: 'anthropic', api_key: 'sk-b' },
        ],
      }),
    });
    expect(config?.strategy?.mode).toBe('fallback');
    expect(config?.targets.map((t) => t.path)).toEqual(['config.targets[0]', 'config.targets[1]']);
    expect(config?.targets[1]?.settings.api_key).toBe('sk-b');
  });

  it('gives the same frozen object for the same text (parsed once)', () => {
    const text = '{"provider":"openai","api_key":"sk-a"}';
    const first = readConfigHeader({ 'x-service-config': text });
    expect(readConfigHeader({ 'x-service-config': ` ${text} ` })).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
  });

  it('answers invalid_config with the JSON path in the message and param', () => {
    const err = refused(JSON.stringify({ strategy: { mode: 'loadbalance' }, targets: [{ weight: 'x' }] }));
    expect(err.status).toBe(400);
    expect(err.code).toBe('invalid_config');
    expect(err.param).toBe('config.targets[0].weight');
    expect(err.message).toMatch(/^Invalid config: config\.targets\[0\]\.weight/);
    expect(err.headers['x-service-gateway-error']).toBe('true');
  });

  it('reports malformed JSON at config without quoting it', () => {
    const err = refused('{"api_key":"sk-secret",');
    expect(err.code).toBe('invalid_config');
    expect(err.param).toBe('config');
    expect(err.message).not.toContain('sk-secret');
  });

  it('refuses saved config ids in standalone mode', () => {
    for (const id of ['pc-abc123', 'my-config']) {
      const err = refused(id);
      expect(err.status).toBe(400);
      expect(err.code).toBe('config_unavailable');
      expect(err.param).toBe('x-service-config');
      expect(err.message).toContain('control plane');
    }
  });

  it('refuses what only the control plane resolves, naming the path', () => {
    const cases: Array<[unknown, string]> = [
      [{ virtual_key: 'vk-main' }, 'config.virtual_key'],
      [
        { strategy: { mode: 'fallback' }, targets: [{ provider: 'openai' }, { provider: '@prod-openai' }] },
        'config.targets[1].provider',
      ],
      [{ provider: 'openai', input_guardrails: ['pii-guard'] }, 'config.input_guardrails[0]'],
      [
        { provider: 'openai', output_guardrails: [{ checks: [{ id: 'valid_json' }] }, 'g2'] },
        'config.output_guardrails[1]',
      ],
      [
        { provider: 'azure-openai', azure_auth_mode: 'entra', azure_resource_name: 'r' },
        'config.azure_auth_mode',
      ],
    ];
    for (const [config, path] of cases) {
      const err = refused(JSON.stringify(config));
      expect(err.code, path).toBe('config_unavailable');
      expect(err.param).toBe(path);
      expect(err.message.startsWith(`${path}: `)).toBe(true);
    }
  });

  it('refuses the header sent twice', () => {
    const err = refused(['{"provider":"openai"}', '{"provider":"openai"}']);
    expect(err.code).toBe('invalid_header');
  });
});
