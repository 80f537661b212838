import assert from 'node:assert/strict';
import { createLogger } from '../../src/logger.js';
import { NetworkError, type PublishRequest } from '../../src/domain/networks/connector.js';
import type { Timers } from '../../src/domain/timers.js';
import { createWorker } from '../../src/publishing/engine.js';
import { NetworkRegistry } from '../../src/publishing/networks/registry.js';
import { SandboxNetwork } from '../../src/publishing/networks/sandbox.js';
import { NETWORK_CAPABILITIES } from '../../src/domain/networks/capabilities.js';
import { callTool } from '../mcp/support.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { provisioning } from './provisioning.js';
import { cannotTellNetworks, dieMidAttempt, directMedia, eventually, pinClock, testWorker } from './support.js';

/** Threads (issue 33): a post's parts, written through REST and MCP, published as a reply chain exactly once. */
describe('threads: a post with parts', () => {
  let t: TestHerald;
  let a: SeededAccount;
  beforeEach(async () => {
    t = await startTestHerald();
    a = await t.seedAccount({ channels: 1 });
  });
  afterEach(() => t.close());

  const create = async (body: Record<string, unknown>) =>
    t.api('POST', '/v1/rest/posts', { token: a.apiKey, body: { channelIds: [a.channelIds[0]], ...body } });
  const get = async (id: string) => (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
  const parts = [
    { text: 'Second: the details' },
    { text: 'Third: the end', imageUrls: ['https://cdn.example.com/end.png'] },
  ];

  it(
    'writes and reads a thread over REST: each part its text and media, ' +
      'no links until published; PATCH replaces or removes it',
    async () => {
      const res = await create({
        text: 'First of three',
        thread: parts,
        isScheduled: true,
        dateTime: new Date(Date.now() + 3_600_000).toISOString(),
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const expected = [
        {
          text: 'Second: the details',
          imageUrls: [],
          videoUrls: [],
          permalinkUrl: null,
          publishedAt: null,
          error: null,
        },
        {
          text: 'Third: the end',
          imageUrls: ['https://cdn.example.com/end.png'],
          videoUrls: [],
          permalinkUrl: null,
          publishedAt: null,
          error: null,
        },
      ];
      assert.deepEqual(res.body.data[0].thread, expected);
      const id = res.body.data[0].id;
      assert.deepEqual((await get(id)).thread, expected);
      const day = res.body.data[0].dateTime.slice(0, 10);
      const calendar = await t.api('GET', `/v1/rest/calendar?view=list&date=${day}&timezone=UTC`, { token: a.apiKey });
      assert.equal(calendar.status, 200, JSON.stringify(calendar.body));
      assert.equal(
        calendar.body.data.entries.find((e: { postId: string }) => e.postId === id).threadParts,
        2,
        'the calendar shows one post, with its parts counted',
      );

      const changed = await t.api('PATCH', `/v1/rest/posts/${id}`, {
        token: a.apiKey,
        body: { thread: [{ text: 'Only one more' }] },
      });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      assert.deepEqual(
        (await get(id)).thread.map((p: { text: string }) => p.text),
        ['Only one more'],
      );
      const single = await t.api('PATCH', `/v1/rest/posts/${id}`, { token: a.apiKey, body: { thread: null } });
      assert.equal(single.status, 200, JSON.stringify(single.body));
      assert.equal((await get(id)).thread, null);
      const plain = await create({
        text: 'Just a post',
        isScheduled: true,
        dateTime: new Date(Date.now() + 3_600_000).toISOString(),
      });
      assert.equal(plain.body.data[0].thread, null);
    },
  );

  it(
    "holds each part to its network's limits, " + "and refuses threads where the network has none, in a person's words",
    async () => {
      const x = await provisioning(t, a, 'x');
      const linkedin = await provisioning(t, a, 'linkedin');
      const long = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [x], text: 'Fine', thread: [{ text: 'ok' }, { text: 'y'.repeat(281) }] },
      });
      assert.equal(long.status, 400, JSON.stringify(long.body));
      assert.deepEqual(
        long.body.details.map((d: { path: string }) => d.path),
        ['thread[1].text'],
      );
      assert.match(long.body.details[0].message, /Part 3 of the thread: X allows 280 characters; this text has 281/);

      const tooMany = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: {
          channelIds: [x],
          text: 'Fine',
          thread: [{ text: 'pics', imageUrls: [1, 2, 3, 4, 5].map((n) => `https://cdn.example.com/${n}.png`) }],
        },
      });
      assert.equal(tooMany.status, 400, JSON.stringify(tooMany.body));
      assert.equal(tooMany.body.details[0].path, 'thread[0].imageUrls');
      assert.match(
        tooMany.body.details[0].message,
        /Part 2 of the thread: X allows 4 image\(s\) per post; this post has 5/,
      );

      const nowhere = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [a.channelIds[0], linkedin], text: 'Both', thread: [{ text: 'More' }] },
      });
      assert.equal(nowhere.status, 400, JSON.stringify(nowhere.body));
      assert.match(
        nowhere.body.message,
        /LinkedIn does not take threads \(X, Bluesky, Threads and Mastodon do\); publish the parts as separate posts/,
      );
      assert.equal(nowhere.body.details[0].path, 'thread');

      const empty = await create({ text: 'Empty part', thread: [{ text: '  ' }] });
      assert.equal(empty.status, 400);
      assert.match(empty.body.details[0].message, /Part 2 of the thread is empty; give it text or media, or remove it/);

      const withComment = await create({
        text: 'Both replies',
        thread: [{ text: 'A part' }],
        firstComment: { text: 'A comment' },
      });
      assert.equal(withComment.status, 400);
      assert.match(withComment.body.message, /A thread cannot also have a first comment/);
      const draft = await create({ text: 'Draft', saveAsDraft: true, firstComment: { text: 'A comment' } });
      const adding = await t.api('PATCH', `/v1/rest/posts/${draft.body.data[0].id}`, {
        token: a.apiKey,
        body: { thread: [{ text: 'A part' }] },
      });
      assert.equal(adding.status, 400);
      assert.equal(adding.body.details[0].path, 'thread');
      assert.equal(await t.herald.db('posts').whereNotNull('thread').first(), undefined, 'nothing half-written');
    },
  );

  it("takes a thread through MCP's create_text_post and update_post, and shows it in their results", async () => {
    const made = await callTool(t, a.apiKey, 'create_text_post', {
      channelIds: [a.channelIds[0]],
      text: 'From an agent',
      thread: [{ text: 'and more' }],
      saveAsDraft: true,
    });
    assert.equal(made.body.result.isError, undefined, JSON.stringify(made.body));
    const post = made.body.result.structuredContent.data[0];
    assert.deepEqual(
      post.thread.map((p: { text: string }) => p.text),
      ['and more'],
    );
    const updated = await callTool(t, a.apiKey, 'update_post', {
      postId: post.id,
      thread: [{ text: 'and more' }, { text: 'and the end' }],
    });
    assert.equal(updated.body.result.isError, undefined, JSON.stringify(updated.body));
    assert.deepEqual(
      (await get(post.id)).thread.map((p: { text: string }) => p.text),
      ['and more', 'and the end'],
    );
  });

  it("publishes the parts as a reply chain, each reply to the part before it, and shows each part's link", async () => {
    const res = await create({ text: 'Head of the thread', thread: parts });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const id = res.body.data[0].id;
    await testWorker(t).tick();
    const got = await get(id);
    assert.equal(got.status, 'published', got.error);
    const store = t.deps.repos.sandbox;
    const channel = a.channelIds[0];
    const head = got.permalinkUrl.split('/').pop();
    const [second] = await store.replies(channel, head);
    assert.equal(second.text, 'Second: the details');
    const [third] = await store.replies(channel, second.id);
    assert.equal(third.text, 'Third: the end');
    assert.deepEqual(third.media, ['https://cdn.example.com/end.png']);
    assert.equal(await store.countOnChannel(channel), 1, 'the parts are replies, not posts of their own');
    assert.deepEqual(
      got.thread.map((p: { permalinkUrl: string }) => p.permalinkUrl),
      [`${t.url}/sandbox/${channel}/${second.id}`, `${t.url}/sandbox/${channel}/${third.id}`],
    );
    assert.ok(
      got.thread.every((p: { publishedAt: string | null; error: string | null }) => p.publishedAt && p.error === null),
    );
    assert.equal((await t.deps.repos.threadSteps.step(id))?.status, 'done');
    const [event] = await t.herald.db('events').where({ type: 'post.thread.published', post_id: id });
    assert.ok(event, "the chain's end is an event");
    const page = await (await fetch(got.thread[0].permalinkUrl)).text();
    assert.match(
      page,
      new RegExp(`<a href="/sandbox/${channel}/${head}">In reply to</a>`),
      'a part links to the post it replies to',
    );
    assert.match(
      page,
      new RegExp(`<a href="/sandbox/${channel}/${third.id}">Reply</a></p>Third: the end`),
      'and to the part replying to it',
    );
    const tries = await t.herald
      .db('publish_attempts')
      .where({ post_id: id, kind: 'part' })
      .orderBy('seq')
      .select('idempotency_key', 'outcome');
    assert.deepEqual(
      tries.map((row: { idempotency_key: string; outcome: string }) => [row.idempotency_key, row.outcome]),
      [
        [`${id}:part:2:1`, 'published'],
        [`${id}:part:3:1`, 'published'],
      ],
    );
  });

  it('a worker killed between parts: another resumes the chain where it stopped, no part twice', async () => {
    const clock = pinClock(t, new Date().toISOString());
    const id = (await create({ text: 'Killed between parts', thread: parts })).body.data[0].id;
    // The first worker's timers never fire, so its lease is not renewed once it is dead, as a killed process's.
    const still: Timers = { after: () => ({ cancel() {} }), every: () => ({ cancel() {} }) };
    const dying = createWorker({ ...t.deps, timers: still }, createLogger({ quiet: true }), {
      checkMedia: directMedia,
      options: { leaseMs: 1_000 },
    });
    const steps = t.deps.repos.threadSteps;
    const writeThread = steps.writeThread.bind(steps);
    let died = false;
    steps.writeThread = async (...args) => {
      const written = await writeThread(...args);
      if (died) return written;
      died = true;
      // Killed right after part 2 was written, before part 3 was tried.
      return new Promise<boolean>(() => {});
    };
    void dying.tick();
    await eventually(async () => (died ? true : undefined), 'the first worker to write part 2');
    steps.writeThread = writeThread;
    const half = await get(id);
    assert.ok(half.thread[0].permalinkUrl, 'part 2 written');
    assert.equal(half.thread[1].permalinkUrl, null, 'part 3 not yet');

    clock.advance(2_000);
    await testWorker(t).tick();
    const got = await get(id);
    assert.ok(
      got.thread.every((p: { permalinkUrl: string | null }) => p.permalinkUrl),
      JSON.stringify(got.thread),
    );
    const store = t.deps.repos.sandbox;
    const head = got.permalinkUrl.split('/').pop();
    const seconds = await store.replies(a.channelIds[0], head);
    assert.equal(seconds.length, 1, 'part 2 once');
    assert.equal((await store.replies(a.channelIds[0], seconds[0].id)).length, 1, 'part 3 once, replying to part 2');
    const tries = await t.herald
      .db('publish_attempts')
      .where({ post_id: id, kind: 'part' })
      .orderBy('seq')
      .select('idempotency_key');
    assert.deepEqual(
      tries.map((row: { idempotency_key: string }) => row.idempotency_key),
      [`${id}:part:2:1`, `${id}:part:3:1`],
    );
  });

  it(
    'a worker killed mid-part: the part is found by its key, ' +
      'never made twice; one the network never saw is tried again',
    async () => {
      const clock = pinClock(t, new Date().toISOString());
      const store = t.deps.repos.sandbox;
      /** Makes part 2 (when told to), then never answers: the worker dies waiting. */
      class DiesOnPart extends SandboxNetwork {
        constructor(private readonly makeIt: boolean) {
          super(store, t.url, NETWORK_CAPABILITIES.sandbox, () => clock.now());
        }
        override async publish(request: PublishRequest) {
          if (!request.replyTo) return super.publish(request);
          if (this.makeIt) await super.publish(request);
          return new Promise<never>(() => {});
        }
      }
      const still: Timers = { after: () => ({ cancel() {} }), every: () => ({ cancel() {} }) };
      for (const makeIt of [true, false]) {
        const id = (await create({ text: `Killed mid-part (${makeIt ? 'made' : 'not made'})`, thread: parts })).body
          .data[0].id;
        const dying = createWorker({ ...t.deps, timers: still }, createLogger({ quiet: true }), {
          checkMedia: directMedia,
          networks: new NetworkRegistry().register('sandbox', new DiesOnPart(makeIt)),
          options: { leaseMs: 1_000 },
        });
        void dying.tick();
        await eventually(
          async () => (await t.herald.db('publish_attempts').where({ post_id: id, kind: 'part' }).first()) ?? undefined,
          'part 2 tried',
        );
        await eventually(
          async () => (!makeIt || (await store.findByKey(a.channelIds[0], `${id}:part:2`)) ? true : undefined),
          'part 2 made',
        );
        clock.advance(2_000);
        await testWorker(t).tick();
        const got = await get(id);
        assert.ok(
          got.thread.every((p: { permalinkUrl: string | null }) => p.permalinkUrl),
          JSON.stringify(got.thread),
        );
        const head = got.permalinkUrl.split('/').pop();
        const seconds = await store.replies(a.channelIds[0], head);
        assert.equal(seconds.length, 1, 'part 2 once');
        const tries = await t.herald
          .db('publish_attempts')
          .where({ post_id: id, kind: 'part' })
          .orderBy('seq')
          .select('idempotency_key', 'outcome');
        assert.deepEqual(
          tries.map((row: { idempotency_key: string; outcome: string }) => [row.idempotency_key, row.outcome]),
          makeIt
            ? [
                [`${id}:part:2:1`, 'reconciled'],
                [`${id}:part:3:1`, 'published'],
              ]
            : [
                [`${id}:part:2:1`, 'unknown'],
                [`${id}:part:2:2`, 'published'],
                [`${id}:part:3:1`, 'published'],
              ],
        );
      }
    },
  );

  it('a post settled as published by hand says its parts were not sent, and none is sent blind', async () => {
    const clock = pinClock(t, new Date().toISOString());
    const id = (await create({ text: 'Maybe out', thread: parts })).body.data[0].id;
    await dieMidAttempt(t, clock);
    clock.advance(2_000);
    await testWorker(t, {}, cannotTellNetworks(t)).tick();
    assert.equal((await get(id)).status, 'unconfirmed');
    const settled = await t.api('POST', `/v1/rest/posts/${id}/settle`, { token: a.apiKey, body: { published: true } });
    assert.equal(settled.status, 200, JSON.stringify(settled.body));
    assert.match(
      settled.body.data.thread[0].error,
      /The thread's parts were not sent: Herald cannot know the post's id on the network/,
    );
    await testWorker(t).tick();
    assert.equal(
      await t.herald
        .db('sandbox_posts')
        .where({ channel_id: a.channelIds[0] })
        .count<{ n: number }[]>({ n: '*' })
        .then(([r]) => Number(r.n)),
      0,
    );
    assert.equal(await t.deps.repos.threadSteps.step(id), undefined);
  });

  it(
    'a part the network refuses stops the chain, saying why on that part; ' + 'the parts before it stay published',
    async () => {
      class RefusesPart3 extends SandboxNetwork {
        override async publish(request: PublishRequest) {
          if (request.attemptKey.endsWith(':part:3')) {
            throw new NetworkError('permanent', 'the network refused this reply');
          }
          return super.publish(request);
        }
      }
      const networks = new NetworkRegistry().register('sandbox', new RefusesPart3(t.deps.repos.sandbox, t.url));
      const id = (await create({ text: 'Refused part', thread: [...parts, { text: 'Fourth' }] })).body.data[0].id;
      await testWorker(t, {}, networks).tick();
      const got = await get(id);
      assert.equal(got.status, 'published');
      assert.ok(got.thread[0].permalinkUrl);
      assert.equal(got.thread[1].permalinkUrl, null);
      assert.match(
        got.thread[1].error,
        /Part 3 of the thread did not go out, nor the parts after it: the network refused this reply/,
      );
      assert.equal(got.thread[2].permalinkUrl, null);
      assert.equal((await t.deps.repos.threadSteps.step(id))?.status, 'failed');
      const [event] = await t.herald.db('events').where({ type: 'post.thread.failed', post_id: id });
      assert.match(JSON.parse(event.data).reason, /Part 3 of the thread did not go out/);
      assert.match(JSON.parse(event.data).post.thread[1].error, /the network refused this reply/);
    },
  );
});
