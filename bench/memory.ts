/**
 * Memory (issue 16): an API instance over 1,000,000 posts under the REST read load must stay under 200 MB RSS, and a
 * worker's memory must not grow with the number of due posts. Each server or worker runs in its own process as
 * `make run` runs Herald (compiled, from dist/: `make bench` builds it first; plain node, so /proc/<pid>/status is the
 * server's own); RSS is sampled during the load and the kernel's high-water mark (VmHWM) read at the end. The worker
 * also reports the heap it kept, since V8 lets garbage pile up to a few times the live heap before a full collection:
 * a burst too short to reach that point peaks lower without holding any less.
 */
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
import { HERALD_NODE_FLAGS, spawnNode } from './processes.js';
import { machine, tableRow, writeSection } from './report.js';
import { seedPosts } from './rest-posts.js';

const API_POSTS = Number(process.env.BENCH_MEMORY_POSTS ?? 1_000_000);
const LOAD_MS = 10_000;
const CONCURRENCY = 16;
// The largest burst runs long enough for several full collections, so a peak that still grew would show there.
const WORKER_RUNS = [2_000, 20_000, 100_000];

/** A /proc/<pid>/status field in MiB (VmRSS now, VmHWM the peak so far). */
export function statusMiB(pid: number | 'self', field: 'VmRSS' | 'VmHWM'): number {
  const line = fs
    .readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`${field}:`));
  return Number(/(\d+)/.exec(line ?? '')?.[1] ?? NaN) / 1024;
}

async function apiUnderLoad(): Promise<{ idle: number; peak: number; hwm: number; perSecond: number; errors: number }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-memory-'));
  try {
    const seeded = await startHerald(
      { ...loadConfig({}), port: 0, host: '127.0.0.1', dataDir, worker: false },
      createLogger({ quiet: true }),
    );
    const demo = await seedDemo(seeded.deps);
    await seedPosts(seeded.db, demo.accountId, demo.workspaceId, demo.channelIds[0], API_POSTS);
    await seeded.close();
    const server = spawnNode(['bench/memory-server.mjs'], { DATA_DIR: dataDir });
    const [, url] = await server.line(/READY (\S+)/);
    const pid = server.process.pid!;
    const idle = statusMiB(pid, 'VmRSS');
    let peak = idle;
    const sampler = setInterval(() => {
      peak = Math.max(peak, statusMiB(pid, 'VmRSS'));
    }, 100);
    // Every client walks the pages from the newest, so the load reads across the whole table, not one cached page.
    const cursors: (string | null)[] = Array(CONCURRENCY).fill(null);
    const result = await load({
      durationMs: LOAD_MS,
      concurrency: CONCURRENCY,
      request: async (i) => {
        const slot = i % CONCURRENCY;
        const res = await fetch(
          `${url}/v1/rest/posts?limit=50${cursors[slot] ? `&cursor=${encodeURIComponent(cursors[slot]!)}` : ''}`,
          { headers: { authorization: `Bearer ${demo.apiKey}` } },
        );
        const body = (await res.json()) as { paging?: { nextCursor?: string | null } };
        cursors[slot] = body.paging?.nextCursor ?? null;
        return new Response(null, { status: res.status });
      },
    });
    clearInterval(sampler);
    const hwm = statusMiB(pid, 'VmHWM');
    server.process.kill('SIGTERM');
    await once(server.process, 'exit');
    return { idle, peak, hwm, perSecond: result.perSecond, errors: result.errors };
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

interface WorkerPeak {
  posts: number;
  idle: number;
  hwm: number;
  /** Full collections during the burst, and the most heap left after one (MiB). */
  full: number;
  kept: number;
  /** Heap left after a full collection once every post is published (MiB). */
  drained: number;
  seconds: number;
}

async function workerPeak(posts: number): Promise<WorkerPeak> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-memory-worker-'));
  try {
    const herald = await startHerald(
      { ...loadConfig({}), port: 0, host: '127.0.0.1', dataDir, worker: false },
      createLogger({ quiet: true }),
    );
    const demo = await seedDemo(herald.deps);
    const dueAt = Date.now();
    const rows = duePostRows(demo, posts, 'Memory post', dueAt);
    for (let i = 0; i < rows.length; i += 500) await herald.db('posts').insert(rows.slice(i, i + 500));
    await herald.close();
    const started = Date.now();
    const worker = spawnNode(['--expose-gc', 'bench/memory-worker.mjs'], {
      DATA_DIR: dataDir,
      BENCH_POSTS: String(posts),
    });
    const [, hwm, idle, full, kept, drained] = (
      await worker.line(/PEAK ([\d.]+) IDLE ([\d.]+) FULL (\d+) KEPT ([\d.]+) DRAINED ([\d.]+)/)
    ).map(Number);
    await once(worker.process, 'exit');
    return { posts, idle, hwm, full, kept, drained, seconds: (Date.now() - started) / 1000 };
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function runMemoryBench(): Promise<void> {
  const api = await apiUnderLoad();
  const workers = [];
  for (const posts of WORKER_RUNS) workers.push(await workerPeak(posts));
  const rows = [
    tableRow(
      'API under read load',
      API_POSTS.toLocaleString('en'),
      api.idle.toFixed(0),
      api.peak.toFixed(0),
      api.hwm.toFixed(0),
      `${api.perSecond.toFixed(0)} req/s, ${api.errors} errors`,
    ),
    ...workers.map((w) => {
      const kept =
        w.full > 0
          ? `${w.kept.toFixed(0)} MiB at most over ${w.full} full collection${w.full === 1 ? '' : 's'}, `
          : 'no full collection during the burst, ';
      return tableRow(
        'worker',
        `${w.posts.toLocaleString('en')} due`,
        w.idle.toFixed(0),
        '',
        w.hwm.toFixed(0),
        `drained in ${w.seconds.toFixed(1)} s; heap kept ${kept}${w.drained.toFixed(0)} MiB once drained`,
      );
    }),
  ];
  const report = `Machine: ${machine()}. Command: \`make bench\` (bench/memory.ts). SQLite (WAL) in a temp dir. API: one
Herald server process (\`node ${HERALD_NODE_FLAGS.join(' ')} bench/memory-server.mjs\`, compiled from dist/ as
\`make run\` runs it) over ${API_POSTS.toLocaleString('en')} posts in one account, ${CONCURRENCY} clients for
${LOAD_MS / 1000} s each walking GET /v1/rest/posts?limit=50 page after page from the newest. Worker: one process
(bench/memory-worker.mjs) publishing every due post to the sandbox, WORKER_CONCURRENCY at its default; idle is its RSS
before the first claim, the peak the kernel's VmHWM; the heap kept is what V8 found live at its full collections during
the burst (the most of them) and after one once drained. Target: the API under 200 MB, the worker flat in the number of
due posts.

| process | posts | RSS idle MiB | RSS peak MiB (sampled) | VmHWM MiB | note |
|---|---|---|---|---|---|
${rows.join('\n')}

Measured ${new Date().toISOString().slice(0, 10)}.`;
  writeSection('Memory', report);
  console.log(report);
}
