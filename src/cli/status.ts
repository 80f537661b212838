/**
 * `herald status`: how this instance stands, read without changing anything (it never migrates): the address it
 * serves on and whether something answers there, the database and whether it is reachable and migrated, whether
 * a worker is publishing, and what the operator must act on (channels to reconnect, webhooks disabled).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.js';
import { openDatabase } from '../db/connection.js';
import { InstanceStatusRepository } from '../db/repositories/instance-status.js';

// A post this late is one no running worker would have left: it claims due posts every second or so.
const OVERDUE_MS = 2 * 60_000;
const LISTED = 50;

export interface InstanceStatus {
  address: string;
  serving: string;
  database: {
    kind: 'sqlite' | 'postgres';
    where: string;
    reachable: boolean;
    migrated?: boolean;
    pendingMigrations?: string[];
    problem?: string;
  };
  worker?: string;
  channelsNeedingReconnect?: {
    account: string;
    channel: string;
    network: string;
    handle: string;
    reason: string | null;
  }[];
  webhooksDisabled?: { account: string; webhook: string; url: string; reason: string | null }[];
}

export async function instanceStatus(config: Config): Promise<InstanceStatus> {
  const address = config.baseUrl || `http://${config.host}:${config.port}`;
  const serving = await answersAt(address);
  const where = config.databaseUrl ? postgresWhere(config.databaseUrl) : path.join(config.dataDir, 'herald.db');
  const kind = config.databaseUrl ? ('postgres' as const) : ('sqlite' as const);
  // Opening SQLite would create an empty database file: none there is said as it is.
  if (!config.databaseUrl && !fs.existsSync(where)) {
    return {
      address,
      serving,
      database: {
        kind,
        where,
        reachable: false,
        problem: 'no database file yet: herald serve or herald migrate creates it',
      },
    };
  }
  const db = openDatabase({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolMax: 1 });
  const repo = new InstanceStatusRepository(db);
  try {
    try {
      await repo.reachable();
    } catch (error) {
      return { address, serving, database: { kind, where, reachable: false, problem: (error as Error).message } };
    }
    const pendingMigrations = await repo.pendingMigrations();
    const database = { kind, where, reachable: true, migrated: pendingMigrations.length === 0, pendingMigrations };
    // Before the first migration there are no tables to read.
    if (pendingMigrations.length > 0) return { address, serving, database };
    const overdue = await repo.overduePosts(Date.now(), OVERDUE_MS);
    const worker =
      overdue === 0
        ? 'no post is overdue'
        : `${overdue} post(s) due more than two minutes ago are waiting: no worker seems to be running ` +
          '(herald serve runs one unless WORKER=false; herald worker runs one alone)';
    return {
      address,
      serving,
      database,
      worker,
      channelsNeedingReconnect: (await repo.channelsNeedingReconnect(LISTED)).map((c) => ({
        account: c.accountName,
        channel: c.id,
        network: c.network,
        handle: c.handle,
        reason: c.reason,
      })),
      webhooksDisabled: (await repo.disabledWebhooks(LISTED)).map((w) => ({
        account: w.accountName,
        webhook: w.id,
        url: withoutQuery(w.url),
        reason: w.reason,
      })),
    };
  } finally {
    await db.destroy();
  }
}

async function answersAt(address: string): Promise<string> {
  try {
    const response = await fetch(`${address}/healthz`, { signal: AbortSignal.timeout(2_000) });
    return response.ok
      ? `yes: ${address}/healthz answers`
      : `something answers at ${address} but not as Herald (/healthz: ${response.status})`;
  } catch {
    return `no: nothing answers at ${address}`;
  }
}

/** Where a Postgres database is, without its password. */
function postgresWhere(databaseUrl: string): string {
  try {
    const url = new URL(databaseUrl);
    return `${url.hostname}${url.port ? `:${url.port}` : ''}${url.pathname}`;
  } catch {
    return 'DATABASE_URL (not a URL)';
  }
}

/** A webhook's address without its query, where a receiver's token may be. */
function withoutQuery(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`;
  } catch {
    return url;
  }
}
