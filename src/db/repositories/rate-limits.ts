import type { Db } from '../connection.js';

/**
 * Budgets in the database, so every instance shares them: GCRA buckets for request budgets, fixed-window
 * counters for counting events (wrong passwords, registrations).
 */
export class RateLimitsRepository {
  constructor(private readonly db: Db) {}

  /** Counts one hit in the window and returns the hits so far, atomically. */
  async hit(bucket: string, windowStart: number, expiresAt: number): Promise<number> {
    const rows = await this.db('rate_limit_windows')
      .insert({ bucket, window_start: windowStart, hits: 1, expires_at: expiresAt })
      .onConflict(['bucket', 'window_start'])
      .merge({ hits: this.db.raw('rate_limit_windows.hits + 1') })
      .returning('hits');
    return Number((rows[0] as { hits: number }).hits);
  }

  /** Takes back one hit counted in the window (an attempt that turned out not to count). */
  async unhit(bucket: string, windowStart: number): Promise<void> {
    await this.db('rate_limit_windows').where({ bucket, window_start: windowStart }).where('hits', '>', 0).decrement('hits', 1);
  }

  async hits(bucket: string, windowStart: number): Promise<number> {
    const row = await this.db('rate_limit_windows').where({ bucket, window_start: windowStart }).first('hits');
    return Number(row?.hits ?? 0);
  }

  /**
   * One GCRA step, atomically (the upsert locks the bucket's row): a request at `now` passes when the
   * bucket's theoretical arrival time, advanced by `interval`, is at most `window` ahead of now; then the
   * time is advanced and `token` recorded. Times in whole microseconds (an interval such as 60 s / 7 is
   * not a whole number of milliseconds); expires_at in milliseconds like every other table. Returns the
   * stored time and whether `token` passed.
   */
  async take(bucket: string, now: number, interval: number, window: number, token: string): Promise<{ tat: number; allowed: boolean }> {
    // A stored time more than a window ahead can only come from a clock that went back: start afresh.
    const base = 'CASE WHEN rate_limit_buckets.tat > CAST(? AS BIGINT) AND rate_limit_buckets.tat <= CAST(? AS BIGINT) THEN rate_limit_buckets.tat ELSE CAST(? AS BIGINT) END';
    const passes = `${base} + CAST(? AS BIGINT) - CAST(? AS BIGINT) <= CAST(? AS BIGINT)`;
    const baseArgs = [now, now + window, now];
    const test = [...baseArgs, interval, now, window];
    const result = await this.db.raw(
      `INSERT INTO rate_limit_buckets (bucket, tat, last_token, expires_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (bucket) DO UPDATE SET
         last_token = CASE WHEN ${passes} THEN excluded.last_token ELSE rate_limit_buckets.last_token END,
         tat = CASE WHEN ${passes} THEN ${base} + CAST(? AS BIGINT) ELSE rate_limit_buckets.tat END,
         expires_at = CASE WHEN ${passes} THEN (${base} + CAST(? AS BIGINT)) / 1000 ELSE rate_limit_buckets.expires_at END
       RETURNING tat, last_token`,
      [bucket, now + interval, token, Math.ceil((now + interval) / 1000), ...test, ...test, ...baseArgs, interval, ...test, ...baseArgs, interval],
    );
    const row = (Array.isArray(result) ? result[0] : result.rows[0]) as { tat: number | string; last_token: string };
    return { tat: Number(row.tat), allowed: row.last_token === token };
  }

  async bucketTat(bucket: string): Promise<number | undefined> {
    const row = await this.db('rate_limit_buckets').where({ bucket }).first('tat');
    return row ? Number(row.tat) : undefined;
  }

  async deleteExpired(now: number): Promise<number> {
    const windows = await this.db('rate_limit_windows').where('expires_at', '<=', now).delete();
    return windows + (await this.db('rate_limit_buckets').where('expires_at', '<=', now).delete());
  }
}
