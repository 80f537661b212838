/**
 * One server of the REST benchmark, in its own process: `herald` (the real stack with generous budgets) or
 * `bare` (Express + Knex alone) over the database the benchmark seeded in DATA_DIR. Prints "READY <url>".
 */
import path from 'node:path';
import knex from 'knex';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/logger.js';
import { startHerald } from '../src/server.js';
import { startBaseline } from './rest-posts.js';

const kind = process.argv[2];
const dataDir = process.env.DATA_DIR!;
const unlimited = { restReadsPerMinute: 1e9, restWritesPerMinute: 1e9, accountPerHour: 1e9, mcpPerTokenPerMinute: 1e9 };

if (kind === 'herald') {
  const herald = await startHerald(
    { ...loadConfig({}), port: 0, host: '127.0.0.1', dataDir, rateLimits: unlimited, worker: false },
    createLogger({ quiet: true }),
  );
  process.on('SIGTERM', () => void herald.close().then(() => process.exit(0)));
  process.stdout.write(`READY ${herald.url}\n`);
} else {
  // Knex as a plain stack configures it (WAL, as Herald's file already is): none of Herald's own database work,
  // such as its statement cache, so "bare" is the naive stack the target compares against.
  const db = knex({
    client: 'better-sqlite3',
    connection: { filename: path.join(dataDir, 'herald.db') },
    useNullAsDefault: true,
    pool: { min: 1, max: 1 },
  });
  const baseline = await startBaseline(
    db,
    process.env.BENCH_ACCOUNT!,
    process.env.BENCH_WORKSPACE!,
    process.env.BENCH_CHANNEL!,
  );
  process.on(
    'SIGTERM',
    () =>
      void baseline
        .close()
        .then(() => db.destroy())
        .then(() => process.exit(0)),
  );
  process.stdout.write(`READY ${baseline.url}\n`);
}
