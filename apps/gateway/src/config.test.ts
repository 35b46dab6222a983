import { ConfigError } from '@aigw/runtime';
import { describe, expect, it } from 'vitest';
import { loadGatewayConfig } from './config.js';

describe('gateway settings', () => {
  it('defaults to the documented port and standalone mode', () => {
    const config = loadGatewayConfig({});
    expect(config.PORT).toBe(8787);
    expect(config.CONTROL_PLANE_GRPC_URL).toBeUndefined();
    expect(config.CUSTOM_HOST_ALLOWLIST).toEqual([]);
  });

  it('splits the custom host allowlist', () => {
    expect(
      loadGatewayConfig({ CUSTOM_HOST_ALLOWLIST: ' LocalHost, 127.0.0.1 ,,' }).CUSTOM_HOST_ALLOWLIST,
    ).toEqual(['localhost', '127.0.0.1']);
  });

  it('refuses allowlist entries that are not plain hosts or IPs', () => {
    expect(() => loadGatewayConfig({ CUSTOM_HOST_ALLOWLIST: 'localhost:8080,*.internal' })).toThrow(
      /CUSTOM_HOST_ALLOWLIST: .*localhost:8080/,
    );
  });

  it('rejects every bad setting at once', () => {
    const attempt = () =>
      loadGatewayConfig({
        PORT: 'http',
        LOG_LEVEL: 'chatty',
        REDIS_URL: 'localhost:6379',
        MASTER_KEY: 'dG9vIHNob3J0',
        CONTROL_PLANE_GRPC_URL: 'http://cp',
      });
    expect(attempt).toThrow(ConfigError);
    try {
      attempt();
    } catch (err) {
      const names = (err as ConfigError).problems.map((p) => p.split(':')[0]);
      expect(names.sort()).toEqual([
        'CONTROL_PLANE_GRPC_URL',
        'LOG_LEVEL',
        'MASTER_KEY',
        'PORT',
        'REDIS_URL',
        // A control plane is named, so its token is required too.
        'SNAPSHOT_SERVICE_TOKEN',
      ]);
    }
  });
});
