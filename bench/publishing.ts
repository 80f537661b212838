/**
 * The publishing engine: 10,000 posts due at the same instant, published to the sandbox network by
 * in-process workers over one SQLite database, and over Postgres too when BENCH_DATABASE_URL names a server
 * (a fresh database is created there and dropped after). Reports posts/second from the first claim to the
 * last post published, and lateness (publishedAt minus the due time) p50/p99.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig } from '../src/config.js';
import { duePostRows } from './due-posts.js';
import { seedDemo } from '../src/domain/provisioning.js';
import { createLogger } from '../src/logger.js';
import { createWorker } from '../src/publishing/engine.js';
import type { MediaChecker } from '../src/publishing/media-check.js';
import { startHerald } from '../src/server.js';
import { machine, percentile, tableRow, writeSection } from './report.js';

const POSTS = Number(process.env.BENCH_PUBLISH_POSTS ?? 10_000);
// Text-only posts: the media check is an HTTP probe per URL, not the engine's cost.
const noMedia: MediaChecker = async () => ({ direct: true });

type Database = 'SQLite' | 'Postgres';

interface Run {
  database: Database;
  workers: number;
  /** WORKER_CONCURRENCY of the run: posts in flight per worker. */
  concurrency: number;
  /** SANDBOX_LATENCY_MS of the run: 0, or a slow network's 300. */
  latencyMs: number;
  perSecond: number;
  seconds: number;
  lateP50ms: number;
  lateP99ms: number;
  published: number;
  sandboxPosts: number;
}

/** A fresh Postgres database for one run; dropped by the returned function. */
export async function freshPostgres(adminUrl: string): Promise<{ databaseUrl: string; drop(): Promise<void> }> {
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
  return { databaseUrl: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

export async function runOnce(
  database: Database,
  workers: number,
  latencyMs = 0,
  concurrency = loadConfig({}).workerConcurrency,
): Promise<Run> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-publish-'));
  const postgres = database === 'Postgres' ? await freshPostgres(process.env.BENCH_DATABASE_URL!) : undefined;
  const herald = await startHerald(
    {
      ...loadConfig({}),
      port: 0,
      host: '127.0.0.1',
      dataDir,
      databaseUrl: postgres?.databaseUrl,
      worker: false,
      sandboxLatencyMs: latencyMs,
      workerConcurrency: concurrency,
    },
    createLogger({ quiet: true }),
  );
  try {
    const demo = await seedDemo(herald.deps);
    const dueAt = Date.now();
    const rows = duePostRows(demo, POSTS, 'Bench post', dueAt);
    for (let i = 0; i < rows.length; i += 500) await herald.db('posts').insert(rows.slice(i, i + 500));

    const logger = createLogger({ quiet: true });
    const pool = Array.from({ length: workers }, () =>
      createWorker(herald.deps, logger, { checkMedia: noMedia, options: { pollMs: 50, syncIntervalMs: 3_600_000 } }),
    );
    const started = Date.now();
    for (const worker of pool) worker.start();
    for (;;) {
      const [published] = await herald
        .db('posts')
        .where({ account_id: demo.accountId, status: 'published' })
        .count<{ n: number | string }[]>({ n: '*' });
      if (Number(published.n) >= POSTS) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const finished = Date.now();
    await Promise.all(pool.map((worker) => worker.stop()));

    const published: { published_at: number | string; date_time: number | string }[] = await herald
      .db('posts')
      .where({ account_id: demo.accountId, status: 'published' })
      .select('published_at', 'date_time');
    const lateness = published.map((p) => Number(p.published_at) - Number(p.date_time)).sort((a, b) => a - b);
    const [{ n }] = await herald.db('sandbox_posts').count<{ n: number | string }[]>({ n: '*' });
    return {
      database,
      workers,
      concurrency,
      latencyMs,
      seconds: (finished - started) / 1000,
      perSecond: POSTS / ((finished - started) / 1000),
      lateP50ms: percentile(lateness, 50),
      lateP99ms: percentile(lateness, 99),
      published: published.length,
      sandboxPosts: Number(n),
    };
  } finally {
    await herald.close();
    await postgres?.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function runPublishingBench(): Promise<void> {
  const databases: Database[] = process.env.BENCH_DATABASE_URL ? ['SQLite', 'Postgres'] : ['SQLite'];
  const runs: Run[] = [];
  for (const database of databases) for (const workers of [1, 2]) runs.push(await runOnce(database, workers));
  runs.push(await runOnce('SQLite', 1, 300, 64));
  runs.push(await runOnce('SQLite', 1, 300, 256));
  runs.push(await runOnce('SQLite', 1, 300));
  const rows = runs.map((r) =>
    tableRow(
      r.database,
      r.workers,
      r.concurrency,
      r.latencyMs,
      r.perSecond.toFixed(0),
      r.seconds.toFixed(1),
      `${(r.lateP50ms / 1000).toFixed(1)} / ${(r.lateP99ms / 1000).toFixed(1)}`,
      r.published,
      r.sandboxPosts,
    ),
  );
  const header = tableRow(
    'database',
    'workers',
    'in flight per worker',
    'network latency ms',
    'posts/s',
    'drain s',
    'lateness p50 / p99 s',
    'published',
    'sandbox posts (= published: none twice)',
  );
  const report = `Machine: ${machine()}. Command: \`make bench\` (bench/publishing.ts;
\`npx tsx -e "import('./bench/publishing.ts').then(m => m.runPublishingBench())"\` alone). SQLite (WAL) in a temp dir,
and Postgres when \`BENCH_DATABASE_URL\` names a server (a fresh database on it); ${POSTS.toLocaleString('en')} text
posts due at the same instant over the demo account's two sandbox channels; in-process workers (WORKER_CONCURRENCY posts
in flight each, default ${loadConfig({}).workerConcurrency.toLocaleString('en')}, refilled as they finish, claimed in
batches as large; poll 50 ms); the last rows give the sandbox a 300 ms latency per call (SANDBOX_LATENCY_MS, with up to
50% jitter), as a real network, at 64, 256 and the default in flight. Every post goes through the full path: claim with
a lease, attempts recorded before the calls (a claimed batch in one transaction), sandbox publish (idempotency key,
stored; the calls of one event-loop turn in one transaction), results written behind (those finished meanwhile in one
transaction, with their events). Lateness is publishedAt minus the due time, so with everything due at once it is mostly
queueing: p99 is roughly the drain time.

${header}
|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

Measured ${new Date().toISOString().slice(0, 10)}; load average at the end ${os.loadavg()[0].toFixed(2)} (another
process on the machine shows here).`;
  writeSection('Publishing engine', report);
  console.log(report);
}
