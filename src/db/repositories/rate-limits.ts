import { isPostgres, type Db, type SqliteConnection } from '../connection.js';
import { perPoll } from '../poll-batches.js';

/**
 * Budgets in the database, so every instance shares them: request budgets as their admissions still in the
 * window (tables rate_limit_budgets and rate_limit_admissions), fixed-window counters for counting events
 * (wrong passwords, registrations).
 */
export class RateLimitsRepository {
  /** Charges on SQLite wait for the event loop's poll to end (chargeInProcess). */
  private readonly wait = perPoll<WaitingCharge>((charges) => void this.decideWaiting(charges));

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
    await this.db('rate_limit_windows')
      .where({ bucket, window_start: windowStart })
      .where('hits', '>=', amount)
      .decrement('hits', amount);
  }

  async hits(bucket: string, windowStart: number): Promise<number> {
    const row = await this.db('rate_limit_windows').where({ bucket, window_start: windowStart }).first('hits');
    return Number(row?.hits ?? 0);
  }

  /**
   * Charges the `charged` budgets together: the request is admitted only when every one of them has room, and then
   * spends a slot of each; a refused request spends nothing anywhere. `reported` budgets are read, not charged or
   * required. Each decision is made under the rows' locks (Postgres) or in one immediate transaction (SQLite), so
   * no budget ever admits more than its limit whatever runs beside it, on this instance or another.
   */
  async charge(now: number, charged: LogBudget[], reported: LogBudget[] = []): Promise<ChargeResult> {
    // One lock order for every charge, so two charges sharing budgets never wait on each other in a cycle.
    const budgets = [
      ...charged.map((budget) => ({ budget, charge: true })),
      ...reported.map((budget) => ({ budget, charge: false })),
    ];
    const order = budgets
      .map((_, i) => i)
      .sort((a, b) => (budgets[a].budget.bucket < budgets[b].budget.bucket ? -1 : 1));
    const sorted = order.map((i) => budgets[i]);
    const states = isPostgres(this.db)
      ? await this.chargeOnPostgres(now, sorted)
      : await this.chargeInProcess(now, sorted);
    const byInput: BudgetState[] = [];
    order.forEach((input, i) => (byInput[input] = states.states[i]));
    return {
      admitted: states.admitted,
      charged: byInput.slice(0, charged.length),
      reported: byInput.slice(charged.length),
    };
  }

  private async chargeOnPostgres(now: number, budgets: Charging[]): Promise<Decided> {
    const result = await this.db.raw(
      'SELECT * FROM herald_charge_budgets(CAST(? AS TEXT[]), CAST(? AS BIGINT[]), CAST(? AS BIGINT[]), CAST(? AS BOOLEAN[]), CAST(? AS BIGINT))',
      [
        budgets.map((b) => b.budget.bucket),
        budgets.map((b) => b.budget.limit),
        budgets.map((b) => b.budget.windowMs),
        budgets.map((b) => b.charge),
        now,
      ],
    );
    const rows = result.rows as {
      budget_count: number;
      budget_oldest: number | null;
      budget_latest: number | null;
      budget_admitted: boolean;
    }[];
    return {
      admitted: rows.every((row) => row.budget_admitted),
      states: rows.map((row) => ({
        count: Number(row.budget_count),
        oldest: row.budget_oldest ?? undefined,
        latest: row.budget_latest ?? undefined,
      })),
    };
  }

  /**
   * SQLite: the same steps as Postgres's herald_charge_budgets (migration 021), run on the connection itself as
   * prepared statements: a dozen statements cost less in process than Knex's promise for one. The connection is
   * taken from Knex's pool, so no transaction of Knex's is open on it.
   *
   * Charges made while the event loop polls wait for the poll to end and are then decided in one immediate
   * transaction, one after another in the order they came, each in a savepoint of its own: exactly what they would
   * decide one transaction each, but one BEGIN, one COMMIT and one write of the budgets' pages for them all. Those
   * were a third of what a charge cost, and the charge a tenth of a REST read (BENCHMARKS.md). A charge that fails
   * takes only its own savepoint back.
   */
  private chargeInProcess(now: number, budgets: Charging[]): Promise<Decided> {
    return new Promise((resolve, reject) => this.wait({ now, budgets, resolve, reject }));
  }

  private async decideWaiting(charges: WaitingCharge[]): Promise<void> {
    try {
      const connection = (await this.db.client.acquireConnection()) as SqliteConnection;
      try {
        decideTogether(connection, charges);
      } finally {
        await this.db.client.releaseConnection(connection);
      }
    } catch (error) {
      // Nothing was settled unless the commit went through (a later refusal of a settled charge changes nothing).
      for (const charge of charges) charge.reject(error);
    }
  }

  /** Drops spent fixed windows, and budgets whose every admission has left the window, with their admissions. */
  async deleteExpired(now: number): Promise<number> {
    const windows = await this.db('rate_limit_windows').where('expires_at', '<=', now).delete();
    const budgets = await this.db.transaction(async (trx): Promise<number> => {
      const spent = trx('rate_limit_budgets').where('expires_at', '<=', now).select('bucket');
      await trx('rate_limit_admissions').whereIn('bucket', spent).delete();
      return await trx('rate_limit_budgets').where('expires_at', '<=', now).delete();
    });
    return windows + budgets;
  }
}

/** A request budget as the store sees it: at most `limit` admissions in any `windowMs`. */
export interface LogBudget {
  bucket: string;
  limit: number;
  windowMs: number;
}

/** A budget after a charge: its admissions still in the window, the oldest and the latest of them. */
export interface BudgetState {
  count: number;
  /** Read only when the budget may be what refuses the request: a budget that admitted it may leave it out. */
  oldest: number | undefined;
  latest: number | undefined;
}

export interface ChargeResult {
  admitted: boolean;
  /** In the order the charged budgets were given. */
  charged: BudgetState[];
  reported: BudgetState[];
}

interface Charging {
  budget: LogBudget;
  charge: boolean;
}

interface Decided {
  admitted: boolean;
  states: BudgetState[];
}

interface WaitingCharge {
  now: number;
  budgets: Charging[];
  resolve(decided: Decided): void;
  reject(error: unknown): void;
}

/**
 * The waiting charges in one immediate transaction, each in a savepoint (a nested transaction of better-sqlite3's),
 * settled once it commits; a failed commit leaves them to the caller to refuse.
 */
function decideTogether(connection: SqliteConnection, charges: WaitingCharge[]): void {
  const decide = connection.transaction(decideOnSqlite);
  const outcomes = connection
    .transaction(() =>
      charges.map(({ now, budgets }) => {
        try {
          return { decided: decide(connection, now, budgets) };
        } catch (error) {
          return { error };
        }
      }),
    )
    .immediate();
  outcomes.forEach((outcome, i) =>
    'error' in outcome ? charges[i].reject(outcome.error) : charges[i].resolve(outcome.decided),
  );
}

/** One charge on SQLite, inside the caller's transaction (chargeInProcess). */
function decideOnSqlite(connection: SqliteConnection, now: number, budgets: Charging[]): Decided {
  const held = budgets.map(({ budget }) => {
    const row = connection.prepare(ENSURE_BUDGET).get(budget.bucket, now) as { kept: number; expires_at: number };
    // Every admission held lies at or before expires_at less a window; only then can one lie ahead of now.
    const latestHeld = row.expires_at - budget.windowMs;
    const spent = [
      ...(connection.prepare(DROP_LEFT).all(budget.bucket, now - budget.windowMs) as { n: number }[]),
      ...(latestHeld > now + budget.windowMs
        ? (connection.prepare(DROP_AHEAD).all(budget.bucket, now + budget.windowMs) as { n: number }[])
        : []),
    ].reduce((sum, n) => sum + n.n, 0);
    return { count: row.kept - spent, spent, latestHeld };
  });
  const admitted = budgets.every(({ budget, charge }, i) => !charge || held[i].count < budget.limit);
  return {
    admitted,
    states: budgets.map(({ budget, charge }, i) => {
      const { spent, latestHeld } = held[i];
      let count = held[i].count;
      if (admitted && charge) {
        connection.prepare(ADMIT).run(budget.bucket, now);
        count++;
        connection.prepare(KEEP_ADMITTED).run(count, now + budget.windowMs, budget.bucket);
        // The admission just made is the latest unless an earlier one lies ahead of now (clocks of other instances).
        if (latestHeld <= now) return { count, oldest: undefined, latest: now };
      } else if (spent > 0) {
        connection.prepare(KEEP).run(count, budget.bucket);
      }
      const oldest = connection.prepare(OLDEST).get(budget.bucket) as { at: number | null };
      const latest = connection.prepare(LATEST).get(budget.bucket) as { at: number | null };
      return { count, oldest: oldest.at ?? undefined, latest: latest.at ?? undefined };
    }),
  };
}

/*
 * A budget's admissions are the rows still in its window: each charge first drops those that have left it, and
 * those more than a window ahead, which only a clock that went back leaves (each row is dropped once, so this is
 * constant work a request on average), and keeps the budget's count of what remains. The admission test is then
 * one comparison, and a budget set high costs what a small one does.
 */
const ENSURE_BUDGET = `INSERT INTO rate_limit_budgets (bucket, kept, expires_at) VALUES (?, 0, ?)
  ON CONFLICT (bucket) DO UPDATE SET kept = rate_limit_budgets.kept RETURNING kept, expires_at`;
// Two ranges, not one OR: each is a seek on the (bucket, at) key, where the OR would read every admission held.
const DROP_LEFT = 'DELETE FROM rate_limit_admissions WHERE bucket = ? AND at <= ? RETURNING n';
const DROP_AHEAD = 'DELETE FROM rate_limit_admissions WHERE bucket = ? AND at > ? RETURNING n';
const ADMIT =
  'INSERT INTO rate_limit_admissions (bucket, at, n) VALUES (?, ?, 1) ON CONFLICT (bucket, at) DO UPDATE SET n = rate_limit_admissions.n + 1';
const KEEP_ADMITTED = 'UPDATE rate_limit_budgets SET kept = ?, expires_at = max(expires_at, ?) WHERE bucket = ?';
const KEEP = 'UPDATE rate_limit_budgets SET kept = ? WHERE bucket = ?';
const OLDEST = 'SELECT min(at) AS at FROM rate_limit_admissions WHERE bucket = ?';
const LATEST = 'SELECT max(at) AS at FROM rate_limit_admissions WHERE bucket = ?';
