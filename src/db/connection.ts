import path from 'node:path';
import knex, { type Knex } from 'knex';
import pg from 'pg';
import { ensurePrivateFile, prepareDataDir, tightenPrivateFile } from '../files/data-dir.js';
import { migrationSource } from './migrations/index.js';
import { cachePreparedStatements } from './statement-cache.js';

export type Db = Knex;

/** What Herald calls on a better-sqlite3 connection taken from Knex's pool (the package ships no types). */
export interface SqliteConnection {
  readonly inTransaction: boolean;
  prepare(sql: string): SqliteStatement;
  transaction<A extends unknown[], T>(work: (...args: A) => T): ((...args: A) => T) & { immediate(...args: A): T };
}

export interface SqliteStatement {
  /** True when the statement returns rows (a SELECT, or a write with RETURNING). */
  readonly reader: boolean;
  get(...bindings: unknown[]): unknown;
  all(...bindings: unknown[]): unknown[];
  run(...bindings: unknown[]): unknown;
}

// Times are stored as epoch milliseconds in BIGINT columns; pg returns those as strings unless told.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

export function isPostgres(db: Db): boolean {
  return db.client.config.client === 'pg';
}

export function openDatabase(options: { databaseUrl?: string; dataDir: string; poolMax?: number }): Db {
  if (options.databaseUrl) {
    return knex({
      client: 'pg',
      connection: options.databaseUrl,
      pool: { min: 0, max: options.poolMax ?? 10 },
    });
  }
  prepareDataDir(options.dataDir);
  const filename = path.join(options.dataDir, 'herald.db');
  ensurePrivateFile(filename);
  const db = knex({
    client: 'better-sqlite3',
    connection: { filename },
    useNullAsDefault: true,
    pool: {
      min: 1,
      max: 1,
      afterCreate(
        conn: { pragma(sql: string): unknown; prepare(sql: string): unknown },
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
    },
  });
  rollBackLeftTransactions(db);
  return db;
}

export async function migrate(db: Db): Promise<void> {
  await db.migrate.latest({ migrationSource });
}

/**
 * Knex does not roll back a transaction whose COMMIT failed, and SQLite may keep such a transaction open (a full
 * disk, an I/O error): on the one connection, every later write would then join a transaction nobody commits. A
 * connection handed back to the pool with a transaction still open has it rolled back first.
 */
function rollBackLeftTransactions(db: Db): void {
  const release = db.client.releaseConnection.bind(db.client);
  db.client.releaseConnection = (connection: SqliteConnection & { __knex__disposed?: unknown }) => {
    if (connection.inTransaction) {
      try {
        connection.prepare('ROLLBACK').run();
      } catch (error) {
        // A connection that cannot end its transaction is not trusted again: Knex's pool replaces a disposed one.
        connection.__knex__disposed = error;
      }
    }
    return release(connection);
  };
}
