/**
 * The engine under a steady load (issue 16): 200 posts fall due every second for 20 s on a network that answers in
 * 300 ms (SANDBOX_LATENCY_MS, with jitter), one worker at its default WORKER_CONCURRENCY; lateness (publishedAt
 * minus the due time) p50 and p99, target p99 under 1 s. Each second's posts are written as they fall due.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { toRow, type PostRecord } from '../src/db/repositories/posts.js';
import { newId } from '../src/domain/ids.js';
import { seedDemo } from '../src/domain/provisioning.js';
import { createLogger } from '../src/logger.js';
import { createWorker } from '../src/publishing/engine.js';
import { startHerald } from '../src/server.js';
import { machine, percentile, tableRow, writeSection } from './report.js';

const PER_SECOND = Number(process.env.BENCH_STEADY_PER_SECOND ?? 200);
const SECONDS = Number(process.env.BENCH_STEADY_SECONDS ?? 20);
const LATENCY_MS = 300;
/** Posts are written every tick, due at that moment, so arrivals are spread through each second. */
const TICK_MS = 100;

export async function runSteadyBench(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-steady-'));
  const config = {
    ...loadConfig({}),
    port: 0,
    host: '127.0.0.1',
    dataDir,
    worker: false,
    sandboxLatencyMs: LATENCY_MS,
  };
  const herald = await startHerald(config, createLogger({ quiet: true }));
  try {
    const demo = await seedDemo(herald.deps);
    const worker = createWorker(herald.deps, createLogger({ quiet: true }), {
      checkMedia: async () => ({ direct: true }),
      options: { pollMs: 50, syncIntervalMs: 3_600_000 },
    });
    worker.start();
    const total = PER_SECOND * SECONDS;
    const perTick = (PER_SECOND * TICK_MS) / 1000;
    let written = 0;
    const started = Date.now();
    while (written < total) {
      const dueAt = Date.now();
      const rows = Array.from(
        { length: Math.min(perTick, total - written) },
        (_, i): PostRecord => ({
          id: newId(),
          accountId: demo.accountId,
          workspaceId: demo.workspaceId,
          channelId: demo.channelIds[(written + i) % demo.channelIds.length],
          groupId: null,
          text: `Steady post ${written + i}`,
          dateTime: dueAt,
          timelineAt: dueAt,
          isScheduled: true,
          isDraft: false,
          isLive: false,
          status: 'scheduled',
          approvalStatus: null,
          type: 'text',
          sourceType: 'api',
          imageUrls: [],
          videoUrls: [],
          firstComment: null,
          channelOptions: null,
          networkPostId: null,
          permalinkUrl: null,
          metrics: null,
          lastError: null,
          publishedAt: null,
          createdAt: dueAt,
          updatedAt: dueAt,
        }),
      );
      await herald.db('posts').insert(rows.map(toRow));
      written += rows.length;
      const next = started + (written / perTick) * TICK_MS;
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, next - Date.now())));
    }
    for (;;) {
      const [row] = await herald.db('posts').where({ status: 'published' }).count<{ n: number | string }[]>({ n: '*' });
      if (Number(row.n) >= total) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    await worker.stop();
    const published: { published_at: number | string; date_time: number | string }[] = await herald
      .db('posts')
      .where({ status: 'published' })
      .select('published_at', 'date_time');
    const lateness = published.map((p) => Number(p.published_at) - Number(p.date_time)).sort((a, b) => a - b);
    const [made] = await herald.db('sandbox_posts').count<{ n: number | string }[]>({ n: '*' });
    const header = tableRow(
      'due posts/s',
      'posts',
      'lateness p50 ms',
      'lateness p99 ms',
      'max ms',
      'published',
      'sandbox posts (= published: none twice)',
    );
    const row = tableRow(
      PER_SECOND,
      total,
      percentile(lateness, 50).toFixed(0),
      percentile(lateness, 99).toFixed(0),
      `${lateness.at(-1)?.toFixed(0)}`,
      published.length,
      Number(made.n),
    );
    const report = `Machine: ${machine()}. Command: \`make bench\` (bench/steady.ts). SQLite (WAL) in a temp dir; one
in-process worker at the default WORKER_CONCURRENCY (${config.workerConcurrency}), poll 50 ms; the sandbox answers in
${LATENCY_MS} ms (up to 50 % more, at random). ${PER_SECOND} posts fall due every second for ${SECONDS} s, written every
${TICK_MS} ms as they fall due. Lateness is publishedAt minus the due time, which includes the network's own
${LATENCY_MS}-450 ms. Target: p99 under 1 s.

${header}
|---|---|---|---|---|---|---|
${row}

Measured ${new Date().toISOString().slice(0, 10)}; load average at the end ${os.loadavg()[0].toFixed(2)}.`;
    writeSection('Publishing engine, steady load', report);
    console.log(report);
  } finally {
    await herald.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
