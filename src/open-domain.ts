/**
 * The domain over its database, opened, migrated and wired: what herald serve builds its HTTP app on, and all the
 * CLI's commands need. Apart from server.ts so that a command loads no HTTP surface.
 */
import type { Config } from './config.js';
import { isPostgres, migrate, openDatabase, type Db } from './db/connection.js';
import { createRepositories } from './db/repositories/index.js';
import type { DomainDeps } from './domain/deps.js';
import { refreshRollups } from './domain/insights/rollups.js';
import { createAiProvider } from './domain/ai/providers.js';
import { loadInstanceSecrets } from './domain/instance-secrets.js';
import { SecretBox } from './domain/secret-box.js';
import { systemTimers } from './domain/timers.js';
import { prepareDataDir } from './files/data-dir.js';
import { safeFetcher } from './net/safe-fetch.js';
import { createNetworks } from './publishing/engine.js';
import { createMediaStorage } from './storage/media-storage.js';
import { loadMasterKeys } from './storage/master-key.js';

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
