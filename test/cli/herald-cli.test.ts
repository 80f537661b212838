import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { ensureCliBuilt } from '../support/cli.js';
import { freshDatabase } from '../support/herald.js';

const run = promisify(execFile);

describe('the herald CLI', function () {
  // Each command is a fresh Node process: slow on a loaded machine, not a speed check.
  this.timeout(180_000);
  let database: Awaited<ReturnType<typeof freshDatabase>>;
  let env: NodeJS.ProcessEnv;
  let cli: string;
  before(async () => {
    database = await freshDatabase();
    env = { ...process.env, DATA_DIR: database.dataDir, DATABASE_URL: database.databaseUrl ?? '' };
    cli = await ensureCliBuilt();
  });
  after(() => database.drop());

  const herald = async (...args: string[]) => {
    const { stdout } = await run('node', [cli, ...args, '--json'], { env });
    return JSON.parse(stdout);
  };

  it('provisions an account, a channel and a key that works, then revokes it', async () => {
    const account = await herald(
      'account',
      'create',
      '--name',
      'Acme',
      '--email',
      'owner@acme.test',
      '--password',
      'long enough password',
    );
    assert.ok(account.accountId && account.userId && account.workspaceId);
    const channel = await herald(
      'channel',
      'add',
      '--account',
      account.accountId,
      '--workspace',
      account.workspaceId,
      '--handle',
      '@acme',
      '--timezone',
      'Europe/Berlin',
    );
    const key = await herald(
      'key',
      'create',
      '--account',
      account.accountId,
      '--user',
      account.userId,
      '--manage-team',
    );
    assert.match(key.key, /^hk_/);
    assert.deepEqual(key.scopes, ['read_profile', 'manage_post', 'manage_team']);
    const listed = await herald('key', 'list', '--account', account.accountId);
    assert.equal(listed.keys.length, 1);
    assert.equal(listed.keys[0].lastUsedAt, null);
    assert.ok(!JSON.stringify(listed).includes(key.key), 'the key is shown once, never listed');
    const stored = await herald(
      'workspace',
      'approval',
      '--account',
      account.accountId,
      '--workspace',
      account.workspaceId,
      '--required',
      'true',
    );
    assert.equal(stored.approvalRequired, true);
    assert.ok(channel.id);
    const revoked = await herald('key', 'revoke', '--account', account.accountId, '--key', key.id);
    assert.equal(revoked.revoked, true);
  });

  it('exits 2 with a message on bad input', async () => {
    await assert.rejects(
      run('node', [cli, 'account', 'create', '--name', 'Nameless', '--json'], { env }),
      (error: any) => {
        assert.equal(error.code, 2);
        assert.match(error.stderr, /--email is required/);
        return true;
      },
    );
    await assert.rejects(
      run('node', [cli, 'key', 'list', '--account', 'no-such-account', '--json'], { env }),
      (error: any) => {
        assert.equal(error.code, 2);
        assert.match(error.stderr, /No account no-such-account/);
        return true;
      },
    );
  });
});
