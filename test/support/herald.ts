/**
 * A real Herald for tests: the HTTP server on a loopback port over a fresh database, SQLite or
 * Postgres as HERALD_TEST_DB says (Postgres: a new database per instance on TEST_DATABASE_URL). Each instance's
 * database is a copy of one migrated once: migrating anew cost 0.1 s a server on SQLite and 0.3 s on Postgres.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type pg from 'pg';
import { fileURLToPath } from 'node:url';
import { loadConfig, type Config } from '../../src/config.js';
import { migrate, openDatabase } from '../../src/db/connection.js';
import type { DomainDeps } from '../../src/domain/deps.js';
import * as provisioning from '../../src/domain/provisioning.js';
import type { Scope } from '../../src/domain/principal.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { startHerald, type Herald } from '../../src/server.js';
import { TEST_DB } from './databases.js';
import { dropLater } from './dropping.js';

export { TEST_DB };

export interface SeededAccount {
  accountId: string;
  userId: string;
  workspaceId: string;
  channelIds: string[];
  /** Has read_profile, manage_post and manage_team. */
  apiKey: string;
  /** Has read_profile and manage_post only. */
  basicKey: string;
  email: string;
  password: string;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestHerald {
  herald: Herald;
  url: string;
  deps: DomainDeps;
  config: Config;
  seedAccount(options?: { name?: string; channels?: number; approvalRequired?: boolean }): Promise<SeededAccount>;
  createKey(account: SeededAccount, scopes: Scope[]): Promise<string>;
  api<T = any>(
    method: string,
    path: string,
    options?: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> },
  ): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

export interface TestDatabase {
  dataDir: string;
  databaseUrl?: string;
  drop(): Promise<void>;
}

/** A fresh, empty database for one test instance (for tests of migrating itself); drop() removes it. */
export async function freshDatabase(): Promise<TestDatabase> {
  return newDatabase();
}

/** A fresh database with every migration applied, copied from a template migrated once; drop() removes it. */
async function migratedDatabase(): Promise<TestDatabase> {
  return newDatabase(await migratedTemplate());
}

function adminUrl(): string {
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('HERALD_TEST_DB=postgres needs TEST_DATABASE_URL');
  return url;
}

function databaseUrl(name: string): string {
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

async function asAdmin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  // Loaded here, for Postgres alone, as Herald loads it (src/db/connection.ts).
  const { default: postgres } = await import('pg');
  const client = new postgres.Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** `template`: a SQLite file to copy, or a Postgres database to create from; none gives an empty database. */
async function newDatabase(template?: string): Promise<TestDatabase> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-test-'));
  if (TEST_DB === 'sqlite') {
    if (template) fs.copyFileSync(template, path.join(dataDir, 'herald.db'));
    return { dataDir, drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
  }
  const name = `herald_t_${crypto.randomBytes(6).toString('hex')}`;
  await asAdmin((admin) =>
    admin.query(template ? `CREATE DATABASE ${name} TEMPLATE ${template}` : `CREATE DATABASE ${name}`),
  );
  return {
    dataDir,
    databaseUrl: databaseUrl(name),
    drop: async () => {
      await asAdmin((admin) => admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const MIGRATIONS_DIR = fileURLToPath(new URL('../../src/db/migrations/', import.meta.url));

/** A digest of the migrations' source: a template made from other migrations is never reused. */
function migrationsDigest(): string {
  const hash = crypto.createHash('sha256');
  for (const file of fs.readdirSync(MIGRATIONS_DIR).sort())
    hash.update(file).update(fs.readFileSync(path.join(MIGRATIONS_DIR, file)));
  return hash.digest('hex').slice(0, 16);
}

let template: Promise<string> | undefined;

function migratedTemplate(): Promise<string> {
  template ??= TEST_DB === 'sqlite' ? sqliteTemplate() : postgresTemplate();
  return template;
}

/** Migrated once per test process, in a folder removed when the process ends. */
async function sqliteTemplate(): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-template-'));
  process.once('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  const db = openDatabase({ dataDir: dir });
  try {
    await migrate(db);
  } finally {
    // Closing the last connection folds the WAL into the file, so the file alone is the whole database.
    await db.destroy();
  }
  return path.join(dir, 'herald.db');
}

/**
 * Kept on the server between runs under a name that carries the migrations' digest, made under another name and
 * renamed once migrated (a run that died half-way leaves nothing reused), one process at a time (parallel runs).
 */
async function postgresTemplate(): Promise<string> {
  const name = `herald_template_${migrationsDigest()}`;
  await asAdmin(async (admin) => {
    await admin.query("SELECT pg_advisory_lock(hashtext('herald:test-template'))");
    const found = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (found.rowCount) return;
    const building = `${name}_${crypto.randomBytes(4).toString('hex')}`;
    await admin.query(`CREATE DATABASE ${building}`);
    const db = openDatabase({ dataDir: os.tmpdir(), databaseUrl: databaseUrl(building) });
    try {
      await migrate(db);
    } finally {
      await db.destroy();
    }
    await admin.query(`ALTER DATABASE ${building} RENAME TO ${name}`);
  });
  return name;
}

const GENEROUS_LIMITS = {
  restReadsPerMinute: 100_000,
  restWritesPerMinute: 100_000,
  accountPerHour: 1_000_000,
  mcpPerTokenPerMinute: 100_000,
};

export async function startTestHerald(
  overrides: Partial<Config> = {},
  logger: Logger = createLogger({ quiet: true }),
): Promise<TestHerald> {
  const database = await migratedDatabase();
  const requested: Config = {
    ...loadConfig({}),
    // Port 0: the server listens on a free port and its base URL follows (no probe-then-bind race).
    port: 0,
    host: '127.0.0.1',
    baseUrl: '',
    dataDir: database.dataDir,
    databaseUrl: database.databaseUrl,
    validateResponses: true,
    worker: false,
    rateLimits: GENEROUS_LIMITS,
    oauthThrottles: { registrationsPerHour: 100_000, failedSignInsPerWindow: 100_000 },
    // Seeding hashes a password per account: at production cost that was 70-90 ms each, most of many files' time.
    passwordHashCost: 2 ** 10,
    ...overrides,
  };
  const herald = await startHerald(requested, logger);
  const config = herald.config;
  const deps = herald.deps;
  let accounts = 0;
  const agent = new http.Agent({ keepAlive: true });

  const createKey = async (account: SeededAccount, scopes: Scope[]) =>
    (
      await provisioning.createApiKey(deps, {
        accountId: account.accountId,
        userId: account.userId,
        name: 'test',
        scopes,
      })
    ).key;

  return {
    herald,
    url: config.baseUrl,
    deps,
    config,
    createKey,
    async seedAccount(options = {}) {
      accounts++;
      const email = `owner${accounts}-${crypto.randomBytes(3).toString('hex')}@example.test`;
      const password = 'correct horse battery';
      const { accountId, userId, workspaceId } = await provisioning.createAccount(deps, {
        name: options.name ?? `Account ${accounts}`,
        ownerEmail: email,
        password,
      });
      if (options.approvalRequired)
        await provisioning.setApprovalRequired(deps, { accountId, workspaceId, required: true });
      const channelIds: string[] = [];
      for (let i = 0; i < (options.channels ?? 2); i++) {
        channelIds.push(
          (
            await provisioning.addChannel(deps, {
              accountId,
              workspaceId,
              network: 'sandbox',
              handle: `@chan${i}`,
              timezone: 'Europe/Berlin',
            })
          ).id,
        );
      }
      const account = { accountId, userId, workspaceId, channelIds, apiKey: '', basicKey: '', email, password };
      account.apiKey = await createKey(account, ['read_profile', 'manage_post', 'manage_team']);
      account.basicKey = await createKey(account, ['read_profile', 'manage_post']);
      return account;
    },
    async api(method, urlPath, options = {}) {
      const headers: Record<string, string> = { ...options.headers };
      if (options.token) headers.authorization = `Bearer ${options.token}`;
      let body: string | undefined = options.rawBody;
      if (options.body !== undefined) {
        body = JSON.stringify(options.body);
        headers['content-type'] ??= 'application/json';
      }
      const response = await request(agent, method, config.baseUrl + urlPath, headers, body);
      const text = response.text;
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        /* not JSON: keep the text */
      }
      return { status: response.status, headers: response.headers, body: parsed as any };
    },
    async close() {
      // Ends the kept-alive connections api() opened: the server's drain waits out any still open (IDLE_QUIET_MS).
      agent.destroy();
      await herald.close();
      dropLater(database.drop);
    },
  };
}

/** One HTTP call over the instance's own agent, so that closing the instance can end its connections at once. */
function request(
  agent: http.Agent,
  method: string,
  url: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<{ status: number; headers: Headers; text: string }> {
  // The headers fetch() sends by default, so that the server sees the same request as from fetch().
  const sent: Record<string, string> = {
    accept: '*/*',
    'accept-language': '*',
    'sec-fetch-mode': 'cors',
    'user-agent': 'node',
    'accept-encoding': 'gzip, deflate',
  };
  for (const [name, value] of Object.entries(headers)) sent[name.toLowerCase()] = value;
  if (body !== undefined) {
    sent['content-type'] ??= 'text/plain;charset=UTF-8';
    sent['content-length'] = String(Buffer.byteLength(body));
  }
  return new Promise((resolve, reject) => {
    const outgoing = http.request(url, { method, headers: sent, agent }, (incoming) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('error', reject);
      incoming.on('end', () => {
        const answered = new Headers();
        for (const [name, value] of Object.entries(incoming.headers)) {
          for (const one of Array.isArray(value) ? value : value === undefined ? [] : [value])
            answered.append(name, one);
        }
        resolve({ status: incoming.statusCode ?? 0, headers: answered, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

export function futureIso(minutes = 60): string {
  return new Date(Date.now() + minutes * 60_000).toISOString();
}
