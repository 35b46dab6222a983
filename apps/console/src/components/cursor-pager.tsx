// Paging of the cursor lists (logs, audit logs, feedback): the API pages by an opaque `next_cursor`,
// so "next" follows it and "previous" walks back the cursors this tab has followed (the browser's
// back button does the same). A page opened from a shared link with a cursor offers "first page".
import { useEffect, useState } from 'preact/hooks';

export const PAGE_SIZES = [10, 25, 50, 100, 200] as const;

export interface CursorPagerProps {
  /** The cursor of the page shown (undefined: the first page). */
  readonly cursor: string | undefined;
  /** The API's `next_cursor` for the page shown (null: the last page; undefined: loading). */
  readonly nextCursor: string | null | undefined;
  readonly pageSize: number;
  /** Rows on the page shown. */
  readonly shown: number;
  go(cursor: string | undefined): void;
  setPageSize(size: number): void;
}

export function CursorPager(props: CursorPagerProps) {
  const [trail, setTrail] = useState<string[]>([]);
  const current = props.cursor ?? '';
  // Back on a cursor this tab came from (previous, or the browser's back): drop it from the trail;
  // on the first page there is nothing behind.
  useEffect(() => {
    setTrail((t) => (current === '' ? [] : t.at(-1) === current ? t.slice(0, -1) : t));
  }, [current]);
  const previous = trail.at(-1);
  return (
    <nav class="cursor-pager" aria-label="pagination">
      <div class="pager-buttons">
        {previous !== undefined ? (
          <button type="button" class="secondary" onClick={() => props.go(previous || undefined)}>
            ← Previous
          </button>
        ) : props.cursor ? (
          <button type="button" class="secondary" onClick={() => props.go(undefined)}>
            ⇤ First page
          </button>
        ) : (
          <button type="button" class="secondary" disabled>
            ← Previous
          </button>
        )}
        <button
          type="button"
          class="secondary"
          disabled={!props.nextCursor}
          onClick={() => {
            if (!props.nextCursor) return;
            setTrail((t) => [...t, current]);
            props.go(props.nextCursor);
          }}
        >
          Next →
        </button>
      </div>
      <small class="muted" data-testid="page-status">
        {props.cursor && previous === undefined ? 'Page from link' : `Page ${trail.length + 1}`} ·{' '}
        {props.shown} {props.shown === 1 ? 'row' : 'rows'}
        {props.nextCursor === null ? ' · last page' : ''}
      </small>
      <label class="page-size">
        Rows per page
        <select
          name="page_size"
          value={String(props.pageSize)}
          onChange={(e) => props.setPageSize(Number((e.target as HTMLSelectElement).value))}
        >
          {PAGE_SIZES.map((size) => (
            <option key={size} value={String(size)}>
              {size}
            </option>
          ))}
        </select>
      </label>
    </nav>
  );
}
