/**
 * Run in processes of their own by first-request.test.ts (the OpenAPI validator is made once per process), over the
 * data directory DATA_DIR: `seed` makes the demo account and prints its API key; `ask KEY` starts a Herald as
 * `make run` does, asks one REST read at once, and prints the CPU time the process spent from the moment the server
 * said it was ready until the answer, in ms.
 */
import { loadConfig } from '../../src/config.js';
import { seedDemo } from '../../src/domain/provisioning.js';
import { createLogger } from '../../src/logger.js';
import { startHerald } from '../../src/server.js';

const [mode, apiKey] = process.argv.slice(2);
const herald = await startHerald(
  { ...loadConfig({}), port: 0, host: '127.0.0.1', dataDir: process.env.DATA_DIR ?? '', worker: false },
  createLogger({ quiet: true }),
);
try {
  if (mode === 'seed') process.stdout.write(`${(await seedDemo(herald.deps)).apiKey}\n`);
  else {
    const before = process.cpuUsage();
    const res = await fetch(`${herald.url}/v1/rest/channels`, { headers: { authorization: `Bearer ${apiKey}` } });
    await res.arrayBuffer();
    const used = process.cpuUsage(before);
    process.stdout.write(`${JSON.stringify({ status: res.status, cpuMs: (used.user + used.system) / 1000 })}\n`);
  }
} finally {
  await herald.close();
}
