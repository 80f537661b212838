import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { ensureCliBuilt } from '../support/cli.js';
import { describeOnce, itOn, TEST_DB } from '../support/databases.js';
import { futureIso, freshDatabase, startTestHerald, type TestHerald } from '../support/herald.js';

const run = promisify(execFile);
const PG_PROBE = fileURLToPath(new URL('./pg-probe.cjs', import.meta.url));

interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI built from source and answers how it ended, whatever the exit code. */
async function herald(env: NodeJS.ProcessEnv, ...args: string[]): Promise<Ran> {
  try {
    const cli = await ensureCliBuilt();
    const { stdout, stderr } = await run('node', [cli, ...args], { env: { ...process.env, ...env } });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

// Help text and usage errors: the same whatever the database.
describeOnce('the herald CLI tells how it is used', function () {
  // Each command is a fresh Node process: slow on a loaded machine.
  this.timeout(180_000);

  it('answers --help and <command> --help (exit 0), bare herald with help (exit 2), names options', async () => {
    const help = await herald({}, '--help');
    assert.equal(help.code, 0);
    for (const command of [
      'serve',
      'worker',
      'status',
      'account create',
      'account list',
      'key create',
      'channel add',
      'channel connect <NETWORK>',
    ]) {
      assert.match(help.stdout, new RegExp(`\\n  ${command} +\\S`), `the help lists ${command}`);
    }
    assert.match(help.stdout, /herald <command> --help/);

    const keyHelp = await herald({}, 'key', 'create', '--help');
    assert.equal(keyHelp.code, 0);
    assert.match(keyHelp.stdout, /^herald key create: Create an API key/);
    assert.match(keyHelp.stdout, /--account ID +The account \(default: the only one/);
    assert.match(keyHelp.stdout, /--manage-team +Let the key manage members/);
    assert.doesNotMatch(keyHelp.stdout, /--handle/, 'only the options of key create');
    assert.equal(
      (await herald({}, 'help', 'channel', 'connect')).stdout,
      (await herald({}, 'channel', 'connect', '-h')).stdout,
    );

    const bare = await herald({});
    assert.equal(bare.code, 2);
    assert.match(bare.stderr, /Usage: herald <command> \[options\]/);

    const unknownOption = await herald({}, 'key', 'create', '--handle', '@x');
    assert.equal(unknownOption.code, 2);
    assert.match(
      unknownOption.stderr,
      new RegExp(
        /^herald: Unknown option '--handle' for herald key create\. /.source +
          /Its options: --account, --user, --name, --manage-team, --json, --help/.source,
      ),
    );
    assert.equal(unknownOption.stderr.trim().split('\n').length, 1);

    const unknownCommand = await herald({}, 'frobnicate');
    assert.equal(unknownCommand.code, 2);
    assert.match(unknownCommand.stderr, /Unknown command "frobnicate"\. The commands: serve, worker, status/);

    const extraWord = await herald({}, 'status', 'now');
    assert.equal(extraWord.code, 2);
    assert.match(extraWord.stderr, /herald status does not take "now"/);
  });
});

describe('the herald CLI picks the only account, user and workspace', function () {
  this.timeout(180_000);
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    database = await freshDatabase();
    env = { DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl ?? '' };
  });
  after(() => database.drop());

  const json = async (...args: string[]) => {
    const ran = await herald(env, ...args, '--json');
    assert.equal(ran.code, 0, ran.stderr);
    return JSON.parse(ran.stdout);
  };

  it('needs no ids when there is one of each, lists them by name if several, adds no bare channel', async () => {
    const none = await herald({ ...env, NODE_OPTIONS: `--require ${PG_PROBE}` }, 'key', 'list');
    assert.equal(none.code, 2);
    assert.match(none.stderr, /no account yet: create one with herald account create/);
    assert.equal(
      none.stderr.includes('(node-postgres was loaded)'),
      TEST_DB === 'postgres',
      'node-postgres is loaded for a Postgres database only',
    );

    const acme = await json('account', 'create', '--name', 'Acme', '--email', 'owner@acme.test');
    const channel = await json('channel', 'add', '--handle', '@acme');
    const key = await json('key', 'create', '--name', 'ci');
    assert.match(key.key, /^hk_/);
    assert.deepEqual(
      (await json('key', 'list')).keys.map((k: { id: string }) => k.id),
      [key.id],
    );

    const bluesky = await herald(env, 'channel', 'add', '--network', 'bluesky', '--handle', 'acme.bsky.social');
    assert.equal(bluesky.code, 2);
    assert.equal(
      bluesky.stderr.trim(),
      "herald: A Bluesky channel needs its account's credentials: connect it with herald channel connect bluesky " +
        "(herald channel connect --help says what it asks for), or from the app's Channels page.",
    );
    const listed = await json('account', 'list');
    assert.deepEqual(
      listed.accounts[0].channels.map((c: { id: string }) => c.id),
      [channel.id],
      'no bluesky channel was made',
    );

    await json('user', 'create', '--email', 'editor@acme.test', '--name', 'Eddie Editor');
    const severalUsers = await herald(env, 'key', 'create');
    assert.equal(severalUsers.code, 2);
    assert.match(
      severalUsers.stderr,
      new RegExp(
        `several users: name one with --user\\.\\n  ${acme.userId}  owner@acme.test \\(Acme\\)\\n` +
          `  \\w+  editor@acme.test \\(Eddie Editor\\)`,
      ),
    );

    await json('workspace', 'create', '--name', 'Newsroom');
    const severalWorkspaces = await herald(env, 'channel', 'add', '--handle', '@news');
    assert.equal(severalWorkspaces.code, 2);
    assert.match(
      severalWorkspaces.stderr,
      new RegExp(`several workspaces: name one with --workspace\\.[^]*  ${acme.workspaceId}  Acme\\n[^]*  Newsroom`),
    );

    const beta = await json('account', 'create', '--name', 'Beta Corp', '--email', 'owner@beta.test');
    const severalAccounts = await herald(env, 'key', 'list');
    assert.equal(severalAccounts.code, 2);
    assert.match(
      severalAccounts.stderr,
      new RegExp(
        `several accounts: name one with --account\\.\\n  ${acme.accountId}  Acme\\n  ${beta.accountId}  Beta Corp\\n`,
      ),
    );
    assert.equal((await json('key', 'list', '--account', beta.accountId)).keys.length, 0);
    const mistyped = await herald(env, 'key', 'list', '--account', 'no-such-account');
    assert.match(mistyped.stderr, /No account no-such-account/);
  });
});

describe('herald status', function () {
  this.timeout(180_000);
  let t: TestHerald;
  before(async () => {
    t = await startTestHerald();
  });
  after(() => t.close());

  const env = () => ({ DATA_DIR: t.config.dataDir, DATABASE_URL: t.config.databaseUrl ?? '', BASE_URL: t.url });

  it('says its address, database, an overdue post with no worker, channels to reconnect, off webhooks', async () => {
    const a = await t.seedAccount({ name: 'Acme' });
    const healthy = JSON.parse((await herald(env(), 'status', '--json')).stdout);
    assert.deepEqual(healthy, {
      address: t.url,
      serving: `yes: ${t.url}/healthz answers`,
      database: {
        kind: t.config.databaseUrl ? 'postgres' : 'sqlite',
        where: healthy.database.where,
        reachable: true,
        migrated: true,
        pendingMigrations: [],
      },
      worker: 'no post is overdue',
      channelsNeedingReconnect: [],
      webhooksDisabled: [],
    });
    assert.ok(!healthy.database.where.includes('@'), 'no credentials of DATABASE_URL');

    const created = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: { channelIds: [a.channelIds[0]], text: 'Late', isScheduled: true, dateTime: futureIso() },
    });
    await t.herald
      .db('posts')
      .where({ id: created.body.data[0].id })
      .update({ date_time: Date.now() - 10 * 60_000 });
    await t.deps.repos.channels.setStatus(a.channelIds[1], 'needs_reconnect', 'the network refused its token');
    const now = Date.now();
    await t.deps.repos.webhooks.insertEndpoint({
      id: 'hook-1',
      accountId: a.accountId,
      workspaceId: a.workspaceId,
      url: 'https://hooks.example.test/in?token=secret',
      description: null,
      eventTypes: ['post.published'],
      sealedSecret: 'sealed',
      enabled: false,
      disabledReason: 'failed for three days',
      failingSince: null,
      createdAt: now,
      updatedAt: now,
    });

    const ran = await herald(env(), 'status');
    assert.equal(ran.code, 0, ran.stderr);
    assert.match(ran.stdout, /^address: http:\/\/127\.0\.0\.1:\d+\nserving: yes: /);
    assert.match(ran.stdout, /\n {2}reachable: true\n {2}migrated: true\n/);
    assert.match(
      ran.stdout,
      /\nworker: 1 post\(s\) due more than two minutes ago are waiting: no worker seems to be running/,
    );
    assert.match(
      ran.stdout,
      new RegExp(
        `channelsNeedingReconnect:\\n  -\\n    account: Acme\\n    channel: ${a.channelIds[1]}\\n` +
          `    network: sandbox\\n    handle: @chan1\\n    reason: the network refused its token\\n`,
      ),
    );
    assert.match(
      ran.stdout,
      new RegExp(
        /webhooksDisabled:\n {2}-\n {4}account: Acme\n {4}webhook: hook-1\n/.source +
          / {4}url: https:\/\/hooks\.example\.test\/in\n {4}reason: failed for three days\n/.source,
      ),
    );
    assert.doesNotMatch(ran.stdout, /secret/);
  });

  // A database file that is not there yet is SQLite's case; on the Postgres run this one is not registered.
  itOn('sqlite', 'says when nothing answers at the address and the database file is not there yet', async () => {
    const empty = await freshDatabase();
    try {
      const ran = await herald(
        { DATA_DIR: empty.dataDir, DATABASE_URL: '', BASE_URL: 'http://127.0.0.1:9' },
        'status',
        '--json',
      );
      assert.deepEqual(JSON.parse(ran.stdout), {
        address: 'http://127.0.0.1:9',
        serving: 'no: nothing answers at http://127.0.0.1:9',
        database: {
          kind: 'sqlite',
          where: `${empty.dataDir}/herald.db`,
          reachable: false,
          problem: 'no database file yet: herald serve or herald migrate creates it',
        },
      });
    } finally {
      await empty.drop();
    }
  });
});

// A port already taken is told before the database is opened: the same whatever the database.
describeOnce('herald serve on a port already taken', function () {
  this.timeout(180_000);
  let t: TestHerald;
  before(async () => {
    t = await startTestHerald();
  });
  after(() => t.close());

  it('says so in one line and exits 1, with no stack trace', async () => {
    const child = spawn(process.execPath, [await ensureCliBuilt(), 'serve'], {
      env: {
        ...process.env,
        PORT: String(t.config.port),
        HOST: '127.0.0.1',
        DATA_DIR: t.config.dataDir,
        DATABASE_URL: t.config.databaseUrl ?? '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    assert.equal(code, 1);
    assert.equal(
      stderr,
      `herald: Port ${t.config.port} is already in use on 127.0.0.1 (another Herald? herald status says): ` +
        'stop it, or set PORT to another port.\n',
    );
  });
});

describe('herald serve started again on its database', function () {
  this.timeout(180_000);

  /** Starts `herald serve` and answers what it printed on stdout once it listens; then stops it. */
  async function serveOnce(database: { dataDir: string; databaseUrl?: string }): Promise<string> {
    const child = spawn(process.execPath, [await ensureCliBuilt(), 'serve'], {
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        BASE_URL: '',
        WORKER: 'false',
        DATA_DIR: database.dataDir,
        DATABASE_URL: database.databaseUrl ?? '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stderr.on('data', (chunk: Buffer) => {
          stderr += chunk.toString();
          if (stderr.includes('herald listening')) resolve();
        });
        child.once('exit', (code) => reject(new Error(`herald serve exited (${code}): ${stderr}`)));
      });
      return stdout;
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  }

  it('prints its address and where the demo credentials are', async () => {
    const database = await freshDatabase();
    try {
      assert.match(await serveOnce(database), /Herald created a demo account/);
      const again = await serveOnce(database);
      assert.match(
        again,
        new RegExp(
          `^Herald is at (http://127\\.0\\.0\\.1:\\d+): the web app at \\1/app, the API reference at \\1/docs\\.\\n` +
            `The demo account's API key and sign-in are in ${database.dataDir}/demo-api-key ` +
            `and ${database.dataDir}/demo-credentials\\.\\n$`,
        ),
      );
    } finally {
      await database.drop();
    }
  });
});
