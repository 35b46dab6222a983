// The snapshot sync's settings in src/config.ts: defaults, and bad values refused at startup.
import { ConfigError, SERVICE_AUTH_DISABLED } from '@aigw/runtime';
import { describe, expect, it } from 'vitest';
import { loadGatewayConfig } from '../config.js';

const TOKEN = 'snapshot-token-of-at-least-32-characters';

describe('snapshot settings', () => {
  it('default to a 30 s deadline, a 60 s anti-entropy period and no path or namespace', () => {
    const config = loadGatewayConfig({
      CONTROL_PLANE_GRPC_URL: 'control-plane:50051',
      SNAPSHOT_SERVICE_TOKEN: TOKEN,
    });
    expect(config.SNAPSHOT_GRPC_DEADLINE_MS).toBe(30_000);
    expect(config.SNAPSHOT_ANTI_ENTROPY_INTERVAL_MS).toBe(60_000);
    expect(config.SNAPSHOT_SERVICE_TOKEN).toBe(TOKEN);
    expect(config.SNAPSHOT_LKG_PATH).toBeUndefined();
    expect(config.NATS_NAMESPACE).toBeUndefined();
  });

  it('need the token with a control plane, unless SNAPSHOT_SERVICE_AUTH says it runs open, in words', () => {
    expect(loadGatewayConfig({}).SNAPSHOT_SERVICE_TOKEN).toBeUndefined();
    expect(() => loadGatewayConfig({ CONTROL_PLANE_GRPC_URL: 'control-plane:50051' })).toThrow(
      /SNAPSHOT_SERVICE_TOKEN: required with CONTROL_PLANE_GRPC_URL/,
    );
    const open = loadGatewayConfig({
      CONTROL_PLANE_GRPC_URL: 'control-plane:50051',
      SNAPSHOT_SERVICE_AUTH: SERVICE_AUTH_DISABLED,
    });
    expect(open.SNAPSHOT_SERVICE_TOKEN).toBeUndefined();
  });

  it('refuses a short token, a bad namespace and an out-of-range deadline, without echoing the token', () => {
    const attempt = () =>
      loadGatewayConfig({
        SNAPSHOT_SERVICE_TOKEN: 'short-secret',
        NATS_NAMESPACE: 'has.dots',
        SNAPSHOT_GRPC_DEADLINE_MS: '5',
        SNAPSHOT_ANTI_ENTROPY_INTERVAL_MS: '-1',
      });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (err) {
      const problems = (err as ConfigError).problems;
      expect(problems.map((p) => p.split(':')[0]).sort()).toEqual([
        'NATS_NAMESPACE',
        'SNAPSHOT_ANTI_ENTROPY_INTERVAL_MS',
        'SNAPSHOT_GRPC_DEADLINE_MS',
        'SNAPSHOT_SERVICE_TOKEN',
      ]);
      expect(problems.join('\n')).not.toContain('short-secret');
    }
  });
});
