import type { Config } from '../config.js';
import { DatabaseOutages, quietDuringOutages } from '../domain/database-health.js';
import { createLogger } from '../logger.js';
import { createWorker } from '../publishing/engine.js';
import { openDomain, writesAgain } from '../open-domain.js';

/** `herald worker`: the publishing worker alone (no HTTP), until SIGTERM/SIGINT; then it stops gracefully. */
export async function runWorker(config: Config): Promise<void> {
  const logger = createLogger();
  const { db, deps } = await openDomain(config, (message) => logger.warn(message));
  const probe = (kind: 'unreachable' | 'full') => (kind === 'full' ? writesAgain(db) : db.raw('SELECT 1'));
  const outages = new DatabaseOutages(logger, probe, Date.now, 'publishing');
  const worker = createWorker(deps, quietDuringOutages(logger, outages));
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
    outages.stop();
    await worker.stop();
    await db.destroy();
    process.exit(0);
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}
