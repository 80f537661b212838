import type { Knex } from 'knex';
import { runSql, type SqlRow } from '../sqlite-statements.js';

/** SQLite hands back 0/1 and JSON as text; these turn rows into plain typed values on both databases. */
export function bool(value: unknown): boolean {
  return value === true || value === 1 || value === '1';
}

export function json<T>(value: unknown, fallback: T): T {
  if (value === null || value === undefined) return fallback;
  if (typeof value !== 'string') return value as T;
  // Most posts carry no media: their '[]' needs no parser (two per post, on every page read).
  if (value === '[]') return [] as T;
  return JSON.parse(value) as T;
}

/**
 * Makes a row object from its values in column order, with a function compiled once for those columns: faster than
 * setting the properties one by one. A later column of the same name wins, as in a driver's row objects. The names are
 * written as JSON string literals, so nothing else is evaluated. The columns must be those the values were read
 * under: a table's order may change under a running process (sqlite-statements.ts checks).
 */
export function rowBuilder(names: readonly string[]): (values: readonly unknown[]) => Record<string, unknown> {
  return new Function('v', `return {${names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ')}};`) as (
    values: readonly unknown[],
  ) => Record<string, unknown>;
}

export function jsonText(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/**
 * A multi-row INSERT written out directly (posts, their history and events, the publishing worker's batches):
 * Knex's builder spends more per value quoting and wrapping than the database spends storing it. Rows with the
 * same columns go in one statement; a row that leaves out other columns (for their defaults) starts another.
 * `tail` follows the VALUES (ON CONFLICT, RETURNING); the rows returned are those of every statement.
 */
export async function insertRows(
  db: Knex,
  table: string,
  rows: readonly Record<string, unknown>[],
  tail = '',
): Promise<SqlRow[]> {
  const returned: SqlRow[] = [];
  for (let start = 0; start < rows.length; ) {
    const columns = Object.keys(rows[start]);
    let end = start + 1;
    while (end < rows.length && sameColumns(rows[end], columns)) end++;
    const row = `(${columns.map(() => '?').join(', ')})`;
    const same = rows.slice(start, end);
    returned.push(
      ...(await runSql(
        db,
        `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) ` +
          `VALUES ${same.map(() => row).join(', ')}${tail ? ` ${tail}` : ''}`,
        same.flatMap((r) => columns.map((c) => r[c])),
      )),
    );
    start = end;
  }
  return returned;
}

function sameColumns(row: Record<string, unknown>, columns: readonly string[]): boolean {
  const keys = Object.keys(row);
  return keys.length === columns.length && keys.every((key, i) => key === columns[i]);
}
