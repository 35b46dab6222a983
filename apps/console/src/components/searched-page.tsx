// A select over a list the API filters by a search term (workspaces by name, users by e-mail): the
// first page of matches, and a search box once there are more than a page or a search is typed. The
// browser never loads the whole list.
import { useState } from 'preact/hooks';
import { type Loaded, useApi } from './use-api.js';

export const SEARCHED_PAGE = 100;

export interface SearchedPage<T> {
  readonly list: Loaded<{ readonly data: readonly T[]; readonly total: number } | undefined>;
  readonly search: string;
  setSearch(search: string): void;
  /** More than one page, or a search typed: the search box is worth showing. */
  readonly searchable: boolean;
}

/** `load(search)` answers the first page of matches, or undefined when the caller may not list. */
export function useSearchedPage<T>(
  load: (search: string) => Promise<{ readonly data: readonly T[]; readonly total: number } | undefined>,
  deps: readonly unknown[],
): SearchedPage<T> {
  const [search, setSearch] = useState('');
  const list = useApi(() => load(search), [...deps, search]);
  return {
    list,
    search,
    setSearch,
    searchable: (list.data?.total ?? 0) > SEARCHED_PAGE || search !== '',
  };
}

export function SearchBox(props: { label: string; value: string; onInput(value: string): void }) {
  return (
    <label>
      <small>{props.label}</small>
      <input
        type="search"
        value={props.value}
        onInput={(e) => props.onInput((e.target as HTMLInputElement).value)}
      />
    </label>
  );
}
