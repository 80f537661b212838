/**
 * Collects what is asked for while the event loop polls and hands it over once the poll ends, in the order it was
 * asked: SQLite's writers decide a poll's worth of requests in one transaction (the rate-limit charges,
 * `repositories/rate-limits.ts`; the units of work, `group-commit.ts`).
 */
export function perPoll<T>(flush: (batch: T[]) => void): (item: T) => void {
  let waiting: T[] = [];
  return (item) => {
    waiting.push(item);
    if (waiting.length > 1) return;
    setImmediate(() => {
      const batch = waiting;
      waiting = [];
      flush(batch);
    });
  };
}
