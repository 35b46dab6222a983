// Previous / next over a server-side paginated list (`current_page`, `page_size`, `total`): the
// browser never holds more than one page.
export function ListPager(props: {
  page: number;
  pageSize: number;
  total: number;
  onPage(page: number): void;
}) {
  const { page, pageSize, total } = props;
  const first = total === 0 ? 0 : page * pageSize + 1;
  const last = Math.min(total, (page + 1) * pageSize);
  return (
    <nav class="list-pager" aria-label="pages of the list">
      <small data-testid="pager-range">
        {first}–{last} of {total}
      </small>
      <div class="inline-group">
        <button
          type="button"
          class="secondary outline"
          disabled={page === 0}
          onClick={() => props.onPage(page - 1)}
        >
          Previous
        </button>
        <button
          type="button"
          class="secondary outline"
          disabled={last >= total}
          onClick={() => props.onPage(page + 1)}
        >
          Next
        </button>
      </div>
    </nav>
  );
}
