// Guard for "a page and its total in one snapshot": every paged list in the control plane reads
// through readPage, and no source file reads a count next to Promise.all (two pool connections).
// page-read.int.test.ts shows the behaviour on real lists; this keeps new lists from skipping it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const SRC = join(import.meta.dirname, '..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'migrations' ? [] : sources(path);
    return entry.name.endsWith('.ts') && !/\.test(-support)?\.ts$|\.test\.ts$/.test(entry.name) ? [path] : [];
  });
}

const occurrences = (text: string, needle: string) => text.split(needle).length - 1;

describe('admin lists page through readPage', () => {
  const files = sources(SRC)
    .filter((path) => !path.endsWith(join('db', 'page-read.ts')))
    .map((path) => ({ name: relative(SRC, path), text: readFileSync(path, 'utf8') }));

  it('finds the lists it guards', () => {
    expect(files.filter((f) => f.text.includes('.offset(')).length).toBeGreaterThanOrEqual(20);
  });

  it('pages every offset list through readPage', () => {
    const offPage = files
      .filter((f) => occurrences(f.text, '.offset(') > occurrences(f.text, 'readPage('))
      .map((f) => f.name);
    expect(offPage).toEqual([]);
  });

  it('reads no count next to Promise.all', () => {
    const mixed = files
      .filter((f) => /countAll|count\(\*\)/.test(f.text) && f.text.includes('Promise.all'))
      .map((f) => f.name);
    expect(mixed).toEqual([]);
  });
});
