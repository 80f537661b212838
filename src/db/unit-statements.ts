import type { Knex } from 'knex';
import { isPostgres, type SqliteConnection } from './connection.js';

/**
 * Statements of a unit of work on SQLite, run on the group's connection directly. Every unit of a group runs on the
 * one connection that holds the group's transaction (`group-commit.ts`), so a statement sent there is in the unit's
 * savepoint as surely as one sent through Knex. Knex's own way for one statement (its runner, the transaction's
 * query wrapper, three events per query) cost more than SQLite's work for a small insert: the statements of a
 * POST /posts were more than half of what it cost (BENCHMARKS.md). Anywhere else, and on Postgres, the statement
 * goes through Knex as before.
 */
const unitConnections = new WeakMap<Knex, SqliteConnection>();

/** While `work` runs, statements given `trx` go to `connection`, which holds its transaction. */
export async function withUnitConnection<T>(trx: Knex.Transaction, connection: SqliteConnection, work: () => Promise<T>): Promise<T> {
  unitConnections.set(trx, connection);
  try {
    return await work();
  } finally {
    unitConnections.delete(trx);
  }
}

export type SqlRow = Record<string, unknown>;

/** Runs one statement (`?` placeholders) and returns its rows: none unless it reads or says RETURNING. */
export async function runSql(db: Knex, sql: string, bindings: readonly unknown[]): Promise<SqlRow[]> {
  const connection = unitConnections.get(db);
  if (connection) {
    const statement = connection.prepare(sql);
    // Knex turns these the same way for better-sqlite3, which binds neither.
    const values = bindings.map((value) => (typeof value === 'boolean' ? Number(value) : value instanceof Date ? value.valueOf() : value === undefined ? null : value));
    if (statement.reader) return statement.all(...values) as SqlRow[];
    statement.run(...values);
    return [];
  }
  const result = await db.raw(sql, bindings as Knex.RawBinding[]);
  if (isPostgres(db)) return result.rows as SqlRow[];
  return Array.isArray(result) ? (result as SqlRow[]) : [];
}
