// One Herald API server of the memory benchmark, run as `make run` runs it (compiled, from dist/, plain node, no
// TypeScript loader in the process), over the database in DATA_DIR, or DATABASE_URL's Postgres. Prints "READY <url>".
// The scale-out benchmark runs several of them on one Postgres database.
import { loadConfig } from '../dist/src/config.js';
import { createLogger } from '../dist/src/logger.js';
import { startHerald } from '../dist/src/server.js';

const unlimited = { restReadsPerMinute: 1e9, restWritesPerMinute: 1e9, accountPerHour: 1e9, mcpPerTokenPerMinute: 1e9 };
const herald = await startHerald(
  {
    ...loadConfig({}),
    port: 0,
    host: '127.0.0.1',
    dataDir: process.env.DATA_DIR,
    databaseUrl: process.env.DATABASE_URL || undefined,
    rateLimits: unlimited,
    worker: false,
  },
  createLogger({ quiet: true }),
);
process.on('SIGTERM', () => void herald.close().then(() => process.exit(0)));
process.stdout.write(`READY ${herald.url}\n`);
