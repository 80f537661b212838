/**
 * The batched path of the publishing worker: claimed posts start as a batch (attempts recorded in one
 * transaction) and published posts are written behind, many per transaction with their events. Exactly once
 * either way: counted on the sandbox, where a duplicate would show, and on the attempts.
 */
import assert from 'node:assert/strict';
import type { PostRecord } from '../../src/db/repositories/posts.js';
import { PublishingRepository } from '../../src/db/repositories/publishing.js';
import { newId } from '../../src/domain/ids.js';
import type { Logger } from '../../src/logger.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { RECEIVER_HOST, startReceiver, type Receiver } from '../webhooks/receiver.js';
import { countPostsByStatus, countPublishAttempts, eventually, pinClock, testWorker } from './support.js';

describe(`publishing: batches (${TEST_DB})`, function () {
  this.timeout(120_000);
  let t: TestHerald;
  let a: SeededAccount;
  let receiver: Receiver;
  const markManyPublished = PublishingRepository.prototype.markManyPublished;
  beforeEach(async () => {
    // The webhook receiver listens on loopback (RECEIVER_HOST), which the SSRF guard refuses unless it is listed.
    t = await startTestHerald({ outboundAllowHosts: [RECEIVER_HOST] });
    a = await t.seedAccount({ channels: 2 });
    receiver = await startReceiver();
  });
  afterEach(async () => {
    PublishingRepository.prototype.markManyPublished = markManyPublished;
    await receiver.close();
    await t.close();
  });

  /** `n` text posts due now over both channels, written straight to the queue as a burst would find them. */
  async function burst(n: number, dueAt: number): Promise<string[]> {
    const records: PostRecord[] = Array.from({ length: n }, (_, i) => ({
      id: newId(),
      accountId: a.accountId,
      workspaceId: a.workspaceId,
      channelId: a.channelIds[i % 2],
      groupId: null,
      text: `Burst ${i}`,
      dateTime: dueAt,
      timelineAt: dueAt,
      isScheduled: true,
      isDraft: false,
      isLive: false,
      status: 'scheduled',
      approvalStatus: null,
      type: 'text',
      sourceType: 'api',
      imageUrls: [],
      videoUrls: [],
      firstComment: null,
      channelOptions: null,
      networkPostId: null,
      permalinkUrl: null,
      metrics: null,
      lastError: null,
      publishedAt: null,
      createdAt: dueAt,
      updatedAt: dueAt,
    }));
    for (let i = 0; i < records.length; i += 100) await t.deps.repos.posts.insertMany(records.slice(i, i + 100));
    return records.map((r) => r.id);
  }
  const sandboxCount = async () =>
    (await t.deps.repos.sandbox.countOnChannel(a.channelIds[0])) +
    (await t.deps.repos.sandbox.countOnChannel(a.channelIds[1]));
  const publishedEvents = async () =>
    (
      await t.herald.db('events').where({ account_id: a.accountId, type: 'post.published' }).select('post_id', 'data')
    ).map((row: { post_id: string; data: string | Record<string, unknown> }) => ({
      postId: row.post_id,
      data: typeof row.data === 'string' ? JSON.parse(row.data) : row.data,
    }));

  it(
    'publishes a burst exactly once, many posts per write, ' + 'each with its event and its webhook delivered',
    async () => {
      const subscribed = await t.api('POST', '/v1/rest/webhooks', {
        token: a.apiKey,
        body: { url: receiver.url, eventTypes: ['post.published'] },
      });
      assert.equal(subscribed.status, 201, JSON.stringify(subscribed.body));
      receiver.secret = subscribed.body.data.secret;
      const batchSizes: number[] = [];
      PublishingRepository.prototype.markManyPublished = function (this: PublishingRepository, workerId, entries) {
        batchSizes.push(entries.length);
        return markManyPublished.call(this, workerId, entries);
      };
      const ids = await burst(600, Date.now() - 1_000);
      const worker = testWorker(t, { concurrency: 128, batchSize: 128, pollMs: 20 });
      worker.start();
      try {
        await eventually(
          async () => ((await countPostsByStatus(t, a.accountId, 'published')) === 600 ? true : undefined),
          '600 posts to be published',
        );
      } finally {
        await worker.stop();
      }
      assert.equal(await sandboxCount(), 600, 'each post reached the network once');
      assert.equal(await countPublishAttempts(t, a.accountId), 600, 'one attempt per post');
      const outcomes = await t.herald
        .db('publish_attempts')
        .where({ account_id: a.accountId })
        .select('outcome', 'finished_at');
      assert.ok(
        outcomes.every(
          (row: { outcome: string; finished_at: unknown }) => row.outcome === 'published' && row.finished_at !== null,
        ),
      );
      assert.equal(
        batchSizes.reduce((sum, n) => sum + n, 0),
        600,
        'every published post went through the batched write',
      );
      assert.ok(Math.max(...batchSizes) > 1, `posts were written together (batches of ${batchSizes.join(', ')})`);
      assert.ok(batchSizes.length < 600 / 4, `a write per batch, not per post (${batchSizes.length} writes)`);

      const events = await publishedEvents();
      assert.deepEqual(events.map((e) => e.postId).sort(), [...ids].sort(), 'one post.published event per post');
      // The event carries the post as a read shows it (attempts
      // are the read's own), though the batch built it in memory.
      const read = (await t.api('GET', `/v1/rest/posts/${ids[7]}`, { token: a.apiKey })).body.data;
      const event = events.find((e) => e.postId === ids[7])!;
      assert.equal(read.attempts.length, 1);
      delete read.attempts;
      assert.deepEqual(event.data.post, read);
      assert.equal(event.data.permalinkUrl, read.permalinkUrl);

      const worker2 = testWorker(t, { batchSize: 1000 });
      await eventually(async () => {
        await worker2.tick();
        return receiver.received.length >= 600 ? true : undefined;
      }, 'every event to be delivered');
      assert.equal(
        new Set(receiver.received.map((r) => r.event.data.post.id)).size,
        600,
        'one delivery per event, to the subscribed endpoint',
      );
      assert.ok(receiver.received.every((r) => r.verified));
    },
  );

  it(
    'a worker that dies between the network calls and their ' +
      'batched write leaves posts that are reconciled, not repeated',
    async () => {
      const clock = pinClock(t, new Date().toISOString());
      const ids = await burst(40, clock.now() - 1_000);
      // The process is gone after the network answered and before
      // the batch was written: nothing of it reaches the database.
      PublishingRepository.prototype.markManyPublished = async () => {
        throw new Error('the worker process died');
      };
      const leaseMs = 5_000;
      const logged: string[] = [];
      const log: Logger = {
        info: () => undefined,
        warn: () => undefined,
        error: (message, error) => logged.push(`${message}: ${(error as Error).message}`),
      };
      await testWorker(t, { leaseMs, batchSize: 100, concurrency: 100 }, undefined, undefined, log).tick();
      assert.equal(logged.length, 40);
      assert.ok(
        logged.every((line) => line === 'publishing a post failed: the worker process died'),
        logged[0],
      );
      assert.equal(await sandboxCount(), 40, 'the network has every post');
      assert.equal(await countPostsByStatus(t, a.accountId, 'publishing'), 40, 'each still held by the dead worker');
      const unfinished = await t.herald
        .db('publish_attempts')
        .where({ account_id: a.accountId })
        .whereNull('finished_at')
        .count<{ n: number | string }[]>({ n: '*' });
      assert.equal(Number(unfinished[0].n), 40, 'each attempt recorded before its call, never finished');
      PublishingRepository.prototype.markManyPublished = markManyPublished;

      const next = testWorker(t, { leaseMs, batchSize: 100, concurrency: 100 });
      await next.tick();
      assert.equal(
        await countPostsByStatus(t, a.accountId, 'publishing'),
        40,
        'nothing is taken before the lease expires',
      );
      clock.advance(leaseMs + 1);
      await next.tick();
      assert.equal(await countPostsByStatus(t, a.accountId, 'published'), 40);
      assert.equal(await sandboxCount(), 40, 'no post was published twice');
      for (const id of ids.slice(0, 5)) {
        const attempts = await t.deps.repos.publishAttempts.attempts(a.accountId, id);
        assert.deepEqual(
          attempts.map((x) => [x.number, x.outcome]),
          [[1, 'reconciled']],
          id,
        );
      }
      assert.equal(await countPublishAttempts(t, a.accountId), 40, 'one attempt per post: none was tried again');
      assert.equal((await publishedEvents()).length, 40, 'one post.published event per post');
    },
  );
});
