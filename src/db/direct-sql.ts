import type { Knex } from 'knex';
import { isPostgres, type SqliteConnection } from './connection.js';

/**
 * Statements written out as SQL, run on SQLite's connection directly. Every unit of a group runs on the one
 * connection that holds the group's transaction (`group-commit.ts`), so a statement sent there is in the unit's
 * savepoint as surely as one sent through Knex. Knex's own way for one statement (its builder, runner, the
 * transaction's query wrapper, three events per query: 11-17 µs for a small read, against 4-7 µs taking the
 * connection from the pool and running it) cost more than SQLite's work for a small insert, and the statements of a
 * POST /posts were more than half of what it cost (BENCHMARKS.md). In a transaction of Knex's own, and on Postgres,
 * the statement goes through Knex.
 */
const unitConnections = new WeakMap<Knex, SqliteConnection>();

/** While `work` runs, statements given `trx` go to `connection`, which holds its transaction. */
export async function withUnitConnection<T>(
  trx: Knex.Transaction,
  connection: SqliteConnection,
  work: () => Promise<T>,
): Promise<T> {
  unitConnections.set(trx, connection);
  try {
    return await work();
  } finally {
    unitConnections.delete(trx);
  }
}

export type SqlRow = Record<string, unknown>;

/**
 * Runs one statement (`?` placeholders) and returns its rows: none unless it reads or says RETURNING. On SQLite
 * outside a transaction it takes the pool's connection as Knex would, and runs the statement on it itself. A binding
 * left undefined is stored as null on every path.
 */
export async function runSql(db: Knex, sql: string, bindings: readonly unknown[]): Promise<SqlRow[]> {
  const connection = unitConnections.get(db);
  if (connection) return runOn(connection, sql, bindings);
  if (isPostgres(db) || (db as Knex.Transaction).isTransaction) {
    // Knex binds booleans and dates itself but refuses undefined, which is stored as null here as everywhere else.
    const result = await db.raw(
      sql,
      bindings.map((value) => (value === undefined ? null : value)) as Knex.RawBinding[],
    );
    if (isPostgres(db)) return result.rows as SqlRow[];
    return Array.isArray(result) ? (result as SqlRow[]) : [];
  }
  const pooled = (await db.client.acquireConnection()) as SqliteConnection;
  try {
    return runOn(pooled, sql, bindings);
  } finally {
    await db.client.releaseConnection(pooled);
  }
}

function runOn(connection: SqliteConnection, sql: string, bindings: readonly unknown[]): SqlRow[] {
  const statement = connection.prepare(sql);
  // better-sqlite3 binds neither booleans, dates nor undefined: turned as Knex turns them for it.
  const values = bindings.map((value) =>
    typeof value === 'boolean'
      ? Number(value)
      : value instanceof Date
        ? value.valueOf()
        : value === undefined
          ? null
          : value,
  );
  if (statement.reader) return statement.all(...values) as SqlRow[];
  statement.run(...values);
  return [];
}
