// A list page whose filters and cursor live in the URL query (logs, audit log, feedback): the title
// with Refresh, the filter form, the table, and the cursor pager, all driven by the URL, so a link
// or the back button shows the same page.
import type { ComponentChildren } from 'preact';
import { CursorPager, PAGE_SIZES } from './cursor-pager.js';
import { ListTable, type ListTableProps } from './list-table.js';
import { Page } from './page.js';
import { errorShownByField, type FilterField, filterNames, UrlFilterForm } from './url-filter-form.js';
import { pageSizeOf, withFilters } from './url-query.js';
import type { Loaded } from './use-api.js';
import type { UrlQuery } from './use-url-query.js';

export function UrlListPage(
  props: {
    readonly title: string;
    readonly url: UrlQuery;
    readonly fields: readonly FilterField[];
    /** Parameters besides the filters whose error a field of the page shows (the logs' trace id). */
    readonly fieldParams?: readonly string[];
    readonly loaded: Loaded<{ readonly data: readonly unknown[]; readonly next_cursor?: string | null }>;
    readonly defaultPageSize: number;
    /** Shown above the filters (the logs' trace id search). */
    readonly before?: ComponentChildren;
  } & Omit<ListTableProps, 'loading' | 'error' | 'rows' | 'pager'>,
) {
  const { url, loaded, fields } = props;
  const names = filterNames(fields, true);
  const rows = loaded.data?.data;
  return (
    <Page
      title={props.title}
      actions={
        <button type="button" class="secondary outline" onClick={loaded.reload} aria-busy={loaded.loading}>
          Refresh
        </button>
      }
    >
      {props.before}
      <UrlFilterForm
        label="Filters"
        fields={fields}
        timeRange
        search={url.params}
        error={loaded.error}
        apply={(values) => url.go(withFilters(url.params, names, values))}
      />
      <ListTable
        testId={props.testId}
        class={props.class}
        columns={props.columns}
        hiddenColumn={props.hiddenColumn}
        loading={loaded.loading}
        error={
          errorShownByField(loaded.error, [...names, ...(props.fieldParams ?? [])]) ? undefined : loaded.error
        }
        rows={rows}
        empty={props.empty}
        emptyTestId={props.emptyTestId}
        pager={
          <CursorPager
            cursor={url.params.get('cursor') ?? undefined}
            nextCursor={loaded.loading ? undefined : loaded.data?.next_cursor}
            pageSize={pageSizeOf(url.params, PAGE_SIZES, props.defaultPageSize)}
            shown={rows?.length ?? 0}
            go={(cursor) => url.set('cursor', cursor)}
            setPageSize={(size) => url.set('page_size', String(size))}
          />
        }
      >
        {props.children}
      </ListTable>
    </Page>
  );
}
