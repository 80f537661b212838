/**
 * Loads what a page shows: `data` once it arrived, `error` in words when it did not, and `reload` after a change.
 * Keeps the previous data while reloading, so the page does not jump.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { toApiError, type ApiError } from '../api.js';

export interface Loaded<T> {
  data: T | undefined;
  error: ApiError | undefined;
  loading: boolean;
  reload: () => Promise<void>;
}

export function useApi<T>(load: () => Promise<T>, keys: readonly unknown[]): Loaded<T> {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [loading, setLoading] = useState(true);
  const generation = useRef(0);
  const reload = useCallback(async () => {
    const mine = ++generation.current;
    setLoading(true);
    try {
      const value = await load();
      if (mine !== generation.current) return;
      setData(value);
      setError(undefined);
    } catch (caught) {
      if (mine !== generation.current) return;
      setError(toApiError(caught));
    } finally {
      if (mine === generation.current) setLoading(false);
    }
  }, keys);
  useEffect(() => {
    void reload();
  }, [reload]);
  return { data, error, loading, reload };
}
