import type { Knex } from 'knex';

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
 * written as JSON string literals, so nothing else is evaluated.
 */
export function rowBuilder(names: readonly string[]): (values: readonly unknown[]) => Record<string, unknown> {
  return new Function('v', `return {${names.map((name, i) => `${JSON.stringify(name)}: v[${i}]`).join(', ')}};`) as (values: readonly unknown[]) => Record<string, unknown>;
}

export function jsonText(value: unknown): string | null {
  return value === null || value === undefined ? null : JSON.stringify(value);
}

/**
 * A multi-row INSERT written out directly (the publishing worker's batches: events, deliveries, attempts): Knex's
 * builder spends more per value quoting and wrapping than the database spends storing it. Every row has the
 * first row's columns; `tail` follows the VALUES (ON CONFLICT, RETURNING).
 */
export function insertRows(db: Knex, table: string, rows: readonly Record<string, unknown>[], tail = ''): Knex.Raw {
  const columns = Object.keys(rows[0]);
  const row = `(${columns.map(() => '?').join(', ')})`;
  return db.raw(
    `INSERT INTO "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) VALUES ${rows.map(() => row).join(', ')}${tail ? ` ${tail}` : ''}`,
    rows.flatMap((r) => columns.map((c) => (r[c] === undefined ? null : r[c]) as Knex.Value)),
  );
}
