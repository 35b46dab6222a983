// Previous / next for the APIs' page_size + current_page pagination, with where the page is in the total.
export function Pager(props: {
  page: number;
  pageSize: number;
  total: number;
  onPage(page: number): void;
  label: string;
}) {
  const pages = Math.max(1, Math.ceil(props.total / props.pageSize));
  const first = props.total === 0 ? 0 : props.page * props.pageSize + 1;
  const last = Math.min(props.total, (props.page + 1) * props.pageSize);
  return (
    <nav class="pager" aria-label={`${props.label} pages`}>
      <button
        type="button"
        class="secondary outline"
        disabled={props.page === 0}
        onClick={() => props.onPage(props.page - 1)}
      >
        Previous
      </button>
      <small>
        {first}–{last} of {props.total} {props.label} (page {props.page + 1} of {pages})
      </small>
      <button
        type="button"
        class="secondary outline"
        disabled={props.page + 1 >= pages}
        onClick={() => props.onPage(props.page + 1)}
      >
        Next
      </button>
    </nav>
  );
}
