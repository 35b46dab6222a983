// What limits add to one request: admit + settle with one rate-limit policy (one Lua call each way)
// on real Redis, the same with a usage-limit policy too, and the in-process store as the floor.
import { RateLimitType, UsageLimitType } from '@aigw/proto';
import { createTestRedis, testkitContext } from '@aigw/testkit';
import { afterAll, bench, describe } from 'vitest';
import {
  gpt4oPrice,
  makeLimits,
  ratePolicy,
  snapshotOf,
  subject,
  usagePolicy,
} from './limits.test-support.js';

const redis = await createTestRedis(testkitContext().redisUrl);
await redis.client.connect().catch(() => {});
await redis.client.ping();
afterAll(() => redis.cleanup());

const BIG = 1e12;
const onePolicy = snapshotOf(ratePolicy({ value: BIG }));
const policyAndBudget = snapshotOf(
  gpt4oPrice(),
  ratePolicy({ value: BIG }),
  ratePolicy({ value: BIG, type: RateLimitType.TOKENS }),
  usagePolicy({ type: UsageLimitType.COST, creditLimit: BIG }),
);
const who = subject({ apiKeyId: 'key-bench' });
const usage = { inputTokens: 200, outputTokens: 50, model: 'gpt-4o', provider: 'openai' };
const viaRedis = makeLimits(redis.client).limits;
const inProcess = makeLimits(undefined).limits;

describe('limits admit + settle', () => {
  bench('one rate-limit policy, Redis', async () => {
    await (await viaRedis.admit(onePolicy, who, { maxTokens: 100 })).settle(usage);
  });
  bench('requests + tokens policies + cost budget, Redis', async () => {
    await (await viaRedis.admit(policyAndBudget, who, { maxTokens: 100, inputTokensGuess: 200 })).settle(
      usage,
    );
  });
  bench('one rate-limit policy, in process (no REDIS_URL)', async () => {
    await (await inProcess.admit(onePolicy, who, { maxTokens: 100 })).settle(usage);
  });
});
