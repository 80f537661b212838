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
    await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: { channelIds: [a.channelIds[0]], text: 'x', saveAsDraft: true },
      headers: { 'Idempotency-Key': 'k1' },
    });
    const later = { ...t.deps, now: () => Date.now() + 25 * 3_600_000 };
    const live = await t.herald
      .db('rate_limit_budgets')
      .where('expires_at', '>', Date.now() + 1_000)
      .count({ n: '*' })
      .first();
    const soon = await purgeExpired(t.deps);
    assert.deepEqual(
      { ...soon, rateLimitWindows: undefined },
      {
        rateLimitWindows: undefined,
        idempotencyKeys: 0,
        oauthGrants: 0,
        oauthClients: 0,
        mediaUploads: 0,
        sessions: 0,
        connectFlows: 0,
        mcpTasks: 0,
        metricSamples: 0,
      },
    );
    const kept = await t.herald.db('rate_limit_budgets').count({ n: '*' }).first();
    assert.ok(Number(kept!.n) >= Number(live!.n), 'a bucket still holding state is kept');
    await t.deps.repos.connectFlows.create({
      stateHash: 'a'.repeat(64),
      accountId: a.accountId,
      userId: a.userId,
      workspaceId: a.workspaceId,
      network: 'mastodon',
      channelId: null,
      sealed: null,
      createdAt: Date.now(),
      expiresAt: Date.now() + 15 * 60_000,
    });
    const purged = await purgeExpired(later);
    assert.equal(purged.idempotencyKeys, 1);
    assert.equal(purged.connectFlows, 1, 'a connect flow nobody finished');
    assert.equal(
      Number((await t.herald.db('rate_limit_budgets').count({ n: '*' }).first())!.n),
      0,
      'every spent bucket is gone',
    );
    assert.equal(
      Number((await t.herald.db('rate_limit_admissions').count({ n: '*' }).first())!.n),
      0,
      'with its admissions',
    );
  });
});
