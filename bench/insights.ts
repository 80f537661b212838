/**
 * Insights reads on a large history (issue 34): one account whose two sandbox channels published POSTS posts over
 * a year (the second channel in Asia/Kathmandu, 5:45 off UTC), each with 30 samples of its counters, one post in 50
 * labelled; seeded by SQL (INSERT ... SELECT over a series: a recursive one on SQLite, generate_series on
 * Postgres), as years of live syncs would leave them, then the rollup counted once. The reads go to an API server
 * in a process of its own, started as `make run` starts one (bench/memory-server.mjs, from dist/: `make build`
 * first), so its CPU time per read and its RSS are its own. Each read is asked ROUNDS times one after another, its
 * p50 and p99 going to BENCHMARKS.md (the CSV export's first byte apart from its whole file), with a sync's writes
 * for 10,000 posts' counters. SQLite, and Postgres when BENCH_DATABASE_URL names a server (a fresh database on it);
 * BENCH_INSIGHTS_ONLY=SQLite or Postgres for one of them. Run alone: `tsx bench/insights.ts [posts]`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { refreshRollups } from '../src/domain/insights/rollups.js';
import type { PostSampleRecord } from '../src/db/repositories/insights.js';
import { type CountersRead, keepCounters, postSample } from '../src/domain/insights/samples.js';
import { seedDemo } from '../src/domain/provisioning.js';
import { createLogger } from '../src/logger.js';
import { startHerald, type Herald } from '../src/server.js';
import { statusMiB } from './memory.js';
import { spawnNode } from './processes.js';
import { freshPostgres } from './publishing.js';
import { machine, percentile, writeSection } from './report.js';

const SAMPLES = 30;
const ROUNDS = 50;
/** A slow read is asked fewer times (at least MIN_ROUNDS), within this budget, so the bench ends the same day. */
const READ_BUDGET_MS = 20_000;
const MIN_ROUNDS = 5;
const SYNCED = 10_000;
const DAY_MS = 86_400_000;
const YEAR_MS = 365 * DAY_MS;
const CHUNK = 50_000;

type Database = 'SQLite' | 'Postgres';

interface Result {
  database: Database;
  seededS: number;
  rollupS: number;
  reads: { name: string; p50: number; p99: number; cpuMs: number; rounds: number }[];
  syncMs: number;
  server: { idleMiB: number; peakMiB: number; hwmMiB: number };
  loadAverage: [number, number];
}

/** A process's CPU time so far (user and system), in ms, from /proc/<pid>/stat (clock ticks of 10 ms). */
function cpuMsOf(pid: number): number {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** What the reads need of a seeded database, kept beside it when BENCH_INSIGHTS_DATA_DIR names one. */
interface Seeded {
  accountId: string;
  apiKey: string;
  workspaceId: string;
  one: string;
  two: string;
  labelId: string;
  now: number;
  seededS: number;
  rollupS: number;
}

async function seed(herald: Herald, database: Database, posts: number): Promise<Seeded> {
  const demo = await seedDemo(herald.deps);
  const channels = (await herald.deps.repos.channels.list(demo.accountId)).filter((c) => c.network === 'sandbox');
  const [one, two] = channels;
  const now = Date.now();
  const made = await fetch(`${herald.url}/v1/rest/labels`, {
    method: 'POST',
    headers: { authorization: `Bearer ${demo.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Bench', color: '#22aa55', workspaceId: one.workspaceId }),
  });
  if (made.status !== 201) throw new Error(`label: ${made.status} ${await made.text()}`);
  const label = ((await made.json()) as { data: { id: string } }).data;
  const zoned = await fetch(`${herald.url}/v1/rest/channels/${two.id}`, {
    method: 'PATCH',
    headers: { authorization: `Bearer ${demo.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ timezone: 'Asia/Kathmandu' }),
  });
  if (zoned.status !== 200) throw new Error(`zone: ${zoned.status} ${await zoned.text()}`);
  const db = herald.db;
  const seedStart = performance.now();
  // The post at i went out i/posts of a year before now, on one channel or the other.
  const at = `(? - i * ${YEAR_MS} / ${posts})`;
  // The table `name` of one column `column` counting from `from` to `to`.
  const series = (name: string, column: string, from: number, to: number) =>
    database === 'Postgres'
      ? `WITH ${name} AS (SELECT generate_series(${from}::bigint, ${to}::bigint) AS ${column})`
      : `WITH RECURSIVE ${name}(${column}) AS (SELECT ${from} UNION ALL ` +
        `SELECT ${column} + 1 FROM ${name} WHERE ${column} < ${to})`;
  for (let base = 0; base < posts; base += CHUNK) {
    const last = Math.min(posts, base + CHUNK) - 1;
    await db.raw(
      `${series('n', 'i', base, last)}
        INSERT INTO posts (id, account_id, workspace_id, channel_id, text, status, date_time, timeline_at,
          published_at, network_post_id, metrics, created_at, updated_at)
        SELECT 'bench_' || (10000000 + i), ?, ?, CASE WHEN i % 2 = 0 THEN ? ELSE ? END, 'Bench post ' || i,
          'published', ${at}, ${at}, ${at}, 'bench_' || (10000000 + i),
          '{"likes":' || (i % 97) || ',"comments":' || (i % 13) || ',"shares":' || (i % 7) ||
          ',"impressions":' || (1000 + i % 991) || '}', ${at}, ${at}
        FROM n`,
      [demo.accountId, one.workspaceId, one.id, two.id, now, now, now, now, now],
    );
    const range = ['bench_' + (10000000 + base), 'bench_' + (10000000 + last)];
    await db.raw(
      `${series('s', 'k', 0, SAMPLES - 1)}
        INSERT INTO post_samples (post_id, sampled_at, account_id, channel_id, published_at, counters)
        SELECT p.id, p.published_at + s.k * 3600000, p.account_id, p.channel_id, p.published_at,
          '{"likes":' || (s.k * 3) || ',"impressions":' || (s.k * 40) || '}'
        FROM posts p CROSS JOIN s WHERE p.id >= ? AND p.id <= ?`,
      range,
    );
    await db.raw(
      `INSERT INTO post_labels (post_id, label_id, account_id, created_at)
        SELECT id, ?, account_id, created_at FROM posts
        WHERE id >= ? AND id <= ? AND (text LIKE '%00' OR text LIKE '%50')`,
      [label.id, ...range],
    );
  }
  const seededS = (performance.now() - seedStart) / 1000;
  const rollupStart = performance.now();
  // Each hour counted once, not once for every post the seeding noted in it.
  await db('insight_dirty').del();
  await db.raw(`INSERT INTO insight_dirty (channel_id, hour)
      SELECT DISTINCT channel_id, published_at / 3600000 FROM posts WHERE published_at IS NOT NULL`);
  await refreshRollups(herald.deps);
  const rollupS = (performance.now() - rollupStart) / 1000;
  return {
    accountId: demo.accountId,
    apiKey: demo.apiKey,
    workspaceId: one.workspaceId,
    one: one.id,
    two: two.id,
    labelId: label.id,
    now,
    seededS,
    rollupS,
  };
}

async function measure(database: Database, posts: number): Promise<Result> {
  const kept = database === 'SQLite' ? process.env.BENCH_INSIGHTS_DATA_DIR : undefined;
  if (kept) fs.mkdirSync(kept, { recursive: true });
  const dataDir = kept ?? fs.mkdtempSync(path.join(os.tmpdir(), 'herald-insights-'));
  const postgres = database === 'Postgres' ? await freshPostgres(process.env.BENCH_DATABASE_URL!) : undefined;
  const unlimited = {
    restReadsPerMinute: 1e9,
    restWritesPerMinute: 1e9,
    accountPerHour: 1e9,
    mcpPerTokenPerMinute: 1e9,
  };
  const config = {
    ...loadConfig({}),
    port: 0,
    host: '127.0.0.1',
    dataDir,
    databaseUrl: postgres?.databaseUrl,
    worker: false,
    rateLimits: unlimited,
  };
  const herald = await startHerald(config, createLogger({ quiet: true }));
  try {
    // A seeded SQLite database may be kept and read again (BENCH_INSIGHTS_DATA_DIR): seeding it takes long.
    const keptFile = kept ? path.join(dataDir, 'bench-seeded.json') : undefined;
    const seeded: Seeded =
      keptFile && fs.existsSync(keptFile)
        ? JSON.parse(fs.readFileSync(keptFile, 'utf8'))
        : await seed(herald, database, posts);
    if (keptFile) fs.writeFileSync(keptFile, JSON.stringify(seeded));
    // Hours a code change asks to count again (a new rollup's migration) are counted before the reads.
    await refreshRollups(herald.deps);
    const { seededS, rollupS, now } = seeded;
    const demo = { accountId: seeded.accountId, apiKey: seeded.apiKey };
    const one = { id: seeded.one, workspaceId: seeded.workspaceId };
    const two = { id: seeded.two };
    const label = { id: seeded.labelId };
    const db = herald.db;
    if (database === 'Postgres') await db.raw('ANALYZE');

    const server = spawnNode(['bench/memory-server.mjs'], {
      DATA_DIR: dataDir,
      DATABASE_URL: postgres?.databaseUrl ?? '',
    });
    const [, serverUrl] = await server.line(/READY (\S+)/);
    const pid = server.process.pid!;
    const idleMiB = statusMiB(pid, 'VmRSS');
    let peakMiB = idleMiB;
    // The RSS at most while each read was asked, logged with it: the read that raises the peak is the one to look at.
    let readPeakMiB = idleMiB;
    const watch = setInterval(() => {
      const rss = statusMiB(pid, 'VmRSS');
      peakMiB = Math.max(peakMiB, rss);
      readPeakMiB = Math.max(readPeakMiB, rss);
    }, 50);
    const get = (url: string) =>
      fetch(`${serverUrl}/v1/rest${url}`, { headers: { authorization: `Bearer ${demo.apiKey}` } });
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const days = (n: number) => `from=${day(now - (n - 1) * DAY_MS)}&to=${day(now)}`;
    const reads: [string, string][] = [
      ["a post's curve (30 samples)", `/posts/bench_10000001/insights`],
      ["a channel's totals, top posts and audience, 28 days", `/insights?channelIds=${one.id}&${days(28)}`],
      ["a channel's totals, top posts and audience, 365 days", `/insights?channelIds=${one.id}&${days(365)}`],
      [
        'a workspace by network, label, weekday and hour, 28 days',
        `/insights?workspaceId=${one.workspaceId}&${days(28)}`,
      ],
      [
        'a workspace by network, label, weekday and hour, 365 days',
        `/insights?workspaceId=${one.workspaceId}&${days(365)}`,
      ],
      ['the account, 28 days, zone Asia/Kolkata', `/insights?${days(28)}&timezone=Asia%2FKolkata`],
      ['the account, 365 days, zone Asia/Kolkata', `/insights?${days(365)}&timezone=Asia%2FKolkata`],
      ['one label, 28 days', `/insights?labelIds=${label.id}&${days(28)}`],
      ['one label, 365 days', `/insights?labelIds=${label.id}&${days(365)}`],
      ["a channel's best times (12 weeks)", `/channels/${one.id}/best-times`],
      ["a channel's best times (12 weeks), zone Asia/Kathmandu", `/channels/${two.id}/best-times`],
      ['CSV export, 1 day', `/insights/export?${days(1)}`],
      ['CSV export, 28 days', `/insights/export?${days(28)}`],
      ['CSV export, 365 days', `/insights/export?${days(365)}`],
    ];
    const measured: Result['reads'] = [];
    for (const [name, url] of reads) {
      const csv = url.startsWith('/insights/export');
      const times: number[] = [];
      const firstBytes: number[] = [];
      // One unmeasured request first: a route's first request in a process compiles its OpenAPI validation
      // (10-60 ms of CPU), a cost of the process's first minutes, not of the read.
      const warm = await get(url);
      await warm.arrayBuffer();
      if (warm.status !== 200) throw new Error(`${name}: ${warm.status}`);
      const cpuStart = cpuMsOf(pid);
      const began = performance.now();
      for (let r = 0; r < ROUNDS && (r < MIN_ROUNDS || performance.now() - began < READ_BUDGET_MS); r++) {
        const start = performance.now();
        const res = await get(url);
        const reader = res.body!.getReader();
        await reader.read();
        firstBytes.push(performance.now() - start);
        while (!(await reader.read()).done);
        if (res.status !== 200) throw new Error(`${name}: ${res.status}`);
        times.push(performance.now() - start);
      }
      const cpuMs = (cpuMsOf(pid) - cpuStart) / times.length;
      const rounds = times.length;
      times.sort((a, b) => a - b);
      firstBytes.sort((a, b) => a - b);
      const row = (label: string, sorted: number[]) => ({
        name: label,
        p50: percentile(sorted, 50),
        p99: percentile(sorted, 99),
        cpuMs,
        rounds,
      });
      if (csv) measured.push(row(`${name}: first byte`, firstBytes), row(`${name}: whole file`, times));
      else measured.push(row(name, times));
      console.log(database, { ...measured.at(-1), rssPeakMiB: Math.round(readPeakMiB) });
      readPeakMiB = statusMiB(pid, 'VmRSS');
    }
    clearInterval(watch);
    const hwmMiB = statusMiB(pid, 'VmHWM');
    server.process.kill('SIGTERM');
    await new Promise((resolve) => server.process.once('exit', resolve));
    const loadAverage: [number, number] = [os.loadavg()[0], os.loadavg()[2]];

    // A sync's own writes for the newest SYNCED posts, as live-sync makes them: their counters and samples in one
    // unit of work, a statement per chunk, with the recount of the rollup's hours they touched.
    const syncStart = performance.now();
    const synced = await db('posts')
      .where('channel_id', one.id)
      .orderBy('published_at', 'desc')
      .limit(SYNCED)
      .select('id', 'published_at', 'metrics');
    const samples: PostSampleRecord[] = [];
    const counted: CountersRead[] = [];
    for (const row of synced) {
      const metrics = { ...JSON.parse(row.metrics), likes: 500 };
      const post = {
        id: row.id,
        accountId: demo.accountId,
        channelId: one.id,
        publishedAt: Number(row.published_at),
        metrics: JSON.parse(row.metrics),
      };
      const sample = postSample(post, metrics, now + 60_000);
      if (sample) samples.push(sample);
      counted.push({ postId: row.id, metrics });
    }
    await herald.deps.repos.inTransaction(() => keepCounters(herald.deps, counted, samples, now + 60_000));
    const syncMs = performance.now() - syncStart;
    return {
      database,
      seededS,
      rollupS,
      reads: measured,
      syncMs,
      server: { idleMiB, peakMiB, hwmMiB },
      loadAverage,
    };
  } finally {
    await herald.close();
    await postgres?.drop();
    if (!kept) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function runInsightsBench(posts = Number(process.env.BENCH_INSIGHTS_POSTS ?? 1_000_000)): Promise<void> {
  const databases = (process.env.BENCH_DATABASE_URL ? ['SQLite', 'Postgres'] : ['SQLite']).filter(
    (d) => !process.env.BENCH_INSIGHTS_ONLY || d === process.env.BENCH_INSIGHTS_ONLY,
  ) as Database[];
  const results: Result[] = [];
  for (const database of databases) results.push(await measure(database, posts));
  const cell = (n: number) => n.toFixed(0);
  const columns = (r: Result) => `${r.database} p50 ms | p99 ms | server CPU ms | asked`;
  const header = `| read | ${results.map(columns).join(' | ')} |`;
  const rule = `|---|${results.map(() => '---|---|---|---|').join('')}`;
  const rows = results[0].reads.map((read, i) => {
    const cells = results.map((r) => {
      const { p50, p99, cpuMs, rounds } = r.reads[i];
      return `${cell(p50)} | ${cell(p99)} | ${cell(cpuMs)} | ${rounds}`;
    });
    return `| ${read.name} | ${cells.join(' | ')} |`;
  });
  const facts = results
    .map(
      (r) =>
        `${r.database}: seeded in ${cell(r.seededS)} s, rollup counted in ${cell(r.rollupS)} s; ` +
        `a sync's writes for ` +
        `${SYNCED.toLocaleString('en')} posts' counters with the recount of their hours ` +
        `${(r.syncMs / 1000).toFixed(1)} s (the sync cadence is 300 s). The API server's RSS: ` +
        `${cell(r.server.idleMiB)} MiB idle, ` +
        `${cell(r.server.peakMiB)} MiB at most while reading (sampled every 50 ms), ` +
        `VmHWM ${cell(r.server.hwmMiB)} MiB ` +
        `(target 200 MB). Load average while reading: ${r.loadAverage[0].toFixed(1)} (1 min) at the end, ` +
        `${r.loadAverage[1].toFixed(1)} (15 min).`,
    )
    .join('\n');
  const report = `Machine: ${machine()}. Command: \`make build\`, then
\`BENCH_DATABASE_URL=postgres://… BENCH_INSIGHTS_POSTS=${posts} tsx bench/insights.ts\` (\`make bench\` runs it too).
${posts.toLocaleString('en')} published posts over a year on two sandbox channels (the second in Asia/Kathmandu),
${SAMPLES} samples each (${(posts * SAMPLES).toLocaleString('en')} samples), one in 50 labelled; each read asked
${ROUNDS} times in a row over REST (a slow one as often as fits in ${READ_BUDGET_MS / 1000} s, at least ${MIN_ROUNDS}:
"asked") of an API server in a process of its own (bench/memory-server.mjs, from dist/, as \`make run\` starts one),
after one request of it not measured (a route's first request in a process compiles its OpenAPI validation).
Target: p99 under 200 ms. Server CPU ms is that process's CPU time (user and system) per read, the client's and
the database server's not in it: on a shared machine it tells the work a read costs where the wall-clock figures
also tell the wait for a core. The CSV export is timed twice: its first byte, and its whole file.

${header}
${rule}
${rows.join('\n')}

${facts}

Measured ${new Date().toISOString().slice(0, 10)}.`;
  writeSection('Insights reads', report);
  console.log(report);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve('bench/insights.ts')) {
  await runInsightsBench(Number(process.argv[2] ?? process.env.BENCH_INSIGHTS_POSTS ?? 1_000_000));
}
