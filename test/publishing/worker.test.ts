import assert from 'node:assert/strict';
import { NETWORK_CAPABILITIES } from '../../src/domain/networks/capabilities.js';
import {
  NetworkError,
  type AttemptLookup,
  type CommentRequest,
  type PublishRequest,
} from '../../src/domain/networks/connector.js';
import { NetworkRegistry } from '../../src/publishing/networks/registry.js';
import { SandboxNetwork } from '../../src/publishing/networks/sandbox.js';
import { futureIso, startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import {
  cannotTellNetworks,
  countPostsByStatus,
  countPublishAttempts,
  dieMidAttempt,
  eventually,
  pinClock,
  testWorker,
} from './support.js';

describe('publishing worker', () => {
  let t: TestHerald;
  let a: SeededAccount;
  beforeEach(async () => {
    t = await startTestHerald();
    a = await t.seedAccount({ channels: 2 });
  });
  afterEach(() => t.close());

  const create = async (body: Record<string, unknown>) => {
    const res = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: { channelIds: [a.channelIds[0]], ...body },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data[0];
  };
  const get = async (id: string) => (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
  const fail = (mode: string, times: number, channelId = a.channelIds[0]) =>
    t.deps.repos.sandbox.setFailure(a.accountId, channelId, mode as 'transient', times);

  it('publishes a publish-now post: status published, isPosted, a permalink served by Herald', async () => {
    const post = await create({ text: 'Hello <world> & friends' });
    await testWorker(t).tick();
    const got = await get(post.id);
    assert.equal(got.status, 'published');
    assert.equal(got.isPosted, true);
    assert.equal(got.error, null);
    assert.ok(got.publishedAt);
    assert.ok(got.permalinkUrl.startsWith(`${t.url}/sandbox/${a.channelIds[0]}/`), got.permalinkUrl);
    const page = await fetch(got.permalinkUrl);
    assert.equal(page.status, 200);
    const html = await page.text();
    assert.match(html, /Hello &lt;world&gt; &amp; friends/);
    assert.doesNotMatch(html, /<world>/);
    const attempts = await t.deps.repos.publishAttempts.attempts(a.accountId, post.id);
    assert.deepEqual(
      attempts.map((x) => [x.number, x.outcome]),
      [[1, 'published']],
    );
  });

  it('does not publish a scheduled post early, and publishes it when due', async () => {
    const clock = pinClock(t, new Date().toISOString());
    const post = await create({ text: 'Later', isScheduled: true, dateTime: futureIso(30) });
    const worker = testWorker(t);
    await worker.tick();
    assert.equal((await get(post.id)).status, 'scheduled');
    clock.advance(29 * 60_000);
    await worker.tick();
    assert.equal((await get(post.id)).status, 'scheduled');
    clock.advance(2 * 60_000);
    await worker.tick();
    assert.equal((await get(post.id)).status, 'published');
  });

  it('retries rate-limited and transient failures with back-off, then publishes', async () => {
    const clock = pinClock(t, new Date().toISOString());
    await fail('rate_limited', 1);
    const post = await create({ text: 'Retry me' });
    const worker = testWorker(t);
    await worker.tick();
    let got = await get(post.id);
    assert.equal(got.status, 'scheduled');
    assert.match(got.error, /rate limited/);
    await worker.tick();
    assert.equal((await get(post.id)).status, 'scheduled', 'not retried before the back-off passes');
    await fail('transient', 1);
    clock.advance(60_000);
    await worker.tick();
    assert.match((await get(post.id)).error, /503/);
    clock.advance(60_000);
    await worker.tick();
    got = await get(post.id);
    assert.equal(got.status, 'published');
    assert.equal(got.error, null);
    const attempts = await t.deps.repos.publishAttempts.attempts(a.accountId, post.id);
    assert.deepEqual(
      attempts.map((x) => x.outcome),
      ['retryable', 'retryable', 'published'],
    );
    assert.equal(new Set(attempts.map((x) => x.idempotencyKey)).size, 3);
  });

  it('fails after maxAttempts retryable failures, saying why', async () => {
    const clock = pinClock(t, new Date().toISOString());
    await fail('transient', 10);
    const post = await create({ text: 'Never' });
    const worker = testWorker(t, { maxAttempts: 3 });
    for (let i = 0; i < 4; i++) {
      await worker.tick();
      clock.advance(10 * 60_000);
    }
    const got = await get(post.id);
    assert.equal(got.status, 'failed');
    assert.match(got.error, /Gave up after 3 attempts.*503/);
  });

  it('counts an unreachable media host towards maxAttempts, so the post does not wait forever', async () => {
    const clock = pinClock(t, new Date().toISOString());
    const post = await create({ text: 'Photo', imageUrls: ['https://media.example/photo.jpg'] });
    const unreachable = async (url: string): Promise<never> => {
      throw new NetworkError('retry_later', `Could not fetch media ${url} to check it: host unreachable`);
    };
    const worker = testWorker(t, { maxAttempts: 3 }, undefined, unreachable);
    for (let i = 0; i < 4; i++) {
      await worker.tick();
      clock.advance(10 * 60_000);
    }
    const got = await get(post.id);
    assert.equal(got.status, 'failed');
    assert.match(got.error, /Gave up after 3 attempts.*Could not fetch media/);
  });

  it('fails a permanently rejected post with the network reason', async () => {
    await fail('permanent', 1);
    const post = await create({ text: 'Rejected' });
    await testWorker(t).tick();
    const got = await get(post.id);
    assert.equal(got.status, 'failed');
    assert.equal(got.isPosted, false);
    assert.match(got.error, /rejected this post/);
  });

  it('fails a post whose channel authorization expired, telling the user to reconnect, without retrying', async () => {
    await fail('auth_expired', 1);
    const post = await create({ text: 'Token expired' });
    const worker = testWorker(t);
    await worker.tick();
    const got = await get(post.id);
    assert.equal(got.status, 'failed');
    assert.equal(got.isPosted, false);
    assert.match(got.error, /connection to .* has expired; reconnect it, then reschedule the post.*HTTP 401/);
    await worker.tick();
    const attempts = await t.deps.repos.publishAttempts.attempts(a.accountId, post.id);
    assert.deepEqual(
      attempts.map((x) => [x.number, x.outcome]),
      [[1, 'permanent']],
      'one attempt, never retried',
    );
    assert.deepEqual(await t.deps.repos.sandbox.recent(a.channelIds[0], 10), [], 'nothing reached the network');
  });

  it("waits until the time the network's reset header named before retrying", async () => {
    const clock = pinClock(t, new Date().toISOString());
    let calls = 0;
    class LimitedSandbox extends SandboxNetwork {
      override async publish(request: Parameters<SandboxNetwork['publish']>[0]) {
        if (++calls === 1)
          throw new NetworkError(
            'retry_later',
            'HTTP 429, x-rate-limit-reset in 30 minutes',
            clock.now() + 30 * 60_000,
          );
        return super.publish(request);
      }
    }
    const networks = new NetworkRegistry().register(
      'sandbox',
      new LimitedSandbox(t.deps.repos.sandbox, t.url, NETWORK_CAPABILITIES.sandbox, () => clock.now()),
    );
    const post = await create({ text: 'Rate limited for a while' });
    const worker = testWorker(t, {}, networks);
    await worker.tick();
    clock.advance(29 * 60_000);
    await worker.tick();
    assert.equal(
      (await get(post.id)).status,
      'scheduled',
      'not before retryAt, though the back-off alone would have passed',
    );
    clock.advance(2 * 60_000);
    await worker.tick();
    assert.equal((await get(post.id)).status, 'published');
    assert.equal(calls, 2);
  });

  it(
    'refreshes an expired token through the connector and retries; ' + 'without a refresh it asks for a reconnect',
    async () => {
      const clock = pinClock(t, new Date().toISOString());
      const refreshed: string[] = [];
      let expired = true;
      class ExpiringSandbox extends SandboxNetwork {
        override async publish(request: Parameters<SandboxNetwork['publish']>[0]) {
          if (expired) throw new NetworkError('refresh_and_retry', 'HTTP 401, token expired');
          return super.publish(request);
        }
      }
      class RefreshingSandbox extends ExpiringSandbox {
        async refresh(channel: { id: string }) {
          refreshed.push(channel.id);
          expired = false;
        }
      }
      const store = t.deps.repos.sandbox;
      const post = await create({ text: 'Needs a fresh token' });
      const refreshing = testWorker(
        t,
        {},
        new NetworkRegistry().register(
          'sandbox',
          new RefreshingSandbox(store, t.url, NETWORK_CAPABILITIES.sandbox, () => clock.now()),
        ),
      );
      await refreshing.tick();
      assert.deepEqual(refreshed, [a.channelIds[0]]);
      assert.equal((await get(post.id)).status, 'scheduled');
      clock.advance(60_000);
      await refreshing.tick();
      assert.equal((await get(post.id)).status, 'published');

      expired = true;
      const stuck = await create({ text: 'No way to refresh' });
      await testWorker(
        t,
        {},
        new NetworkRegistry().register(
          'sandbox',
          new ExpiringSandbox(store, t.url, NETWORK_CAPABILITIES.sandbox, () => clock.now()),
        ),
      ).tick();
      const got = await get(stuck.id);
      assert.equal(got.status, 'failed');
      assert.match(
        got.error,
        /connection to Sandbox has expired; reconnect it, then reschedule the post. \(HTTP 401, token expired\)/,
      );
    },
  );

  it('reconciles a timeout after the post was made: published once, attempt marked reconciled', async () => {
    await fail('timeout_after_post', 1);
    const post = await create({ text: 'Timed out' });
    await testWorker(t).tick();
    const got = await get(post.id);
    assert.equal(got.status, 'published');
    const attempts = await t.deps.repos.publishAttempts.attempts(a.accountId, post.id);
    assert.deepEqual(
      attempts.map((x) => x.outcome),
      ['reconciled'],
    );
    assert.equal(await t.deps.repos.sandbox.countOnChannel(a.channelIds[0]), 1);
  });

  /** A sandbox whose publish call waits, after it has started, until the test lets it answer. */
  function stalledSandbox() {
    let entered!: () => void;
    const inNetwork = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let answer!: () => void;
    const answered = new Promise<void>((resolve) => {
      answer = resolve;
    });
    class StalledSandbox extends SandboxNetwork {
      override async publish(request: Parameters<SandboxNetwork['publish']>[0]) {
        entered();
        await answered;
        return super.publish(request);
      }
    }
    return {
      networks: new NetworkRegistry().register('sandbox', new StalledSandbox(t.deps.repos.sandbox, t.url)),
      inNetwork,
      answer,
    };
  }

  it('renews its lease while a slow network call is in flight, so another worker does not take the post', async () => {
    // A network that takes four leases to accept a post: without renewal the second worker would reclaim it,
    // find no post under the idempotency key yet, and mark it unconfirmed. The clock and the renewal timer
    // move only when the test advances them, so a loaded machine cannot make this flake.
    const clock = pinClock(t, new Date().toISOString());
    const leaseMs = 60_000;
    const { networks, inNetwork, answer } = stalledSandbox();
    const post = await create({ text: 'Slow network' });
    const slow = testWorker(t, { leaseMs }, networks);
    const other = testWorker(t, { leaseMs }, networks);
    const inFlight = slow.tick();
    await inNetwork;
    const leaseUntil = async () => Number((await t.herald.db('posts').where({ id: post.id }).first()).lease_expires_at);
    for (let step = 1; step <= 12; step++) {
      clock.advance(leaseMs / 3);
      const renewedTo = clock.now() + leaseMs;
      await eventually(async () => ((await leaseUntil()) === renewedTo ? true : undefined), `renewal ${step}`);
      assert.equal((await other.tick()).claimed, 0, `the second worker takes nothing after ${step * 20} s`);
    }
    answer();
    assert.equal((await inFlight).claimed, 1);
    assert.equal(clock.waiting, 0, 'the renewal timer stops with the call');
    const got = await get(post.id);
    assert.equal(got.status, 'published', got.error);
    const attempts = await t.deps.repos.publishAttempts.attempts(a.accountId, post.id);
    assert.deepEqual(
      attempts.map((x) => [x.number, x.outcome]),
      [[1, 'published']],
    );
    assert.equal((await t.deps.repos.sandbox.recent(a.channelIds[0], 10)).length, 1);
  });

  it('stops renewing a lease another worker took over, and changes nothing of that post', async () => {
    const clock = pinClock(t, new Date().toISOString());
    const leaseMs = 60_000;
    const { networks, inNetwork, answer } = stalledSandbox();
    const post = await create({ text: 'Taken over' });
    const stuck = testWorker(t, { leaseMs }, networks);
    const inFlight = stuck.tick();
    await inNetwork;
    // Another worker holds the post now (as after this one's lease had lapsed while its process was paused).
    await t.herald.db('posts').where({ id: post.id }).update({ claimed_by: 'other-worker' });
    clock.advance(leaseMs / 3);
    await eventually(async () => (clock.waiting === 0 ? true : undefined), 'the renewal timer to stop');
    assert.equal((await t.herald.db('posts').where({ id: post.id }).first()).claimed_by, 'other-worker');
    answer();
    await inFlight;
    assert.equal(
      (await t.herald.db('posts').where({ id: post.id }).first()).claimed_by,
      'other-worker',
      'the old worker wrote nothing',
    );
  });

  it(
    'settles an interrupted attempt before refusing a channel that needs reconnecting: ' +
      'the post that went out is published',
    async () => {
      const clock = pinClock(t, new Date().toISOString());
      const post = await create({ text: 'Went out, then the channel broke' });
      await dieMidAttempt(t, clock);
      // The network took the post before the worker died; since then the channel's credentials were refused.
      await t.deps.repos.sandbox.insertOnce({
        id: 'net-1',
        accountId: a.accountId,
        channelId: a.channelIds[0],
        text: post.text,
        media: [],
        idempotencyKey: `${post.id}:1`,
        external: false,
        metrics: null,
        replyToId: null,
        createdAt: clock.now(),
      });
      await t.deps.repos.channels.setStatus(a.channelIds[0], 'needs_reconnect', 'the token was revoked');
      clock.advance(2_000);
      await testWorker(t).tick();
      const got = await get(post.id);
      assert.equal(got.status, 'published', got.error);
      assert.deepEqual(
        (await t.deps.repos.publishAttempts.attempts(a.accountId, post.id)).map((x) => x.outcome),
        ['reconciled'],
      );
    },
  );

  it(
    'tries again a post whose interrupted attempt the ' + 'network is certain it never saw, and publishes it once',
    async () => {
      const clock = pinClock(t, new Date().toISOString());
      const post = await create({ text: 'Never sent' });
      // A worker claimed the post and recorded its attempt, then died before the network call.
      assert.deepEqual(await dieMidAttempt(t, clock), [post.id]);
      clock.advance(2_000);
      const worker = testWorker(t);
      await worker.tick();
      let got = await get(post.id);
      assert.equal(got.status, 'scheduled', got.error);
      assert.match(got.error, /Attempt 1 never reached the network .*trying again now/);
      await worker.tick();
      got = await get(post.id);
      assert.equal(got.status, 'published', got.error);
      assert.equal(await t.deps.repos.sandbox.countOnChannel(a.channelIds[0]), 1, 'published exactly once');
      const attempts = await t.deps.repos.publishAttempts.attempts(a.accountId, post.id);
      assert.deepEqual(
        attempts.map((x) => [x.number, x.outcome]),
        [
          [1, 'retryable'],
          [2, 'published'],
        ],
      );
      assert.match(attempts[0].detail!, /the network has no post from it, so it was not made/);
    },
  );

  it(
    'marks a post unconfirmed when the network cannot tell ' +
      'whether its interrupted attempt went out, and never retries it',
    async () => {
      const networks = cannotTellNetworks(t);
      const clock = pinClock(t, new Date().toISOString());
      const post = await create({ text: 'Lost' });
      assert.deepEqual(await dieMidAttempt(t, clock), [post.id]);
      const worker = testWorker(t, {}, networks);
      await worker.tick();
      assert.equal((await get(post.id)).status, 'publishing', 'the lease has not expired yet');
      clock.advance(2_000);
      await worker.tick();
      let got = await get(post.id);
      assert.equal(got.status, 'unconfirmed');
      assert.match(got.error, /cannot confirm whether this post went out/);
      clock.advance(60 * 60_000);
      await worker.tick();
      assert.equal((await get(post.id)).status, 'unconfirmed');
      assert.equal(await t.deps.repos.sandbox.countOnChannel(a.channelIds[0]), 0);

      // It turns up on the network later (the call had gone through after all): the next sync reconciles it.
      await t.deps.repos.sandbox.insertOnce({
        id: 'late-arrival',
        accountId: a.accountId,
        channelId: a.channelIds[0],
        text: 'Lost',
        media: [],
        idempotencyKey: `${post.id}:1`,
        external: false,
        metrics: null,
        replyToId: null,
        createdAt: clock.now(),
      });
      await worker.sync();
      got = await get(post.id);
      assert.equal(got.status, 'published');
      assert.ok(got.permalinkUrl.endsWith('/late-arrival'));
      assert.equal(await t.deps.repos.posts.hasLivePosts(a.accountId), false, 'never taken for a live post');
    },
  );

  it('does not take a post in flight for a live post when a sync runs mid-publish', async () => {
    const clock = pinClock(t, new Date().toISOString());
    const post = await create({ text: 'In flight' });
    await t.deps.repos.publishing.claimDue('slow-worker', clock.now(), 60_000, 10, ['APPROVED']);
    await t.deps.repos.publishing.startAttempts(
      'slow-worker',
      [
        {
          postId: post.id,
          accountId: a.accountId,
          kind: 'publish',
          number: 1,
          idempotencyKey: `${post.id}:1`,
          workerId: 'slow-worker',
          startedAt: clock.now(),
          finishedAt: null,
          outcome: null,
          detail: null,
        },
      ],
      clock.now() + 60_000,
    );
    // The network has the post; the slow worker has not recorded the answer yet.
    await t.deps.repos.sandbox.insertOnce({
      id: 'in-flight',
      accountId: a.accountId,
      channelId: a.channelIds[0],
      text: 'In flight',
      media: [],
      idempotencyKey: `${post.id}:1`,
      external: false,
      metrics: null,
      replyToId: null,
      createdAt: clock.now(),
    });
    await testWorker(t).sync();
    assert.equal(await t.deps.repos.posts.hasLivePosts(a.accountId), false);
  });

  it('never publishes a post pending approval', async () => {
    const b = await t.seedAccount({ approvalRequired: true, channels: 1 });
    const res = await t.api('POST', '/v1/rest/posts', {
      token: b.basicKey,
      body: { channelIds: b.channelIds, text: 'Needs review' },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.data[0].approvalStatus, 'PENDING');
    await testWorker(t).tick();
    const got = (await t.api('GET', `/v1/rest/posts/${res.body.data[0].id}`, { token: b.apiKey })).body.data;
    assert.equal(got.status, 'scheduled');
    assert.equal(await t.deps.repos.sandbox.countOnChannel(b.channelIds[0]), 0);
  });

  it('never publishes on a paused channel, and publishes once it resumes', async () => {
    const paused = await t.api('POST', `/v1/rest/channels/${a.channelIds[0]}/queue/pause`, { token: a.apiKey });
    assert.equal(paused.status, 200, JSON.stringify(paused.body));
    const post = await create({ text: 'Held' });
    const worker = testWorker(t);
    await worker.tick();
    assert.equal((await get(post.id)).status, 'scheduled');
    await t.api('POST', `/v1/rest/channels/${a.channelIds[0]}/queue/resume`, { token: a.apiKey });
    await worker.tick();
    assert.equal((await get(post.id)).status, 'published');
  });

  it('makes first comments after their delay, as their own step, only where the network takes them', async () => {
    const clock = pinClock(t, new Date().toISOString());
    const store = t.deps.repos.sandbox;
    // The sandbox standing in for Threads: first comments do not apply there.
    const networks = new NetworkRegistry()
      .register('sandbox', new SandboxNetwork(store, t.url, NETWORK_CAPABILITIES.sandbox, () => clock.now()))
      .register('threads', new SandboxNetwork(store, t.url, NETWORK_CAPABILITIES.threads, () => clock.now()));
    const { provisioning } = await import('./provisioning.js');
    const threads = await provisioning(t, a, 'threads');
    const res = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: {
        channelIds: [a.channelIds[0], threads],
        text: 'With a comment',
        firstComment: { text: 'First!', delayMinutes: 5, mediaUrl: 'https://cdn.example/x.png' },
      },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const [onSandbox, onThreads] = res.body.data;
    const worker = testWorker(t, {}, networks);
    await worker.tick();
    const published = await get(onSandbox.id);
    assert.equal(published.status, 'published');
    assert.equal((await get(onThreads.id)).status, 'published');
    const networkId = published.permalinkUrl.split('/').pop();
    assert.deepEqual(await store.replies(a.channelIds[0], networkId), []);
    clock.advance(4 * 60_000);
    await worker.tick();
    assert.deepEqual(await store.replies(a.channelIds[0], networkId), [], 'not before delayMinutes');
    clock.advance(2 * 60_000);
    await worker.tick();
    const replies = await store.replies(a.channelIds[0], networkId);
    assert.deepEqual(
      replies.map((r) => [r.text, r.media]),
      [['First!', ['https://cdn.example/x.png']]],
    );
    assert.equal((await t.deps.repos.commentSteps.commentStep(onSandbox.id))?.status, 'done');
    assert.equal(await t.deps.repos.commentSteps.commentStep(onThreads.id), undefined, 'no comment step on Threads');
    await worker.tick();
    assert.equal((await store.replies(a.channelIds[0], networkId)).length, 1);
    assert.equal(await store.countOnChannel(a.channelIds[0]), 1, 'the post itself was never re-published');
  });

  it(
    'settles a first comment whose answer was lost by looking it up, never making it twice; ' +
      'a network that cannot look comments up gets no second try',
    async () => {
      const clock = pinClock(t, new Date().toISOString());
      const store = t.deps.repos.sandbox;
      /** Makes the comment, then loses the answer once, as a timeout after the network received the request. */
      class LostAnswer extends SandboxNetwork {
        lost = 0;
        override async comment(request: CommentRequest) {
          const made = await super.comment(request);
          if (this.lost++ === 0) throw new NetworkError('unknown_outcome', 'the answer never came back');
          return made;
        }
      }
      const canLook = new LostAnswer(store, t.url, NETWORK_CAPABILITIES.sandbox, () => clock.now());
      const cannotLook = new LostAnswer(store, t.url, NETWORK_CAPABILITIES.bluesky, () => clock.now());
      Object.defineProperty(cannotLook, 'findComment', { value: undefined });
      const networks = new NetworkRegistry().register('sandbox', canLook).register('bluesky', cannotLook);
      const { provisioning } = await import('./provisioning.js');
      const other = await provisioning(t, a, 'bluesky');
      const res = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: {
          channelIds: [a.channelIds[0], other],
          text: 'With a comment',
          firstComment: { text: 'First!', delayMinutes: 1 },
        },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const [looked, blind] = res.body.data;
      const worker = testWorker(t, {}, networks);
      await worker.tick();
      const replies = async (postId: string, channelId: string) =>
        store.replies(channelId, (await get(postId)).permalinkUrl.split('/').pop());
      clock.advance(2 * 60_000);
      await worker.tick();
      assert.equal((await replies(looked.id, a.channelIds[0])).length, 1, 'made, answer lost');
      assert.equal((await t.deps.repos.commentSteps.commentStep(looked.id))?.status, 'pending');

      clock.advance(60 * 60_000);
      await worker.tick();
      assert.equal((await replies(looked.id, a.channelIds[0])).length, 1, 'found, not made again');
      const step = await t.deps.repos.commentSteps.commentStep(looked.id);
      assert.equal(step?.status, 'done');
      assert.equal(step?.networkCommentId, (await replies(looked.id, a.channelIds[0]))[0].id);
      const tries = await t.herald
        .db('publish_attempts')
        .where({ post_id: looked.id, kind: 'comment' })
        .orderBy('seq')
        .select('outcome');
      assert.deepEqual(
        tries.map((row: { outcome: string }) => row.outcome),
        ['unknown', 'reconciled'],
      );

      assert.equal((await replies(blind.id, other)).length, 1, 'the network without a lookup made it once');
      const refused = await t.deps.repos.commentSteps.commentStep(blind.id);
      assert.equal(refused?.status, 'failed');
      assert.match(refused?.lastError ?? '', /may have reached the network.*never made twice/);
      clock.advance(60 * 60_000);
      await worker.tick();
      assert.equal((await replies(blind.id, other)).length, 1);
      assert.deepEqual([canLook.lost, cannotLook.lost], [1, 1], 'each network was asked to comment once');
    },
  );

  it('brings posts made outside Herald in as read-only live posts, and refreshes metrics', async () => {
    const { postExternal } = await import('../../src/publishing/engine.js');
    const external = await postExternal(t.deps, {
      accountId: a.accountId,
      channelId: a.channelIds[1],
      text: 'Posted in the app',
      likes: 7,
    });
    const own = await create({ text: 'Ours' });
    const worker = testWorker(t);
    await worker.tick();
    await worker.sync();
    await worker.sync();
    const list = await t.api('GET', '/v1/rest/posts?livePosts=true', { token: a.apiKey });
    assert.equal(list.status, 200, JSON.stringify(list.body));
    const live = list.body.data.filter((p: any) => p.isLivePost);
    assert.equal(live.length, 1, 'one live post, however many syncs');
    assert.match(live[0].id, /^live_/);
    assert.equal(live[0].text, 'Posted in the app');
    assert.equal(live[0].metrics.likes, 7);
    assert.ok(live[0].permalinkUrl.includes(external.networkPostId));
    assert.equal(
      (await t.api('PATCH', `/v1/rest/posts/${live[0].id}`, { token: a.apiKey, body: { text: 'x' } })).status,
      409,
    );
    assert.equal((await t.api('DELETE', `/v1/rest/posts/${live[0].id}`, { token: a.apiKey })).status, 409);

    const ownPost = await get(own.id);
    await t.deps.repos.sandbox.setMetrics(a.channelIds[0], ownPost.permalinkUrl.split('/').pop(), {
      likes: 3,
      comments: 1,
      shares: 0,
      impressions: 40,
    });
    await t.deps.repos.sandbox.setMetrics(a.channelIds[1], external.networkPostId, {
      likes: 9,
      comments: 0,
      shares: 0,
      impressions: 0,
    });
    await worker.sync();
    const stored = await t.deps.repos.posts.get(a.accountId, own.id);
    assert.equal(stored?.metrics?.impressions, 40);
    assert.equal((await t.api('GET', `/v1/rest/posts/${live[0].id}`, { token: a.apiKey })).body.data.metrics.likes, 9);
  });

  it('runs as a pipeline: a slow network call holds its own slot, not the posts claimed with it', async () => {
    let releaseSlow!: () => void;
    const slowCall = new Promise<void>((resolve) => {
      releaseSlow = resolve;
    });
    class OneSlowPost extends SandboxNetwork {
      override async publish(request: PublishRequest) {
        if (request.text === 'Slow') await slowCall;
        return super.publish(request);
      }
    }
    const networks = new NetworkRegistry().register('sandbox', new OneSlowPost(t.deps.repos.sandbox, t.url));
    const slow = await create({ text: 'Slow' });
    const fast = [];
    for (let i = 0; i < 9; i++) fast.push(await create({ text: `Fast ${i}` }));
    // Three slots, claimed three at a time: batch by batch, the slow post's batch would hold back every later claim.
    const worker = testWorker(t, { concurrency: 3, batchSize: 3, pollMs: 20 }, networks);
    worker.start();
    try {
      await eventually(
        async () => ((await countPostsByStatus(t, a.accountId, 'published')) === 9 ? true : undefined),
        'the nine fast posts to go out',
      );
      assert.equal((await get(slow.id)).status, 'publishing', 'the slow call is still in flight');
      releaseSlow();
      await eventually(
        async () => ((await get(slow.id)).status === 'published' ? true : undefined),
        'the slow post to finish',
      );
    } finally {
      releaseSlow();
      await worker.stop();
    }
    assert.equal(await countPublishAttempts(t, a.accountId), 10, 'one attempt per post');
  });

  it('holds posts with media to their own slots, while text posts keep going out beside them', async () => {
    let releaseFirst!: () => void;
    const firstHeld = new Promise<void>((resolve) => {
      releaseFirst = resolve;
    });
    const mediaCalls: string[] = [];
    class HeldMedia extends SandboxNetwork {
      override async publish(request: PublishRequest) {
        if (request.imageUrls.length > 0) {
          mediaCalls.push(request.text);
          if (request.text === 'Photo 1') await firstHeld;
        }
        return super.publish(request);
      }
    }
    const networks = new NetworkRegistry().register('sandbox', new HeldMedia(t.deps.repos.sandbox, t.url));
    const photos = [
      await create({ text: 'Photo 1', imageUrls: ['https://media.example/1.jpg'] }),
      await create({ text: 'Photo 2', imageUrls: ['https://media.example/2.jpg'] }),
    ];
    for (let i = 0; i < 4; i++) await create({ text: `Text ${i}` });
    const worker = testWorker(t, { concurrency: 10, mediaConcurrency: 1, batchSize: 10, pollMs: 20 }, networks);
    worker.start();
    try {
      await eventually(
        async () => ((await countPostsByStatus(t, a.accountId, 'published')) === 4 ? true : undefined),
        'the four text posts to go out',
      );
      assert.deepEqual(mediaCalls, ['Photo 1'], "the second photo waits for the first one's slot");
      releaseFirst();
      await eventually(
        async () => ((await get(photos[1].id)).status === 'published' ? true : undefined),
        'the second photo to go out after the first',
      );
      assert.deepEqual(mediaCalls, ['Photo 1', 'Photo 2']);
    } finally {
      releaseFirst();
      await worker.stop();
    }
  });

  it('runs on its own loop inside herald serve: a publish-now post goes out without a manual tick', async () => {
    await t.close();
    t = await startTestHerald({ worker: true, workerPollMs: 50 });
    a = await t.seedAccount({ channels: 1 });
    const post = await create({ text: 'Loop' });
    await eventually(
      async () => ((await get(post.id)).status === 'published' ? true : undefined),
      'the post to be published',
    );
  });

  it(
    'a batch that cannot start says why, puts its claims back and the loop goes on: ' + 'every post is published once',
    async () => {
      const logged: string[] = [];
      const logger = {
        info: () => undefined,
        warn: (message: string) => logged.push(message),
        error: (message: string) => logged.push(message),
      };
      const repo = t.deps.repos.publishing;
      const startAttempts = repo.startAttempts.bind(repo);
      const faults = ['throw', 'lose'];
      // The database fails the first batch's attempts, then loses the second batch's claims (as after another
      // process rebuilt the posts table), then behaves.
      repo.startAttempts = async (...args) => {
        const fault = faults.shift();
        if (fault === 'throw') throw new Error('SQLITE_ERROR: no such table: main.posts');
        if (fault === 'lose') return new Set();
        return startAttempts(...args);
      };
      const posts = [];
      for (let i = 0; i < 6; i++) posts.push(await create({ text: `Batch ${i}` }));
      // Leases far longer than the test: only putting the claims back lets these posts go out.
      const worker = testWorker(t, { pollMs: 50, leaseMs: 10 * 60_000, batchSize: 100 }, undefined, undefined, logger);
      worker.start();
      try {
        for (const post of posts)
          await eventually(
            async () => ((await get(post.id)).status === 'published' ? true : undefined),
            `post ${post.id} to be published`,
            10_000,
          );
      } finally {
        await worker.stop();
      }
      assert.deepEqual(faults, []);
      assert.ok(
        logged.includes('starting a batch of 6 claimed posts failed; putting them back in the queue'),
        JSON.stringify(logged),
      );
      assert.ok(
        logged.includes('claimed posts were no longer held when their attempts were recorded; released them'),
        JSON.stringify(logged),
      );
      assert.equal(await t.deps.repos.sandbox.countOnChannel(a.channelIds[0]), 6, 'each post published once');
      assert.equal(await countPublishAttempts(t, a.accountId), 6);
    },
  );

  it(
    'asks about the handle an attempt recorded before its ' + 'outcome became unknown (an upload session, a container)',
    async () => {
      const asked: (string | null)[] = [];
      class SessionNetwork extends SandboxNetwork {
        override async publish(request: PublishRequest): Promise<never> {
          await request.recordHandle(`session-for-${request.postKey.id}`);
          throw new NetworkError('unknown_outcome', 'the connection broke after the last byte was sent');
        }
        override async findPublished(lookup: AttemptLookup) {
          asked.push(lookup.handle);
          return lookup.handle === `session-for-${lookup.postKey.id}`
            ? { networkPostId: 'video-1', permalinkUrl: 'https://network.example/video-1', publishedAt: Date.now() }
            : undefined;
        }
      }
      const networks = new NetworkRegistry().register('sandbox', new SessionNetwork(t.deps.repos.sandbox, t.url));
      const post = await create({ text: 'A long upload' });
      await testWorker(t, {}, networks).tick();
      assert.deepEqual(asked, [`session-for-${post.id}`]);
      const got = await get(post.id);
      assert.equal(got.status, 'published');
      assert.equal(got.permalinkUrl, 'https://network.example/video-1');
    },
  );

  it('stores a safe message, not the exception, when a network call fails unexpectedly', async () => {
    const leak = 'connect ECONNREFUSED 10.0.0.5:443 at /opt/herald/internal-token-abc';
    class BrokenSandbox extends SandboxNetwork {
      override async publish(): Promise<never> {
        throw new Error(leak);
      }
      override async findPublished(): Promise<never> {
        throw new TypeError(leak);
      }
    }
    const networks = new NetworkRegistry().register('sandbox', new BrokenSandbox(t.deps.repos.sandbox, t.url));
    const logged: { message: string; error: unknown }[] = [];
    const logger = {
      info: () => undefined,
      warn: () => undefined,
      error: (message: string, error?: unknown) => logged.push({ message, error }),
    };
    const post = await create({ text: 'Broken network' });
    await testWorker(t, {}, networks, undefined, logger).tick();
    const got = await get(post.id);
    assert.equal(got.status, 'unconfirmed');
    const shown = JSON.stringify(got);
    assert.ok(!shown.includes('ECONNREFUSED') && !shown.includes('internal-token'), shown);
    assert.match(got.error, /internal error.*log/);
    assert.match(got.error, /check the channel, then reschedule the post if it is missing/);
    assert.deepEqual(
      logged.map((entry) => [entry.message, (entry.error as Error).message]),
      [
        ['publishing a post failed unexpectedly', leak],
        ['looking up an attempt failed unexpectedly', leak],
      ],
      'the operator finds each cause in the log',
    );
  });
});
