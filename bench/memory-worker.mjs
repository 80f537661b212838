// One worker process of the memory benchmark, compiled from dist/ as `make run` runs it: publishes every due post in
// DATA_DIR's database to the sandbox, then prints "PEAK <MiB>", its own high-water RSS (VmHWM), with its RSS before
// the first claim and the heap it kept: the most left after any full collection during the burst, and what is left
// after one once drained (run with --expose-gc). A peak well above what is kept is garbage the collector had not
// yet had reason to collect, not memory held.
import fs from 'node:fs';
import v8 from 'node:v8';
import { loadConfig } from '../dist/src/config.js';
import { createLogger } from '../dist/src/logger.js';
import { createWorker } from '../dist/src/publishing/engine.js';
import { startHerald } from '../dist/src/server.js';

const MiB = 1024 * 1024;
const status = (field) =>
  Number(new RegExp(`${field}:\\s+(\\d+)`).exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1]) / 1024;
const posts = Number(process.env.BENCH_POSTS);
const herald = await startHerald(
  { ...loadConfig({}), port: 0, host: '127.0.0.1', dataDir: process.env.DATA_DIR, worker: false },
  createLogger({ quiet: true }),
);
const worker = createWorker(herald.deps, createLogger({ quiet: true }), {
  checkMedia: async () => ({ direct: true }),
  options: { pollMs: 50, syncIntervalMs: 3_600_000 },
});
const idle = status('VmRSS');
const collections = new v8.GCProfiler();
collections.start();
worker.start();
for (;;) {
  const [row] = await herald.db('posts').where({ status: 'published' }).count({ n: '*' });
  if (Number(row.n) >= posts) break;
  await new Promise((resolve) => setTimeout(resolve, 100));
}
await worker.stop();
const full = collections.stop().statistics.filter((gc) => gc.gcType === 'MarkSweepCompact');
const kept = Math.max(0, ...full.map((gc) => gc.afterGC.heapStatistics.usedHeapSize)) / MiB;
const hwm = status('VmHWM');
global.gc();
const drained = process.memoryUsage().heapUsed / MiB;
await herald.close();
process.stdout.write(
  `PEAK ${hwm.toFixed(1)} IDLE ${idle.toFixed(1)} FULL ${full.length} ` +
    `KEPT ${kept.toFixed(1)} DRAINED ${drained.toFixed(1)}\n`,
);
process.exit(0);
