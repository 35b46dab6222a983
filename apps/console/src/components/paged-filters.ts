// A list page's filters and page number, paginated by the API (`current_page`, `page_size`): a changed
// filter goes back to the first page, and the query carries only the filters that are set.
import { useState } from 'preact/hooks';
import { type Loaded, useApi } from './use-api.js';

export interface PagedFilters<F extends { readonly page: number }> {
  readonly filters: F;
  /** Changes filters and goes back to the first page. */
  filter(patch: Partial<Omit<F, 'page'>>): void;
  setPage(page: number): void;
}

/** The filters, and the page they select, loaded again whenever they (or `deps`) change. */
export function usePagedList<F extends { readonly page: number }, T>(
  initial: F,
  load: (filters: F) => Promise<T>,
  deps: readonly unknown[] = [],
): PagedFilters<F> & { readonly list: Loaded<T> } {
  const [filters, setFilters] = useState(initial);
  const list = useApi(() => load(filters), [filters, ...deps]);
  return {
    filters,
    filter: (patch) => setFilters((f) => ({ ...f, ...patch, page: 0 })),
    setPage: (page) => setFilters((f) => ({ ...f, page })),
    list,
  };
}

type SetOnly<O> = { [K in keyof O]?: Exclude<O[K], ''> };

/** A page of the list, with the filters of `optional` that are not empty (the API reads '' as a value). */
export function pageQuery<O extends Record<string, string>>(
  pageSize: number,
  page: number,
  optional: O,
): { page_size: number; current_page: number } & SetOnly<O> {
  const set = Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== '')) as SetOnly<O>;
  return { page_size: pageSize, current_page: page, ...set };
}
