/**
 * The publishing engine: 10,000 posts due at the same moment, published to the sandbox by one worker
 * (the one `make run` starts). Throughput in posts/second, and lateness: publish time minus due time.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import type { PostRecord } from '../src/db/repositories/posts.js';
import { newId } from '../src/domain/ids.js';
import { seedDemo } from '../src/domain/provisioning.js';
import { createLogger } from '../src/logger.js';
import { createWorker } from '../src/publishing/engine.js';
import { startHerald } from '../src/server.js';
import { machine, percentile, writeSection } from './report.js';

const POSTS = Number(process.env.BENCH_PUBLISH_POSTS ?? 10_000);

export async function runPublishingBench(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-publish-'));
  const logger = createLogger({ quiet: true });
  const herald = await startHerald({ ...loadConfig({}), port: 0, host: '127.0.0.1', dataDir, worker: false }, logger);
  try {
    const demo = await seedDemo(herald.deps);
    const dueAt = Date.now() + 2_000;
    for (let i = 0; i < POSTS; i += 500) {
      const batch: PostRecord[] = Array.from({ length: Math.min(500, POSTS - i) }, (_, j) => ({
        id: newId(), accountId: demo.accountId, workspaceId: demo.workspaceId, channelId: demo.channelIds[(i + j) % demo.channelIds.length],
        groupId: null, text: `Bench post ${i + j}`, dateTime: dueAt, timelineAt: dueAt, isScheduled: true, isDraft: false, isLive: false,
        status: 'scheduled', approvalStatus: null, type: 'text', sourceType: 'api', imageUrls: [], videoUrls: [], firstComment: null,
        channelOptions: null, networkPostId: null, permalinkUrl: null, metrics: null, lastError: null, publishedAt: null, createdAt: Date.now(), updatedAt: Date.now(),
      }));
      await herald.deps.repos.posts.insertMany(batch);
    }
    const worker = createWorker(herald.deps, logger, { options: { pollMs: 50 } });
    worker.start();
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, dueAt - Date.now())));
    const started = Date.now();
    let published = 0;
    while (published < POSTS) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      published = Number((await herald.db('posts').where({ status: 'published' }).count({ n: '*' }))[0].n);
      if (Date.now() - started > 30 * 60_000) throw new Error(`only ${published} of ${POSTS} published after 30 minutes`);
    }
    await worker.stop();
    const rows = await herald.db('posts').where({ status: 'published' }).select('date_time', 'published_at');
    const lateness = rows.map((r) => Number(r.published_at) - Number(r.date_time)).sort((x, y) => x - y);
    const lastAt = Math.max(...rows.map((r) => Number(r.published_at)));
    const seconds = (lastAt - dueAt) / 1000;
    const duplicates = Number((await herald.db('sandbox_posts').count({ n: '*' }))[0].n) - POSTS;
    const report = `Machine: ${machine()}. Command: \`make bench\` (bench/publishing.ts). SQLite (WAL) in a temp dir; one worker
(the one \`herald serve\` runs; defaults: batch 50, 8 network calls in flight) publishing to the sandbox network.
${POSTS.toLocaleString('en')} posts due at the same instant over ${demo.channelIds.length} channels.

| posts | time to publish all | posts/s | lateness p50 | lateness p99 | duplicates on the network |
|---|---|---|---|---|---|
| ${POSTS.toLocaleString('en')} | ${seconds.toFixed(1)} s | ${(POSTS / seconds).toFixed(0)} | ${(percentile(lateness, 50) / 1000).toFixed(2)} s | ${(percentile(lateness, 99) / 1000).toFixed(2)} s | ${duplicates} |

Lateness is publish time minus due time; with everything due at once it is mostly queueing behind earlier posts,
so p99 is about the time to drain the whole backlog.`;
    writeSection('Publishing engine', report);
    console.log(report);
  } finally {
    await herald.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}
