// Previous / next over a server-side page-number list (`current_page`, `page_size`, `total`): where the
// page is in the total, and the page count; the browser never holds more than one page.
import type { ComponentChildren } from 'preact';

export function ListPager(props: {
  page: number;
  pageSize: number;
  /** Undefined while the first page loads: no pager yet. */
  total: number | undefined;
  onPage(page: number): void;
  /** What the list holds ("configs", "versions"...): names the pager and follows the total. */
  label?: string;
}) {
  const { page, pageSize, total, label } = props;
  if (total === undefined) return null;
  const pages = Math.max(1, Math.ceil(total / pageSize));
  const first = total === 0 ? 0 : page * pageSize + 1;
  const last = Math.min(total, (page + 1) * pageSize);
  return (
    <nav class="list-pager" aria-label={label ? `${label} pages` : 'pages of the list'}>
      <small>
        <span data-testid="pager-range">
          {first}–{last} of {total}
          {label ? ` ${label}` : ''}
        </span>{' '}
        (page {page + 1} of {pages})
      </small>
      <div class="pager-buttons">
        <PageButtons page={page} pages={pages} onPage={props.onPage} />
      </div>
    </nav>
  );
}

/** Previous and Next over `pages` numbered pages, with what stands between them (if anything). */
export function PageButtons(props: {
  page: number;
  pages: number;
  onPage(page: number): void;
  children?: ComponentChildren;
}) {
  const { page } = props;
  return (
    <>
      <button
        type="button"
        class="secondary outline"
        disabled={page === 0}
        onClick={() => props.onPage(page - 1)}
      >
        Previous
      </button>
      {props.children}
      <button
        type="button"
        class="secondary outline"
        disabled={page + 1 >= props.pages}
        onClick={() => props.onPage(page + 1)}
      >
        Next
      </button>
    </>
  );
}
