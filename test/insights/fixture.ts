import assert from 'node:assert/strict';
import type { InsightDayRecord, InsightPostRecord } from '../../src/db/repositories/insights.js';
import type { DomainDeps } from '../../src/domain/deps.js';
import type { SeededAccount, TestHerald } from '../support/herald.js';
import type { ManualClock } from '../support/manual-clock.js';
import { pinClock, testWorker } from '../publishing/support.js';

/** Where the made-up history ends: the clock is left here, after a last sync. */
export const HISTORY_END = '2026-03-30T12:00:00Z';

export interface History {
  clock: ManualClock;
  labelId: string;
  /** Herald's post ids with when they went out, oldest first. */
  posts: { id: string; at: string; channelId: string; labelled: boolean }[];
}

/**
 * Published posts of two sandbox channels from February into March 2026 (in and before the period
 * 2026-03-01..2026-03-28), some labelled "Spring", with syncs along the way so counters and audiences have a history.
 */
export async function madeUpHistory(t: TestHerald, a: SeededAccount): Promise<History> {
  const clock = pinClock(t, '2026-02-01T08:00:00Z');
  const label = await t.api('POST', '/v1/rest/labels', { token: a.apiKey, body: { name: 'Spring', color: '#22aa55' } });
  assert.equal(label.status, 201, JSON.stringify(label.body));
  const worker = testWorker(t);
  const times = [
    '2026-02-03T08:15:00Z',
    '2026-02-10T17:40:00Z',
    '2026-02-20T08:05:00Z', // the previous period
    '2026-03-02T08:10:00Z',
    '2026-03-03T08:20:00Z',
    '2026-03-09T08:30:00Z',
    '2026-03-12T19:00:00Z',
    '2026-03-20T12:45:00Z',
    '2026-03-27T22:30:00Z',
    '2026-03-29T09:00:00Z', // after the period
  ];
  const posts: History['posts'] = [];
  for (const [i, at] of times.entries()) {
    clock.advance(Date.parse(at) - clock.now());
    const channelId = a.channelIds[i % 2];
    const created = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: { channelIds: [channelId], text: `Post ${i} of the history` },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const id = created.body.data[0].id;
    const labelled = i % 3 === 0;
    if (labelled)
      assert.equal(
        (
          await t.api('POST', `/v1/rest/posts/${id}/labels`, {
            token: a.apiKey,
            body: { labelIds: [label.body.data.id] },
          })
        ).status,
        200,
      );
    await worker.tick();
    await worker.sync();
    posts.push({ id, at, channelId, labelled });
  }
  // Syncs every ten minutes of the last hour, as the worker's cadence would: compaction has something to do.
  for (let minutes = 60; minutes >= 0; minutes -= 10) {
    clock.advance(Date.parse(HISTORY_END) - minutes * 60_000 - clock.now());
    await worker.sync();
  }
  for (const post of posts) assert.equal((await t.deps.repos.posts.get(a.accountId, post.id))?.status, 'published');
  return { clock, labelId: label.body.data.id, posts };
}

/**
 * The day rollup (migration 030) against a count of the posts: each channel's counters, and the label's, summed per
 * UTC day of publication, every figure exact.
 */
export async function assertDaysAreARecount(
  deps: DomainDeps,
  accountId: string,
  channelIds: readonly string[],
  labelId: string,
): Promise<void> {
  const posts = await deps.repos.insights.publishedPosts(accountId, channelIds, 0, 2 ** 52, null);
  const byDay = (list: InsightPostRecord[], label: string | null) => {
    const days = new Map<string, InsightDayRecord>();
    for (const post of list) {
      const day = Math.floor(post.publishedAt / 86_400_000);
      const key = `${post.channelId}:${String(day).padStart(8, '0')}`;
      const sum = days.get(key) ?? { channelId: post.channelId, labelId: label, day, counters: {} };
      for (const [name, value] of Object.entries(post.metrics)) sum.counters[name] = (sum.counters[name] ?? 0) + value;
      days.set(key, sum);
    }
    return [...days].sort(([a], [b]) => (a < b ? -1 : 1)).map(([, sum]) => sum);
  };
  const counted = byDay(posts, null);
  assert.ok(counted.length > 1, 'posts on more than one day');
  assert.deepEqual(await deps.repos.insights.days(accountId, channelIds, 0, 2 ** 32, null), counted);
  const labelled = byDay(
    posts.filter((p) => p.labelIds.includes(labelId)),
    labelId,
  );
  assert.ok(labelled.length > 0, 'labelled posts');
  assert.deepEqual(await deps.repos.insights.days(accountId, channelIds, 0, 2 ** 32, [labelId]), labelled);
}
