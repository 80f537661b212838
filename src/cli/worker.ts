import type { Config } from '../config.js';
import { createLogger } from '../logger.js';
import { createWorker } from '../publishing/engine.js';
import { openDomain } from '../server.js';

/** `herald worker`: the publishing worker alone (no HTTP), until SIGTERM/SIGINT; then it stops gracefully. */
export async function runWorker(config: Config): Promise<void> {
  const logger = createLogger();
  const { db, deps } = await openDomain(config);
  const worker = createWorker(deps, logger);
  worker.start();
  logger.info('publishing worker running', {
    workerId: worker.options.workerId,
    database: config.databaseUrl ? 'postgres' : 'sqlite',
  });
  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    logger.info('publishing worker stopping', { signal });
    await worker.stop();
    await db.destroy();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
