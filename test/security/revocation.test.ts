import assert from 'node:assert/strict';
import { PRINCIPAL_CACHE_MS } from '../../src/domain/authentication.js';
import * as provisioning from '../../src/domain/provisioning.js';
import { createLogger } from '../../src/logger.js';
import { startHerald, type Herald } from '../../src/server.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';

/**
 * A resolved key is kept a moment (PRINCIPAL_CACHE_MS) so requests skip the key lookup: a revocation must
 * still stop the key at once on the instance that revoked it, and within that moment on every other one.
 */
describe('revoking a key, with resolved keys cached for a second', function () {
  this.timeout(30_000);
  let t: TestHerald;
  let second: Herald;
  let a: SeededAccount;

  beforeEach(async () => {
    t = await startTestHerald();
    second = await startHerald({ ...t.config, port: 0 }, createLogger({ quiet: true }));
    a = await t.seedAccount();
  });
  afterEach(async () => {
    await second.close();
    await t.close();
  });

  const read = async (url: string, key = a.apiKey) =>
    (await fetch(`${url}/v1/rest/profile`, { headers: { authorization: `Bearer ${key}` } })).status;

  it('stops the key at once on the revoking instance, and within a second on another', async () => {
    assert.equal(await read(t.url), 200);
    assert.equal(await read(second.config.baseUrl), 200, 'both instances have resolved the key');
    const [key] = await t.deps.repos.apiKeys.list(a.accountId);
    await provisioning.revokeApiKey(t.deps, { accountId: a.accountId, keyId: key.id });
    assert.equal(await read(t.url), 401, 'at once where it was revoked');
    const revokedAt = Date.now();
    let refusedAfter = Infinity;
    while (Date.now() - revokedAt < 5 * PRINCIPAL_CACHE_MS) {
      if ((await read(second.config.baseUrl)) === 401) {
        refusedAfter = Date.now() - revokedAt;
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Within the cache time, plus the time a request takes on a loaded machine.
    assert.ok(refusedAfter <= 2 * PRINCIPAL_CACHE_MS, `the other instance refused it after ${refusedAfter} ms`);
  });

  it('never lets an unknown or malformed token through the cache', async () => {
    for (const token of ['hk_not-a-key', 'nonsense']) assert.equal(await read(t.url, token), 401);
    assert.equal(await read(t.url, 'hk_not-a-key'), 401, 'a refusal is not cached as a success');
  });
});
