/**
 * GET /v1/rest/posts (a page of 50 over 100,000 posts) and POST /v1/rest/posts through Herald, against
 * the same Express + Knex stack with none of our middleware (no auth, limits, validation or domain),
 * over the same SQLite database. The ratio is what our layers cost.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import express from 'express';
import type { Knex } from 'knex';
import { loadConfig } from '../src/config.js';
import { isPostgres } from '../src/db/connection.js';
import { toRow, type PostRecord } from '../src/db/repositories/posts.js';
import { newId } from '../src/domain/ids.js';
import { seedDemo } from '../src/domain/provisioning.js';
import { createLogger } from '../src/logger.js';
import { startHerald } from '../src/server.js';
import { load, type LoadResult } from './load.js';
import { HERALD_NODE_FLAGS } from './processes.js';
import { machine, tableRow, writeSection } from './report.js';

const POSTS = 100_000;
const DURATION_MS = Number(process.env.BENCH_SECONDS ?? 5) * 1000;
const CONCURRENCY = 16;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
/**
 * Each server is warmed up first, not measured: JIT, the validator's compiled schemas, SQLite's page cache. Herald
 * has far more code than the bare stack for V8 to optimise, on the one core it is pinned to: its CPU per POST fell for
 * about ten seconds (1,864 µs in its first two seconds, then 802, 625, 539, 508, then 450-480, a third of the first
 * windows spent by the compiler's threads), the bare stack's within two. Measured any sooner, the figures would say
 * how fast Herald starts rather than how fast it serves, so both are warmed for as long as Herald takes.
 */
const WARMUP_MS = 10_000;

/**
 * A server in its own process (pinned to CPU 1 when taskset exists), so the load generator never shares its event loop.
 */
async function serverProcess(kind: 'herald' | 'bare', env: NodeJS.ProcessEnv): Promise<Server> {
  // Herald starts with make run's node options; the bare stack as a plain stack runs, with none.
  const args = [...(kind === 'herald' ? HERALD_NODE_FLAGS : []), '--import', 'tsx', 'bench/rest-target.ts', kind];
  const [command, ...rest] = fs.existsSync('/usr/bin/taskset')
    ? ['/usr/bin/taskset', '-c', '1', 'node', ...args]
    : ['node', ...args];
  const child = spawn(command, rest, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (chunk) => {
      out += chunk;
      const ready = /READY (\S+)/.exec(out);
      if (ready) resolve(ready[1]);
    });
    child.once('exit', (code) => reject(new Error(`${kind} server exited (${code}) before it was ready`)));
  });
  return {
    url,
    cpuMs: () => cpuMs(child.pid!),
    stop: async () => {
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}

interface Server {
  url: string;
  /** CPU time the server process has used so far (user and system, all its threads), in ms. */
  cpuMs(): number;
  stop(): Promise<void>;
}

/** /proc/<pid>/stat's utime and stime (fields 14 and 15, in clock ticks of 10 ms); NaN where there is no /proc. */
function cpuMs(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return Number.NaN;
  }
}

type Measured = LoadResult & { cpuUsPerRequest: number };

/**
 * A measured load, and the server's CPU time per answered request: what a request costs the server, which neighbours on
 * the machine and the load generator's own pace disturb far less than they disturb throughput.
 */
async function measure(server: Server, request: () => Promise<Response>): Promise<Measured> {
  const before = server.cpuMs();
  const result = await load({ durationMs: DURATION_MS, concurrency: CONCURRENCY, request });
  return { ...result, cpuUsPerRequest: ((server.cpuMs() - before) * 1000) / result.requests };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

export async function runRestPostsBench(): Promise<void> {
  // The load generator keeps to the other CPU, so it never takes time from the server it measures; every CPU is
  // given back at the end, since later benchmarks start processes that inherit this one's.
  pinThisProcess('0');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-bench-'));
  const seeded = await startHerald(
    { ...loadConfig({}), port: 0, host: '127.0.0.1', dataDir, worker: false },
    createLogger({ quiet: true }),
  );
  const demo = await seedDemo(seeded.deps);
  await seedPosts(seeded.db, demo.accountId, demo.workspaceId, demo.channelIds[0]);
  await seeded.close();
  const env = {
    DATA_DIR: dataDir,
    BENCH_ACCOUNT: demo.accountId,
    BENCH_WORKSPACE: demo.workspaceId,
    BENCH_CHANNEL: demo.channelIds[0],
  };
  try {
    const auth = { authorization: `Bearer ${demo.apiKey}`, 'content-type': 'application/json' };
    const body = JSON.stringify({
      channelIds: [demo.channelIds[0]],
      text: 'bench',
      isScheduled: true,
      dateTime: '2031-01-01T00:00:00Z',
    });
    const routes = [
      {
        name: 'GET /v1/rest/posts?limit=50',
        herald: (url: string) => fetch(`${url}/v1/rest/posts?limit=50`, { headers: auth }),
        bare: (url: string) => fetch(`${url}/posts?limit=50`),
      },
      {
        name: 'POST /v1/rest/posts',
        herald: (url: string) => fetch(`${url}/v1/rest/posts`, { method: 'POST', headers: auth, body }),
        bare: (url: string) =>
          fetch(`${url}/posts`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }),
      },
    ];
    const rows: string[] = [];
    for (const route of routes) {
      const rounds: { ours: Measured; bare: Measured }[] = [];
      // One server of each per route, warmed up once, then measured in alternating rounds: drift on the machine falls
      // on both sides. Only the one being measured has any load.
      const herald = await serverProcess('herald', env);
      const baseline = await serverProcess('bare', env);
      try {
        await load({ durationMs: WARMUP_MS, concurrency: CONCURRENCY, request: () => route.herald(herald.url) });
        await load({ durationMs: WARMUP_MS, concurrency: CONCURRENCY, request: () => route.bare(baseline.url) });
        for (let round = 0; round < ROUNDS; round++) {
          rounds.push({
            ours: await measure(herald, () => route.herald(herald.url)),
            bare: await measure(baseline, () => route.bare(baseline.url)),
          });
        }
      } finally {
        await herald.stop();
        await baseline.stop();
      }
      const ratios = rounds.map((r) => r.ours.perSecond / r.bare.perSecond);
      const costs = rounds.map((r) => r.bare.cpuUsPerRequest / r.ours.cpuUsPerRequest);
      const pick = rounds[ratios.indexOf(median(ratios))];
      rows.push(
        tableRow(
          route.name,
          pick.ours.perSecond.toFixed(0),
          `${pick.ours.p50ms.toFixed(1)} / ${pick.ours.p99ms.toFixed(1)}`,
          pick.bare.perSecond.toFixed(0),
          `${pick.bare.p50ms.toFixed(1)} / ${pick.bare.p99ms.toFixed(1)}`,
          `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`,
          `${pick.ours.cpuUsPerRequest.toFixed(0)} / ${pick.bare.cpuUsPerRequest.toFixed(0)}`,
          `${median(costs).toFixed(2)} (${Math.min(...costs).toFixed(2)}–${Math.max(...costs).toFixed(2)})`,
          rounds.reduce((n, r) => n + r.ours.errors + r.bare.errors, 0),
        ),
      );
    }
    const mcp = await mcpAgainstRest(env, demo.apiKey);
    const header = tableRow(
      'route',
      'Herald req/s',
      'Herald p50 / p99 ms',
      'bare req/s',
      'bare p50 / p99 ms',
      'ratio (Herald / bare)',
      'CPU µs per request (Herald / bare)',
      'cost ratio (bare / Herald)',
      'errors',
    );
    const callRow = (name: string, m: Measured) =>
      tableRow(
        name,
        m.perSecond.toFixed(0),
        `${m.p50ms.toFixed(1)} / ${m.p99ms.toFixed(1)}`,
        m.cpuUsPerRequest.toFixed(0),
      );
    const spread = (r: { median: number; min: number; max: number }) =>
      `${r.median.toFixed(2)} (${r.min.toFixed(2)}–${r.max.toFixed(2)})`;
    const report = `Machine: ${machine()}. Command: \`make bench\` (bench/rest-posts.ts). SQLite (WAL) in a temp dir,
${POSTS.toLocaleString('en')} posts in one account. Each server runs in its own process (pinned to CPU 1 with taskset;
Herald with make run's \`${HERALD_NODE_FLAGS.join(' ')}\`), the load generator in this one (pinned to CPU 0):
${CONCURRENCY} concurrent clients on loopback, one server of each per route, each warmed up for ${WARMUP_MS / 1000} s
(Herald's JIT takes about that long to settle on its one core), then ${DURATION_MS / 1000} s measured per round,
${ROUNDS} alternating rounds (Herald, then bare); the row shows the median round and the ratio's median (min–max).
"Bare" is Express 5 + Knex (configured plainly: no statement cache) on the same database with no authentication, rate
limiting, OpenAPI validation or domain rules (it still serialises a page of 50 rows / inserts one row). Herald's POST
also writes the post's two outbox events. Beside throughput, each server's CPU time per answered request (from /proc,
all its threads, garbage collection included): the cost ratio is bare's CPU per request over Herald's, which the
machine's other load disturbs less than it disturbs req/s.

${header}
|---|---|---|---|---|---|---|---|---|
${rows.join('\n')}

MCP against REST for the same page (SPEC's get_paginated_posts, limit 50, a stateless \`tools/call\` POST to /mcp with
the same key), on one Herald server (warmed up for ${WARMUP_MS / 2000} s on each), ${ROUNDS} alternating rounds (target
<= 1.2), measured two ways: by throughput (REST req/s over MCP req/s, the inverse of a call's cost when the server is
the bottleneck) and by the server's CPU time per call (MCP's over REST's).

| call | req/s | p50 / p99 ms | CPU µs per call |
|---|---|---|---|
${callRow('REST GET /v1/rest/posts?limit=50', mcp.rest)}
${callRow('MCP tools/call get_paginated_posts', mcp.mcp)}

MCP cost / REST cost: by throughput ${spread(mcp.ratios)}, by CPU per call ${spread(mcp.costs)}; errors ${mcp.errors}.

Measured ${new Date().toISOString().slice(0, 10)}.`;
    writeSection('REST posts', report);
    console.log(report);
  } finally {
    fs.rmSync(dataDir, { recursive: true, force: true });
    pinThisProcess(`0-${os.cpus().length - 1}`);
  }
}

function pinThisProcess(cpus: string): void {
  if (fs.existsSync('/usr/bin/taskset'))
    spawnSync('/usr/bin/taskset', ['-a', '-p', '-c', cpus, String(process.pid)], { stdio: 'ignore' });
}

/** The same page through MCP and through REST, alternating on one Herald server (warmed up once). */
async function mcpAgainstRest(env: NodeJS.ProcessEnv, apiKey: string) {
  const herald = await serverProcess('herald', env);
  try {
    const auth = { authorization: `Bearer ${apiKey}` };
    const rest = () => fetch(`${herald.url}/v1/rest/posts?limit=50`, { headers: auth });
    const call = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'get_paginated_posts', arguments: { limit: 50 } },
    });
    const mcp = async () => {
      const res = await fetch(`${herald.url}/mcp`, {
        method: 'POST',
        headers: {
          ...auth,
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
        },
        body: call,
      });
      // A tool that failed still answers 200: count it as an error so a broken call never looks fast.
      const text = await res.text();
      return new Response(text, { status: res.status === 200 && !text.includes('"isError":true') ? 200 : 500 });
    };
    await load({ durationMs: WARMUP_MS / 2, concurrency: CONCURRENCY, request: rest });
    await load({ durationMs: WARMUP_MS / 2, concurrency: CONCURRENCY, request: mcp });
    const rounds: { rest: Measured; mcp: Measured }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      rounds.push({ rest: await measure(herald, rest), mcp: await measure(herald, mcp) });
    }
    const ratios = rounds.map((r) => r.rest.perSecond / r.mcp.perSecond);
    const costs = rounds.map((r) => r.mcp.cpuUsPerRequest / r.rest.cpuUsPerRequest);
    const pick = rounds[ratios.indexOf(median(ratios))];
    return {
      ...pick,
      ratios: { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) },
      costs: { median: median(costs), min: Math.min(...costs), max: Math.max(...costs) },
      errors: rounds.reduce((n, r) => n + r.rest.errors + r.mcp.errors, 0),
    };
  } finally {
    await herald.stop();
  }
}

export async function seedPosts(
  db: Knex,
  accountId: string,
  workspaceId: string,
  channelId: string,
  count = POSTS,
): Promise<void> {
  const start = Date.now();
  const batch: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const at = start + i * 1000;
    const record: PostRecord = {
      id: newId(),
      accountId,
      workspaceId,
      channelId,
      groupId: null,
      text: `Seeded post ${i}`,
      dateTime: at,
      timelineAt: at,
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
      createdAt: at,
      updatedAt: at,
    };
    batch.push(toRow(record));
    if (batch.length === 500) await db.batchInsert('posts', batch.splice(0), 500);
  }
  if (batch.length) await db.batchInsert('posts', batch, 500);
  // A bulk load leaves Postgres without statistics until autovacuum comes by, and until then it may plan the page as a
  // scan of every post (16 req/s in one run, 210 in the next): analysed now, as after any bulk load.
  if (isPostgres(db)) await db.raw('ANALYZE');
}

export async function startBaseline(db: Knex, accountId: string, workspaceId: string, channelId: string) {
  const app = express();
  app.use(express.json());
  app.get('/posts', async (req, res) => {
    const limit = Number(req.query.limit ?? 20);
    res.json({
      data: await db('posts').where({ account_id: accountId, is_live: false }).orderBy('id', 'desc').limit(limit),
    });
  });
  app.post('/posts', async (req, res) => {
    const now = Date.now();
    const row = {
      id: newId(),
      account_id: accountId,
      workspace_id: workspaceId,
      channel_id: channelId,
      text: req.body.text,
      date_time: now,
      timeline_at: now,
      status: 'scheduled',
      created_at: now,
    };
    await db('posts').insert(row);
    res.status(201).json({ data: [row] });
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
