/**
 * Run in a process of its own by first-request.test.ts (the OpenAPI validator is made once per process): starts a
 * Herald over the data directory DATA_DIR as `make run` does and prints whether its REST validation was compiled
 * by the time the server said it was ready.
 */
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { restValidatorsCompiled } from '../../src/rest/router.js';
import { startHerald } from '../../src/server.js';

const herald = await startHerald(
  { ...loadConfig({}), port: 0, host: '127.0.0.1', dataDir: process.env.DATA_DIR ?? '', worker: false },
  createLogger({ quiet: true }),
);
try {
  process.stdout.write(`${JSON.stringify({ compiled: restValidatorsCompiled() })}\n`);
} finally {
  await herald.close();
}
