import { AsyncLocalStorage } from 'node:async_hooks';
import type { Knex } from 'knex';
import { isPostgres, type Db, type SqliteConnection } from './connection.js';

/**
 * Units of work (`repositories.inTransaction`), the same on both databases in what they promise:
 * - a unit's writes are kept when it resolves and taken back when it throws; a nested unit is a savepoint;
 * - a unit carries its transaction with it (AsyncLocalStorage), so the repositories made over the database itself,
 *   called while the unit runs, join it instead of waiting for a connection the unit holds (on SQLite, the only one);
 *   work it leaves running after it settles goes to the database itself;
 * - on SQLite, the units asked for while the event loop polls run in one transaction, one after another in the
 *   order they came, each in a savepoint: each sees what the units before it wrote, as it would have one transaction
 *   each, and a unit that throws takes back only its own writes. One BEGIN, one COMMIT and one write of the pages
 *   touched for them all, where each unit alone paid its own (BENCHMARKS.md). A unit is settled only once the
 *   transaction commits, so none reports a write that was not kept; if the commit fails, every unit of the group
 *   fails with it. The group takes SQLite's write lock before its first unit runs (what BEGIN IMMEDIATE does, under
 *   Knex's plain BEGIN): another process writing between a unit's reads and its writes would otherwise fail the
 *   group's every later write, not just the one unit's.
 */
interface RunningUnit {
  /** The database whose repositories join this unit. */
  readonly outer: Db;
  readonly trx: Knex.Transaction;
  /** SQLite: the connection holding the group's transaction, where statements written out as SQL go directly. */
  readonly connection: SqliteConnection | undefined;
  /** False once the unit has settled: work it left running goes back to the database itself. */
  open: boolean;
}

/**
 * The unit a transaction belongs to, handed over explicitly: repositories bound to a unit's transaction, and
 * statements given it, find the unit's connection here.
 */
const units = new WeakMap<Knex.Transaction, RunningUnit>();

/**
 * The unit the running code belongs to, for repositories over the database itself. Node 20 keeps such a store
 * with a hook on every promise made while any store is in use (3 times the cost of an `await`, measured), so it is
 * kept only while a unit of the domain runs, and charges (`rate-limits.ts`) are not carried in it.
 */
const running = new AsyncLocalStorage<RunningUnit>();
let carrying = 0;
/** The databases behind their joiningUnits views. */
const views = new WeakMap<Db, Db>();

function current(db: Db): RunningUnit | undefined {
  const unit = carrying > 0 ? running.getStore() : undefined;
  return unit?.open && unit.outer === (views.get(db) ?? db) ? unit : undefined;
}

/** The SQLite connection that holds the transaction `db` stands for, when `db` is a running unit's. */
export function unitConnection(db: Db): SqliteConnection | undefined {
  const unit = units.get(db as Knex.Transaction) ?? current(db);
  return unit?.open ? unit.connection : undefined;
}

/**
 * The database as the repositories made over it see it: inside a running unit, that unit's transaction; elsewhere
 * the database itself.
 */
export function joiningUnits(db: Db): Db {
  const view = new Proxy(db, {
    apply: (_, thisArg, args) => Reflect.apply(current(db)?.trx ?? db, thisArg, args),
    get: (_, property) => {
      const target = current(db)?.trx ?? db;
      return Reflect.get(target, property, target);
    },
  });
  views.set(view, db);
  return view;
}

/** `inTransaction` for repositories made over `db` (a database or a unit's transaction), made by `bind`. */
export function unitsOfWork<R>(db: Db, bind: (trx: Knex.Transaction) => R): UnitsOfWork<R> {
  const nested = <T>(unit: RunningUnit, work: (repos: R) => Promise<T>) =>
    unit.trx.transaction((trx) => runUnit({ ...unit, trx, open: true }, () => work(bind(trx))));
  if ((db as Knex.Transaction).isTransaction) {
    // Repositories over a transaction of Knex's own that no unit runs in nest as Knex does, in a savepoint.
    return (work) => {
      const unit = units.get(db as Knex.Transaction);
      return unit?.open ? nested(unit, work) : db.transaction((trx) => work(bind(trx)));
    };
  }
  const alone = isPostgres(db)
    ? <T>(work: (repos: R) => Promise<T>) =>
        db.transaction((trx) => runUnit({ outer: db, trx, connection: undefined, open: true }, () => work(bind(trx))))
    : groupCommit(db, bind);
  return (work) => {
    const unit = current(db);
    return unit ? nested(unit, work) : alone(work);
  };
}

async function runUnit<T>(unit: RunningUnit, work: () => Promise<T>): Promise<T> {
  units.set(unit.trx, unit);
  carrying++;
  try {
    return await running.run(unit, work);
  } finally {
    unit.open = false;
    if (--carrying === 0) running.disable();
  }
}

const groups = new WeakMap<Db, (unit: Waiting) => void>();

function groupCommit<R>(db: Db, bind: (trx: Knex.Transaction) => R): UnitsOfWork<R> {
  async function commitGroup(units: Waiting[]): Promise<void> {
    let outcomes: Outcome[];
    try {
      const connection = (await db.client.acquireConnection()) as SqliteConnection;
      try {
        for (let waited = 0; ; ) {
          try {
            outcomes = await db.transaction((trx) => runInSavepoints(db, trx, connection, units), { connection });
            break;
          } catch (error) {
            if (!(error instanceof WriteLockBusy) || waited >= LOCK_WAIT_MS) throw error;
            const pause = 5 + Math.floor(Math.random() * 45);
            await new Promise((resolve) => setTimeout(resolve, pause));
            waited += pause;
          }
        }
      } finally {
        await db.client.releaseConnection(connection);
      }
    } catch (error) {
      for (const unit of units) unit.reject(error);
      return;
    }
    outcomes.forEach((outcome, i) =>
      'error' in outcome ? units[i].reject(outcome.error) : units[i].resolve(outcome.value),
    );
  }

  // One group per database, however many times its repositories are made.
  let wait = groups.get(db);
  if (!wait) {
    wait = perPoll<Waiting>((units) => void commitGroup(units));
    groups.set(db, wait);
  }
  const ask = wait;
  return <T>(work: (repos: R) => Promise<T>) =>
    new Promise<T>((resolve, reject) =>
      ask({
        work: (trx) => work(bind(trx)),
        resolve: resolve as (value: unknown) => void,
        reject,
      }),
    );
}

async function runInSavepoints(
  db: Db,
  trx: Knex.Transaction,
  connection: SqliteConnection,
  units: Waiting[],
): Promise<Outcome[]> {
  // SQLite takes a write transaction's lock at its first write, even one that matches no row.
  try {
    connection.prepare(TAKE_WRITE_LOCK).run();
  } catch (error) {
    if (String((error as { code?: unknown }).code).startsWith('SQLITE_BUSY')) throw new WriteLockBusy();
    throw error;
  }
  const outcomes: Outcome[] = [];
  for (const unit of units) {
    connection.prepare('SAVEPOINT herald_unit').run();
    try {
      const unitRun = { outer: db, trx, connection, open: true };
      outcomes.push({ value: await runUnit(unitRun, () => unit.work(trx)) });
    } catch (error) {
      // Throws, failing the whole group, when SQLite has already ended the transaction itself (a full disk).
      connection.prepare('ROLLBACK TO herald_unit').run();
      outcomes.push({ error });
    }
    connection.prepare('RELEASE herald_unit').run();
  }
  return outcomes;
}

const TAKE_WRITE_LOCK = 'DELETE FROM rate_limit_windows WHERE 0';

/**
 * Another process held the write lock, and SQLite refused to wait for it: under Knex's plain BEGIN the first write
 * reads a snapshot before asking for the lock, and a snapshot another writer has since moved past cannot be made a
 * write (SQLITE_BUSY without calling the busy handler). Nothing of the group has run yet, so it is begun again,
 * after a short random pause, for as long as busy_timeout would have waited.
 */
class WriteLockBusy extends Error {
  constructor() {
    super('another process holds the database write lock');
  }
}
const LOCK_WAIT_MS = 5_000;

/**
 * Collects what is asked for while the event loop polls and hands it over once the poll ends, in the order it was
 * asked. The hand-over runs outside any unit of work, whichever asked first.
 */
export function perPoll<T>(flush: (batch: T[]) => void): (item: T) => void {
  let waiting: T[] = [];
  return (item) => {
    waiting.push(item);
    if (waiting.length > 1) return;
    running.exit(() =>
      setImmediate(() => {
        const batch = waiting;
        waiting = [];
        flush(batch);
      }),
    );
  };
}

type UnitsOfWork<R> = <T>(work: (repos: R) => Promise<T>) => Promise<T>;

interface Waiting {
  work(trx: Knex.Transaction): Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome = { value: unknown } | { error: unknown };
