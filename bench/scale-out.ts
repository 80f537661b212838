/**
 * Scale-out on Postgres (issue 16), when BENCH_DATABASE_URL names a server: 1, 2 and 4 worker processes draining
 * the same burst of due posts (every post exactly once), and 1 and 3 API instances behind a round-robin client for
 * the REST read. Every process is its own `node` running Herald compiled from dist/, as `make run` does.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { duePostRows } from './due-posts.js';
import { seedDemo } from '../src/domain/provisioning.js';
import { createLogger } from '../src/logger.js';
import { startHerald } from '../src/server.js';
import { load } from './load.js';
import { spawnNode } from './processes.js';
import { freshPostgres } from './publishing.js';
import { machine, tableRow, writeSection } from './report.js';
import { seedPosts } from './rest-posts.js';

const BURST = Number(process.env.BENCH_SCALE_POSTS ?? 10_000);
const READ_POSTS = Number(process.env.BENCH_SCALE_READ_POSTS ?? 100_000);
const READ_MS = 5_000;
const CONCURRENCY = 16;

async function stopAll(children: ChildProcess[]): Promise<void> {
  await Promise.all(
    children.map(async (child) => {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }),
  );
}

async function workersDrain(adminUrl: string, workers: number) {
  const postgres = await freshPostgres(adminUrl);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-scale-'));
  const herald = await startHerald(
    { ...loadConfig({}), port: 0, host: '127.0.0.1', dataDir, databaseUrl: postgres.databaseUrl, worker: false },
    createLogger({ quiet: true }),
  );
  const children: ChildProcess[] = [];
  try {
    const demo = await seedDemo(herald.deps);
    // Every process of a row shares its DATA_DIR (the instance's secret key, as instances must) and its database.
    for (let i = 0; i < workers; i++) {
      const worker = spawnNode(['bench/scale-worker.mjs'], { DATABASE_URL: postgres.databaseUrl, DATA_DIR: dataDir });
      children.push(worker.process);
      await worker.line(/READY/);
    }
    const dueAt = Date.now();
    const rows = duePostRows(demo, BURST, 'Scale post', dueAt);
    // Written in one transaction, so the burst becomes due for every worker at once.
    await herald.db.transaction(async (trx) => {
      for (let i = 0; i < rows.length; i += 500) await trx('posts').insert(rows.slice(i, i + 500));
    });
    const start = Date.now();
    for (;;) {
      const [row] = await herald.db('posts').where({ status: 'published' }).count<{ n: string }[]>({ n: '*' });
      if (Number(row.n) >= BURST) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const seconds = (Date.now() - start) / 1000;
    const [made] = await herald.db('sandbox_posts').count<{ n: string }[]>({ n: '*' });
    return { workers, perSecond: BURST / seconds, seconds, sandboxPosts: Number(made.n) };
  } finally {
    await stopAll(children);
    await herald.close();
    await postgres.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function apisRead(adminUrl: string, instances: number) {
  const postgres = await freshPostgres(adminUrl);
  const children: ChildProcess[] = [];
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-scale-'));
  try {
    const seeded = await startHerald(
      { ...loadConfig({}), port: 0, host: '127.0.0.1', dataDir, databaseUrl: postgres.databaseUrl, worker: false },
      createLogger({ quiet: true }),
    );
    const demo = await seedDemo(seeded.deps);
    await seedPosts(seeded.db, demo.accountId, demo.workspaceId, demo.channelIds[0], READ_POSTS);
    await seeded.close();
    const urls: string[] = [];
    for (let i = 0; i < instances; i++) {
      const server = spawnNode(['bench/memory-server.mjs'], { DATABASE_URL: postgres.databaseUrl, DATA_DIR: dataDir });
      children.push(server.process);
      urls.push((await server.line(/READY (\S+)/))[1]);
    }
    const request = (i: number) =>
      fetch(`${urls[i % urls.length]}/v1/rest/posts?limit=50`, { headers: { authorization: `Bearer ${demo.apiKey}` } });
    await load({ durationMs: 2_000, concurrency: CONCURRENCY, request });
    const result = await load({ durationMs: READ_MS, concurrency: CONCURRENCY, request });
    return { instances, ...result };
  } finally {
    await stopAll(children);
    await postgres.drop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function runScaleOutBench(): Promise<void> {
  const adminUrl = process.env.BENCH_DATABASE_URL;
  if (!adminUrl) {
    console.log('Scale-out: BENCH_DATABASE_URL is not set, so the Postgres scale-out benchmark is skipped.');
    return;
  }
  const drains = [];
  for (const workers of [1, 2, 4]) drains.push(await workersDrain(adminUrl, workers));
  const reads = [];
  for (const instances of [1, 3]) reads.push(await apisRead(adminUrl, instances));
  const latencies = (r: { p50ms: number; p99ms: number }) => `${r.p50ms.toFixed(1)} / ${r.p99ms.toFixed(1)}`;
  const report = `Machine: ${machine()}. Command: \`BENCH_DATABASE_URL=postgres://… make bench\` (bench/scale-out.ts).
Postgres (a fresh database per row) on the same machine. Workers: separate processes (bench/scale-worker.mjs, compiled
Herald, WORKER_CONCURRENCY at its default), ${BURST.toLocaleString('en')} text posts due at once over two sandbox
channels with no latency, written in one transaction after every worker is up. API: separate server processes
(bench/memory-server.mjs) behind a round-robin client, ${CONCURRENCY} clients, GET /v1/rest/posts?limit=50 over
${READ_POSTS.toLocaleString('en')} posts, 2 s warm-up then ${READ_MS / 1000} s.

| worker processes | posts/s | drain s | sandbox posts (= ${BURST}: none twice) |
|---|---|---|---|
${drains.map((d) => tableRow(d.workers, d.perSecond.toFixed(0), d.seconds.toFixed(1), d.sandboxPosts)).join('\n')}

| API instances | req/s | p50 / p99 ms | errors |
|---|---|---|---|
${reads.map((r) => tableRow(r.instances, r.perSecond.toFixed(0), latencies(r), r.errors)).join('\n')}

Postgres, the servers or workers and the load generator share the machine's ${os.cpus().length} cores. Measured
${new Date().toISOString().slice(0, 10)}; load average at the end ${os.loadavg()[0].toFixed(2)}.`;
  writeSection('Scale-out on Postgres', report);
  console.log(report);
}
