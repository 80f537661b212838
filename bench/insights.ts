/**
 * Insights reads on a large history: one account whose two channels published POSTS posts over a year, each with
 * SAMPLES samples of its counters (written straight to the database, as years of live syncs would leave them).
 * Each read (a 28-day and a 365-day report, the CSV export of 28 days, a post's curve, a channel's best times) is
 * asked 40 times one after another; its p50 and p99 go to BENCHMARKS.md. Run alone: `tsx bench/insights.ts [posts]`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../src/config.js';
import { seedDemo } from '../src/domain/provisioning.js';
import { createLogger } from '../src/logger.js';
import { startHerald } from '../src/server.js';
import { machine, percentile, writeSection } from './report.js';

const SAMPLES = 30;
const ROUNDS = 40;
const YEAR_MS = 365 * 86_400_000;

export async function runInsightsBench(posts = 20_000): Promise<void> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-insights-'));
  const unlimited = {
    restReadsPerMinute: 1e9,
    restWritesPerMinute: 1e9,
    accountPerHour: 1e9,
    mcpPerTokenPerMinute: 1e9,
  };
  const config = { ...loadConfig({}), port: 0, host: '127.0.0.1', dataDir, worker: false, rateLimits: unlimited };
  const herald = await startHerald(config, createLogger({ quiet: true }));
  const demo = await seedDemo(herald.deps);
  const channels = await herald.deps.repos.channels.list(demo.accountId);
  const sandbox = channels.filter((c) => c.network === 'sandbox').slice(0, 2);
  const now = Date.now();
  const seedStart = Date.now();
  for (let i = 0; i < posts; i += 500) {
    const rows = [];
    const samples = [];
    for (let j = i; j < Math.min(posts, i + 500); j++) {
      const channel = sandbox[j % sandbox.length];
      const at = now - Math.floor((j / posts) * YEAR_MS);
      const metrics = { likes: j % 97, comments: j % 13, shares: j % 7, impressions: 1000 + (j % 991) };
      const id = `bench_${String(j).padStart(8, '0')}`;
      rows.push({
        id,
        account_id: demo.accountId,
        workspace_id: channel.workspaceId,
        channel_id: channel.id,
        text: `Bench post ${j}`,
        status: 'published',
        is_live: false,
        date_time: at,
        timeline_at: at,
        published_at: at,
        network_post_id: id,
        metrics: JSON.stringify(metrics),
        created_at: at,
        updated_at: at,
      });
      for (let s = 0; s < SAMPLES; s++) {
        samples.push({
          postId: id,
          accountId: demo.accountId,
          channelId: channel.id,
          publishedAt: at,
          sampledAt: at + s * 3_600_000,
          counters: {
            likes: Math.floor((metrics.likes * s) / SAMPLES),
            impressions: Math.floor((metrics.impressions * s) / SAMPLES),
          },
        });
      }
    }
    await herald.db('posts').insert(rows);
    await herald.deps.repos.insights.insertPostSamples(samples);
  }
  const seeded = Date.now() - seedStart;
  const get = (url: string) =>
    fetch(`${herald.url}/v1/rest${url}`, { headers: { authorization: `Bearer ${demo.apiKey}` } });
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  const reads: [string, string][] = [
    ['report, 28 days', `/insights?from=${day(now - 27 * 86_400_000)}&to=${day(now)}`],
    ['report, 365 days', `/insights?from=${day(now - 364 * 86_400_000)}&to=${day(now)}`],
    ['CSV export, 28 days', `/insights/export?from=${day(now - 27 * 86_400_000)}&to=${day(now)}`],
    ["a post's curve", `/posts/bench_00000001/insights`],
    ["a channel's best times (12 weeks)", `/channels/${sandbox[0].id}/best-times`],
  ];
  const lines: string[] = [];
  for (const [name, url] of reads) {
    const times: number[] = [];
    for (let r = 0; r < ROUNDS; r++) {
      const start = performance.now();
      const res = await get(url);
      await res.arrayBuffer();
      if (res.status !== 200) throw new Error(`${name}: ${res.status}`);
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    lines.push(`| ${name} | ${percentile(times, 50).toFixed(0)} | ${percentile(times, 99).toFixed(0)} |`);
  }
  await herald.close();
  fs.rmSync(dataDir, { recursive: true, force: true });
  const report = `Machine: ${machine()}. Command: \`tsx bench/insights.ts ${posts}\` (SQLite). ${posts.toLocaleString('en')} published posts over a
year on two channels, ${SAMPLES} samples each (${(posts * SAMPLES).toLocaleString('en')} samples; seeded in ${(seeded / 1000).toFixed(0)} s), each read
asked ${ROUNDS} times in a row:

| read | p50 ms | p99 ms |
|---|---|---|
${lines.join('\n')}

Measured ${new Date().toISOString().slice(0, 10)}. Taken while other work shared the machine. The issue's target (1,000,000 posts, 200 ms p99 on both
databases) is not met yet: a period's posts and the previous period's are read whole and summed in the process.`;
  writeSection('Insights reads', report);
  console.log(report);
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve('bench/insights.ts')) {
  await runInsightsBench(Number(process.argv[2] ?? 20_000));
}
