import assert from 'node:assert/strict';
import { bestWindows, MIN_POSTS, ScoredColumns, type ScoredPostInput } from '../../src/domain/insights/best-times.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { pinClock, testWorker } from '../publishing/support.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// Monday 5 January 2026, 00:00 in Berlin (UTC+1).
const MONDAY = Date.parse('2026-01-04T23:00:00Z');

function at(week: number, weekday: number, hour: number, minute = 10): number {
  return MONDAY + week * 7 * DAY + weekday * DAY + hour * HOUR + minute * 60_000;
}

describe('when to post', () => {
  it("finds the weekday and hour where a channel's own posts did best per impression, in its zone", () => {
    const posts: ScoredPostInput[] = [];
    for (let week = 0; week < 8; week++) {
      posts.push({ publishedAt: at(week, 1, 9), engagement: 80, reach: 1000, followers: null }); // Tuesdays 09:xx: 8%
      posts.push({ publishedAt: at(week, 3, 14), engagement: 40, reach: 1000, followers: null }); // Thursdays 14:xx: 4%
      // Evenings, spread over the week: 2%.
      posts.push({ publishedAt: at(week, week % 5, 18), engagement: 20, reach: 1000, followers: null });
    }
    // Two Saturday posts did very well, but two posts claim nothing.
    posts.push({ publishedAt: at(1, 5, 20), engagement: 500, reach: 1000, followers: null });
    posts.push({ publishedAt: at(2, 5, 20), engagement: 500, reach: 1000, followers: null });
    const found = bestWindows(posts, 'Europe/Berlin');
    assert.equal(found.basis, 'impressions');
    assert.equal(found.postsConsidered, 26);
    assert.deepEqual(
      found.windows.map((w) => [w.weekday, w.hour, w.posts, w.score, w.confidence]),
      [[1, 9, 8, 0.08, 'medium']],
      'Thursdays are typical, Saturdays too few',
    );
    assert.equal(found.windows[0].lift, 2, 'twice the typical post');
    assert.match(found.windows[0].note, /8 posts/);
    assert.match(found.note, /Tuesdays at 09:00 \(Europe\/Berlin\)/);
    // The same instants seen from New York fall six hours earlier.
    assert.deepEqual(
      bestWindows(posts, 'America/New_York').windows.map((w) => [w.weekday, w.hour]),
      [[1, 3]],
    );
  });

  it('measures per follower where the network reports no reach, and claims nothing below the minimum sample', () => {
    const posts: ScoredPostInput[] = Array.from({ length: 12 }, (_, i) => ({
      publishedAt: at(i, i % 2 === 0 ? 2 : 4, 11),
      engagement: i % 2 === 0 ? 30 : 10,
      reach: null,
      followers: 1000,
    }));
    const found = bestWindows(posts, 'Europe/Berlin');
    assert.equal(found.basis, 'followers');
    assert.deepEqual(
      found.windows.map((w) => [w.weekday, w.hour, w.posts, w.score]),
      [[2, 11, 6, 0.03]],
    );
    const few = bestWindows(posts.slice(0, MIN_POSTS - 1), 'Europe/Berlin');
    assert.deepEqual(few.windows, []);
    assert.match(few.note, /Only 9 published posts.*at least 10/);
    const none = bestWindows([], 'Europe/Berlin');
    assert.match(none.note, /^No published posts to learn from in the last \d+ weeks yet; .*at least 10/);
  });

  it('answers the same from columns a larger read filled and scored before, as a server reuses them', () => {
    const fill = (columns: ScoredColumns, posts: ScoredPostInput[]) => {
      columns.size = 0;
      for (const p of posts) columns.push(p.publishedAt, p.engagement, p.reach, p.followers);
      return columns;
    };
    const larger: ScoredPostInput[] = Array.from({ length: 3000 }, (_, i) => ({
      publishedAt: at(Math.floor(i / 300), i % 7, i % 24),
      engagement: 1000 + (i % 17),
      reach: i % 5 === 0 ? null : 1000,
      followers: 50,
    }));
    const smaller: ScoredPostInput[] = Array.from({ length: 40 }, (_, i) => ({
      publishedAt: at(i % 8, i % 2, 9 + (i % 3)),
      engagement: 10 + i,
      reach: 500,
      followers: null,
    }));
    const columns = fill(new ScoredColumns(), larger);
    assert.deepEqual(bestWindows(columns, 'Europe/Berlin'), bestWindows(larger, 'Europe/Berlin'));
    const again = bestWindows(fill(columns, smaller), 'Europe/Berlin');
    assert.equal(again.postsConsidered, 40);
    assert.deepEqual(again, bestWindows(smaller, 'Europe/Berlin'));
  });

  describe('over REST', () => {
    let t: TestHerald;
    let a: SeededAccount;
    before(async () => {
      t = await startTestHerald();
      a = await t.seedAccount({ channels: 1 });
    });
    after(() => t.close());

    it("answers for the channel's own published posts, in its zone, with the sample size", async () => {
      const clock = pinClock(t, '2026-01-05T07:00:00Z');
      const worker = testWorker(t);
      for (let week = 0; week < 6; week++) {
        for (const [weekday, hour] of [
          [0, 8],
          [2, 17],
        ]) {
          clock.advance(at(week, weekday, hour) - clock.now());
          assert.equal(
            (
              await t.api('POST', '/v1/rest/posts', {
                token: a.apiKey,
                body: { channelIds: [a.channelIds[0]], text: `w${week} d${weekday}` },
              })
            ).status,
            201,
          );
          await worker.tick();
        }
      }
      clock.advance(at(6, 0, 0) - clock.now());
      await worker.sync();
      const res = await t.api('GET', `/v1/rest/channels/${a.channelIds[0]}/best-times?weeks=8`, { token: a.apiKey });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const found = res.body.data;
      assert.deepEqual(
        [found.channelId, found.timezone, found.basis, found.postsConsidered],
        [a.channelIds[0], 'Europe/Berlin', 'impressions', 12],
      );
      for (const w of found.windows)
        assert.ok(
          [
            [0, 8],
            [2, 17],
          ].some(([d, h]) => w.weekday === d && w.hour === h) && w.posts === 6,
          JSON.stringify(w),
        );
      assert.equal(
        (await t.api('GET', `/v1/rest/channels/${a.channelIds[0]}/best-times?weeks=99`, { token: a.apiKey })).status,
        400,
      );
    });
  });
});
