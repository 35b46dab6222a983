import { Redis } from 'ioredis';
import { expect, it } from 'vitest';
import { isAlive } from '../../test/liveness.js';
import type { BinaryName } from './binaries.js';
import { resolveServices, ServicesUnavailableError } from './resolve.js';

it('an env URL wins: kind env, nothing located, nothing started', async () => {
  const looked: BinaryName[] = [];
  const services = await resolveServices(['redis'], {
    env: { REDIS_URL: 'redis://redis.example.test:6379' },
    locate: (name) => {
      looked.push(name);
      return undefined;
    },
    containers: false,
  });
  expect(services.redis).toMatchObject({ kind: 'env', url: 'redis://redis.example.test:6379', startMs: 0 });
  expect(services.redis?.pid).toBeUndefined();
  expect(looked).toEqual([]);
  await services.stopAll();
});

it('without the env URL a local binary is started', async () => {
  const lines: string[] = [];
  const services = await resolveServices(['redis'], {
    env: {},
    containers: false,
    log: (line) => lines.push(line),
  });
  const redis = services.redis!;
  expect(redis.kind).toBe('local');
  expect(redis.url).toMatch(/^redis:\/\/127\.0\.0\.1:\d+$/);
  expect(lines).toEqual([expect.stringMatching(/^redis: local, ready in \d+ ms$/)]);
  const client = new Redis(redis.url);
  expect(await client.ping()).toBe('PONG');
  await client.quit();
  await services.stopAll();
  expect(isAlive(redis.pid!)).toBe(false);
});

it('with nothing available the error names what to install and which variables to set', async () => {
  const error = await resolveServices(['postgres', 'redis', 'nats'], {
    env: {},
    locate: () => undefined,
    containers: false,
  }).catch((err: unknown) => err);
  expect(error).toBeInstanceOf(ServicesUnavailableError);
  const unavailable = error as ServicesUnavailableError;
  expect(unavailable.missing).toEqual(['postgres', 'redis', 'nats']);
  expect(unavailable.message).toContain('apt-get install -y postgresql redis-server nats-server');
  expect(unavailable.message).toContain('brew install postgresql@16 redis nats-server');
  for (const variable of ['DATABASE_URL=', 'REDIS_URL=', 'NATS_URL='])
    expect(unavailable.message).toContain(variable);
});

it('the error lists only what is actually missing, before starting anything', async () => {
  const error = await resolveServices(['redis', 'nats'], {
    env: { REDIS_URL: 'redis://redis.example.test:6379' },
    locate: () => undefined,
    containers: false,
  }).catch((err: unknown) => err);
  expect(error).toBeInstanceOf(ServicesUnavailableError);
  const { missing, message } = error as ServicesUnavailableError;
  expect(missing).toEqual(['nats']);
  expect(message).toContain('apt-get install -y nats-server');
  expect(message).not.toContain('redis-server');
  expect(message).not.toContain('REDIS_URL');
});
