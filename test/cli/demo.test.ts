import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { seedDemoIfEmpty } from '../../src/demo.js';
import { verifyPassword } from '../../src/domain/passwords.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { openDatabase } from '../../src/db/connection.js';
import { createRepositories } from '../../src/db/repositories/index.js';
import { loadConfig, type Config } from '../../src/config.js';
import { createLogger } from '../../src/logger.js';
import { startHerald } from '../../src/server.js';
import { itOn } from '../support/databases.js';
import { freshDatabase, startTestHerald, type TestHerald } from '../support/herald.js';
import { ensureCliBuilt, HERALD_CLI } from '../support/cli.js';

// The commands run the CLI bundled from src/ (test/support/cli.ts), built before the first.
before(ensureCliBuilt);

describe('the demo account make run creates', () => {
  let t: TestHerald;
  before(async () => {
    t = await startTestHerald();
  });
  after(() => t.close());

  it('is created once on an empty database, with its key and sign-in written mode 600', async () => {
    const demo = await seedDemoIfEmpty(t.deps, t.config.dataDir);
    assert.ok(demo);
    const keyFile = path.join(t.config.dataDir, 'demo-api-key');
    const credentialsFile = path.join(t.config.dataDir, 'demo-credentials');
    assert.equal(fs.readFileSync(keyFile, 'utf8').trim(), demo.apiKey);
    assert.deepEqual(JSON.parse(fs.readFileSync(credentialsFile, 'utf8')), {
      email: demo.email,
      password: demo.password,
    });
    assert.equal(fs.statSync(keyFile).mode & 0o777, 0o600);
    assert.equal(fs.statSync(credentialsFile).mode & 0o777, 0o600);

    const channels = await t.api('GET', '/v1/rest/channels', { token: demo.apiKey });
    assert.deepEqual(
      channels.body.data.map((c: any) => c.network),
      ['sandbox', 'sandbox'],
    );
    const user = await t.deps.repos.accounts.findUserByEmail(demo.email);
    assert.ok(user?.passwordHash && (await verifyPassword(demo.password, user.passwordHash)));
    assert.ok(!(await verifyPassword('wrong password', user.passwordHash)));
    const stored = await t.herald.db('api_keys').select('key_hash');
    assert.ok(
      stored.every((row: any) => row.key_hash !== demo.apiKey),
      'keys are stored hashed',
    );

    assert.equal(await seedDemoIfEmpty(t.deps, t.config.dataDir), undefined);
  });
});

describe('the demo account when several instances start together on an empty database', () => {
  /** A `herald serve` process; resolves once it listens (it seeds before that), with what it wrote to stdout. */
  function serve(config: { dataDir: string; databaseUrl?: string }): {
    child: ChildProcess;
    listening: Promise<string>;
  } {
    const child = spawn(process.execPath, [HERALD_CLI, 'serve'], {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        DATA_DIR: config.dataDir,
        DATABASE_URL: config.databaseUrl ?? '',
        WORKER: 'false',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const listening = new Promise<string>((resolve, reject) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('herald listening')) resolve(stdout);
      });
      child.once('exit', (code) => reject(new Error(`herald serve exited (${code}) before listening: ${stderr}`)));
    });
    return { child, listening };
  }

  // SQLite waits for its write lock synchronously, so instances in one process would wait on each other's event
  // loop, not on the database: on SQLite the processes below race instead, and this one is not registered.
  itOn(
    'postgres',
    'is created exactly once, and every instance starts (instances racing in one process, Postgres)',
    async function () {
      this.timeout(120_000);
      for (let round = 0; round < 5; round++) {
        const database = await freshDatabase();
        const config: Config = {
          ...loadConfig({}),
          port: 0,
          host: '127.0.0.1',
          baseUrl: '',
          dataDir: database.dataDir,
          databaseUrl: database.databaseUrl,
          worker: false,
          passwordHashCost: 2 ** 10,
        };
        try {
          const started = await Promise.allSettled(
            [0, 1, 2].map(async () => {
              const herald = await startHerald(config, createLogger({ quiet: true }));
              try {
                return await seedDemoIfEmpty(herald.deps, config.dataDir);
              } finally {
                await herald.close();
              }
            }),
          );
          const failed = started
            .filter((s) => s.status === 'rejected')
            .map((s) => String((s as PromiseRejectedResult).reason));
          assert.deepEqual(failed, [], `round ${round}: every instance starts`);
          assert.equal(
            started.filter((s) => s.status === 'fulfilled' && s.value).length,
            1,
            `round ${round}: one instance seeds`,
          );
          const db = openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
          try {
            assert.equal(await createRepositories(db).accounts.countAccounts(), 1, `round ${round}: one account`);
          } finally {
            await db.destroy();
          }
        } finally {
          await database.drop();
        }
      }
    },
  );

  it('is created exactly once, and every instance starts (processes racing on one database)', async function () {
    this.timeout(180_000);
    const database = await freshDatabase();
    const instances = [0, 1, 2].map(() => serve(database));
    try {
      const outputs = await Promise.all(instances.map((i) => i.listening));
      assert.equal(
        outputs.filter((out) => out.includes('Herald created a demo account')).length,
        1,
        'one instance seeds',
      );
      const db = openDatabase({ databaseUrl: database.databaseUrl, dataDir: database.dataDir });
      try {
        const repos = createRepositories(db);
        assert.equal(await repos.accounts.countAccounts(), 1, 'one account');
        assert.ok(await repos.accounts.findUserByEmail('demo@herald.local'), 'the demo user exists');
        assert.equal((await repos.channels.pageAcrossAccounts('', 10)).length, 2, 'with its two channels');
      } finally {
        await db.destroy();
      }
    } finally {
      for (const { child } of instances) child.kill('SIGKILL');
      await database.drop();
    }
  });
});
