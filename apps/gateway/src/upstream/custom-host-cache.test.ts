import { describe, expect, test } from 'vitest';
import { CustomHostCache } from './custom-host-cache.js';

describe('CustomHostCache', () => {
  test('custom hosts on one host with the same checked addresses share one pinned lookup', async () => {
    const cache = new CustomHostCache(['127.0.0.1', '127.0.0.2']);
    const v1 = await cache.check('http://127.0.0.1:8080/v1');
    const v2 = await cache.check('http://127.0.0.1:8080/v2');
    expect(v1).not.toBe(v2);
    // The same lookup object: upstream-pool.ts keeps one connection pool per pinned lookup.
    expect(v2.lookup).toBe(v1.lookup);
    const other = await cache.check('http://127.0.0.2:8080/v1');
    expect(other.lookup).not.toBe(v1.lookup);
  });

  test('the shared lookup still answers with the checked addresses only', async () => {
    const cache = new CustomHostCache(['127.0.0.1']);
    const host = await cache.check('http://127.0.0.1:8080/v1');
    const answer = await new Promise<string>((resolve, reject) =>
      host.lookup('127.0.0.1', {}, (err, address) => (err ? reject(err) : resolve(address as string))),
    );
    expect(answer).toBe('127.0.0.1');
    await expect(
      new Promise((resolve, reject) =>
        host.lookup('169.254.169.254', {}, (err, address) => (err ? reject(err) : resolve(address))),
      ),
    ).rejects.toMatchObject({ code: 'ERR_SSRF_PINNED_HOST' });
  });
});
