import type { Knex } from 'knex';
import { isPostgres, type Db, type SqliteConnection } from '../connection.js';
import { runOn, runSql, type SqlRow } from '../sqlite-statements.js';
import { perPoll, unitConnection } from '../units-of-work.js';

/**
 * Budgets in the database, so every instance shares them: request budgets as their admissions still in the
 * window (tables rate_limit_budgets and rate_limit_admissions), fixed-window counters for counting events
 * (wrong passwords, registrations).
 */
export class RateLimitsRepository {
  /** SQLite's charges wait for the event loop's poll to end, then are decided together (`decideWaiting`). */
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
   * required. One algorithm decides on both databases (`decide`), in a transaction whose first statement on each
   * budget locks the budget's row until it commits (Postgres; SQLite's transaction holds the database's write lock),
   * so no budget ever admits more than its limit whatever runs beside it, on this instance or another.
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
    const states = await this.decideNow(now, sorted);
    const byInput: BudgetState[] = [];
    order.forEach((input, i) => (byInput[input] = states.states[i]));
    return {
      admitted: states.admitted,
      charged: byInput.slice(0, charged.length),
      reported: byInput.slice(charged.length),
    };
  }

  private decideNow(now: number, budgets: Charging[]): Promise<Decided> {
    const connection = isPostgres(this.db) ? undefined : unitConnection(this.db);
    // Inside a unit of work on SQLite its connection holds the only transaction: the charge is a savepoint of it.
    if (connection) return Promise.resolve(inSavepoint(connection, now, budgets));
    if (isPostgres(this.db) || (this.db as Knex.Transaction).isTransaction) {
      return this.db.transaction(async (trx) => {
        const steps = decide(now, budgets);
        let step = steps.next();
        while (!step.done) step = steps.next(await runSql(trx, step.value.sql, step.value.bindings));
        return step.value;
      });
    }
    return new Promise((resolve, reject) => this.wait({ now, budgets, resolve, reject }));
  }

  /**
   * SQLite outside a unit: the charges made while the event loop polled, decided on the pool's connection in one
   * immediate transaction, one after another in the order they came, each in a savepoint of its own: what each
   * would decide in a transaction of its own, for one BEGIN, one COMMIT and one write of the budgets' pages
   * (BENCHMARKS.md). A charge settles only once the transaction commits; a charge that fails takes back only its
   * own savepoint.
   */
  private async decideWaiting(charges: WaitingCharge[]): Promise<void> {
    let outcomes: ({ decided: Decided } | { error: unknown })[];
    try {
      // Knex's pool hands the connection out (test/db/knex-contract.test.ts pins these two calls).
      const connection = (await this.db.client.acquireConnection()) as TransactingConnection;
      try {
        outcomes = connection
          .transaction(() =>
            charges.map(({ now, budgets }) => {
              try {
                return { decided: inSavepoint(connection, now, budgets) };
              } catch (error) {
                return { error };
              }
            }),
          )
          .immediate();
      } finally {
        await this.db.client.releaseConnection(connection);
      }
    } catch (error) {
      for (const charge of charges) charge.reject(error);
      return;
    }
    outcomes.forEach((outcome, i) =>
      'error' in outcome ? charges[i].reject(outcome.error) : charges[i].resolve(outcome.decided),
    );
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

/** better-sqlite3's transaction functions: a call inside an open transaction is a savepoint. */
interface TransactingConnection extends SqliteConnection {
  transaction<T>(work: () => T): { (): T; immediate(): T };
}

/** One charge on SQLite's connection itself, synchronously, in a savepoint of the transaction open on it. */
function inSavepoint(connection: SqliteConnection, now: number, budgets: Charging[]): Decided {
  return (connection as TransactingConnection).transaction(() => {
    const steps = decide(now, budgets);
    let step = steps.next();
    while (!step.done) step = steps.next(runOn(connection, step.value.sql, step.value.bindings));
    return step.value;
  })();
}

interface Statement {
  sql: string;
  bindings: unknown[];
}

/**
 * The charge, written once for both databases: it yields each statement and is handed back its rows, so SQLite runs
 * it synchronously on its connection and Postgres awaits each statement in its transaction.
 */
function* decide(now: number, budgets: Charging[]): Generator<Statement, Decided, SqlRow[]> {
  const held: { count: number; spent: number; expiresAt: number }[] = [];
  for (const { budget } of budgets) {
    const [row] = (yield { sql: ENSURE_BUDGET, bindings: [budget.bucket, now] }) as {
      kept: number;
      expires_at: number;
    }[];
    // Every admission held lies at or before expires_at less a window; only then can one lie ahead of now.
    const latestHeld = Number(row.expires_at) - budget.windowMs;
    const dropped = [
      ...(yield { sql: DROP_LEFT, bindings: [budget.bucket, now - budget.windowMs] }),
      ...(latestHeld > now + budget.windowMs
        ? yield { sql: DROP_AHEAD, bindings: [budget.bucket, now + budget.windowMs] }
        : []),
    ] as { n: number }[];
    const spent = dropped.reduce((sum, n) => sum + Number(n.n), 0);
    held.push({ count: Number(row.kept) - spent, spent, expiresAt: Number(row.expires_at) });
  }
  const admitted = budgets.every(({ budget, charge }, i) => !charge || held[i].count < budget.limit);
  const states: BudgetState[] = [];
  for (const [i, { budget, charge }] of budgets.entries()) {
    const { spent, expiresAt } = held[i];
    let count = held[i].count;
    if (admitted && charge) {
      yield { sql: ADMIT, bindings: [budget.bucket, now] };
      count++;
      yield { sql: KEEP_ADMITTED, bindings: [count, Math.max(expiresAt, now + budget.windowMs), budget.bucket] };
      // The admission just made is the latest unless an earlier one lies ahead of now (clocks of other instances).
      if (expiresAt - budget.windowMs <= now) {
        states.push({ count, oldest: undefined, latest: now });
        continue;
      }
    } else if (spent > 0) {
      yield { sql: KEEP, bindings: [count, budget.bucket] };
    }
    const [span] = (yield { sql: SPAN, bindings: [budget.bucket] }) as {
      oldest: number | string | null;
      latest: number | string | null;
    }[];
    states.push({
      count,
      oldest: span.oldest === null ? undefined : Number(span.oldest),
      latest: span.latest === null ? undefined : Number(span.latest),
    });
  }
  return { admitted, states };
}

/*
 * A budget's admissions are the rows still in its window: each charge first drops those that have left it, and
 * those more than a window ahead, which only a clock that went back leaves (each row is dropped once, so this is
 * constant work a request on average), and keeps the budget's count of what remains. The admission test is then
 * one comparison, and a budget set high costs what a small one does. The first statement on a budget's row (an
 * upsert that changes nothing) is what locks it on Postgres.
 */
const ENSURE_BUDGET = `INSERT INTO rate_limit_budgets (bucket, kept, expires_at) VALUES (?, 0, ?)
  ON CONFLICT (bucket) DO UPDATE SET kept = rate_limit_budgets.kept RETURNING kept, expires_at`;
// Two ranges, not one OR: each is a seek on the (bucket, at) key, where the OR would read every admission held.
const DROP_LEFT = 'DELETE FROM rate_limit_admissions WHERE bucket = ? AND at <= ? RETURNING n';
const DROP_AHEAD = 'DELETE FROM rate_limit_admissions WHERE bucket = ? AND at > ? RETURNING n';
const ADMIT =
  'INSERT INTO rate_limit_admissions (bucket, at, n) VALUES (?, ?, 1) ON CONFLICT (bucket, at) ' +
  'DO UPDATE SET n = rate_limit_admissions.n + 1';
const KEEP_ADMITTED = 'UPDATE rate_limit_budgets SET kept = ?, expires_at = ? WHERE bucket = ?';
const KEEP = 'UPDATE rate_limit_budgets SET kept = ? WHERE bucket = ?';
const SPAN = 'SELECT min(at) AS oldest, max(at) AS latest FROM rate_limit_admissions WHERE bucket = ?';
