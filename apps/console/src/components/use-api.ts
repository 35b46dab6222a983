// Loads data for a page: re-runs when `deps` change, drops answers that arrive after newer ones
// (a fast typist's filters never show stale rows), and keeps the error to show where it belongs.
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import type { ApiError } from '../api/client.js';

export interface Loaded<T> {
  readonly data: T | undefined;
  readonly error: ApiError | Error | undefined;
  readonly loading: boolean;
  reload(): void;
}

export function useApi<T>(load: () => Promise<T>, deps: readonly unknown[]): Loaded<T> {
  const [state, setState] = useState<{ data?: T; error?: Error; loading: boolean }>({ loading: true });
  const [tick, setTick] = useState(0);
  const latest = useRef(0);
  useEffect(() => {
    const call = ++latest.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => {
        if (call === latest.current) setState({ data, loading: false });
      },
      (error: unknown) => {
        if (call === latest.current)
          setState({ error: error instanceof Error ? error : new Error(String(error)), loading: false });
      },
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { data: state.data, error: state.error, loading: state.loading, reload };
}
