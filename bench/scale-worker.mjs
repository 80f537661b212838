// One worker process of the scale-out benchmark, compiled from dist/ as `make run` runs it, on DATABASE_URL's
// Postgres: prints "READY" once started, publishes due posts to the sandbox until SIGTERM, then exits.
import { loadConfig } from '../dist/src/config.js';
import { createLogger } from '../dist/src/logger.js';
import { createWorker } from '../dist/src/publishing/engine.js';
import { startHerald } from '../dist/src/server.js';

const herald = await startHerald(
  {
    ...loadConfig({}),
    port: 0,
    host: '127.0.0.1',
    dataDir: process.env.DATA_DIR,
    databaseUrl: process.env.DATABASE_URL,
    worker: false,
  },
  createLogger({ quiet: true }),
);
const worker = createWorker(herald.deps, createLogger({ quiet: true }), {
  checkMedia: async () => ({ direct: true }),
  options: { pollMs: 50, syncIntervalMs: 3_600_000 },
});
worker.start();
process.on(
  'SIGTERM',
  () =>
    void worker
      .stop()
      .then(() => herald.close())
      .then(() => process.exit(0)),
);
process.stdout.write('READY\n');
