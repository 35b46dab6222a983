// Scratch: CPU per request of the limits alone (admit, a turn, settle) under concurrency, this process only.
import { UsageLimitType } from '@aigw/proto';
import { createTestRedis, testkitContext } from '@aigw/testkit';
import { gpt4oPrice, makeLimits, ratePolicy, snapshotOf, subject, usagePolicy } from '../../src/limits/limits.test-support.js';

const redis = await createTestRedis(testkitContext().redisUrl);
await redis.client.connect().catch(() => {});
await redis.client.ping();
const BIG = 1e12;
const snap = snapshotOf(gpt4oPrice(), ratePolicy({ value: BIG }), usagePolicy({ type: UsageLimitType.COST, creditLimit: BIG }));
const who = subject({ apiKeyId: 'key-bench' });
const usage = { inputTokens: 200, outputTokens: 50, model: 'gpt-4o', provider: 'openai' };
const mode = process.env.MODE ?? 'redis';
const limits = makeLimits(mode === 'local' ? undefined : redis.client).limits;
const turn = () => new Promise<void>((r) => setImmediate(r));
async function worker(until: number, count: { n: number }) {
  while (performance.now() < until) {
    if (mode === 'none') { await turn(); count.n++; continue; }
    const a = await limits.admit(snap, who, { maxTokens: 100, inputTokensGuess: 200 });
    await turn();
    void a.settle(usage);
    a.usageCharges();
    count.n++;
  }
}
const results: number[] = [];
for (let rep = 0; rep < Number(process.env.REPS ?? 7); rep++) {
  const count = { n: 0 };
  const c0 = process.cpuUsage();
  const until = performance.now() + 2000;
  await Promise.all(Array.from({ length: 32 }, () => worker(until, count)));
  const c = process.cpuUsage(c0);
  results.push((c.user + c.system) / count.n);
  console.log(`rep ${rep}: ${count.n} requests, ${((c.user + c.system) / count.n).toFixed(2)} µs CPU each`);
}
const sorted = results.slice(1).sort((a, b) => a - b);
console.log(`${mode}: median ${sorted[Math.floor(sorted.length / 2)]?.toFixed(2)} µs per request`);
await new Promise((r) => setTimeout(r, 100));
await redis.cleanup();
process.exit(0);
