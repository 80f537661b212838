import assert from 'node:assert/strict';
import { purgeExpired } from '../../src/domain/housekeeping.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';

describe('housekeeping', () => {
  let t: TestHerald;
  let a: SeededAccount;
  before(async () => {
    t = await startTestHerald();
    a = await t.seedAccount();
  });
  after(() => t.close());

  it('purges spent rate-limit windows and idempotency keys, and keeps live ones', async () => {
    await t.api('POST', '/v1/rest/posts', { token: a.apiKey, body: { channelIds: [a.channelIds[0]], text: 'x', saveAsDraft: true }, headers: { 'Idempotency-Key': 'k1' } });
    const later = { ...t.deps, now: () => Date.now() + 25 * 3_600_000 };
    const soon = await purgeExpired(t.deps);
    assert.deepEqual(soon, { rateLimitWindows: 0, idempotencyKeys: 0, oauthGrants: 0, oauthClients: 0, mediaUploads: 0, sessions: 0 });
    const purged = await purgeExpired(later);
    assert.ok(purged.rateLimitWindows >= 2, `purged ${purged.rateLimitWindows} windows`);
    assert.equal(purged.idempotencyKeys, 1);
  });
});
