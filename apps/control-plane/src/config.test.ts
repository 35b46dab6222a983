// The control plane's internal gRPC settings: closed and on loopback by default, open only in words.
import { ConfigError, SERVICE_AUTH_DISABLED } from '@aigw/runtime';
import { describe, expect, it } from 'vitest';
import { loadControlPlaneConfig } from './config.js';

const REQUIRED = { DATABASE_URL: 'postgres://db/aigw', NATS_URL: 'nats://nats:4222' };
const TOKEN = 'snapshot-token-of-at-least-32-characters';
const LOGS_TOKEN = 'logs-token-of-at-least-32-characters!';

function problems(env: Record<string, string>): string[] {
  try {
    loadControlPlaneConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return [...err.problems];
    throw err;
  }
  throw new Error('the settings were accepted');
}

describe('control-plane gRPC settings', () => {
  it('bind the SnapshotService to loopback and require its token', () => {
    const config = loadControlPlaneConfig({ ...REQUIRED, SNAPSHOT_SERVICE_TOKEN: TOKEN });
    expect(config.GRPC_HOST).toBe('127.0.0.1');
    expect(config.SNAPSHOT_SERVICE_AUTH).toBe('token');
    expect(config.SNAPSHOT_SERVICE_TOKEN).toBe(TOKEN);
  });

  it('refuse to start the SnapshotService open, naming the token and the switch', () => {
    const found = problems(REQUIRED);
    expect(found).toHaveLength(1);
    expect(found[0]).toMatch(/^SNAPSHOT_SERVICE_TOKEN: required /);
    expect(found[0]).toContain(`SNAPSHOT_SERVICE_AUTH=${SERVICE_AUTH_DISABLED}`);
  });

  it('start it open only when SNAPSHOT_SERVICE_AUTH says so in words', () => {
    expect(problems({ ...REQUIRED, SNAPSHOT_SERVICE_AUTH: 'off' })[0]).toMatch(/^SNAPSHOT_SERVICE_AUTH:/);
    const open = loadControlPlaneConfig({ ...REQUIRED, SNAPSHOT_SERVICE_AUTH: SERVICE_AUTH_DISABLED });
    expect(open.SNAPSHOT_SERVICE_TOKEN).toBeUndefined();
  });

  it('require the logger token with LOGGER_GRPC_URL, without echoing a short one', () => {
    const withLogger = { ...REQUIRED, SNAPSHOT_SERVICE_TOKEN: TOKEN, LOGGER_GRPC_URL: 'logger:50052' };
    const missing = problems(withLogger);
    expect(missing).toHaveLength(1);
    expect(missing[0]).toMatch(/^LOGGER_SERVICE_TOKEN: required with LOGGER_GRPC_URL/);
    expect(missing[0]).not.toContain(SERVICE_AUTH_DISABLED);
    const short = problems({ ...withLogger, LOGGER_SERVICE_TOKEN: 'short-logs-token' });
    expect(short).toHaveLength(1);
    expect(short[0]).not.toContain('short-logs-token');
    expect(
      loadControlPlaneConfig({ ...withLogger, LOGGER_SERVICE_TOKEN: LOGS_TOKEN }).LOGGER_SERVICE_TOKEN,
    ).toBe(LOGS_TOKEN);
  });
});

describe('control-plane HTTP listener settings', () => {
  const base = { ...REQUIRED, SNAPSHOT_SERVICE_TOKEN: TOKEN };

  it('default to deadlines far below Node’s 60 s head and 300 s request', () => {
    const config = loadControlPlaneConfig(base);
    expect(config.HEADERS_TIMEOUT_MS).toBe(20_000);
    expect(config.REQUEST_BODY_TIMEOUT_MS).toBe(60_000);
    expect(config.MAX_HEADER_BYTES).toBe(16 * 1024);
  });

  it('refuse a head deadline later than the whole-request deadline (Node would throw at listen)', () => {
    const found = problems({ ...base, HEADERS_TIMEOUT_MS: '90000', REQUEST_BODY_TIMEOUT_MS: '60000' });
    expect(found).toEqual([
      'HEADERS_TIMEOUT_MS: must not exceed REQUEST_BODY_TIMEOUT_MS (60000) (got "90000")',
    ]);
  });
});
