// A key prefix per test file on a shared Redis server, with its keys deleted afterwards.
import { Redis } from 'ioredis';
import { randomId } from './random-id.js';

export interface TestRedis {
  readonly url: string;
  /** `t:<random>:`; already applied by `client` to every key it sends. */
  readonly prefix: string;
  /** ioredis client with `keyPrefix` = `prefix` (EVAL KEYS are prefixed too; SCAN/KEYS patterns are not). */
  readonly client: Redis;
  /** Deletes every key under the prefix and closes `client`. */
  cleanup(): Promise<void>;
}

export async function createTestRedis(url: string): Promise<TestRedis> {
  const prefix = `t:${randomId()}:`;
  const client = new Redis(url, { keyPrefix: prefix, lazyConnect: true });
  await client.connect();
  let cleaned: Promise<void> | undefined;
  return {
    url,
    prefix,
    client,
    cleanup: () => {
      cleaned ??= (async () => {
        await deleteKeysWithPrefix(url, prefix);
        await client.quit();
      })();
      return cleaned;
    },
  };
}

/** SCAN (never KEYS: it blocks the server) for `<prefix>*` and UNLINK what it finds; returns the count. */
export async function deleteKeysWithPrefix(url: string, prefix: string): Promise<number> {
  const raw = new Redis(url, { lazyConnect: true });
  await raw.connect();
  let deleted = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await raw.scan(cursor, 'MATCH', `${escapeGlob(prefix)}*`, 'COUNT', 1000);
      if (keys.length > 0) deleted += await raw.unlink(...keys);
      cursor = next;
    } while (cursor !== '0');
  } finally {
    await raw.quit();
  }
  return deleted;
}

function escapeGlob(text: string): string {
  return text.replace(/[*?[\]\\]/g, (char) => `\\${char}`);
}
