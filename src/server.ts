/** The composition root: opens the database, migrates, wires the domain and serves HTTP. */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { createAppServer } from './http/app-server.js';
import { answerClientError } from './http/client-error.js';
import type { Config } from './config.js';
import type { Db } from './db/connection.js';
import type { DomainDeps } from './domain/deps.js';
import { purgeExpired } from './domain/housekeeping.js';
import { writeWeeklyDigests } from './domain/insights/weekly-digest.js';
import { createLogger, type Logger } from './logger.js';
import { restValidatorsReady } from './rest/router.js';
import { freeBytes } from './files/data-dir.js';
import { DatabaseOutages, lowSpaceWarning, quietDuringOutages } from './domain/database-health.js';
import { openDomain, writesAgain } from './open-domain.js';
import { createWorker } from './publishing/engine.js';
import type { PublishingWorker } from './publishing/worker.js';

const HOUSEKEEPING_INTERVAL_MS = 10 * 60_000;
// How often DATA_DIR's free space is looked at, to warn in the log before it runs out.
const SPACE_CHECK_INTERVAL_MS = 60_000;
// How long a stopping instance lets the requests it took finish: well inside the 30 s Kubernetes gives a pod
// between SIGTERM and SIGKILL by default.
const SHUTDOWN_GRACE_MS = 10_000;

export interface Herald {
  config: Config;
  db: Db;
  deps: DomainDeps;
  server: http.Server;
  /** The publishing worker, when this process runs one (config.worker). */
  worker: PublishingWorker | undefined;
  url: string;
  close(): Promise<void>;
}

export async function startHerald(requested: Config, logger: Logger = createLogger()): Promise<Herald> {
  const { server, serve, drain } = createAppServer();
  server.on('clientError', answerClientError);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(requested.port, requested.host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  // PORT=0 asks the system for a free port, known only now: a BASE_URL left unset follows it.
  const config = requested.baseUrl ? requested : { ...requested, port, baseUrl: `http://127.0.0.1:${port}` };
  let opened: Awaited<ReturnType<typeof openDomain>>;
  try {
    opened = await openDomain(config, (message) => logger.warn(message));
  } catch (error) {
    server.close();
    throw error;
  }
  const { db, deps } = opened;
  const outages = new DatabaseOutages(logger, (kind) => (kind === 'full' ? writesAgain(db) : db.raw('SELECT 1')));
  const spaceLeft = () => freeBytes(config.dataDir);
  serve(createApp({ config, deps, logger, outages, freeBytes: spaceLeft }));
  await restValidatorsReady();
  const housekeeping = setInterval(() => {
    purgeExpired(deps).catch((error) => logger.error('housekeeping failed', error));
    writeWeeklyDigests(deps).catch((error) => logger.error('writing the weekly insights digests failed', error));
  }, HOUSEKEEPING_INTERVAL_MS);
  housekeeping.unref();
  const spaceWatch = watchFreeSpace(spaceLeft, config.storageLowBytes, logger);
  const worker = config.worker ? createWorker(deps, quietDuringOutages(logger, outages)) : undefined;
  worker?.start();
  return {
    config,
    db,
    deps,
    server,
    worker,
    url: `http://127.0.0.1:${port}`,
    async close() {
      clearInterval(housekeeping);
      clearInterval(spaceWatch);
      outages.stop();
      await Promise.all([worker?.stop(), drain(SHUTDOWN_GRACE_MS)]);
      await db.destroy();
    },
  };
}

/** Says in the log, once each time, when DATA_DIR's free space falls under the threshold and when it is back over. */
function watchFreeSpace(spaceLeft: () => Promise<number>, thresholdBytes: number, logger: Logger): NodeJS.Timeout {
  let low = false;
  const check = async () => {
    const warning = lowSpaceWarning(await spaceLeft(), thresholdBytes);
    if (warning && !low) logger.warn(warning);
    else if (!warning && low) logger.info('DATA_DIR has enough free space again');
    low = warning !== undefined;
  };
  const failed = (error: unknown) => logger.error('checking free space in DATA_DIR failed', error);
  check().catch(failed);
  const timer = setInterval(() => void check().catch(failed), SPACE_CHECK_INTERVAL_MS);
  timer.unref();
  return timer;
}
