import { describe, expect, test } from 'vitest';
import { diffRows, diffStats } from './version-diff-rows.js';

describe('a line diff of two config versions', () => {
  test('a changed line is one removed and one added row; the rest is unchanged, numbered on both sides', () => {
    const before = '{\n  "retry": { "attempts": 2 },\n  "provider": "@a"\n}';
    const after = '{\n  "retry": { "attempts": 3 },\n  "provider": "@a"\n}';
    expect(diffRows(before, after)).toEqual([
      { kind: 'same', oldLine: 1, newLine: 1, text: '{' },
      { kind: 'removed', oldLine: 2, text: '  "retry": { "attempts": 2 },' },
      { kind: 'added', newLine: 2, text: '  "retry": { "attempts": 3 },' },
      { kind: 'same', oldLine: 3, newLine: 3, text: '  "provider": "@a"' },
      { kind: 'same', oldLine: 4, newLine: 4, text: '}' },
    ]);
  });

  test('added lines at the end, and identical texts, and markup kept as text', () => {
    const rows = diffRows('{\n  "a": 1\n}', '{\n  "a": 1,\n  "b": "<img src=x>"\n}');
    expect(diffStats(rows)).toEqual({ added: 2, removed: 1 });
    expect(rows.find((row) => row.kind === 'added' && row.text.includes('<img'))?.text).toBe(
      '  "b": "<img src=x>"',
    );
    expect(diffRows('same\ntext', 'same\ntext\n').every((row) => row.kind === 'same')).toBe(true);
    expect(diffRows('', '')).toEqual([]);
  });
});
