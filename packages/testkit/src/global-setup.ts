// Vitest global setup: one Postgres, Redis and NATS per test run, shared by every test file.
// Files isolate themselves on top (a database, a key prefix, a stream prefix each): see fixtures.ts.
import type { TestProject } from 'vitest/node';
import './provided-context.js';
import { resolveServices } from './services/resolve.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const started = Date.now();
  const services = await resolveServices(['postgres', 'redis', 'nats']);
  const { postgres, redis, nats } = services;
  if (!postgres || !redis || !nats) {
    await services.stopAll();
    throw new Error('testkit: service resolution returned an incomplete set');
  }
  project.provide('testkit', { databaseUrl: postgres.url, redisUrl: redis.url, natsUrl: nats.url });
  const summary = [postgres, redis, nats].map(
    (s) => `${s.name} ${s.kind}${s.kind === 'env' ? '' : ` ${s.startMs} ms`}`,
  );
  console.log(`[testkit] ${summary.join(', ')}; setup ${Date.now() - started} ms`);
  return () => services.stopAll();
}
