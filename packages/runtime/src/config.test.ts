import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  baseSettings,
  ConfigError,
  featureFlag,
  loadConfig,
  port,
  serviceUrl,
  trustProxy,
} from './config.js';

const schema = z.object({
  ...baseSettings,
  PORT: port(8787),
  REDIS_URL: serviceUrl(['redis:', 'rediss:']).optional(),
  GUARDRAILS_ENABLED: featureFlag,
  MASTER_KEY: z.string().length(44).optional(),
});

describe('loadConfig', () => {
  it('applies defaults, treats empty strings as unset, and freezes the result', () => {
    const config = loadConfig(schema, { PORT: '', LOG_LEVEL: 'debug' });
    expect(config).toEqual({
      HOST: '0.0.0.0',
      LOG_LEVEL: 'debug',
      SHUTDOWN_TIMEOUT_MS: 10_000,
      PORT: 8787,
      GUARDRAILS_ENABLED: true,
    });
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('names every bad setting at once', () => {
    let error: unknown;
    try {
      loadConfig(schema, {
        PORT: 'eighty',
        LOG_LEVEL: 'loud',
        REDIS_URL: 'http://x',
        GUARDRAILS_ENABLED: 'maybe',
      });
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems).toHaveLength(4);
    expect(problems.join('\n')).toMatch(/^PORT: .*\(got "eighty"\)$/m);
    expect(problems.join('\n')).toMatch(/^LOG_LEVEL: .*\(got "loud"\)$/m);
    expect(problems.join('\n')).toMatch(/^REDIS_URL: must be a URL with scheme redis: or rediss:/m);
    expect(problems.join('\n')).toMatch(/^GUARDRAILS_ENABLED: /m);
  });

  it('never echoes secret values in its messages', () => {
    expect(() => loadConfig(schema, { MASTER_KEY: 'short-secret' })).toThrow(/MASTER_KEY: .*<redacted>/);
    expect(() => loadConfig(schema, { MASTER_KEY: 'short-secret' })).not.toThrow(/short-secret/);
    const url = 'http://user:hunter2@cache.internal:6379';
    expect(() => loadConfig(schema, { REDIS_URL: url })).toThrow(
      /REDIS_URL: .*\/\/<redacted>@cache\.internal/,
    );
    expect(() => loadConfig(schema, { REDIS_URL: url })).not.toThrow(/hunter2/);
  });

  it('reads feature flags as on unless OFF', () => {
    expect(loadConfig(schema, { GUARDRAILS_ENABLED: 'OFF' }).GUARDRAILS_ENABLED).toBe(false);
    expect(loadConfig(schema, {}).GUARDRAILS_ENABLED).toBe(true);
  });
});

describe('trustProxy', () => {
  const parse = (value: string | undefined) =>
    loadConfig(z.object({ TRUST_PROXY: trustProxy }), { TRUST_PROXY: value });

  it('is off unless set, a hop count, or a list of addresses, ranges and names', () => {
    expect(parse(undefined).TRUST_PROXY).toBe(false);
    expect(parse('').TRUST_PROXY).toBe(false);
    expect(parse('1').TRUST_PROXY).toBe(1);
    expect(parse('loopback, 10.0.0.0/8,fd00::/8,192.0.2.7').TRUST_PROXY).toEqual([
      'loopback',
      '10.0.0.0/8',
      'fd00::/8',
      '192.0.2.7',
    ]);
  });

  it('refuses trusting every sender and what is not an address', () => {
    for (const bad of ['true', '*', '10.0.0.0/33', 'fd00::/129', '10.0.0.0/', 'example.com', '1,']) {
      expect(() => parse(bad), bad).toThrow(ConfigError);
    }
  });
});
