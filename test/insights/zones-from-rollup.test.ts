import assert from 'node:assert/strict';
import { bestWindows } from '../../src/domain/insights/best-times.js';
import { engagementOf, reachOf } from '../../src/domain/insights/counters.js';
import { topPosts, totalsOf } from '../../src/domain/insights/insights-report.js';
import { refreshRollups } from '../../src/domain/insights/rollups.js';
import { localDateOf, localTimeOf, weekday } from '../../src/domain/zoned-time.js';
import type { InsightPostRecord } from '../../src/db/repositories/insights.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { pinClock } from '../publishing/support.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const WEEK = 7 * 24 * HOUR;
// Half an hour off UTC, three quarters off, and half an hour off with a change to summer time on 8 March 2026.
const ZONES = ['Asia/Kolkata', 'Asia/Kathmandu', 'America/St_Johns'];

describe('insights in zones off the whole hour, from the rollup', () => {
  let t: TestHerald;
  let a: SeededAccount;
  let labelId: string;
  /** The longest span of posts a read asked for one by one, in ms, since the last reset. */
  let longestRead = 0;

  before(async function () {
    // Counting the rollup of some 1,800 posts made at once, one run of hours at a time, is most of this file's time.
    this.timeout(120_000);
    t = await startTestHerald();
    a = await t.seedAccount({ channels: 3 });
    for (const [i, timezone] of ZONES.entries()) {
      const res = await t.api('PATCH', `/v1/rest/channels/${a.channelIds[i]}`, { token: a.apiKey, body: { timezone } });
      assert.equal(res.status, 200, JSON.stringify(res.body));
    }
    const label = await t.api('POST', '/v1/rest/labels', {
      token: a.apiKey,
      body: { name: 'Spring', color: '#22aa55' },
    });
    assert.equal(label.status, 201, JSON.stringify(label.body));
    labelId = label.body.data.id;
    // Twelve weeks and more of posts at uneven minutes on the three channels, and on Tuesdays from 03:50 UTC a post
    // that does well on each (09:20 in Kolkata, 09:38 in Kathmandu, 00:26 in St. John's, then 01:26 in summer).
    const start = Date.parse('2026-01-01T00:00:00Z');
    const end = Date.parse('2026-03-30T12:00:00Z');
    const times: [number, number][] = [];
    for (let at = start, i = 0; at < end; at += HOUR + 7 * MINUTE + (i % 13) * MINUTE, i++) times.push([at, i % 3]);
    for (let tuesday = Date.parse('2026-01-06T03:50:00Z'); tuesday < end; tuesday += WEEK)
      for (let channel = 0; channel < 3; channel++) times.push([tuesday + channel * 3 * MINUTE, channel]);
    const rows = times.map(([at, channel], i) => ({
      id: `zoned_${String(i).padStart(4, '0')}`,
      account_id: a.accountId,
      workspace_id: a.workspaceId,
      channel_id: a.channelIds[channel],
      text: `Zoned ${i}`,
      status: 'published',
      date_time: at,
      timeline_at: at,
      published_at: at,
      network_post_id: `zoned_${i}`,
      metrics: JSON.stringify({
        likes: new Date(at).getUTCDay() === 2 && new Date(at).getUTCHours() === 3 ? 200 : (i * 7) % 31,
        comments: i % 5,
        ...(i % 11 === 0 ? {} : { impressions: 1000 + (i % 7) * 100 }),
      }),
      created_at: at,
      updated_at: at,
    }));
    for (let i = 0; i < rows.length; i += 100) await t.herald.db('posts').insert(rows.slice(i, i + 100));
    await t.herald
      .db('post_labels')
      .insert(
        rows
          .filter((_, i) => i % 4 === 0)
          .map((r) => ({ post_id: r.id, label_id: labelId, account_id: a.accountId, created_at: r.created_at })),
      );
    pinClock(t, '2026-03-30T12:07:00Z');
    await refreshRollups(t.deps);
    const repo = t.deps.repos.insights;
    const publishedPosts = repo.publishedPosts.bind(repo);
    repo.publishedPosts = (accountId, channelIds, from, to, labelIds) => {
      longestRead = Math.max(longestRead, to - from);
      return publishedPosts(accountId, channelIds, from, to, labelIds);
    };
  });
  after(() => t.close());

  const allPosts = () => t.deps.repos.insights.publishedPosts(a.accountId, a.channelIds, 0, 2 ** 52, null);

  /** The weekday-and-hour cells of posts, each in its channel's zone, as the posts themselves tell them. */
  function cellsOf(posts: readonly InsightPostRecord[]) {
    const cells = new Map<
      string,
      { weekday: number; hour: number; posts: number; engagement: number; reach: number | null }
    >();
    for (const post of posts) {
      const zone = ZONES[a.channelIds.indexOf(post.channelId)];
      const day = weekday(localDateOf(post.publishedAt, zone));
      const hour = Number(localTimeOf(post.publishedAt, zone).slice(0, 2));
      const cell = cells.get(`${day}:${hour}`) ?? { weekday: day, hour, posts: 0, engagement: 0, reach: null };
      const seen = reachOf(post.network, post.metrics);
      cell.posts += 1;
      cell.engagement += engagementOf(post.network, post.metrics);
      if (seen !== null) cell.reach = (cell.reach ?? 0) + seen;
      cells.set(`${day}:${hour}`, cell);
    }
    return [...cells.values()].sort((x, y) => x.weekday - y.weekday || x.hour - y.hour);
  }

  it("reports a period in any zone, and a label's, as its posts add up, reading posts only at its edges", async () => {
    const channels = await t.deps.repos.channels.list(a.accountId);
    const asked: [string, boolean][] = [...['UTC', ...ZONES].map((zone): [string, boolean] => [zone, false])];
    // Narrowed to one label too: its hours and quarters.
    asked.push(['Asia/Kolkata', true]);
    for (const [timezone, labelled] of asked) {
      longestRead = 0;
      // 47 days: the quarters of a channel off the whole hour are read a month at a time, so over two reads.
      const narrowed = labelled ? `&labelIds=${labelId}` : '';
      const res = await t.api(
        'GET',
        `/v1/rest/insights?from=2026-02-10&to=2026-03-28&timezone=${encodeURIComponent(timezone)}${narrowed}`,
        { token: a.apiKey },
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.ok(longestRead < HOUR, `${timezone}: posts read one by one over ${longestRead / MINUTE} minutes`);
      const report = res.body.data;
      for (const [period, totals] of [
        [report.period, report.totals],
        [report.previousPeriod, report.previousTotals],
      ]) {
        const posts = (await allPosts()).filter(
          (p) =>
            p.publishedAt >= Date.parse(period.start) &&
            p.publishedAt < Date.parse(period.end) &&
            (!labelled || p.labelIds.includes(labelId)),
        );
        assert.ok(posts.length > 100, `${timezone}: ${posts.length} posts`);
        assert.deepEqual(totals, totalsOf(posts), timezone);
        if (period !== report.period) continue;
        for (const row of report.byChannel)
          assert.deepEqual(row.totals, totalsOf(posts.filter((p) => p.channelId === row.channelId)), timezone);
        assert.deepEqual(
          report.byLabel.map((l: { totals: unknown }) => l.totals),
          [totalsOf(posts.filter((p) => p.labelIds.includes(labelId)))],
          timezone,
        );
        assert.deepEqual(report.topPosts, topPosts(posts, channels), timezone);
        assert.deepEqual(report.byWeekdayHour, cellsOf(posts), timezone);
      }
    }
  });

  it("tells when to post from the rollup as the posts do, across the channel's change to summer time", async () => {
    const now = t.deps.now();
    for (const [i, timezone] of ZONES.entries()) {
      longestRead = 0;
      const res = await t.api('GET', `/v1/rest/channels/${a.channelIds[i]}/best-times`, { token: a.apiKey });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.ok(longestRead < 15 * MINUTE, `${timezone}: posts read one by one over ${longestRead / MINUTE} minutes`);
      const posts = await t.deps.repos.insights.publishedPosts(
        a.accountId,
        [a.channelIds[i]],
        now - 12 * WEEK,
        now,
        null,
      );
      const expected = bestWindows(
        posts.map((p) => ({
          publishedAt: p.publishedAt,
          engagement: engagementOf(p.network, p.metrics),
          reach: reachOf(p.network, p.metrics),
          followers: null,
        })),
        timezone,
      );
      assert.deepEqual(res.body.data, { channelId: a.channelIds[i], ...expected });
      assert.ok(expected.windows.length > 0, `${timezone}: a window found`);
    }
    // In St. John's the Tuesday posts went out at 00:20 before 8 March and at 01:20 after: two windows, not one.
    const stJohns = (await t.api('GET', `/v1/rest/channels/${a.channelIds[2]}/best-times`, { token: a.apiKey })).body
      .data;
    assert.deepEqual(
      stJohns.windows
        .filter((w: { weekday: number }) => w.weekday === 1)
        .map((w: { hour: number }) => w.hour)
        .sort(),
      [0, 1],
    );
  });

  it('exports the period in any zone as CSV, every post of it once, by publish time', async () => {
    const res = await fetch(
      `${t.url}/v1/rest/insights/export?from=2026-01-01&to=2026-03-28&timezone=Asia%2FKathmandu`,
      {
        headers: { authorization: `Bearer ${a.apiKey}` },
      },
    );
    assert.equal(res.status, 200);
    const lines = (await res.text()).trimEnd().split('\r\n');
    assert.equal(
      lines[0],
      'postId,channelId,channel,network,publishedAt,permalinkUrl,labels,text,engagement,reach,' +
        'comments,impressions,likes',
    );
    const expected = (await allPosts())
      .filter(
        (p) =>
          p.publishedAt >= Date.parse('2025-12-31T18:15:00Z') && p.publishedAt < Date.parse('2026-03-28T18:15:00Z'),
      )
      .map((p) => p.id);
    assert.ok(expected.length > 1000, `${expected.length} posts: more than a page`);
    assert.deepEqual(
      lines.slice(1).map((l) => l.split(',')[0]),
      expected,
    );
  });
});
