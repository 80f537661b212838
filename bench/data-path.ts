/**
 * What the data path's pieces cost alone, printed rather than written to BENCHMARKS.md (run it on two commits to
 * compare them): `node_modules/.bin/tsx bench/data-path.ts`, with BENCH_DATABASE_URL=postgres://… for Postgres rows.
 * - rows: 50 rows and 2 rows of 34 columns read with `SELECT *`, as better-sqlite3's objects, as arrays made objects
 *   by a function compiled for the columns, and through Herald's statement cache (the same, with its schema check);
 * - charges: a request's two budgets charged one at a time, and 16 at once (as 16 clients' requests in one poll).
 */
import fs from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { migrate, openDatabase, type Db } from '../src/db/connection.js';
import { createRepositories } from '../src/db/repositories/index.js';

const ROUNDS = 2_000;

function microseconds(start: bigint, count: number): string {
  return (Number(process.hrtime.bigint() - start) / 1_000 / count).toFixed(1);
}

interface RawStatement {
  all(...bindings: unknown[]): unknown[];
  raw(toggle: boolean): RawStatement;
  columns(): { name: string }[];
}

interface RawConnection {
  prepare(sql: string): RawStatement;
  exec(sql: string): void;
  close(): void;
}

/** The same reads three ways: better-sqlite3's objects, arrays and a compiled builder, Herald's cache (guarded). */
async function rows(db: Db, dataDir: string): Promise<void> {
  const Database = createRequire(import.meta.url)('better-sqlite3') as new (filename: string) => RawConnection;
  const plain = new Database(path.join(dataDir, 'herald.db'));
  const herald = (await db.client.acquireConnection()) as RawConnection;
  try {
    const columns = Array.from({ length: 34 }, (_, i) => `c${i}`);
    plain.exec(`CREATE TABLE bench_rows (${columns.map((c, i) => `${c} ${i % 3 ? 'TEXT' : 'INTEGER'}`).join(', ')})`);
    const insert = plain.prepare(`INSERT INTO bench_rows VALUES (${columns.map(() => '?').join(', ')})`) as unknown as {
      run(...v: unknown[]): void;
    };
    for (let r = 0; r < 50; r++) insert.run(...columns.map((_, i) => (i % 3 ? `value ${r} ${i} of a post` : r * i)));
    for (const [what, limit] of [
      ['a page of 50', 50],
      ["2 rows (a POST's channels)", 2],
    ] as const) {
      const sql = `SELECT * FROM bench_rows LIMIT ${limit}`;
      const objects = plain.prepare(sql);
      const arrays = plain.prepare(sql).raw(true);
      const build = new Function(
        'v',
        `return {${columns.map((n, i) => `${JSON.stringify(n)}: v[${i}]`).join(', ')}};`,
      ) as (v: unknown[]) => unknown;
      const cached = herald.prepare(sql);
      const ways: [string, () => unknown][] = [
        ['objects', () => objects.all()],
        ['arrays + compiled builder', () => (arrays.all() as unknown[][]).map(build)],
        ["Herald's cache (builder, schema checked)", () => cached.all()],
      ];
      const results: string[] = [];
      for (const [name, read] of ways) {
        for (let i = 0; i < 500; i++) read();
        const start = process.hrtime.bigint();
        for (let i = 0; i < ROUNDS; i++) read();
        results.push(`${name} ${microseconds(start, ROUNDS)} µs`);
      }
      console.log(`rows, ${what} x 34 columns: ${results.join(', ')}`);
    }
  } finally {
    plain.close();
    await db.client.releaseConnection(herald);
  }
}

async function charges(name: string, db: Db): Promise<void> {
  const repos = createRepositories(db);
  const budgets = (i: number) => [
    { bucket: `bench:minute:${i % 4}`, limit: 1e9, windowMs: 60_000 },
    { bucket: `bench:hour:${i % 4}`, limit: 1e9, windowMs: 3_600_000 },
  ];
  let now = Date.now();
  for (let i = 0; i < 300; i++) await repos.rateLimits.charge(now++, budgets(i));
  let start = process.hrtime.bigint();
  for (let i = 0; i < ROUNDS; i++) await repos.rateLimits.charge(now++, budgets(i));
  const alone = microseconds(start, ROUNDS);
  start = process.hrtime.bigint();
  for (let i = 0; i < ROUNDS / 16; i++) {
    await Promise.all(Array.from({ length: 16 }, (_, j) => repos.rateLimits.charge(now++, budgets(j))));
  }
  console.log(
    `${name} charges: one at a time ${alone} µs each, 16 at ` +
      `once ${microseconds(start, Math.floor(ROUNDS / 16) * 16)} µs each`,
  );
}

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-data-path-'));
const sqlite = openDatabase({ dataDir });
try {
  await migrate(sqlite);
  await rows(sqlite, dataDir);
  await charges('SQLite', sqlite);
} finally {
  await sqlite.destroy();
  fs.rmSync(dataDir, { recursive: true, force: true });
}

const adminUrl = process.env.BENCH_DATABASE_URL;
if (adminUrl) {
  const name = `herald_bench_${Date.now()}_${process.pid}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: adminUrl });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const postgres = openDatabase({ databaseUrl: url.toString(), dataDir });
  try {
    await migrate(postgres);
    await charges('Postgres', postgres);
  } finally {
    await postgres.destroy();
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}
