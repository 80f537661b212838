import type { Knex } from 'knex';
import type { Db, SqliteConnection } from './connection.js';
import { perPoll } from './poll-batches.js';
import { withUnitConnection } from './direct-sql.js';

/**
 * Units of work on SQLite, committed in groups. SQLite has one connection here, so units of work wait for each other
 * anyway; what each still paid alone was its own BEGIN and COMMIT, Knex's transaction around them, and one write of
 * the pages it touched. The units asked for while the event loop polls wait for the poll to end and then run in one
 * transaction, one after another in the order they came, each in a savepoint of its own: each sees what the units
 * before it wrote, as it would have one transaction each, and a unit that throws takes back only its own writes.
 * A unit is settled only once the transaction commits, so none reports a write that was not kept; if the commit
 * fails, every unit of the group fails with it.
 *
 * The group's transaction takes SQLite's write lock before its first unit runs (what BEGIN IMMEDIATE does, under
 * Knex's plain BEGIN): another process writing to the same file between a unit's reads and its writes would
 * otherwise fail the group's every later write, not just the one unit's.
 */
export function groupCommit<R>(
  db: Db,
  bind: (trx: Knex.Transaction) => R,
): <T>(work: (repos: R) => Promise<T>) => Promise<T> {
  async function commitGroup(units: Unit<R>[]): Promise<void> {
    let outcomes: Outcome[];
    try {
      const connection = (await db.client.acquireConnection()) as SqliteConnection;
      try {
        outcomes = await db.transaction(
          (trx) => withUnitConnection(trx, connection, () => runInSavepoints(connection, bind(trx), units)),
          { connection },
        );
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

  const wait = perPoll<Unit<R>>((units) => void commitGroup(units));
  return <T>(work: (repos: R) => Promise<T>) =>
    new Promise<T>((resolve, reject) => wait({ work, resolve: resolve as (value: unknown) => void, reject }));
}

async function runInSavepoints<R>(connection: SqliteConnection, repos: R, units: Unit<R>[]): Promise<Outcome[]> {
  // SQLite takes a write transaction's lock at its first write, even one that matches no row.
  connection.prepare(TAKE_WRITE_LOCK).run();
  const outcomes: Outcome[] = [];
  for (const unit of units) {
    connection.prepare('SAVEPOINT herald_unit').run();
    try {
      outcomes.push({ value: await unit.work(repos) });
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

interface Unit<R> {
  work(repos: R): Promise<unknown>;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

type Outcome = { value: unknown } | { error: unknown };
