// The mask rule on its own: what counts as a mask, the mask of the stored value keeps it, a stray mask
// is a 400 on its field, anything else is taken as sent.
import { AppError } from '@aigw/runtime';
import { describe, expect, it } from 'vitest';
import { holdsMask, looksMasked, maskSecret, storedForMasks, unmasked } from './masked-values.js';

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected a refusal');
}

describe('masked values', () => {
  it('recognises exactly what maskSecret produces', () => {
    for (const secret of ['sk-0123456789abcd', 'short', 'x', 'twelve-chars']) {
      expect(looksMasked(maskSecret(secret)), secret).toBe(true);
    }
    expect(looksMasked('****')).toBe(true);
    expect(looksMasked('****abcd')).toBe(true);
    expect(looksMasked('****abcde')).toBe(false);
    expect(looksMasked('***abcd')).toBe(false);
    expect(looksMasked('*****')).toBe(false);
    expect(looksMasked('Bearer ****abcd')).toBe(false);
    expect(looksMasked(42)).toBe(false);
  });

  it('keeps the stored value for its mask, takes real values as sent', () => {
    expect(unmasked('****abcd', 'sk-0123456789abcd', 'body.credentials.api_key')).toBe('sk-0123456789abcd');
    expect(unmasked('****', 'short', 'p')).toBe('short');
    expect(unmasked('sk-new-value', 'sk-0123456789abcd', 'p')).toBe('sk-new-value');
    expect(unmasked('sk-new-value', undefined, 'p')).toBe('sk-new-value');
    // The mask of a secret ending in stars is not shaped like a mask, and still keeps it.
    expect(unmasked('******cd', 'sk-0123456789**cd', 'p')).toBe('sk-0123456789**cd');
    const file = { private_key_id: 'kid-0123456789abcdef' };
    expect(unmasked('****cdef', file, 'p', (f) => maskSecret(f.private_key_id))).toBe(file);
  });

  it('refuses a mask that matches nothing stored at its field, naming the field', () => {
    for (const [sent, stored] of [
      ['****wxyz', 'sk-0123456789abcd'],
      ['****', 'sk-0123456789abcd'],
      ['****abcd', 'short'],
      ['****abcd', undefined],
    ] as const) {
      const err = refusal(() => unmasked(sent, stored, 'body.credentials.api_key'));
      expect(err.status).toBe(400);
      expect(err.code).toBe('AB01');
      expect(err.param).toBe('body.credentials.api_key');
      expect(err.message).toContain('send the real value');
    }
  });

  it('opens what is stored only for a request that may hold a mask, and reads a failed open as nothing', () => {
    expect(holdsMask({ api_key: 'sk-real', custom_headers: { a: 'b' } })).toBe(false);
    expect(holdsMask({ custom_headers: { a: '****' } })).toBe(true);
    expect(holdsMask([{ parameters: { headers: { x: '******cd' } } }])).toBe(true);
    let opened = 0;
    const open = (): Record<string, string> => {
      opened += 1;
      return { api_key: 'sk-0123456789abcd' };
    };
    expect(storedForMasks({ api_key: 'sk-real' }, open, {})).toEqual({});
    expect(opened).toBe(0);
    expect(storedForMasks({ api_key: '****abcd' }, open, {})).toEqual({ api_key: 'sk-0123456789abcd' });
    expect(opened).toBe(1);
    const broken = () => {
      throw new Error('unsupported state or unable to authenticate data');
    };
    expect(storedForMasks({ api_key: '****abcd' }, broken, {})).toEqual({});
  });
});
