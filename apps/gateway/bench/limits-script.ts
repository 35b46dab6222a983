// Redis's cost of the limits script (src/limits/redis-store.ts) per request: turns of N admissions
// (one requests rate limit + one budget each, on the same counters, like one busy API key) with the
// previous turn's N settlements, 4000 turns against a local redis-server; prints the script's time
// per call and per request (INFO commandstats) and the Redis commands it ran. Usage:
//   [N=5] npx tsx --conditions=@aigw/source bench/limits-script.ts
import { startLocalRedis } from '@aigw/testkit/services';
import { Redis } from 'ioredis';
import { createRedisStore } from '../src/limits/redis-store.js';
import { cpuMicros } from './harness.js';

const N = Number(process.env.N ?? 5);
const TURNS = 4000;
const server = await startLocalRedis();
const redis = new Redis(server.url);
try {
  const store = createRedisStore(redis, { timeoutMs: 5_000 });
  const org = '0f3a9c2e-1234-4abc-9def-0123456789ab';
  const rate = {
    key: `lim:{${org}}:r:p:policy-1:api_key:key-1:requests:60000`,
    requests: true,
    limit: 1e12,
    windowMs: 60_000,
  };
  const budgetKey = `lim:{${org}}:u:p:policy-2:api_key:key-1:cost:0`;
  let id = 0;
  let previous: string[] = [];
  await redis.config('RESETSTAT');
  const redisCpu0 = cpuMicros(server.pid);
  const selfCpu0 = cpuMicros(process.pid);
  for (let turn = 0; turn < TURNS; turn++) {
    for (const reservationId of previous) {
      void store.settle({
        tokens: [],
        budgets: [
          { key: budgetKey, reserved: 2400, actual: 1800, limit: 1e12, threshold: -1, expireAtMs: 0 },
        ],
        reservationId,
      });
    }
    previous = Array.from({ length: N }, () => `bench.${(++id).toString(36)}`);
    await Promise.all(
      previous.map((reservationId) =>
        store.admit({
          rates: [rate],
          budgets: [{ key: budgetKey, limit: 1e12, estimate: 2400, expireAtMs: 0 }],
          reservationId,
          reservationTtlMs: 900_000,
        }),
      ),
    );
  }
  const redisCpu = (cpuMicros(server.pid) - redisCpu0) / (TURNS * N);
  const selfCpu = (cpuMicros(process.pid) - selfCpu0) / (TURNS * N);
  const info = await redis.info('commandstats');
  const stat = (name: string) => info.match(new RegExp(`cmdstat_${name}:calls=(\\d+),usec=(\\d+)`));
  const evalsha = stat('evalsha');
  const calls = Number(evalsha?.[1]);
  const usec = Number(evalsha?.[2]);
  console.log(
    `${N} requests a call: ${calls} script calls, ${(usec / calls).toFixed(1)} µs per call, ` +
      `${(usec / (TURNS * N)).toFixed(1)} µs per request (admission and settlement); CPU per request: ` +
      `redis-server ${redisCpu.toFixed(1)} µs, this client ${selfCpu.toFixed(1)} µs`,
  );
  const inner = info
    .split('\n')
    .filter((line) => line.startsWith('cmdstat_') && !/cmdstat_(evalsha|eval|config|info):/.test(line))
    .map((line) => {
      const [, name, count] = line.match(/cmdstat_(\w+):calls=(\d+)/) ?? [];
      return `${name} ${(Number(count) / (TURNS * N)).toFixed(2)}`;
    });
  console.log(`Redis commands per request: ${inner.join(', ')}`);
} finally {
  redis.disconnect();
  await server.stop();
}
