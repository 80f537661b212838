/**
 * Knex asks better-sqlite3 to prepare every statement again on every query, and preparing was the largest single
 * cost of a REST read (BENCHMARKS.md). The connection keeps its prepared statements by SQL text instead, the
 * least recently used dropped past `limit` (queries with IN lists of varying length make new texts). Reusing a
 * statement is safe here: better-sqlite3 runs each one synchronously to completion, and SQLite re-prepares a
 * statement itself when the schema under it changes.
 *
 * A reading statement also hands its rows over faster: better-sqlite3 builds each row object property by
 * property in C++, which for a post's 34 columns cost more than reading them (a page of 50 posts: 475 µs as
 * objects, 310 µs as arrays turned into objects by a function compiled once for the statement's columns). So
 * readers return arrays, and the statement's own row builder makes the objects, equal to better-sqlite3's (a
 * later column of the same name wins). A schema change through this connection (a migration) empties the cache,
 * since `SELECT *` may then have other columns.
 */
import { rowBuilder } from './repositories/rows.js';

interface Statement {
  readonly reader: boolean;
  all(...bindings: unknown[]): unknown[];
  get(...bindings: unknown[]): unknown;
  run(...bindings: unknown[]): unknown;
  raw(toggle?: boolean): Statement;
  columns(): { name: string }[];
  safeIntegers(toggle?: boolean): Statement;
}

/** What Knex and the repositories call on a statement (a reader's own raw mode is the cache's). */
interface CachedStatement extends Pick<Statement, 'reader' | 'all' | 'get' | 'run'> {
  safeIntegers(toggle?: boolean): CachedStatement;
}

interface Preparing {
  prepare(sql: string): unknown;
}

const SCHEMA_CHANGE = /^\s*(CREATE|ALTER|DROP)\s/i;

export function cachePreparedStatements(connection: Preparing, limit = 500): void {
  const prepare = connection.prepare.bind(connection) as (sql: string) => Statement;
  const statements = new Map<string, CachedStatement>();
  connection.prepare = (sql: string): CachedStatement => {
    if (SCHEMA_CHANGE.test(sql)) {
      statements.clear();
      return prepare(sql);
    }
    let statement = statements.get(sql);
    if (statement) {
      statements.delete(sql);
    } else {
      statement = withRowBuilder(prepare(sql));
      if (statements.size >= limit) statements.delete(statements.keys().next().value!);
    }
    statements.set(sql, statement);
    return statement;
  };
}

function withRowBuilder(statement: Statement): CachedStatement {
  if (!statement.reader) return statement;
  const build = rowBuilder(statement.columns().map((column) => column.name));
  statement.raw(true);
  return {
    reader: true,
    all: (...bindings) => (statement.all(...bindings) as unknown[][]).map(build),
    get: (...bindings) => {
      const values = statement.get(...bindings) as unknown[] | undefined;
      return values === undefined ? undefined : build(values);
    },
    run: (...bindings) => statement.run(...bindings),
    safeIntegers(toggle) {
      statement.safeIntegers(toggle);
      return this;
    },
  };
}
