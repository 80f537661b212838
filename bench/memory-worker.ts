/**
 * One worker process of the memory benchmark: publishes every due post in DATA_DIR's database to the sandbox, then
 * prints "PEAK <MiB>", its own high-water RSS, and exits.
 */
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { createWorker } from '../src/publishing/engine.js';
import { startHerald } from '../src/server.js';
import { statusMiB } from './memory.js';

const posts = Number(process.env.BENCH_POSTS);
const herald = await startHerald({ ...loadConfig({}), port: 0, host: '127.0.0.1', dataDir: process.env.DATA_DIR!, worker: false }, createLogger({ quiet: true }));
const worker = createWorker(herald.deps, createLogger({ quiet: true }), { checkMedia: async () => ({ direct: true }), options: { pollMs: 50, syncIntervalMs: 3_600_000 } });
worker.start();
for (;;) {
  const [row] = await herald.db('posts').where({ status: 'published' }).count<{ n: number | string }[]>({ n: '*' });
  if (Number(row.n) >= posts) break;
  await new Promise((resolve) => setTimeout(resolve, 100));
}
await worker.stop();
await herald.close();
process.stdout.write(`PEAK ${statusMiB('self', 'VmHWM').toFixed(1)}\n`);
process.exit(0);
