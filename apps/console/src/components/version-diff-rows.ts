// A line diff of two texts (jsdiff's diffLines) as rows to render: each line once, marked added,
// removed or unchanged, with its number in the old and the new text.
import { diffLines } from 'diff';

export interface DiffRow {
  readonly kind: 'added' | 'removed' | 'same';
  /** Line number in the old text (removed and unchanged lines). */
  readonly oldLine?: number;
  /** Line number in the new text (added and unchanged lines). */
  readonly newLine?: number;
  readonly text: string;
}

export function diffRows(before: string, after: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let oldLine = 1;
  let newLine = 1;
  // A final newline would make the last line differ between a text that has one and one that has not.
  for (const change of diffLines(ensureNewline(before), ensureNewline(after))) {
    const lines = change.value.split('\n');
    lines.pop(); // every chunk ends with a newline here
    for (const text of lines) {
      if (change.added) rows.push({ kind: 'added', newLine: newLine++, text });
      else if (change.removed) rows.push({ kind: 'removed', oldLine: oldLine++, text });
      else rows.push({ kind: 'same', oldLine: oldLine++, newLine: newLine++, text });
    }
  }
  return rows;
}

function ensureNewline(text: string): string {
  return text === '' || text.endsWith('\n') ? text : `${text}\n`;
}

/** How many lines were added and removed. */
export function diffStats(rows: readonly DiffRow[]): { added: number; removed: number } {
  return {
    added: rows.filter((row) => row.kind === 'added').length,
    removed: rows.filter((row) => row.kind === 'removed').length,
  };
}
