import type { Db } from '../connection.js';

/** Fixed-window hit counters in the database, so every instance shares one budget. */
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

  async deleteExpired(now: number): Promise<number> {
    return this.db('rate_limit_windows').where('expires_at', '<=', now).delete();
  }
}
