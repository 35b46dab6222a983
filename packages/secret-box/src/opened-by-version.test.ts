import { describe, expect, test } from 'vitest';
import { OpenedByVersion } from './opened-by-version.js';

describe('OpenedByVersion', () => {
  test('gives back a value for its own version only', () => {
    const kept = new OpenedByVersion<string>();
    expect(kept.set('a', 1, 'one')).toBe('one');
    expect(kept.get('a', 1)).toBe('one');
    expect(kept.get('a', 2)).toBeUndefined();
    kept.set('a', 2, 'two');
    expect(kept.get('a', 1)).toBeUndefined();
    expect(kept.get('a', 2)).toBe('two');
    expect(kept.size).toBe(1);
  });

  test('beyond its bound the entity kept longest goes first; a new version of a kept one pushes none out', () => {
    const kept = new OpenedByVersion<number>(2);
    kept.set('a', 1, 1);
    kept.set('b', 1, 2);
    kept.set('b', 2, 3);
    expect(kept.get('a', 1)).toBe(1);
    kept.set('c', 1, 4);
    expect(kept.get('a', 1)).toBeUndefined();
    expect(kept.get('b', 2)).toBe(3);
    expect(kept.get('c', 1)).toBe(4);
    expect(kept.size).toBe(2);
    kept.delete('b');
    expect(kept.get('b', 2)).toBeUndefined();
  });
});
