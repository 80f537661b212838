/** The composition root: opens the database, migrates, wires the domain and serves HTTP. */
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAppServer } from './http/app-server.js';
import { answerClientError } from './http/client-error.js';
import type { Config } from './config.js';
import { isPostgres, migrate, openDatabase, type Db } from './db/connection.js';
import { createRepositories } from './db/repositories/index.js';
import type { DomainDeps } from './domain/deps.js';
import { purgeExpired } from './domain/housekeeping.js';
import { writeWeeklyDigests } from './domain/insights/weekly-digest.js';
import { refreshRollups } from './domain/insights/rollups.js';
import { createLogger, type Logger } from './logger.js';
import { createMediaStorage } from './storage/media-storage.js';
import { freeBytes, prepareDataDir } from './files/data-dir.js';
import { DatabaseOutages, lowSpaceWarning, quietDuringOutages } from './domain/database-health.js';
import { loadMasterKeys } from './storage/master-key.js';
import { loadInstanceSecrets } from './domain/instance-secrets.js';
import { SecretBox } from './domain/secret-box.js';
import { safeFetcher } from './net/safe-fetch.js';
import { createAiProvider } from './domain/ai/providers.js';
import { systemTimers } from './domain/timers.js';
import { createNetworks, createWorker } from './publishing/engine.js';
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

export async function openDomain(
  config: Config,
  warn: (message: string) => void = () => undefined,
): Promise<{ db: Db; deps: DomainDeps }> {
  prepareDataDir(config.dataDir, warn);
  // A malformed master key is refused before the database is touched.
  const keys = loadMasterKeys(config, warn);
  const secretBox = new SecretBox(keys.current, keys.previous);
  const db = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir });
  quietConnectionErrors(db, warn);
  try {
    await migrateBesideOthers(db);
    const repos = createRepositories(db);
    const base = {
      repos,
      config,
      now: () => Date.now(),
      timers: systemTimers,
      secretBox,
      secrets: await loadInstanceSecrets(repos.instanceSecrets, secretBox),
      fetcher: safeFetcher,
      mediaStorage: await createMediaStorage({ dataDir: config.dataDir, s3: config.media.s3 }),
      ai: createAiProvider(config.ai),
    };
    // The connectors read the clock through `deps`, so a clock swapped in later (tests, CLI) is the one they use too.
    const deps = { ...base } as DomainDeps;
    deps.networks = createNetworks(deps);
    // Part of migrating: the hours of the insights rollup left to count (every hour of the posts there were, after
    // the upgrade that added it) are counted before anything is served, so no read ever pays for them.
    await refreshRollups(deps);
    return { db, deps };
  } catch (error) {
    // An open pool would keep a CLI that failed to start (a key that opens nothing) running.
    await db.destroy();
    throw error;
  }
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
  // The HTTP surfaces are imported here, not above: the CLI's commands open the domain without them.
  const { createApp } = await import('./app.js');
  serve(createApp({ config, deps, logger, outages, freeBytes: spaceLeft }));
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

/**
 * Whether the database takes a write of some size again, after it answered that its storage was full: a table
 * and a row written in a transaction that is then rolled back, so nothing stays.
 */
export async function writesAgain(db: Db): Promise<void> {
  const rolledBack = new Error('space probe rolled back');
  try {
    await db.transaction(async (trx) => {
      await trx.raw('CREATE TABLE herald_space_probe (filler TEXT)');
      await trx.raw('INSERT INTO herald_space_probe (filler) VALUES (?)', ['x'.repeat(64 * 1024)]);
      throw rolledBack;
    });
  } catch (error) {
    if (error !== rolledBack) throw error;
  }
}

/**
 * Knex writes every failed connection to stderr itself, one line per request while Postgres is down; the requests
 * that meet the outage already say it once (DatabaseOutages). Its other warnings go to the log.
 */
function quietConnectionErrors(db: Db, warn: (message: string) => void): void {
  const logger = db.client.logger as { _warn?: (message: string) => void };
  logger._warn = (message) => {
    if (!/^(Connection Error|Acquire connection error):/.test(String(message))) warn(String(message));
  };
}

// Two instances started together on an empty database would both create Knex's migration tables (and its lock
// table's row, twice: then the migrations stay locked for good). On Postgres they take turns under an advisory lock
// held on a connection of its own; on SQLite the one that lost the race waits and looks again.
const MIGRATION_RACE = /already exists|already locked|duplicate key|database is locked|SQLITE_BUSY/i;
const MIGRATION_LOCK = "SELECT pg_advisory_lock(hashtext('herald:migrations'))";
const MIGRATION_UNLOCK = "SELECT pg_advisory_unlock(hashtext('herald:migrations'))";

async function migrateBesideOthers(db: Db): Promise<void> {
  if (isPostgres(db)) {
    const connection = (await db.client.acquireConnection()) as { query(sql: string): Promise<unknown> };
    try {
      await connection.query(MIGRATION_LOCK);
      await migrate(db);
    } finally {
      await connection.query(MIGRATION_UNLOCK).catch(() => undefined);
      await db.client.releaseConnection(connection);
    }
    return;
  }
  for (let attempt = 1; ; attempt++) {
    try {
      await migrate(db);
      return;
    } catch (error) {
      if (attempt >= 20 || !MIGRATION_RACE.test(String((error as Error)?.message))) throw error;
      await new Promise((resolve) => setTimeout(resolve, 100 + Math.random() * 200));
    }
  }
}
