import type { Knex } from 'knex';
import { isPostgres, type SqliteConnection } from './connection.js';
import { unitConnection } from './units-of-work.js';

/**
 * How Herald's statements reach SQLite's connection.
 *
 * Prepared once: Knex asks better-sqlite3 to prepare every statement again on every query, and preparing was the
 * largest single cost of a REST read (BENCHMARKS.md). The connection keeps its prepared statements by SQL text
 * instead, the least recently used dropped past `limit` (queries with IN lists of varying length make new texts).
 * Reusing a statement is safe: better-sqlite3 runs each one synchronously to completion, and SQLite prepares a
 * statement again itself when the schema under it changes, in this process or another. Rows come back as
 * better-sqlite3 makes them, objects whose properties it names from the statement's columns as it reads them: a
 * table rebuilt with its columns in another order (a newer version migrating while this one runs) gives the same
 * values under the same names. A schema change through this connection (a migration) empties the cache.
 *
 * Run directly: statements written out as SQL (`runSql`) skip Knex's builder, runner, transaction wrapper and query
 * events, which cost more than SQLite's work for a small insert (11-17 µs for a small read, against 4-7 µs taking
 * the connection from the pool and running it; BENCHMARKS.md). In a unit of work they go to the connection that holds
 * the unit's transaction, inside its savepoint; elsewhere to the pool's connection, taken as Knex takes it.
 */
export function cachePreparedStatements(connection: SqliteConnection, limit = 500): void {
  const prepare = connection.prepare.bind(connection);
  const statements = new Map<string, ReturnType<SqliteConnection['prepare']>>();
  connection.prepare = (sql: string) => {
    if (SCHEMA_CHANGE.test(sql)) {
      statements.clear();
      return prepare(sql);
    }
    let statement = statements.get(sql);
    if (statement) {
      statements.delete(sql);
    } else {
      statement = prepare(sql);
      if (statements.size >= limit) statements.delete(statements.keys().next().value!);
    }
    statements.set(sql, statement);
    return statement;
  };
}

const SCHEMA_CHANGE = /^\s*(CREATE|ALTER|DROP)\s/i;

export type SqlRow = Record<string, unknown>;

/**
 * Runs one statement (`?` placeholders) and returns its rows: none unless it reads or says RETURNING. On Postgres,
 * and in a transaction of Knex's own, through Knex. A binding left undefined is stored as null on every path.
 */
export async function runSql(db: Knex, sql: string, bindings: readonly unknown[]): Promise<SqlRow[]> {
  const connection = unitConnection(db);
  if (connection) return runOn(connection, sql, bindings);
  if (isPostgres(db) || (db as Knex.Transaction).isTransaction) {
    // Knex binds booleans and dates itself but refuses undefined, which is stored as null here as everywhere else.
    const result = await db.raw(sql, bindings.map((value) => (value === undefined ? null : value)) as Knex.RawBinding[]);
    if (isPostgres(db)) return result.rows as SqlRow[];
    return Array.isArray(result) ? (result as SqlRow[]) : [];
  }
  // Knex's pool hands the connection out (test/db/knex-contract.test.ts pins these two calls).
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
  const values = bindings.map((value) => (typeof value === 'boolean' ? Number(value) : value instanceof Date ? value.valueOf() : value === undefined ? null : value));
  if (statement.reader) return statement.all(...values) as SqlRow[];
  statement.run(...values);
  return [];
}
