/**
 * A real Herald for tests: the HTTP server on a loopback port over a fresh database, SQLite or
 * Postgres as HERALD_TEST_DB says (Postgres: a new database per instance on TEST_DATABASE_URL).
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { loadConfig, type Config } from '../../src/config.js';
import type { DomainDeps } from '../../src/domain/deps.js';
import * as provisioning from '../../src/domain/provisioning.js';
import type { Scope } from '../../src/domain/principal.js';
import { createLogger, type Logger } from '../../src/logger.js';
import { startHerald, type Herald } from '../../src/server.js';

export const TEST_DB = process.env.HERALD_TEST_DB === 'postgres' ? 'postgres' : 'sqlite';

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
  api<T = any>(method: string, path: string, options?: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> }): Promise<ApiResponse<T>>;
  close(): Promise<void>;
}

/** A fresh, empty database for one test instance; drop() removes it. */
export async function freshDatabase(): Promise<{ dataDir: string; databaseUrl?: string; drop(): Promise<void> }> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-test-'));
  if (TEST_DB === 'sqlite') {
    return { dataDir, drop: async () => fs.rmSync(dataDir, { recursive: true, force: true }) };
  }
  const adminUrl = process.env.TEST_DATABASE_URL;
  if (!adminUrl) throw new Error('HERALD_TEST_DB=postgres needs TEST_DATABASE_URL');
  const name = `herald_t_${crypto.randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    dataDir,
    databaseUrl: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

const GENEROUS_LIMITS = { restReadsPerMinute: 100_000, restWritesPerMinute: 100_000, accountPerHour: 1_000_000, mcpPerTokenPerMinute: 100_000 };

export async function startTestHerald(overrides: Partial<Config> = {}, logger: Logger = createLogger({ quiet: true })): Promise<TestHerald> {
  const database = await freshDatabase();
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

  const createKey = async (account: SeededAccount, scopes: Scope[]) =>
    (await provisioning.createApiKey(deps, { accountId: account.accountId, userId: account.userId, name: 'test', scopes })).key;

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
        name: options.name ?? `Account ${accounts}`, ownerEmail: email, password,
      });
      if (options.approvalRequired) await provisioning.setApprovalRequired(deps, { accountId, workspaceId, required: true });
      const channelIds: string[] = [];
      for (let i = 0; i < (options.channels ?? 2); i++) {
        channelIds.push((await provisioning.addChannel(deps, { accountId, workspaceId, network: 'sandbox', handle: `@chan${i}`, timezone: 'Europe/Berlin' })).id);
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
      const response = await fetch(config.baseUrl + urlPath, { method, headers, body });
      const text = await response.text();
      let parsed: unknown = text;
      try {
        parsed = text ? JSON.parse(text) : undefined;
      } catch {
        /* not JSON: keep the text */
      }
      return { status: response.status, headers: response.headers, body: parsed as any };
    },
    async close() {
      await herald.close();
      await database.drop();
    },
  };
}

export function futureIso(minutes = 60): string {
  return new Date(Date.now() + minutes * 60_000).toISOString();
}
