import assert from 'node:assert/strict';
import { purgeExpired } from '../../src/domain/housekeeping.js';
import { grownCounters, sandboxAudience } from '../../src/publishing/networks/sandbox.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { pinClock, testWorker } from '../publishing/support.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

describe('insights history: metric samples', () => {
  let t: TestHerald;
  let a: SeededAccount;
  beforeEach(async () => {
    t = await startTestHerald();
    a = await t.seedAccount({ channels: 1 });
  });
  afterEach(() => t.close());

  const samplesOf = async (postId: string) => t.deps.repos.insights.postSamples(a.accountId, postId);
  const count = async (table: string) => Number((await t.herald.db(table).count({ n: '*' }).first())!.n);

  it("stores the sandbox's growing counters and audience at each sync, nothing when unchanged", async () => {
    const clock = pinClock(t, '2026-03-02T09:00:00Z');
    const created = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: { channelIds: [a.channelIds[0]], text: 'Counted' },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const worker = testWorker(t);
    await worker.tick();
    await worker.sync();
    const postId = created.body.data[0].id;
    assert.deepEqual(
      (await samplesOf(postId)).map((s) => s.counters),
      [{ likes: 0, comments: 0, shares: 0, impressions: 0 }],
    );
    await worker.sync();
    assert.equal((await samplesOf(postId)).length, 1, 'the same counters are not stored twice');

    const networkId = (await t.deps.repos.posts.get(a.accountId, postId))!.networkPostId!;
    for (const hours of [1, 4, 30]) {
      clock.advance(hours * HOUR - (clock.now() - Date.parse('2026-03-02T09:00:00Z')));
      await worker.sync();
      const last = (await samplesOf(postId)).at(-1)!;
      assert.equal(last.sampledAt, clock.now());
      assert.deepEqual(
        last.counters,
        grownCounters(networkId, { likes: 0, comments: 0, shares: 0, impressions: 0 }, hours * HOUR),
      );
    }
    const series = (await samplesOf(postId)).map((s) => s.counters.impressions);
    assert.equal(series.length, 4);
    for (let i = 1; i < series.length; i++)
      assert.ok(series[i] > series[i - 1], `impressions grow: ${series.join(', ')}`);
    assert.deepEqual(
      grownCounters(networkId, {}, 30 * HOUR),
      grownCounters(networkId, {}, 30 * HOUR),
      'the same post at the same age counts the same',
    );

    const audience = await t.deps.repos.insights.audienceSamples(
      a.accountId,
      [a.channelIds[0]],
      0,
      Number.MAX_SAFE_INTEGER,
    );
    assert.equal(audience.length, 4, 'one audience sample per sync at a new time');
    assert.deepEqual(
      audience.map((s) => s.followers),
      audience.map((s) => sandboxAudience(a.channelIds[0], s.sampledAt)),
    );
    assert.ok(audience.at(-1)!.followers > audience[0].followers, 'the audience grows');
  });

  it("compacts to a sample an hour over a post's first two days, one a day after, every total exact", async () => {
    const published = Date.parse('2026-03-02T09:30:00Z');
    const created = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: { channelIds: [a.channelIds[0]], text: 'Old' },
    });
    const worker = testWorker(t);
    await worker.tick();
    const postId = created.body.data[0].id;
    const samples = [];
    for (let at = published; at < published + 5 * DAY; at += 10 * 60_000) {
      const n = (at - published) / 60_000;
      samples.push({
        postId,
        accountId: a.accountId,
        channelId: a.channelIds[0],
        publishedAt: published,
        sampledAt: at,
        counters: { likes: Math.floor(n / 7), impressions: n },
      });
    }
    await t.deps.repos.insights.insertPostSamples(samples);
    for (let at = published - 6 * DAY; at < published + 5 * DAY; at += 30 * 60_000) {
      await t.deps.repos.insights.insertAudienceSample({
        channelId: a.channelIds[0],
        accountId: a.accountId,
        sampledAt: at,
        followers: Math.floor((at - published) / HOUR) + 1000,
      });
    }
    const closing = (list: { sampledAt: number }[], bucket: number) => {
      const last = new Map<number, unknown>();
      for (const s of list) last.set(Math.floor(s.sampledAt / bucket), s);
      return last;
    };
    const dayCloses = closing(samples, DAY);
    const now = published + 5 * DAY;
    const swept = await purgeExpired({ ...t.deps, now: () => now });
    const kept = await samplesOf(postId);
    const firstTwoDays = kept.filter((s) => s.sampledAt < published + 2 * DAY);
    const hours = new Set(
      samples.filter((s) => s.sampledAt < published + 2 * DAY).map((s) => Math.floor(s.sampledAt / HOUR)),
    );
    assert.equal(firstTwoDays.length, hours.size, 'one per hour of the first two days');
    const later = kept.filter((s) => s.sampledAt >= published + 2 * DAY);
    assert.equal(
      later.length,
      new Set(samples.filter((s) => s.sampledAt >= published + 2 * DAY).map((s) => Math.floor(s.sampledAt / DAY))).size,
      'one per day after',
    );
    assert.deepEqual(kept.at(-1), samples.at(-1), 'the latest counters are kept as they were');
    for (const [day, last] of dayCloses)
      assert.deepEqual(
        kept.find((s) => Math.floor(s.sampledAt / DAY) === day && s.sampledAt === (last as any).sampledAt),
        last,
        'each day closes as it did',
      );
    const hourCloses = closing(
      samples.filter((s) => s.sampledAt < published + 2 * DAY),
      HOUR,
    );
    assert.deepEqual(firstTwoDays, [...hourCloses.values()], "the hour's last sample is the one kept");

    const audience = await t.deps.repos.insights.audienceSamples(
      a.accountId,
      [a.channelIds[0]],
      0,
      Number.MAX_SAFE_INTEGER,
    );
    assert.equal(
      audience.filter((s) => s.sampledAt >= now - 2 * DAY).length,
      49,
      'hourly for the last two days (9:30 to 9:00)',
    );
    assert.equal(
      audience.filter((s) => s.sampledAt < now - 2 * DAY).length,
      10,
      'daily before: March 2 minus 6 days to March 5, ten days',
    );
    assert.equal(audience.at(-1)!.followers, Math.floor((now - 30 * 60_000 - published) / HOUR) + 1000);
    assert.equal(swept.metricSamples, samples.length - kept.length + (11 * 48 - audience.length));
    assert.equal(
      (await purgeExpired({ ...t.deps, now: () => now })).metricSamples,
      0,
      'compacting again changes nothing',
    );
    assert.equal(await count('post_samples'), kept.length);
  });
});
