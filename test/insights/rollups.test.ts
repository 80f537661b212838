import assert from 'node:assert/strict';
import { purgeExpired } from '../../src/domain/housekeeping.js';
import { topPosts, totalsOf } from '../../src/domain/insights/insights-report.js';
import { sumByHour } from '../../src/domain/insights/rollups.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { testWorker } from '../publishing/support.js';
import { madeUpHistory, type History } from './fixture.js';

describe('insights rollup per channel and hour', () => {
  let t: TestHerald;
  let a: SeededAccount;
  let history: History;
  before(async () => {
    t = await startTestHerald();
    a = await t.seedAccount({ channels: 2 });
    history = await madeUpHistory(t, a);
  });
  after(() => t.close());

  const get = (path: string) => t.api('GET', `/v1/rest${path}`, { token: a.apiKey });
  const allPosts = () => t.deps.repos.insights.publishedPosts(a.accountId, a.channelIds, 0, 2 ** 52, null);

  /** The rollup as it stands against a recount of every published post's latest counters. */
  async function assertRollupIsARecount(): Promise<void> {
    const posts = await allPosts();
    const recount = [...a.channelIds].sort().flatMap((id) =>
      sumByHour(
        id,
        posts.filter((p) => p.channelId === id),
      ),
    );
    assert.ok(recount.length > 0);
    assert.equal(await t.deps.repos.insights.hasDirtyHours(), false, 'every noted hour was counted');
    assert.deepEqual(await t.deps.repos.insights.hours(a.accountId, a.channelIds, 0, 2 ** 40), recount);
    const labelled = posts.filter((p) => p.labelIds.includes(history.labelId));
    const labelRecount = [...a.channelIds]
      .sort()
      .flatMap((id) =>
        sumByHour(
          id,
          labelled.filter((p) => p.channelId === id),
        ),
      )
      .map((h) => ({ labelId: history.labelId, ...h }));
    assert.ok(labelRecount.length > 0);
    assert.deepEqual(
      await t.deps.repos.insights.labelHours(a.accountId, [history.labelId], a.channelIds, 0, 2 ** 40),
      labelRecount,
    );
  }

  it('equals a recount of the posts after syncs, compaction, a new label and a removed post', async () => {
    assert.equal((await get('/insights?from=2026-03-01&to=2026-03-28')).status, 200);
    await assertRollupIsARecount();

    history.clock.advance(3 * 86_400_000);
    await testWorker(t).sync();
    assert.equal(await t.deps.repos.insights.hasDirtyHours(), true, 'the sync noted the hours whose counters grew');
    assert.equal((await get('/insights?from=2026-03-01&to=2026-03-28')).status, 200);
    await assertRollupIsARecount();

    assert.ok((await purgeExpired(t.deps)).metricSamples > 0, 'compaction removed samples');
    await assertRollupIsARecount();

    const unlabelled = history.posts.find((p) => !p.labelled)!;
    const labelling = await t.api('POST', `/v1/rest/posts/${unlabelled.id}/labels`, {
      token: a.apiKey,
      body: { labelIds: [history.labelId] },
    });
    assert.equal(labelling.status, 200, JSON.stringify(labelling.body));
    assert.equal(await t.deps.repos.insights.hasDirtyHours(), true, 'labelling a post noted its hour');
    assert.equal((await get('/insights?from=2026-03-01&to=2026-03-28')).status, 200);
    await assertRollupIsARecount();

    assert.equal(await t.deps.repos.posts.delete(a.accountId, history.posts[4].id), true);
    assert.equal(await t.deps.repos.insights.hasDirtyHours(), true);
    await purgeExpired(t.deps);
    await assertRollupIsARecount();
  });

  it("reports from the rollup what the period's posts add up to, and from the posts where hours do not fit", async () => {
    const channels = await t.deps.repos.channels.list(a.accountId);
    for (const [timezone, start, end] of [
      ['UTC', '2026-03-01T00:00:00Z', '2026-03-29T00:00:00Z'],
      // Half an hour off UTC: the rollup's hours straddle the period's edges, so its posts are read.
      ['Asia/Kolkata', '2026-02-28T18:30:00Z', '2026-03-28T18:30:00Z'],
    ]) {
      const res = await get(`/insights?from=2026-03-01&to=2026-03-28&timezone=${encodeURIComponent(timezone)}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const report = res.body.data;
      const posts = (await allPosts()).filter(
        (p) => p.publishedAt >= Date.parse(start) && p.publishedAt < Date.parse(end),
      );
      assert.ok(posts.length > 2);
      assert.deepEqual(report.totals, totalsOf(posts));
      for (const row of report.byChannel)
        assert.deepEqual(row.totals, totalsOf(posts.filter((p) => p.channelId === row.channelId)));
      assert.deepEqual(
        report.byNetwork.map((n: { totals: unknown }) => n.totals),
        [totalsOf(posts)],
      );
      assert.deepEqual(report.topPosts, topPosts(posts, channels));
      assert.deepEqual(
        report.byLabel.map((l: { totals: unknown }) => l.totals),
        [totalsOf(posts.filter((p) => p.labelIds.includes(history.labelId)))],
      );
      assert.equal(
        report.byWeekdayHour.reduce((n: number, c: { posts: number }) => n + c.posts, 0),
        posts.length,
      );
    }
  });
});
