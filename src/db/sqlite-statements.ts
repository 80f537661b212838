import type { Knex } from 'knex';
import { isPostgres, type SqliteConnection, type SqliteStatement } from './connection.js';
import { rowBuilder } from './repositories/rows.js';
import { unitConnection } from './units-of-work.js';

/**
 * How Herald's statements reach SQLite's connection.
 *
 * Prepared once: Knex asks better-sqlite3 to prepare every statement again on every query, and preparing was the
 * largest single cost of a REST read (BENCHMARKS.md). The connection keeps its prepared statements by SQL text
 * instead, the least recently used dropped past `limit` (queries with IN lists of varying length make new texts).
 * Reusing a statement is safe: better-sqlite3 runs each one synchronously to completion, and SQLite prepares a
 * statement again itself when the schema under it changes, in this process or another. A schema change through
 * this connection (a migration) empties the cache.
 *
 * Rows by position: better-sqlite3 builds each row object property by property, which cost 2-3 times what reading
 * the values as an array and making the object with a function compiled for the statement's columns does (a POST's
 * channel read, a page of rows: BENCHMARKS.md). A compiled function knows the columns as they were when it was made,
 * though, and another process may rebuild a table with its columns in another order (a newer version migrating
 * while this one runs; `SELECT *` then answers in the new order). So a read is checked against SQLite's schema
 * version, which every schema change raises: read before the statement is prepared and its columns taken, and again
 * after each read; if it moved, the statement is prepared again, with its columns, and the read made again (a read
 * changes nothing, so making it twice is harmless). Statements that write (with RETURNING) hand over
 * better-sqlite3's own objects.
 *
 * Run directly: statements written out as SQL (`runSql`) skip Knex's builder, runner, transaction wrapper and query
 * events, which cost more than SQLite's work for a small insert (11-17 µs for a small read, against 4-7 µs taking
 * the connection from the pool and running it; BENCHMARKS.md). In a unit of work they go to the connection that holds
 * the unit's transaction, inside its savepoint; elsewhere to the pool's connection, taken as Knex takes it.
 */
export function cachePreparedStatements(connection: SqliteConnection, limit = 500): void {
  const prepare = connection.prepare.bind(connection) as (sql: string) => DriverStatement;
  const version = prepare('PRAGMA schema_version').pluck();
  const schemaVersion = () => version.get() as number;
  const statements = new Map<string, SqliteStatement>();
  connection.prepare = (sql: string) => {
    if (SCHEMA_CHANGE.test(sql)) {
      statements.clear();
      return prepare(sql);
    }
    let statement = statements.get(sql);
    if (statement) {
      statements.delete(sql);
    } else {
      statement = byPosition(() => prepare(sql), schemaVersion);
      if (statements.size >= limit) statements.delete(statements.keys().next().value!);
    }
    statements.set(sql, statement);
    return statement;
  };
}

const SCHEMA_CHANGE = /^\s*(CREATE|ALTER|DROP)\s/i;

/** A better-sqlite3 statement as the cache uses it (the package ships no types). */
interface DriverStatement extends SqliteStatement {
  readonly readonly: boolean;
  raw(toggle?: boolean): DriverStatement;
  pluck(toggle?: boolean): DriverStatement;
  columns(): { name: string }[];
}

function byPosition(prepare: () => DriverStatement, schemaVersion: () => number): SqliteStatement {
  let version = schemaVersion();
  let statement = prepare();
  if (!statement.reader || !statement.readonly) return statement;
  let build = rowBuilder(statement.columns().map((column) => column.name));
  statement.raw(true);
  function read<T>(values: (statement: DriverStatement) => T): T {
    for (;;) {
      const result = values(statement);
      const now = schemaVersion();
      if (now === version) return result;
      version = now;
      statement = prepare();
      build = rowBuilder(statement.columns().map((column) => column.name));
      statement.raw(true);
    }
  }
  return {
    reader: true,
    all: (...bindings) => read((s) => s.all(...bindings) as unknown[][]).map(build),
    get: (...bindings) => {
      const values = read((s) => s.get(...bindings) as unknown[] | undefined);
      return values === undefined ? undefined : build(values);
    },
    run: (...bindings) => statement.run(...bindings),
  };
}

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
    const result = await db.raw(
      sql,
      bindings.map((value) => (value === undefined ? null : value)) as Knex.RawBinding[],
    );
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

export function runOn(connection: SqliteConnection, sql: string, bindings: readonly unknown[]): SqlRow[] {
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
