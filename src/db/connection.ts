import { createRequire } from 'node:module';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import { ensurePrivateFile, prepareDataDir, tightenPrivateFile } from '../files/data-dir.js';
import { migrationSource } from './migrations/index.js';
import { cachePreparedStatements } from './sqlite-statements.js';

export type Db = Knex;

/** What Herald calls on a better-sqlite3 connection taken from Knex's pool (the package ships no types). */
export interface SqliteConnection {
  readonly inTransaction: boolean;
  prepare(sql: string): SqliteStatement;
}

export interface SqliteStatement {
  /** True when the statement returns rows (a SELECT, or a write with RETURNING). */
  readonly reader: boolean;
  get(...bindings: unknown[]): unknown;
  all(...bindings: unknown[]): unknown[];
  run(...bindings: unknown[]): unknown;
}

const requireHere = createRequire(import.meta.url);

/**
 * node-postgres is loaded only when a database URL is given: a process on SQLite (every CLI command, most test
 * servers) never pays its ~46 ms of loading. Knex requires the same module when it makes its first client, after this.
 */
function preparePg(): void {
  const pg = requireHere('pg') as typeof import('pg');
  // Times are stored as epoch milliseconds in BIGINT columns; pg returns those as strings unless told.
  pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));
}

export function isPostgres(db: Db): boolean {
  return db.client.config.client === 'pg';
}

export function openDatabase(options: { databaseUrl?: string; dataDir: string; poolMax?: number }): Db {
  if (options.databaseUrl) {
    preparePg();
    return knex({
      client: 'pg',
      connection: options.databaseUrl,
      pool: { min: 0, max: options.poolMax ?? 10 },
    });
  }
  prepareDataDir(options.dataDir);
  const filename = path.join(options.dataDir, 'herald.db');
  ensurePrivateFile(filename);
  return knex({
    client: 'better-sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      afterCreate(
        conn: SqliteConnection & { pragma(sql: string): unknown },
        done: (err: Error | null, conn: unknown) => void,
      ) {
        // WAL lets readers in other processes work while one writes; busy_timeout makes writers queue.
        conn.pragma('journal_mode = WAL');
        conn.pragma('busy_timeout = 5000');
        conn.pragma('foreign_keys = ON');
        conn.pragma('synchronous = NORMAL');
        for (const suffix of ['-wal', '-shm']) tightenPrivateFile(filename + suffix);
        cachePreparedStatements(conn);
        done(null, conn);
      },
      validate: endLeftTransaction,
    },
  });
}

export async function migrate(db: Db): Promise<void> {
  await db.migrate.latest({ migrationSource });
}

/**
 * Knex does not roll back a transaction whose COMMIT failed, and SQLite may keep such a transaction open (a full
 * disk, an I/O error): on the one connection, every later write would then join a transaction nobody commits. The
 * pool checks a connection before handing it out (Knex's `pool.validate`): one still in a transaction has it rolled
 * back first, and one that cannot end it is not trusted again (the pool replaces it).
 */
function endLeftTransaction(connection: SqliteConnection): boolean {
  if (!connection.inTransaction) return true;
  try {
    connection.prepare('ROLLBACK').run();
    return true;
  } catch {
    return false;
  }
}
