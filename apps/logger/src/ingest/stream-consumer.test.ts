import { describe, expect, test } from 'vitest';
import { collectFetch } from './stream-consumer.js';

async function* delivering(values: number[], failure?: Error): AsyncGenerator<number> {
  for (const v of values) yield v;
  if (failure) throw failure;
}

describe('collectFetch', () => {
  test('keeps the messages a fetch delivered before it failed, with the error', async () => {
    const failure = new Error('heartbeats missed');
    const fetched = await collectFetch(delivering([1, 2, 3], failure));
    expect(fetched.msgs).toEqual([1, 2, 3]);
    expect(fetched.error).toBe(failure);
  });

  test('a fetch that ends normally has no error', async () => {
    expect(await collectFetch(delivering([4]))).toEqual({ msgs: [4], error: undefined });
  });
});
