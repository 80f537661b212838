import assert from 'node:assert/strict';
import { futureIso, startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { insertLivePost } from '../support/posts.js';

describe('REST GET /posts', () => {
  let t: TestHerald;
  let a: SeededAccount;
  const created: string[] = [];
  before(async () => {
    t = await startTestHerald();
    a = await t.seedAccount();
    // Created in this order; scheduled for the reverse order, so creation and publish order differ.
    for (let i = 0; i < 5; i++) {
      const res = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: {
          channelIds: [a.channelIds[0]],
          text: `post ${i}`,
          isScheduled: true,
          dateTime: futureIso(600 - i * 60),
          ...(i === 1 ? { imageUrls: ['https://cdn.example/a.jpg'] } : {}),
        },
      });
      created.push(res.body.data[0].id);
    }
  });
  after(() => t.close());

  const list = (query: string, token = a.apiKey) => t.api('GET', `/v1/rest/posts${query}`, { token });

  it('lists scheduled posts by creation time, newest first, and pages with a cursor', async () => {
    const first = await list('?limit=2');
    assert.equal(first.status, 200);
    assert.deepEqual(
      first.body.data.map((p: any) => p.id),
      [created[4], created[3]],
    );
    assert.equal(first.body.paging.hasMore, true);
    const second = await list(`?limit=2&cursor=${encodeURIComponent(first.body.paging.nextCursor)}`);
    assert.deepEqual(
      second.body.data.map((p: any) => p.id),
      [created[2], created[1]],
    );
    const third = await list(`?limit=2&cursor=${encodeURIComponent(second.body.paging.nextCursor)}`);
    assert.deepEqual(
      third.body.data.map((p: any) => p.id),
      [created[0]],
    );
    assert.deepEqual(third.body.paging, { nextCursor: null, hasMore: false });
  });

  it('sends no meta when the account has no live posts', async () => {
    const res = await list('');
    assert.equal('meta' in res.body, false);
  });

  it('filters posts with media with hasAssets', async () => {
    const res = await list('?hasAssets=true');
    assert.deepEqual(
      res.body.data.map((p: any) => p.id),
      [created[1]],
    );
  });

  it('filters by channelIds', async () => {
    const res = await list(`?channelIds=${a.channelIds[1]}`);
    assert.deepEqual(res.body.data, []);
  });

  it('refuses hasAssets=true with livePosts=true', async () => {
    const res = await list('?hasAssets=true&livePosts=true');
    assert.equal(res.status, 400);
    assert.match(res.body.message, /hasAssets/);
  });

  it('refuses a tampered cursor', async () => {
    const first = await list('?limit=1');
    const res = await list(`?cursor=${encodeURIComponent(first.body.paging.nextCursor + 'x')}`);
    assert.equal(res.status, 400);
    assert.equal(res.body.message, 'Invalid cursor');
  });

  describe('with live posts', () => {
    let live: { id: string; at: number }[];
    before(async () => {
      const now = Date.now();
      live = [];
      for (const minutesAgo of [30, 90]) {
        const record = await insertLivePost(t.deps, a, now - minutesAgo * 60_000);
        live.push({ id: record.id, at: record.dateTime! });
      }
    });

    it('flags livePostsAvailable on the first page when no livePosts preference was given', async () => {
      const res = await list('?limit=2');
      assert.deepEqual(res.body.meta, { livePostsAvailable: true });
      assert.ok(
        res.body.data.every((p: any) => !p.isLivePost),
        'live posts are not shown by default',
      );
    });

    it('flags it even when data is empty', async () => {
      const onlyLive = await t.seedAccount();
      await insertLivePost(t.deps, onlyLive, Date.now() - 60_000);
      const res = await list('', onlyLive.apiKey);
      assert.deepEqual(res.body.data, []);
      assert.deepEqual(res.body.meta, { livePostsAvailable: true });
    });

    it('never flags it on later pages, with livePosts stated, or with hasAssets=true', async () => {
      const first = await list('?limit=2');
      const next = await list(`?limit=2&cursor=${encodeURIComponent(first.body.paging.nextCursor)}`);
      assert.equal('meta' in next.body, false);
      assert.equal('meta' in (await list('?livePosts=false')).body, false);
      assert.equal('meta' in (await list('?livePosts=true')).body, false);
      assert.equal('meta' in (await list('?hasAssets=true')).body, false);
    });

    it('never flags it on /posts/scheduled', async () => {
      const res = await t.api('GET', '/v1/rest/posts/scheduled', { token: a.apiKey });
      assert.equal('meta' in res.body, false);
    });

    it('merges live posts with livePosts=true, ordered by publish time, latest first', async () => {
      const res = await list('?livePosts=true&limit=100');
      const ids = res.body.data.map((p: any) => p.id);
      // Scheduled posts are in the future (latest publish time is post 0), live posts in the past.
      assert.deepEqual(ids, [created[0], created[1], created[2], created[3], created[4], live[0].id, live[1].id]);
      const times = res.body.data.map((p: any) => Date.parse(p.dateTime));
      assert.deepEqual(
        times,
        [...times].sort((x, y) => y - x),
      );
    });

    it('shows live posts with every field, null where unset, and metrics', async () => {
      const res = await list('?livePosts=true&limit=100');
      const post = res.body.data.find((p: any) => p.id === live[0].id);
      assert.match(post.id, /^live_/);
      assert.equal(post.isLivePost, true);
      assert.equal(post.isPosted, true);
      assert.equal(post.type, null);
      assert.equal(post.sourceType, null);
      assert.equal(post.approvalStatus, null);
      assert.deepEqual(post.videoUrls, []);
      assert.deepEqual(post.metrics, { likes: 3 });
      assert.equal(post.permalinkUrl, 'https://network.example/p/1');
      for (const key of ['groupId', 'firstComment', 'channelOptions', 'error', 'status']) {
        assert.ok(key in post && post[key] === null, `${key} present and null`);
      }
      const scheduled = res.body.data.find((p: any) => !p.isLivePost);
      assert.equal('metrics' in scheduled, false);
    });

    it('binds the cursor to its mode: switching livePosts gives 400 Invalid cursor', async () => {
      const own = await list('?limit=1');
      const switched = await list(`?livePosts=true&cursor=${encodeURIComponent(own.body.paging.nextCursor)}`);
      assert.equal(switched.status, 400);
      assert.equal(switched.body.message, 'Invalid cursor');
      const merged = await list('?livePosts=true&limit=1');
      const back = await list(`?cursor=${encodeURIComponent(merged.body.paging.nextCursor)}`);
      assert.equal(back.status, 400);
      assert.equal(back.body.message, 'Invalid cursor');
    });

    it('pages the merged listing without gaps or repeats', async () => {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res: any = await list(`?livePosts=true&limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        seen.push(...res.body.data.map((p: any) => p.id));
        cursor = res.body.paging.nextCursor;
      } while (cursor);
      assert.equal(seen.length, 7);
      assert.equal(new Set(seen).size, 7);
    });

    it('reads a live post by id', async () => {
      const res = await t.api('GET', `/v1/rest/posts/${live[0].id}`, { token: a.apiKey });
      assert.equal(res.status, 200);
      assert.equal(res.body.data.isLivePost, true);
    });
  });

  it("never shows another account's posts, and reads of its ids answer 404", async () => {
    const other = await t.seedAccount();
    const res = await list('', other.apiKey);
    assert.deepEqual(res.body.data, []);
    const read = await t.api('GET', `/v1/rest/posts/${created[0]}`, { token: other.apiKey });
    assert.equal(read.status, 404);
  });
});

describe('REST GET /posts/scheduled', () => {
  let t: TestHerald;
  let a: SeededAccount;
  before(async () => {
    t = await startTestHerald();
    a = await t.seedAccount();
  });
  after(() => t.close());

  it('rejects livePosts with 400 and says where to look instead', async () => {
    for (const value of ['true', 'false']) {
      const res = await t.api('GET', `/v1/rest/posts/scheduled?livePosts=${value}`, { token: a.apiKey });
      assert.equal(res.status, 400);
      assert.match(res.body.message, /livePosts/);
    }
  });

  it('lists posts not yet published, soonest first, without drafts', async () => {
    const later = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: { channelIds: [a.channelIds[0]], text: 'later', isScheduled: true, dateTime: futureIso(120) },
    });
    const sooner = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: { channelIds: [a.channelIds[0]], text: 'sooner', isScheduled: true, dateTime: futureIso(60) },
    });
    await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: { channelIds: [a.channelIds[0]], text: 'draft', saveAsDraft: true },
    });
    const res = await t.api('GET', '/v1/rest/posts/scheduled', { token: a.apiKey });
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.data.map((p: any) => p.id),
      [sooner.body.data[0].id, later.body.data[0].id],
    );
  });
});
