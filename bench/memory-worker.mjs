// One worker process of the memory benchmark, compiled from dist/ as `make run` runs it: publishes every due post in
// DATA_DIR's database to the sandbox, then prints "PEAK <MiB>", its own high-water RSS (VmHWM), and exits.
import fs from 'node:fs';
import { loadConfig } from '../dist/src/config.js';
import { createLogger } from '../dist/src/logger.js';
import { createWorker } from '../dist/src/publishing/engine.js';
import { startHerald } from '../dist/src/server.js';

const posts = Number(process.env.BENCH_POSTS);
const herald = await startHerald({ ...loadConfig({}), port: 0, host: '127.0.0.1', dataDir: process.env.DATA_DIR, worker: false }, createLogger({ quiet: true }));
const worker = createWorker(herald.deps, createLogger({ quiet: true }), { checkMedia: async () => ({ direct: true }), options: { pollMs: 50, syncIntervalMs: 3_600_000 } });
worker.start();
for (;;) {
  const [row] = await herald.db('posts').where({ status: 'published' }).count({ n: '*' });
  if (Number(row.n) >= posts) break;
  await new Promise((resolve) => setTimeout(resolve, 100));
}
await worker.stop();
await herald.close();
const hwm = /VmHWM:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1];
process.stdout.write(`PEAK ${(Number(hwm) / 1024).toFixed(1)}\n`);
process.exit(0);
