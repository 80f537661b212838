import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { seedDemoIfEmpty } from '../../src/demo.js';
import { verifyPassword } from '../../src/domain/passwords.js';
import { startTestHerald, type TestHerald } from '../support/herald.js';

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
    assert.deepEqual(JSON.parse(fs.readFileSync(credentialsFile, 'utf8')), { email: demo.email, password: demo.password });
    assert.equal(fs.statSync(keyFile).mode & 0o777, 0o600);
    assert.equal(fs.statSync(credentialsFile).mode & 0o777, 0o600);

    const channels = await t.api('GET', '/v1/rest/channels', { token: demo.apiKey });
    assert.deepEqual(channels.body.data.map((c: any) => c.network), ['sandbox', 'sandbox']);
    const user = await t.deps.repos.accounts.findUserByEmail(demo.email);
    assert.ok(user?.passwordHash && (await verifyPassword(demo.password, user.passwordHash)));
    assert.ok(!(await verifyPassword('wrong password', user.passwordHash)));
    const stored = await t.herald.db('api_keys').select('key_hash');
    assert.ok(stored.every((row: any) => row.key_hash !== demo.apiKey), 'keys are stored hashed');

    assert.equal(await seedDemoIfEmpty(t.deps, t.config.dataDir), undefined);
  });
});
