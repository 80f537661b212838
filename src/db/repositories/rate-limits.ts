import { isPostgres, type Db } from '../connection.js';

/**
 * Budgets in the database, so every instance shares them: sliding logs for request budgets (table
 * rate_limit_logs), fixed-window counters for counting events (wrong passwords, registrations).
 */
export class RateLimitsRepository {
  constructor(private readonly db: Db) {}

  /** Counts `amount` hits (one by default) in the window and returns the hits so far, atomically. */
  async hit(bucket: string, windowStart: number, expiresAt: number, amount = 1): Promise<number> {
    const rows = await this.db('rate_limit_windows')
      .insert({ bucket, window_start: windowStart, hits: amount, expires_at: expiresAt })
      .onConflict(['bucket', 'window_start'])
      .merge({ hits: this.db.raw('rate_limit_windows.hits + ?', [amount]) })
      .returning('hits');
    return Number((rows[0] as { hits: number }).hits);
  }

  /** Takes back `amount` hits (one by default) counted in the window (an attempt that turned out not to count). */
  async unhit(bucket: string, windowStart: number, amount = 1): Promise<void> {
    await this.db('rate_limit_windows').where({ bucket, window_start: windowStart }).where('hits', '>=', amount).decrement('hits', amount);
  }

  async hits(bucket: string, windowStart: number): Promise<number> {
    const row = await this.db('rate_limit_windows').where({ bucket, window_start: windowStart }).first('hits');
    return Number(row?.hits ?? 0);
  }

  /** Charges one budget: one atomic upsert that admits the request when the budget has room. */
  async charge(now: number, budget: LogBudget): Promise<LogState> {
    return stateOf(rowOf(await this.db.raw(`${upsert(budget, now)} RETURNING times, admitted`, upsertBindings(budget, now))));
  }

  /**
   * Charges `first` and, only when it admits the request, `then`; `first` also refuses while `then` is
   * already full, so a request the second budget would refuse does not spend the first. Each budget's
   * decision is made on its row's latest version under the upsert's row lock, so no budget ever admits
   * more than its limit whatever runs beside it. Postgres: one statement (data-modifying CTEs), one round
   * trip. SQLite has no data-modifying CTEs: two statements, in process.
   */
  async chargeBoth(now: number, first: LogBudget, then: LogBudget): Promise<{ first: LogState; then: LogState }> {
    if (isPostgres(this.db)) {
      const result = await this.db.raw(
        `WITH step_one AS (${upsert(first, now, then)} RETURNING times, admitted),
         step_two AS (${upsert(then, now, undefined, 'step_one')} RETURNING times, admitted)
         SELECT 1 AS step, times, admitted FROM step_one
         UNION ALL SELECT 2, times, admitted FROM step_two
         UNION ALL SELECT 2, times, 0 FROM rate_limit_logs WHERE bucket = ? AND NOT EXISTS (SELECT 1 FROM step_two)`,
        [...upsertBindings(first, now, then), ...upsertBindings(then, now), then.bucket],
      );
      const rows = result.rows as (LogRow & { step: number })[];
      const second = rows.find((row) => Number(row.step) === 2);
      return { first: stateOf(rows.find((row) => Number(row.step) === 1)!), then: second ? stateOf(second) : { admitted: false, log: NOTHING } };
    }
    const charged = stateOf(rowOf(await this.db.raw(`${upsert(first, now, then)} RETURNING times, admitted`, upsertBindings(first, now, then))));
    if (!charged.admitted) return { first: charged, then: { admitted: false, log: await this.admissions(then.bucket) } };
    return { first: charged, then: await this.charge(now, then) };
  }

  /** A budget's last admissions, oldest first, without charging it. */
  async admissions(bucket: string): Promise<AdmissionLog> {
    const row = (await this.db('rate_limit_logs').where({ bucket }).first('times')) as LogRow | undefined;
    return new AdmissionLog(row?.times ?? '');
  }

  async deleteExpired(now: number): Promise<number> {
    const windows = await this.db('rate_limit_windows').where('expires_at', '<=', now).delete();
    return windows + (await this.db('rate_limit_logs').where('expires_at', '<=', now).delete());
  }
}

/** A request budget as the store sees it: at most `limit` admissions in any `windowMs`. */
export interface LogBudget {
  bucket: string;
  limit: number;
  windowMs: number;
}

/** A budget after a charge: whether this request was admitted, and its last admissions, oldest first. */
export interface LogState {
  admitted: boolean;
  log: AdmissionLog;
}

/**
 * A budget's log as the database holds it, read in place: a budget set high holds thousands of entries, and a
 * request only needs how many lie in its window, the latest of them and the oldest, so nothing is copied into an
 * array (splitting the log was the rate limiter's largest cost in the REST read's profile, BENCHMARKS.md).
 */
export class AdmissionLog {
  constructor(private readonly entries: string) {}

  get size(): number {
    return this.entries.length / WIDTH;
  }

  /** The i-th admission, oldest first. */
  at(i: number): number {
    let value = 0;
    for (let p = i * WIDTH, end = p + WIDTH; p < end; p++) value = value * 10 + (this.entries.charCodeAt(p) - 48);
    return value;
  }

  /** How many admissions lie in (from, to], and the latest of them (undefined when none). */
  within(from: number, to: number): { count: number; latest: number | undefined } {
    let count = 0;
    let latest: number | undefined;
    for (let i = 0, n = this.size; i < n; i++) {
      const at = this.at(i);
      if (at <= from || at > to) continue;
      count++;
      if (latest === undefined || at > latest) latest = at;
    }
    return { count, latest };
  }
}

interface LogRow {
  times: string;
  admitted: number | string;
}

/** Milliseconds since the epoch, zero-padded: fixed width up to the year 2286, so an entry is a substring. */
const WIDTH = 13;
const NOTHING = new AdmissionLog('');

function stamp(ms: number): string {
  return String(Math.max(0, Math.trunc(ms))).padStart(WIDTH, '0');
}

/**
 * The log's oldest entry has left the window, or lies more than a window ahead, which only a clock that
 * went back can leave: either way it no longer counts. (An empty log has no oldest entry: NULL, not spent.)
 */
function oldestSpent(row: string): string {
  const oldest = `CAST(NULLIF(substr(${row}.times, 1, ${WIDTH}), '') AS BIGINT)`;
  return `(${oldest} <= CAST(? AS BIGINT) OR ${oldest} > CAST(? AS BIGINT))`;
}

function oldestSpentBindings(budget: LogBudget, now: number): number[] {
  return [now - budget.windowMs, now + budget.windowMs];
}

/**
 * The admission test on one row. The log holds, oldest first, a suffix of the budget's admissions that
 * includes every one still in the window (only spent entries are ever dropped), so fewer than `limit`
 * entries, or a spent oldest one, means fewer than `limit` admissions in the window that ends now.
 */
function admits(row: string): string {
  return `(length(${row}.times) < CAST(? AS BIGINT) OR ${oldestSpent(row)})`;
}

function admitsBindings(budget: LogBudget, now: number): number[] {
  return [budget.limit * WIDTH, ...oldestSpentBindings(budget, now)];
}

/** `later` has room (or no row yet): read from the statement's snapshot, so only a pre-check. */
function hasRoom(): string {
  return `NOT EXISTS (SELECT 1 FROM rate_limit_logs later WHERE later.bucket = ? AND NOT ${admits('later')})`;
}

/**
 * One budget's upsert, without RETURNING: a new row holds this request alone; an existing row that admits
 * appends now and drops its oldest entry if spent, so the log keeps at most `limit` entries and shrinks
 * back as traffic slows. `later` adds the pre-check on the next budget; `after` names a CTE whose
 * admitted row is required before this budget is charged at all.
 */
function upsert(budget: LogBudget, now: number, later?: LogBudget, after?: string): string {
  const pre = later ? hasRoom() : '1 = 1';
  const admit = later ? `(${admits('rate_limit_logs')} AND ${hasRoom()})` : admits('rate_limit_logs');
  return `INSERT INTO rate_limit_logs (bucket, times, admitted, expires_at)
    SELECT CAST(? AS TEXT), CASE WHEN ${pre} THEN CAST(? AS TEXT) ELSE '' END,
      CASE WHEN ${pre} THEN 1 ELSE 0 END, CASE WHEN ${pre} THEN CAST(? AS BIGINT) ELSE CAST(? AS BIGINT) END
    ${after ? `FROM ${after} WHERE ${after}.admitted = 1` : 'WHERE 1 = 1'}
    ON CONFLICT (bucket) DO UPDATE SET
      times = CASE WHEN ${admit}
        THEN (CASE WHEN ${oldestSpent('rate_limit_logs')} THEN substr(rate_limit_logs.times, ${WIDTH + 1}) ELSE rate_limit_logs.times END) || CAST(? AS TEXT)
        ELSE rate_limit_logs.times END,
      admitted = CASE WHEN ${admit} THEN 1 ELSE 0 END,
      expires_at = CASE WHEN ${admit} THEN CAST(? AS BIGINT) ELSE rate_limit_logs.expires_at END`;
}

function upsertBindings(budget: LogBudget, now: number, later?: LogBudget): (string | number)[] {
  const pre = later ? [later.bucket, ...admitsBindings(later, now)] : [];
  const admit = [...admitsBindings(budget, now), ...pre];
  return [
    budget.bucket,
    ...pre, stamp(now),
    ...pre,
    ...pre, now + budget.windowMs, now,
    ...admit, ...oldestSpentBindings(budget, now), stamp(now),
    ...admit,
    ...admit, now + budget.windowMs,
  ];
}

function rowOf(result: unknown): LogRow {
  return (Array.isArray(result) ? result[0] : (result as { rows: LogRow[] }).rows[0]) as LogRow;
}

function stateOf(row: LogRow): LogState {
  return { admitted: Number(row.admitted) === 1, log: new AdmissionLog(row.times) };
}
