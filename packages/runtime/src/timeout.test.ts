import { describe, expect, it } from 'vitest';
import { withTimeout } from './timeout.js';

describe('withTimeout', () => {
  it('passes the result through when the work is in time', async () => {
    await expect(withTimeout(Promise.resolve(7), 1_000, () => new Error('late'))).resolves.toBe(7);
  });

  it('rejects with the given error when the deadline passes first', async () => {
    const never = new Promise<number>(() => undefined);
    await expect(withTimeout(never, 20, () => new RangeError('too slow'))).rejects.toThrow(RangeError);
  });

  it('keeps the work own rejection', async () => {
    await expect(
      withTimeout(Promise.reject(new Error('boom')), 1_000, () => new Error('late')),
    ).rejects.toThrow('boom');
  });
});
