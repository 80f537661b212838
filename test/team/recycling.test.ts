import assert from 'node:assert/strict';
import { recycleDueCollections } from '../../src/domain/recycling/recycling.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { insertLivePost } from '../support/posts.js';
import { DAY, markPublished, pinClock } from './support.js';

describe('team: recycling over REST', () => {
  let t: TestHerald;
  let a: SeededAccount;
  let clock: ReturnType<typeof pinClock>;
  let published: any;
  let tips: any;
  before(async () => {
    t = await startTestHerald();
    a = await t.seedAccount();
    clock = pinClock(t, '2030-01-07T06:00:00Z'); // a Monday
    await t.api('PUT', `/v1/rest/channels/${a.channelIds[0]}/schedule`, {
      token: a.apiKey,
      body: {
        slots: [
          { day: 'mon', time: '09:00' },
          { day: 'thu', time: '09:00' },
        ],
      },
    });
    published = (
      await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [a.channelIds[0]], text: 'Evergreen tip', imageUrls: ['https://cdn.example/a.png'] },
      })
    ).body.data[0];
    await markPublished(t, published.id, clock.now());
    tips = (await t.api('POST', '/v1/rest/labels', { token: a.apiKey, body: { name: 'Tips', color: '#22aa55' } })).body
      .data;
    await t.api('POST', `/v1/rest/posts/${published.id}/labels`, { token: a.apiKey, body: { labelIds: [tips.id] } });
  });
  after(() => t.close());

  const api = (method: string, path: string, body?: unknown, token = a.apiKey) =>
    t.api(method, `/v1/rest${path}`, { token, body });

  it('puts a copy of a published post into the queue, or at a given time', async () => {
    const queued = await api('POST', `/posts/${published.id}/recycle`, {}, a.basicKey);
    assert.equal(queued.status, 201, JSON.stringify(queued.body));
    const copy = queued.body.data;
    assert.notEqual(copy.id, published.id);
    assert.equal(copy.sourceType, 'recycle');
    assert.equal(copy.recycledFromPostId, published.id);
    assert.equal(copy.text, 'Evergreen tip');
    assert.deepEqual(copy.imageUrls, ['https://cdn.example/a.png']);
    assert.equal(copy.dateTime, '2030-01-07T08:00:00.000Z');
    assert.equal(copy.inQueue, true);
    assert.equal(copy.isPosted, false);
    assert.deepEqual(
      copy.labels,
      [{ id: tips.id, name: 'Tips', color: '#22aa55' }],
      "the copy keeps the original's labels",
    );
    assert.deepEqual(
      (await api('GET', `/posts?labelIds=${tips.id}`)).body.data.map((p: any) => p.id).sort(),
      [published.id, copy.id].sort(),
    );
    const timed = await api('POST', `/posts/${published.id}/recycle`, { dateTime: '2030-02-01T12:00:00Z' });
    assert.equal(timed.body.data.dateTime, '2030-02-01T12:00:00.000Z');
    assert.equal(timed.body.data.inQueue, false);
    const history = await api('GET', `/posts/${published.id}/history`);
    assert.deepEqual(
      history.body.data.map((e: any) => e.kind),
      ['created', 'labelled', 'recycled', 'recycled'],
    );
  });

  it('refuses live posts, unpublished posts, and other accounts', async () => {
    const live = await insertLivePost(t.deps, a, clock.now() - DAY);
    const res = await api('POST', `/posts/${live.id}/recycle`, {});
    assert.equal(res.status, 409);
    assert.equal(res.body.code, 'live_post_read_only');
    const draft = (await api('POST', '/posts', { channelIds: [a.channelIds[0]], text: 'd', saveAsDraft: true })).body
      .data[0];
    assert.equal((await api('POST', `/posts/${draft.id}/recycle`, {})).body.code, 'post_not_published');
    const other = await t.seedAccount();
    assert.equal((await api('POST', `/posts/${published.id}/recycle`, {}, other.apiKey)).status, 404);
    assert.deepEqual((await api('GET', '/collections', undefined, other.apiKey)).body.data, []);
  });

  it('re-queues a collection every intervalDays until its end date', async () => {
    const res = await api('POST', `/posts/${published.id}/recycle`, {
      collection: { name: 'Tips', intervalDays: 7, endsAt: '2030-01-25T00:00:00Z' },
    });
    assert.equal(res.status, 201);
    const collection = res.body.collection;
    assert.deepEqual(
      {
        name: collection.name,
        intervalDays: collection.intervalDays,
        nextRunAt: collection.nextRunAt,
        postIds: collection.postIds,
      },
      { name: 'Tips', intervalDays: 7, nextRunAt: '2030-01-14T06:00:00.000Z', postIds: [published.id] },
    );
    const copies = async () =>
      (await t.herald.db('posts').where({ recycled_from_post_id: published.id }).count({ n: '*' }).first())!.n;
    const before = Number(await copies());
    assert.equal(await recycleDueCollections(t.deps), 0, 'nothing is due yet');
    clock.advance(7 * DAY);
    assert.equal(await recycleDueCollections(t.deps), 1);
    assert.equal(await recycleDueCollections(t.deps), 0, 'one run per interval');
    clock.advance(7 * DAY);
    assert.equal(await recycleDueCollections(t.deps), 1);
    clock.advance(7 * DAY); // 4 February: past endsAt
    assert.equal(await recycleDueCollections(t.deps), 0);
    assert.equal(Number(await copies()), before + 2);
    const listed = await api('GET', '/collections');
    assert.equal(listed.body.data.length, 1);
    assert.equal(listed.body.data[0].nextRunAt, null);
    const latest = await t.herald
      .db('posts')
      .where({ recycled_from_post_id: published.id })
      .orderBy('id', 'desc')
      .first();
    const history = await api('GET', `/posts/${latest.id}/history`);
    assert.equal(history.body.data[0].kind, 'recycled');
    assert.equal(history.body.data[0].actorUserId, null, 'Herald re-queued it by itself');
    assert.deepEqual(
      (await api('GET', `/posts/${latest.id}`)).body.data.labels.map((l: any) => l.name),
      ['Tips'],
    );
  });
});
