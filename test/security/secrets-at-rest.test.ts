/**
 * Secrets at rest: DATA_DIR and what Herald writes in it are readable by its user only; instance secrets
 * are sealed under the master key (AES-256-GCM), old plain rows are sealed on start, `herald secrets
 * rotate` moves them to a new key; the demo credentials never reach a log.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../src/config.js';
import { migrate, openDatabase } from '../../src/db/connection.js';
import { createMediaUpload } from '../../src/domain/media/media-library.js';
import { parseScopes } from '../../src/domain/provisioning.js';
import { SecretBox } from '../../src/domain/secret-box.js';
import { openDomain } from '../../src/open-domain.js';
import { TINY_PNG } from '../media/fixtures.js';
import { freshDatabase, startTestHerald, TEST_DB } from '../support/herald.js';
import { ensureCliBuilt, HERALD_CLI } from '../support/cli.js';

// The commands run the CLI bundled from src/ (test/support/cli.ts), built before the first.
before(ensureCliBuilt);

const run = promisify(execFile);
const mode = (file: string) => fs.statSync(file).mode & 0o777;

/**
 * Runs the herald CLI from source; resolves with its exit code and output instead of rejecting (a hung one is killed).
 */
async function herald(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run('node', [HERALD_CLI, ...args], {
      env: { ...process.env, ...env },
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

function filesUnder(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? [full, ...filesUnder(full)] : [full];
  });
}

describe(`secrets at rest (${TEST_DB})`, function () {
  this.timeout(180_000);

  it('creates DATA_DIR 0700 and the database, its WAL and the master key 0600', async () => {
    const h = await startTestHerald();
    try {
      await h.seedAccount();
      const dir = h.config.dataDir;
      assert.equal(mode(dir), 0o700);
      assert.equal(mode(path.join(dir, 'secret.key')), 0o600);
      if (TEST_DB === 'sqlite') {
        for (const file of ['herald.db', 'herald.db-wal', 'herald.db-shm'])
          assert.equal(mode(path.join(dir, file)), 0o600, file);
      }
    } finally {
      await h.close();
    }
  });

  it('tightens a DATA_DIR that others can read', async () => {
    const database = await freshDatabase();
    fs.chmodSync(database.dataDir, 0o755);
    const { db } = await openDomain(loadConfig({}, { dataDir: database.dataDir, databaseUrl: database.databaseUrl }));
    await db.destroy();
    assert.equal(mode(database.dataDir), 0o700);
    await database.drop();
  });

  if (TEST_DB === 'sqlite') {
    it('tightens a -wal and -shm file left readable by others when it opens the database', async () => {
      const database = await freshDatabase();
      const config = loadConfig({}, { dataDir: database.dataDir });
      const first = await openDomain(config);
      await first.db('instance_secrets').select('name');
      const dbFile = path.join(database.dataDir, 'herald.db');
      for (const suffix of ['-wal', '-shm']) fs.chmodSync(dbFile + suffix, 0o644);
      const second = await openDomain(config);
      await second.db('instance_secrets').select('name');
      for (const suffix of ['-wal', '-shm']) assert.equal(mode(dbFile + suffix), 0o600, suffix);
      await second.db.destroy();
      await first.db.destroy();
      await database.drop();
    });
  }

  it('stores uploaded media 0600 in directories only Herald can enter', async () => {
    const h = await startTestHerald();
    try {
      const account = await h.seedAccount();
      const principal = {
        accountId: account.accountId,
        userId: account.userId,
        tokenId: 'test',
        tokenKind: 'api_key' as const,
        scopes: parseScopes([]),
      };
      const upload = await createMediaUpload(h.deps, principal, {
        fileName: 'photo.png',
        contentType: 'image/png',
        sizeBytes: TINY_PNG.length,
      });
      const put = await fetch(upload.uploadUrl, { method: 'PUT', headers: upload.headers, body: TINY_PNG });
      assert.equal(put.status, 200);
      const entries = filesUnder(path.join(h.config.dataDir, 'media'));
      const files = entries.filter((entry) => fs.statSync(entry).isFile());
      assert.ok(files.length >= 1, 'the upload was not stored on disk');
      for (const entry of entries) assert.equal(mode(entry), fs.statSync(entry).isFile() ? 0o600 : 0o700, entry);
    } finally {
      await h.close();
    }
  });

  it('writes the demo credentials 0600, tightening files an older version left readable', async () => {
    const database = await freshDatabase();
    for (const name of ['demo-api-key', 'demo-credentials'])
      fs.writeFileSync(path.join(database.dataDir, name), 'old\n', { mode: 0o644 });
    const { db, deps } = await openDomain({
      ...loadConfig({}, { dataDir: database.dataDir, databaseUrl: database.databaseUrl }),
      passwordHashCost: 2 ** 10,
    });
    const { seedDemoIfEmpty } = await import('../../src/demo.js');
    const demo = await seedDemoIfEmpty(deps, database.dataDir);
    assert.ok(demo);
    for (const name of ['demo-api-key', 'demo-credentials'])
      assert.equal(mode(path.join(database.dataDir, name)), 0o600, name);
    assert.equal(fs.readFileSync(path.join(database.dataDir, 'demo-api-key'), 'utf8').trim(), demo.apiKey);
    await db.destroy();
    await database.drop();
  });

  it('keeps instance secrets sealed, opening to what the instance uses', async () => {
    const h = await startTestHerald();
    try {
      const rows = await h.herald.db('instance_secrets').select('name', 'value');
      assert.ok(rows.length >= 2);
      const key = Buffer.from(fs.readFileSync(path.join(h.config.dataDir, 'secret.key'), 'utf8').trim(), 'base64');
      const box = new SecretBox(key);
      for (const row of rows) {
        assert.match(row.value, /^v1\.[\w-]{8}\.[\w-]+\.[\w-]+$/);
        assert.ok(!Object.values(h.deps.secrets).includes(row.value), `${row.name} is stored in plain text`);
      }
      const opened = Object.fromEntries(
        rows.map((r: { name: string; value: string }) => [r.name, box.open(r.name, r.value)]),
      );
      assert.equal(opened.cursor, h.deps.secrets.cursorKey);
      assert.equal(opened.signed_links, h.deps.secrets.linkKey);
    } finally {
      await h.close();
    }
  });

  it('seals a plain secret left by an older version when it starts, keeping its value', async () => {
    const database = await freshDatabase();
    const db = openDatabase({ dataDir: database.dataDir, databaseUrl: database.databaseUrl });
    await migrate(db);
    await db('instance_secrets').insert({ name: 'cursor', value: 'an-old-plain-cursor-key' });
    await db.destroy();
    const { db: again, deps } = await openDomain(
      loadConfig({}, { dataDir: database.dataDir, databaseUrl: database.databaseUrl }),
    );
    assert.equal(deps.secrets.cursorKey, 'an-old-plain-cursor-key');
    const row = await again('instance_secrets').where({ name: 'cursor' }).first();
    assert.match(row.value, /^v1\./);
    await again.destroy();
    await database.drop();
  });

  it(
    'rotates the master key with herald secrets rotate, ' + 'and refuses to start with a key that does not match',
    async () => {
      const database = await freshDatabase();
      const config = loadConfig({}, { dataDir: database.dataDir, databaseUrl: database.databaseUrl });
      const first = await openDomain(config);
      const before = { ...first.deps.secrets };
      const oldKid = first.deps.secretBox.currentKeyId;
      await first.db.destroy();

      const env = {
        ...process.env,
        DATA_DIR: database.dataDir,
        DATABASE_URL: database.databaseUrl ?? '',
      };
      const { stdout } = await run('node', [HERALD_CLI, 'secrets', 'rotate', '--json'], { env });
      const rotated = JSON.parse(stdout);
      assert.equal(rotated.resealed, 2);
      assert.notEqual(rotated.keyId, oldKid);
      assert.equal(fs.existsSync(path.join(database.dataDir, 'secret.key.previous')), false);

      const second = await openDomain(config);
      assert.deepEqual(second.deps.secrets, before);
      assert.equal(second.deps.secretBox.currentKeyId, rotated.keyId);
      await second.db.destroy();

      await assert.rejects(
        openDomain({ ...config, secretKey: crypto.randomBytes(32).toString('base64') }),
        /sealed under master key .* HERALD_SECRET_KEY/,
      );

      const configured = crypto.randomBytes(32).toString('base64');
      const moved = JSON.parse(
        (
          await run('node', [HERALD_CLI, 'secrets', 'rotate', '--json'], {
            env: { ...env, HERALD_SECRET_KEY: configured },
          })
        ).stdout,
      );
      assert.equal(moved.resealed, 2);
      const third = await openDomain({ ...config, secretKey: configured });
      assert.deepEqual(third.deps.secrets, before);
      await third.db.destroy();
      await database.drop();
    },
  );

  it('seals every plain secret on start whatever its name, and deletes the retired sign-in cookie key', async () => {
    const database = await freshDatabase();
    const db = openDatabase({ dataDir: database.dataDir, databaseUrl: database.databaseUrl });
    await migrate(db);
    await db('instance_secrets').insert([
      { name: 'oauth_session', value: 'the-old-plain-session-key' },
      { name: 'signed_links', value: 'an-old-plain-link-key' },
      { name: 'webhooks', value: 'a-plain-key-this-version-does-not-read' },
    ]);
    await db.destroy();
    const { db: again, deps } = await openDomain(
      loadConfig({}, { dataDir: database.dataDir, databaseUrl: database.databaseUrl }),
    );
    assert.equal(deps.secrets.linkKey, 'an-old-plain-link-key');
    const rows: { name: string; value: string }[] = await again('instance_secrets')
      .select('name', 'value')
      .orderBy('name');
    assert.deepEqual(
      rows.map((row) => row.name),
      ['cursor', 'signed_links', 'webhooks'],
    );
    for (const row of rows) assert.match(row.value, /^v1\./, row.name);
    assert.equal(deps.secretBox.open('webhooks', rows[2].value), 'a-plain-key-this-version-does-not-read');
    await again.destroy();
    await database.drop();
  });

  it('rotates all or nothing: a secret no key opens stops the rotation, and running it again finishes it', async () => {
    const database = await freshDatabase();
    const config = loadConfig({}, { dataDir: database.dataDir, databaseUrl: database.databaseUrl });
    const first = await openDomain(config);
    const before = { ...first.deps.secrets };
    const stranger = new SecretBox(crypto.randomBytes(32));
    await first.db('instance_secrets').insert({ name: 'zz_foreign', value: stranger.seal('zz_foreign', 'x') });
    const sealed = await first.db('instance_secrets').where({ name: 'cursor' }).first();
    const env = { DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl ?? '' };

    const failed = await herald(['secrets', 'rotate', '--json'], env);
    assert.equal(failed.code, 2, failed.stderr);
    assert.match(
      failed.stderr,
      new RegExp(
        /^herald: A stored secret was sealed under master key [\w-]{8}, which this instance does not hold\. /.source +
          /Give every instance the same HERALD_SECRET_KEY/.source,
      ),
    );
    assert.doesNotMatch(failed.stderr, /\n\s+at /, 'a stack trace was printed');
    assert.deepEqual(
      await first.db('instance_secrets').where({ name: 'cursor' }).first(),
      sealed,
      'the rotation changed a secret before it failed',
    );

    assert.equal((await herald(['secrets', 'rotate', '--json'], env)).code, 2, 'the foreign secret still stops it');
    await first.db('instance_secrets').where({ name: 'zz_foreign' }).delete();
    await first.db.destroy();
    const finished = await herald(['secrets', 'rotate', '--json'], env);
    assert.equal(finished.code, 0, finished.stderr);
    assert.deepEqual(JSON.parse(finished.stdout).resumed, true);
    assert.equal(fs.existsSync(path.join(database.dataDir, 'secret.key.previous')), false);
    const second = await openDomain(config);
    assert.deepEqual(second.deps.secrets, before);
    await second.db.destroy();
    await database.drop();
  });

  it(
    'refuses a HERALD_SECRET_KEY that is not 32 bytes of base64 or hex, ' +
      'or that opens nothing, and exits saying how to fix it',
    async () => {
      const database = await freshDatabase();
      const env = { DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl ?? '' };
      for (const key of ['too-short', `${'A'.repeat(43)}!`, 'ab'.repeat(31)]) {
        const result = await herald(['migrate'], { ...env, HERALD_SECRET_KEY: key });
        assert.equal(result.code, 2, `${key}: ${result.stderr}`);
        assert.match(
          result.stderr,
          new RegExp(
            /^herald: HERALD_SECRET_KEY must be 32 random bytes written as base64 or hex /.source +
              /\(e\.g\. the output of: openssl rand -base64 32\)\.\n$/.source,
          ),
          key,
        );
      }
      const hex = crypto.randomBytes(32);
      for (const key of [hex.toString('hex'), hex.toString('base64'), hex.toString('base64url')]) {
        const result = await herald(['migrate', '--json'], { ...env, HERALD_SECRET_KEY: key });
        assert.equal(result.code, 0, `${key}: ${result.stderr}`);
      }
      const other = await herald(['migrate'], { ...env, HERALD_SECRET_KEY: crypto.randomBytes(32).toString('hex') });
      assert.equal(other.code, 2, `a key that opens nothing must stop the command: ${other.stderr}`);
      assert.match(
        other.stderr,
        /^herald: A stored secret was sealed under master key [\w-]{8}, which this instance does not hold\./,
      );
      await database.drop();
    },
  );

  it('warns on every start that instances sharing a database must share the generated key', async () => {
    const database = await freshDatabase();
    const config = loadConfig({}, { dataDir: database.dataDir, databaseUrl: database.databaseUrl });
    for (let start = 0; start < 2; start += 1) {
      const warnings: string[] = [];
      const { db } = await openDomain(config, (message) => warnings.push(message));
      await db.destroy();
      const shared = warnings.filter((message) =>
        /secret\.key\. Every instance on this database needs the same key: set HERALD_SECRET_KEY/.test(message),
      );
      assert.equal(shared.length, TEST_DB === 'postgres' ? 1 : 0, `start ${start + 1}: ${warnings.join(' | ')}`);
    }
    await database.drop();
  });

  it('does not print the demo key or password when stdout is not a terminal', async () => {
    const database = await freshDatabase();
    const env = {
      ...process.env,
      DATA_DIR: database.dataDir,
      DATABASE_URL: database.databaseUrl ?? '',
      PORT: '0',
      HOST: '127.0.0.1',
      WORKER: 'false',
    };
    const child = spawn('node', [HERALD_CLI, 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk));
    try {
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`serve did not start: ${stdout}`)), 120_000);
        child.stderr.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('herald listening')) {
            clearTimeout(timer);
            resolve();
          }
        });
        child.on('exit', (code) => reject(new Error(`serve exited ${code}`)));
      });
      const key = fs.readFileSync(path.join(database.dataDir, 'demo-api-key'), 'utf8').trim();
      const { password } = JSON.parse(fs.readFileSync(path.join(database.dataDir, 'demo-credentials'), 'utf8'));
      assert.ok(!stdout.includes(key), 'the demo API key was printed');
      assert.ok(!stdout.includes(password), 'the demo password was printed');
      assert.match(stdout, /demo-api-key/);
    } finally {
      child.kill('SIGTERM');
      await database.drop();
    }
  });
});
