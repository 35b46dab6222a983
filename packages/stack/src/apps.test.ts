import { describe, expect, it } from 'vitest';
import { appSpecs, DEFAULT_PORTS } from './apps.js';

describe('appSpecs (what pnpm start hands each app)', () => {
  const specs = appSpecs(
    DEFAULT_PORTS,
    { databaseUrl: 'postgres://db', redisUrl: 'redis://cache:6379', natsUrl: 'nats://bus:4222' },
    { masterKey: 'mk', adminKey: 'ak', snapshotToken: 's'.repeat(43), logsToken: 'l'.repeat(43) },
  );
  const env = (name: string) => specs.find((s) => s.name === name)?.env ?? {};

  it("gives the logger the gateways' Redis, so the usage reconciliation corrects budgets after a Redis outage", () => {
    expect(env('logger').REDIS_URL).toBe('redis://cache:6379');
    expect(env('gateway').REDIS_URL).toBe('redis://cache:6379');
  });

  it('hands each internal service its token and binds gRPC to loopback', () => {
    expect(env('control-plane')).toMatchObject({
      SNAPSHOT_SERVICE_TOKEN: 's'.repeat(43),
      GRPC_HOST: '127.0.0.1',
    });
    expect(env('gateway').SNAPSHOT_SERVICE_TOKEN).toBe('s'.repeat(43));
    expect(env('logger')).toMatchObject({ LOGS_SERVICE_TOKEN: 'l'.repeat(43), GRPC_HOST: '127.0.0.1' });
    expect(env('control-plane').LOGGER_SERVICE_TOKEN).toBe('l'.repeat(43));
  });

  it('lets the gateway reach the demo provider on loopback only when asked, keeping the allowlist of the environment', () => {
    expect(env('gateway').CUSTOM_HOST_ALLOWLIST).toBeUndefined();
    const urls = { databaseUrl: 'postgres://db', redisUrl: 'redis://cache:6379', natsUrl: 'nats://bus:4222' };
    const secrets = { masterKey: 'mk', adminKey: 'ak', snapshotToken: null, logsToken: 'l'.repeat(43) };
    const withDemo = appSpecs(DEFAULT_PORTS, urls, secrets, {
      inherited: ' llm.internal, 127.0.0.1 ',
      add: ['127.0.0.1'],
    });
    expect(withDemo.find((s) => s.name === 'gateway')?.env.CUSTOM_HOST_ALLOWLIST).toBe(
      'llm.internal,127.0.0.1',
    );
    const alone = appSpecs(DEFAULT_PORTS, urls, secrets, { inherited: undefined, add: ['127.0.0.1'] });
    expect(alone.find((s) => s.name === 'gateway')?.env.CUSTOM_HOST_ALLOWLIST).toBe('127.0.0.1');
  });
});
