import assert from 'node:assert/strict';
import { migrationSource } from '../../src/db/migrations/index.js';
import type { PostSampleRecord } from '../../src/db/repositories/insights.js';
import { refreshRollups, sumByHour } from '../../src/domain/insights/rollups.js';
import { keepCounters, type CountersRead } from '../../src/domain/insights/samples.js';
import { startHerald } from '../../src/server.js';
import type { DomainDeps } from '../../src/domain/deps.js';
import { createLogger } from '../../src/logger.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { assertDaysAreARecount } from './fixture.js';

const HOUR_MS = 3_600_000;
/** More posts than one statement writes (live-posts.ts), spread over many hours, several to an hour. */
const POSTS = 1_200;
const START = Date.parse('2026-01-05T00:00:00Z');

describe("insights: a sync's writes and the rollup", () => {
  let t: TestHerald;
  let a: SeededAccount;
  let labelId: string;
  before(async () => {
    t = await startTestHerald();
    a = await t.seedAccount({ channels: 2 });
    const label = await t.api('POST', '/v1/rest/labels', { token: a.apiKey, body: { name: 'Bulk', color: '#225588' } });
    assert.equal(label.status, 201, JSON.stringify(label.body));
    labelId = label.body.data.id;
    // Published posts written as a year of syncs would leave them, one in ten labelled.
    const rows = Array.from({ length: POSTS }, (_, i) => {
      const at = START + Math.floor(i / 3) * HOUR_MS + (i % 3) * 60_000;
      return {
        id: `bulk_${String(i).padStart(5, '0')}`,
        account_id: a.accountId,
        workspace_id: a.workspaceId,
        channel_id: a.channelIds[i % 2],
        text: `Bulk post ${i}`,
        status: 'published',
        date_time: at,
        timeline_at: at,
        published_at: at,
        network_post_id: `bulk_${i}`,
        metrics: JSON.stringify({ likes: i % 11, comments: i % 5, shares: 0, impressions: 100 + i }),
        created_at: at,
        updated_at: at,
      };
    });
    for (let i = 0; i < rows.length; i += 200) await t.herald.db('posts').insert(rows.slice(i, i + 200));
    await t.herald
      .db('post_labels')
      .insert(
        rows
          .filter((_, i) => i % 10 === 0)
          .map((r) => ({ post_id: r.id, label_id: labelId, account_id: a.accountId, created_at: r.created_at })),
      );
    await refreshRollups(t.deps);
  });
  after(() => t.close());

  /** The rollup, per channel, label and hour, against a recount of the published posts' latest counters. */
  async function assertRollupIsARecount(deps: DomainDeps): Promise<void> {
    assert.equal(await deps.repos.insights.hasDirtyHours(), false, 'no hour is left to count');
    const posts = await deps.repos.insights.publishedPosts(a.accountId, a.channelIds, 0, 2 ** 52, null);
    assert.ok(posts.length >= POSTS);
    const channels = [...a.channelIds].sort();
    const recount = channels.flatMap((id) =>
      sumByHour(
        id,
        posts.filter((p) => p.channelId === id),
      ),
    );
    assert.deepEqual(await deps.repos.insights.hours(a.accountId, a.channelIds, 0, 2 ** 40), recount);
    const labelled = posts.filter((p) => p.labelIds.includes(labelId));
    const labelRecount = channels.flatMap((id) =>
      sumByHour(
        id,
        labelled.filter((p) => p.channelId === id),
      ).map((h) => ({ labelId, ...h })),
    );
    assert.ok(labelRecount.length > 0);
    assert.deepEqual(
      await deps.repos.insights.labelHours(a.accountId, [labelId], a.channelIds, 0, 2 ** 40),
      labelRecount,
    );
    await assertDaysAreARecount(deps, a.accountId, a.channelIds, labelId);
  }

  it("keeps the rollup's totals the sum of every post's latest sample after a sync of many posts", async () => {
    const now = START + 400 * 24 * HOUR_MS;
    const counted: CountersRead[] = [];
    const samples: PostSampleRecord[] = [];
    for (let i = 0; i < POSTS; i++) {
      const metrics = { likes: 20 + (i % 13), comments: i % 7, shares: i % 3, impressions: 500 + 2 * i };
      counted.push({ postId: `bulk_${String(i).padStart(5, '0')}`, metrics });
      samples.push({
        postId: `bulk_${String(i).padStart(5, '0')}`,
        accountId: a.accountId,
        channelId: a.channelIds[i % 2],
        publishedAt: START + Math.floor(i / 3) * HOUR_MS + (i % 3) * 60_000,
        sampledAt: now,
        counters: metrics,
      });
    }
    await t.deps.repos.inTransaction(() => keepCounters(t.deps, counted, samples, now));

    // No read has asked: the sync's unit of work counted the hours it touched.
    await assertRollupIsARecount(t.deps);
    const latest = new Map<string, Record<string, number>>();
    for (const row of await t.herald.db('post_samples').where({ account_id: a.accountId }).orderBy('sampled_at'))
      latest.set(row.post_id, JSON.parse(row.counters));
    assert.equal(latest.size, POSTS);
    const sampled: Record<string, number> = {};
    for (const counters of latest.values())
      for (const [name, value] of Object.entries(counters)) sampled[name] = (sampled[name] ?? 0) + value;
    const rolled: Record<string, number> = {};
    let posts = 0;
    for (const hour of await t.deps.repos.insights.hours(a.accountId, a.channelIds, 0, 2 ** 40)) {
      posts += hour.posts;
      for (const [name, value] of Object.entries(hour.counters)) rolled[name] = (rolled[name] ?? 0) + value;
    }
    assert.equal(posts, POSTS);
    assert.deepEqual(rolled, sampled);
    const res = await t.api('GET', '/v1/rest/insights?from=2026-01-01&to=2026-12-31&timezone=UTC', {
      token: a.apiKey,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(res.body.data.totals.counters, sampled);
  });

  it('notes an hour only when what the rollup counts changed, and once when the post stays in it', async () => {
    const db = t.herald.db;
    const marks = async () => Number((await db('insight_dirty').count('* as n'))[0].n);
    const post = await db('posts').where({ id: 'bulk_00007' }).first();
    await db('posts').where({ id: post.id }).update({ metrics: post.metrics, text: 'Edited' });
    assert.equal(await marks(), 0, 'the same counters written again note nothing');
    await db('posts')
      .where({ id: post.id })
      .update({ metrics: JSON.stringify({ likes: 99 }) });
    assert.equal(await marks(), 1, 'new counters note their hour once');
    await db('posts')
      .where({ id: post.id })
      .update({ published_at: Number(post.published_at) + 5 * HOUR_MS });
    assert.equal(await marks(), 3, 'a move to another hour notes the hour left and the hour reached');
    await refreshRollups(t.deps);
    await assertRollupIsARecount(t.deps);
  });

  it('counts the rollup when an upgrade adds it, at startup and before any read', async () => {
    // The database as it was before the rollup: its migrations taken back, the posts left as they are.
    for (;;) {
      const [done] = await t.herald.db.migrate.list({ migrationSource });
      const last = done.at(-1);
      if ((typeof last === 'string' ? last : last.name) < '027') break;
      await t.herald.db.migrate.down({ migrationSource });
    }
    assert.equal(await t.herald.db.schema.hasTable('insight_hours'), false);
    const upgraded = await startHerald({ ...t.config, port: 0, baseUrl: '' }, createLogger({ quiet: true }));
    try {
      await assertRollupIsARecount(upgraded.deps);
    } finally {
      await upgraded.close();
    }
  });
});
