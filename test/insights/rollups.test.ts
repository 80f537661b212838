import assert from 'node:assert/strict';
import type { ScoredPost } from '../../src/db/repositories/insights.js';
import { purgeExpired } from '../../src/domain/housekeeping.js';
import { topPosts, totalsOf } from '../../src/domain/insights/insights-report.js';
import { sumByHour, sumByQuarter } from '../../src/domain/insights/rollups.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { testWorker } from '../publishing/support.js';
import { assertDaysAreARecount, madeUpHistory, type History } from './fixture.js';

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

  /** A quarter rollup's rows as stored, in the order of its key (Herald reads them only as sums). */
  async function quarterRows(table: 'insight_quarters' | 'insight_label_quarters') {
    const query = t.herald.db(table).where({ account_id: a.accountId }).orderBy(['channel_id', 'quarter']);
    if (table === 'insight_label_quarters') query.where({ label_id: history.labelId });
    return (await query).map((r: Record<string, any>) => ({
      ...(table === 'insight_label_quarters' ? { labelId: r.label_id } : {}),
      channelId: r.channel_id,
      quarter: Number(r.quarter),
      posts: Number(r.posts),
      engagement: Number(r.engagement),
      reach: r.reach === null ? null : Number(r.reach),
    }));
  }

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
    const quarters = [...a.channelIds].sort().flatMap((id) =>
      sumByQuarter(
        id,
        posts.filter((p) => p.channelId === id),
      ),
    );
    assert.deepEqual(
      await quarterRows('insight_quarters'),
      quarters.map(({ scored, ...sums }) => sums),
    );
    assert.deepEqual(
      await quarterRows('insight_label_quarters'),
      [...a.channelIds].sort().flatMap((id) =>
        sumByQuarter(
          id,
          labelled.filter((p) => p.channelId === id),
        ).map(({ scored: _, ...sums }) => ({ labelId: history.labelId, ...sums })),
      ),
    );
    for (const id of a.channelIds) {
      // Read two quarters a page, as a channel's weeks are read in pages: the same posts, in the same order.
      const pages: ScoredPost[][] = [];
      for await (const page of t.deps.repos.insights.scoredPostPages(a.accountId, id, 0, 2 ** 42, 2)) pages.push(page);
      const own = quarters.filter((q) => q.channelId === id);
      assert.ok(own.length > 2, 'more quarters than a page');
      assert.equal(pages.length, Math.ceil(own.length / 2));
      assert.deepEqual(
        pages.flat(),
        own.flatMap((q) => q.scored),
      );
    }
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
    await assertDaysAreARecount(t.deps, a.accountId, a.channelIds, history.labelId);
  }

  it('equals a recount of the posts after syncs, compaction, a new label and a removed post', async () => {
    assert.equal((await get('/insights?from=2026-03-01&to=2026-03-28')).status, 200);
    await assertRollupIsARecount();

    history.clock.advance(3 * 86_400_000);
    await testWorker(t).sync();
    // The sync recounted the hours whose counters grew itself: no read is needed for the rollup to be right.
    await assertRollupIsARecount();
    assert.equal((await get('/insights?from=2026-03-01&to=2026-03-28')).status, 200);

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

  it("reports from the rollup what the period's posts add up to, from the posts where hours do not fit", async () => {
    const channels = await t.deps.repos.channels.list(a.accountId);
    for (const [timezone, start, end] of [
      ['UTC', '2026-03-01T00:00:00Z', '2026-03-29T00:00:00Z'],
      // Half an hour off UTC: the part of an hour at each edge is read from its posts, the rest from the rollup.
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

  it('counts a period whose edges fall inside UTC days from its days, the hours beside them, its edges', async () => {
    // The post at 19:00 UTC on 12 March falls, by the zone, in the hours before a period's first whole UTC day
    // (Kolkata), in the hours after its last (Tehran, 3:30 ahead), or in the part of an hour at its end (Kabul).
    const posted = (await allPosts()).find((p) => new Date(p.publishedAt).toISOString().startsWith('2026-03-12T19'));
    assert.ok(posted, 'a post at 19:00 UTC on 12 March');
    for (const [timezone, from, to] of [
      ['Asia/Kolkata', '2026-03-13', '2026-03-27'],
      ['Asia/Tehran', '2026-03-02', '2026-03-12'],
      ['Asia/Kabul', '2026-03-02', '2026-03-12'],
    ]) {
      const res = await get(`/insights?from=${from}&to=${to}&timezone=${encodeURIComponent(timezone)}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const report = res.body.data;
      const [start, end] = [Date.parse(report.period.start), Date.parse(report.period.end)];
      assert.ok(start <= posted.publishedAt && posted.publishedAt < end, `${timezone}: the post is in the period`);
      assert.ok(start % 86_400_000 !== 0 && end % 86_400_000 !== 0, `${timezone}: edges inside UTC days`);
      const posts = (await allPosts()).filter((p) => p.publishedAt >= start && p.publishedAt < end);
      assert.ok(posts.length > 1);
      assert.deepEqual(report.totals, totalsOf(posts), timezone);
      for (const row of report.byChannel)
        assert.deepEqual(row.totals, totalsOf(posts.filter((p) => p.channelId === row.channelId)), timezone);
      assert.deepEqual(
        report.byLabel.map((l: { totals: unknown }) => l.totals),
        [totalsOf(posts.filter((p) => p.labelIds.includes(history.labelId)))],
        timezone,
      );
      const before = (await allPosts()).filter(
        (p) => p.publishedAt >= Date.parse(report.previousPeriod.start) && p.publishedAt < start,
      );
      assert.deepEqual(report.previousTotals, totalsOf(before), timezone);
    }
  });

  it("finds a period's top posts among many from the hours, ties going to the newest", async () => {
    const channels = await t.deps.repos.channels.list(a.accountId);
    const start = Date.parse('2026-03-05T00:00:00Z');
    // 60 posts, two or three to an hour, whose engagement repeats: many hours tie for the best post.
    const rows = Array.from({ length: 60 }, (_, i) => {
      const channel = channels[i % 2];
      const at = start + Math.floor(i / 2.5) * 3_600_000 + i * 60_000;
      return {
        id: `many_${String(i).padStart(3, '0')}`,
        account_id: a.accountId,
        workspace_id: channel.workspaceId,
        channel_id: channel.id,
        text: `One of many ${i}`,
        status: 'published',
        date_time: at,
        timeline_at: at,
        published_at: at,
        network_post_id: `many_${i}`,
        metrics: JSON.stringify({ likes: 1000 + ((i * 7) % 5), comments: i % 2, shares: 0, impressions: 100 + i }),
        created_at: at,
        updated_at: at,
      };
    });
    await t.herald.db('posts').insert(rows);
    const res = await get('/insights?from=2026-03-01&to=2026-03-28');
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const posts = (await allPosts()).filter(
      (p) => p.publishedAt >= Date.parse('2026-03-01T00:00:00Z') && p.publishedAt < Date.parse('2026-03-29T00:00:00Z'),
    );
    const expected = topPosts(posts, channels);
    assert.equal(expected.length, 10);
    assert.ok(expected.filter((p) => p.engagement === expected[0].engagement).length > 2, 'the best posts tie');
    assert.deepEqual(res.body.data.topPosts, expected);
    assert.deepEqual(res.body.data.totals, totalsOf(posts));
    await assertRollupIsARecount();
  });
});
