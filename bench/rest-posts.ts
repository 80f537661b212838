/**
 * GET /v1/rest/posts (a page of 50 over 100,000 posts) and POST /v1/rest/posts through Herald, against
 * the same Express + Knex stack with none of our middleware (no auth, limits, validation or domain),
 * over the same SQLite database. The ratio is what our layers cost.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Knex } from 'knex';
import { loadConfig } from '../src/config.js';
import { toRow, type PostRecord } from '../src/db/repositories/posts.js';
import { newId } from '../src/domain/ids.js';
import { seedDemo } from '../src/domain/provisioning.js';
import { createLogger } from '../src/logger.js';
import { startHerald } from '../src/server.js';
import { load, type LoadResult } from './load.js';
import { machine, writeSection } from './report.js';

const POSTS = 100_000;
const DURATION_MS = Number(process.env.BENCH_SECONDS ?? 5) * 1000;
const CONCURRENCY = 16;

export async function runRestPostsBench(): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-'));
  const unlimited = { restReadsPerMinute: 1e9, restWritesPerMinute: 1e9, accountPerHour: 1e9, mcpPerTokenPerMinute: 1e9 };
  const herald = await startHerald({ ...loadConfig({}), port: 0, host: '127.0.0.1', dataDir, rateLimits: unlimited, worker: false }, createLogger({ quiet: true }));
  try {
    const demo = await seedDemo(herald.deps);
    await seedPosts(herald.db, demo.accountId, demo.workspaceId, demo.channelIds[0]);
    const baseline = await startBaseline(herald.db, demo.accountId, demo.workspaceId, demo.channelIds[0]);
    const auth = { authorization: `Bearer ${demo.apiKey}`, 'content-type': 'application/json' };
    const body = JSON.stringify({ channelIds: [demo.channelIds[0]], text: 'bench', isScheduled: true, dateTime: '2031-01-01T00:00:00Z' });
    const run = (request: () => Promise<Response>) => load({ durationMs: DURATION_MS, concurrency: CONCURRENCY, request });

    const results: [string, LoadResult, LoadResult][] = [
      ['GET /v1/rest/posts?limit=50', await run(() => fetch(`${herald.url}/v1/rest/posts?limit=50`, { headers: auth })), await run(() => fetch(`${baseline.url}/posts?limit=50`))],
      [
        'POST /v1/rest/posts',
        await run(() => fetch(`${herald.url}/v1/rest/posts`, { method: 'POST', headers: auth, body })),
        await run(() => fetch(`${baseline.url}/posts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body })),
      ],
    ];
    await baseline.close();

    const rows = results.map(([name, ours, bare]) =>
      `| ${name} | ${ours.perSecond.toFixed(0)} | ${ours.p50ms.toFixed(1)} / ${ours.p99ms.toFixed(1)} | ${bare.perSecond.toFixed(0)} | ${bare.p50ms.toFixed(1)} / ${bare.p99ms.toFixed(1)} | ${(ours.perSecond / bare.perSecond).toFixed(2)} | ${ours.errors + bare.errors} |`,
    );
    const report = `Machine: ${machine()}. Command: \`make bench\` (bench/rest-posts.ts). SQLite (WAL) in a temp dir, ${POSTS.toLocaleString('en')} posts in one account,
${CONCURRENCY} concurrent clients on loopback for ${DURATION_MS / 1000} s per row. "Bare" is Express 5 + Knex on the same database with
no authentication, rate limiting, OpenAPI validation or domain rules (it still serialises a page of 50 rows / inserts one row).

| route | Herald req/s | Herald p50 / p99 ms | bare req/s | bare p50 / p99 ms | ratio (Herald / bare) | errors |
|---|---|---|---|---|---|---|
${rows.join('\n')}`;
    writeSection('REST posts', report);
    console.log(report);
  } finally {
    await herald.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

async function seedPosts(db: Knex, accountId: string, workspaceId: string, channelId: string): Promise<void> {
  const start = Date.now();
  const batch: Record<string, unknown>[] = [];
  for (let i = 0; i < POSTS; i++) {
    const at = start + i * 1000;
    const record: PostRecord = {
      id: newId(), accountId, workspaceId, channelId, groupId: null, text: `Seeded post ${i}`, dateTime: at, timelineAt: at,
      isScheduled: true, isDraft: false, isLive: false, status: 'scheduled', approvalStatus: null, type: 'text', sourceType: 'api',
      imageUrls: [], videoUrls: [], firstComment: null, channelOptions: null, networkPostId: null, permalinkUrl: null, metrics: null,
      lastError: null, publishedAt: null, createdAt: at, updatedAt: at,
    };
    batch.push(toRow(record));
    if (batch.length === 500) await db.batchInsert('posts', batch.splice(0), 500);
  }
  if (batch.length) await db.batchInsert('posts', batch, 500);
}

async function startBaseline(db: Knex, accountId: string, workspaceId: string, channelId: string) {
  const app = express();
  app.use(express.json());
  app.get('/posts', async (req, res) => {
    const limit = Number(req.query.limit ?? 20);
    res.json({ data: await db('posts').where({ account_id: accountId, is_live: false }).orderBy('id', 'desc').limit(limit) });
  });
  app.post('/posts', async (req, res) => {
    const now = Date.now();
    const row = { id: newId(), account_id: accountId, workspace_id: workspaceId, channel_id: channelId, text: req.body.text, date_time: now, timeline_at: now, status: 'scheduled', created_at: now };
    await db('posts').insert(row);
    res.status(201).json({ data: [row] });
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
