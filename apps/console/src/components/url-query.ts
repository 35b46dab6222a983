// List pages keep their filters and page in the URL query (a filtered view can be shared and
// reloaded): these helpers read the URL's filter values into an API query, write a form's values
// back, and map an API error's `param` (`query.status_code.0`) to the filter field it names.

/** The URL's non-empty values of `names`, as the API takes them (strings; the API validates). */
export function pickParams(search: URLSearchParams, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = search.get(name)?.trim();
    if (value) out[name] = value;
  }
  return out;
}

/**
 * The URL search for a form's `values` over `names`: every other parameter of `current` is kept
 * (page size), empty values and the cursor dropped (new filters start at the first page).
 */
export function withFilters(
  current: URLSearchParams,
  names: readonly string[],
  values: Readonly<Record<string, string>>,
): URLSearchParams {
  const next = new URLSearchParams(current);
  next.delete('cursor');
  for (const name of names) {
    const value = values[name]?.trim();
    if (value) next.set(name, value);
    else next.delete(name);
  }
  return next;
}

/** The query parameter an API error names (`query.status_code.0` -> `status_code`), if any. */
export function fieldOfParam(param: string | null | undefined): string | undefined {
  if (!param) return undefined;
  const parts = param.split('.');
  const start = parts[0] === 'query' ? 1 : 0;
  return parts[start] || undefined;
}

/** The page size in the URL when it is one of `sizes`, else `fallback`. */
export function pageSizeOf(search: URLSearchParams, sizes: readonly number[], fallback: number): number {
  const size = Number(search.get('page_size'));
  return sizes.includes(size) ? size : fallback;
}
