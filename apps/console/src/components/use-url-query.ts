// A list page's URL query as state: the parsed parameters, and navigation to new ones (a new
// history entry, so back returns to the previous filters or page). Changing anything but the
// cursor starts again at the first page.
import { useMemo } from 'preact/hooks';
import { useLocation, useSearch } from 'wouter-preact';

export interface UrlQuery {
  /** The query string without `?` (a dependency for loads). */
  readonly search: string;
  readonly params: URLSearchParams;
  go(next: URLSearchParams): void;
  set(name: string, value: string | undefined): void;
}

/** `path`: the page's path for the router it is used in (`/audit`, or `~/console/logs` when nested). */
export function useUrlQuery(path: string): UrlQuery {
  const search = useSearch();
  const [, navigate] = useLocation();
  const params = useMemo(() => new URLSearchParams(search), [search]);
  const go = (next: URLSearchParams) => navigate(next.size ? `${path}?${next}` : path);
  return {
    search,
    params,
    go,
    set(name, value) {
      const next = new URLSearchParams(params);
      if (value) next.set(name, value);
      else next.delete(name);
      if (name !== 'cursor') next.delete('cursor');
      go(next);
    },
  };
}
