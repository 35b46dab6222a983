// The logger's LogsService settings: on loopback by default, and never without its token.
import { ConfigError, SERVICE_AUTH_DISABLED } from '@aigw/runtime';
import { describe, expect, it } from 'vitest';
import { loadLoggerConfig } from './config.js';

const REQUIRED = { DATABASE_URL: 'postgres://db/aigw', NATS_URL: 'nats://nats:4222' };
const TOKEN = 'logs-token-of-at-least-32-characters!';

function problems(env: Record<string, string>): string[] {
  try {
    loadLoggerConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return [...err.problems];
    throw err;
  }
  throw new Error('the settings were accepted');
}

describe('logger gRPC settings', () => {
  it('bind LogsService to loopback with its token', () => {
    const config = loadLoggerConfig({ ...REQUIRED, LOGS_SERVICE_TOKEN: TOKEN });
    expect(config.GRPC_HOST).toBe('127.0.0.1');
    expect(config.LOGS_SERVICE_TOKEN).toBe(TOKEN);
  });

  it('refuse to start without the token, with no switch to turn it off', () => {
    const found = problems(REQUIRED);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^LOGS_SERVICE_TOKEN: required /);
    expect(found[0]).not.toContain(SERVICE_AUTH_DISABLED);
    // No setting opens it, however it is spelled.
    expect(problems({ ...REQUIRED, LOGS_SERVICE_AUTH: SERVICE_AUTH_DISABLED })[0]).toMatch(
      /^LOGS_SERVICE_TOKEN: required /,
    );
  });

  it('refuse a short token without echoing it', () => {
    const found = problems({ ...REQUIRED, LOGS_SERVICE_TOKEN: 'short-logs-token' });
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^LOGS_SERVICE_TOKEN: must be at least 32 characters/);
    expect(found[0]).not.toContain('short-logs-token');
  });
});
