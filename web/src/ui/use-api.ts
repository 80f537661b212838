/**
 * Loads what a page shows: `data` once it arrived, `error` in words when it did not, and `reload` after a change.
 * A reload of the same thing keeps the previous data, so the page does not jump. When the keys change (another
 * filter, another post), the data loaded for the old keys is not shown as if it answered the new ones: the page
 * shows that it is loading, unless it asks to keep the old view meanwhile (`keepPrevious`, for a view that labels
 * its own data, like the calendar's period).
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { toApiError, type ApiError } from '../api.js';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload: () => Promise<void>;
}

interface Outcome<T> {
  keys: readonly unknown[];
  data?: T;
  error?: ApiError;
}

export function useApi<T>(
  load: () => Promise<T>,
  keys: readonly unknown[],
  options: { keepPrevious?: boolean } = {},
): Loaded<T> {
  const [outcome, setOutcome] = useState<Outcome<T> | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const value = await load();
      if (mine === generation.current) setOutcome({ keys, data: value });
    } catch (caught) {
      if (mine === generation.current)
        setOutcome((previous) => ({
          keys,
          data: previous && sameKeys(previous.keys, keys) ? previous.data : undefined,
          error: toApiError(caught),
        }));
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, keys);
  useEffect(() => {
    void reload();
  }, [reload]);
  const current = outcome !== undefined && sameKeys(outcome.keys, keys);
  const shown = current || options.keepPrevious ? outcome : undefined;
  return { data: shown?.data, error: current ? outcome.error : undefined, loading: loading || !current, reload };
}

function sameKeys(a: readonly unknown[], b: readonly unknown[]): boolean {
  return a.length === b.length && a.every((key, i) => Object.is(key, b[i]));
}
