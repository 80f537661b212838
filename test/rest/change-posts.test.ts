import assert from 'node:assert/strict';
import { futureIso, startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { insertLivePost } from '../support/posts.js';

describe('REST PATCH and DELETE /posts/{postId}', () => {
  let t: TestHerald;
  let a: SeededAccount;
  let liveId: string;
  before(async () => {
    t = await startTestHerald();
    a = await t.seedAccount({ channels: 3 });
    liveId = (await insertLivePost(t.deps, a, Date.now() - 60_000)).id;
  });
  after(() => t.close());

  const schedule = async (body: Record<string, unknown> = {}) =>
    (
      await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [a.channelIds[0]], text: 'original', isScheduled: true, dateTime: futureIso(90), ...body },
      })
    ).body.data[0];
  const patch = (id: string, body: unknown, token = a.apiKey) =>
    t.api('PATCH', `/v1/rest/posts/${id}`, { token, body });

  it('changes text and time and applies channelOptions', async () => {
    const post = await schedule();
    const when = futureIso(200);
    const res = await patch(post.id, { text: 'edited', dateTime: when, channelOptions: { reel: true } });
    assert.equal(res.status, 200);
    const [updated] = res.body.data;
    assert.equal(updated.text, 'edited');
    assert.equal(updated.dateTime, when);
    assert.deepEqual(updated.channelOptions, { reel: true });
  });

  it('retargets the group with channelIds: copies on new channels, removes the left-out ones', async () => {
    const post = await schedule();
    const res = await patch(post.id, { channelIds: [a.channelIds[1], a.channelIds[2]] });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data.map((p: any) => p.channelId).sort(), [a.channelIds[1], a.channelIds[2]].sort());
    assert.ok(res.body.data.every((p: any) => p.groupId === post.groupId && p.text === 'original'));
    assert.equal((await t.api('GET', `/v1/rest/posts/${post.id}`, { token: a.apiKey })).status, 404);
  });

  it("reads a post's group, the post first, and keeps it to the caller's account", async () => {
    const [first, second] = (
      await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: {
          channelIds: [a.channelIds[0], a.channelIds[1]],
          text: 'together',
          isScheduled: true,
          dateTime: futureIso(90),
        },
      })
    ).body.data;
    const group = await t.api('GET', `/v1/rest/posts/${second.id}/group`, { token: a.apiKey });
    assert.equal(group.status, 200);
    assert.deepEqual(
      group.body.data.map((p: any) => p.id),
      [second.id, first.id],
    );
    const alone = await schedule();
    const own = await t.api('GET', `/v1/rest/posts/${alone.id}/group`, { token: a.apiKey });
    assert.deepEqual(
      own.body.data.map((p: any) => p.id),
      [alone.id],
    );
    const other = await t.seedAccount();
    const foreign = await t.api('GET', `/v1/rest/posts/${first.id}/group`, { token: other.apiKey });
    assert.equal(foreign.status, 404);
  });

  it('judges an edit by the channels that get it, not by the posts of its group that keep their own text', async () => {
    const { addChannel } = await import('../../src/domain/provisioning.js');
    const bluesky = await addChannel(t.deps, {
      accountId: a.accountId,
      workspaceId: a.workspaceId,
      network: 'bluesky',
      handle: 'us.bsky.social',
    });
    const made = (
      await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [a.channelIds[0], bluesky.id], text: 'short', isScheduled: true, dateTime: futureIso(90) },
      })
    ).body.data;
    const onSandbox = made.find((p: any) => p.channelId === a.channelIds[0]);
    const long = 'A longer text than Bluesky takes. '.repeat(12);
    const res = await patch(onSandbox.id, { text: long, channelIds: [a.channelIds[0], bluesky.id, a.channelIds[1]] });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const byChannel = new Map(res.body.data.map((p: any) => [p.channelId, p.text]));
    assert.equal(byChannel.get(bluesky.id), 'short', 'the Bluesky post keeps its own text');
    assert.equal(byChannel.get(a.channelIds[1]), long, 'the channel added gets the edited text');

    const single = await schedule();
    const refused = await patch(single.id, { text: long, channelIds: [a.channelIds[0], bluesky.id] });
    assert.equal(refused.status, 400, 'a channel added is held to its network');
    assert.equal((await t.api('GET', `/v1/rest/posts/${single.id}`, { token: a.apiKey })).body.data.text, 'original');
  });

  it('rejects a singular channelId, naming channelIds', async () => {
    const post = await schedule();
    const res = await patch(post.id, { channelId: a.channelIds[1] });
    assert.equal(res.status, 400);
    assert.match(res.body.message, /channelIds/);
  });

  it('rejects coverMediaId on update', async () => {
    const post = await schedule();
    const res = await patch(post.id, { coverMediaId: 'm' });
    assert.equal(res.status, 400);
    assert.match(res.body.message, /coverMediaId/);
  });

  it('refuses a past dateTime on a scheduled post', async () => {
    const post = await schedule();
    const res = await patch(post.id, { dateTime: '2020-01-01T00:00:00Z' });
    assert.equal(res.status, 400);
  });

  it('refuses to change a published post', async () => {
    const post = await schedule();
    await t.herald.db('posts').where({ id: post.id }).update({ status: 'published' });
    const res = await patch(post.id, { text: 'too late' });
    assert.equal(res.status, 409);
    assert.equal(res.body.code, 'post_not_editable');
  });

  it('rejects updates and deletes of live posts with an explanation, not a not-found', async () => {
    for (const id of [liveId, 'live_doesnotexist']) {
      const update = await patch(id, { text: 'x' });
      assert.equal(update.status, 409);
      assert.equal(update.body.code, 'live_post_read_only');
      assert.match(update.body.message, /live post/);
      const del = await t.api('DELETE', `/v1/rest/posts/${id}`, { token: a.apiKey });
      assert.equal(del.status, 409);
      assert.equal(del.body.code, 'live_post_read_only');
    }
  });

  it('deletes a post; a second delete is 404', async () => {
    const post = await schedule();
    const res = await t.api('DELETE', `/v1/rest/posts/${post.id}`, { token: a.apiKey });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.data, { id: post.id, deleted: true });
    assert.equal((await t.api('DELETE', `/v1/rest/posts/${post.id}`, { token: a.apiKey })).status, 404);
  });

  it("answers another account's post ids as if they did not exist", async () => {
    const post = await schedule();
    const other = await t.seedAccount();
    assert.equal((await patch(post.id, { text: 'mine now' }, other.apiKey)).status, 404);
    assert.equal((await t.api('DELETE', `/v1/rest/posts/${post.id}`, { token: other.apiKey })).status, 404);
    assert.equal((await t.api('GET', `/v1/rest/posts/${post.id}`, { token: a.apiKey })).body.data.text, 'original');
  });
});

describe('REST POST /posts/bulk and /posts/bulk-delete', () => {
  let t: TestHerald;
  let a: SeededAccount;
  before(async () => {
    t = await startTestHerald();
    a = await t.seedAccount();
  });
  after(() => t.close());

  const entry = (i: number) => ({
    channelIds: [a.channelIds[0]],
    text: `bulk ${i}`,
    isScheduled: true,
    dateTime: futureIso(60 + i),
  });

  it('accepts 100 entries', async () => {
    const res = await t.api('POST', '/v1/rest/posts/bulk', {
      token: a.apiKey,
      body: { posts: Array.from({ length: 100 }, (_, i) => entry(i)) },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(res.body.summary, { succeeded: 100, failed: 0 });
  });

  it('refuses 101 entries with 400', async () => {
    const res = await t.api('POST', '/v1/rest/posts/bulk', {
      token: a.apiKey,
      body: { posts: Array.from({ length: 101 }, (_, i) => entry(i)) },
    });
    assert.equal(res.status, 400);
    assert.match(res.body.message, /100/);
  });

  it('reports each entry: partial success, coverMediaId rejected per entry', async () => {
    const res = await t.api('POST', '/v1/rest/posts/bulk', {
      token: a.apiKey,
      body: {
        posts: [
          entry(1),
          { ...entry(2), coverMediaId: 'cover' },
          { ...entry(3), dateTime: '2020-01-01T00:00:00Z' },
          { ...entry(4), channelIds: ['nope'] },
          entry(5),
        ],
      },
    });
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.results.map((r: any) => r.ok),
      [true, false, false, false, true],
    );
    assert.deepEqual(res.body.summary, { succeeded: 2, failed: 3 });
    assert.match(res.body.results[1].error.message, /posts\[1\].*coverMediaId/);
    assert.match(res.body.results[2].error.message, /posts\[2\].*future/);
    assert.match(res.body.results[3].error.message, /nope/);
    assert.equal(res.body.results[0].data[0].text, 'bulk 1');
  });

  it('bulk-deletes per id: live ids explained, unknown ids not found, dry run deletes nothing', async () => {
    const live = await insertLivePost(t.deps, a, Date.now() - 1000);
    const post = (await t.api('POST', '/v1/rest/posts', { token: a.apiKey, body: entry(9) })).body.data[0];
    const ids = [post.id, live.id, 'missing'];
    const dry = await t.api('POST', '/v1/rest/posts/bulk-delete', {
      token: a.apiKey,
      body: { postIds: ids, dryRun: true },
    });
    assert.equal(dry.status, 200);
    assert.equal(dry.body.dryRun, true);
    assert.deepEqual(
      dry.body.results.map((r: any) => r.ok),
      [true, false, false],
    );
    assert.equal(dry.body.results[1].error.code, 'live_post_read_only');
    assert.equal(dry.body.results[2].error.code, 'not_found');
    assert.equal((await t.api('GET', `/v1/rest/posts/${post.id}`, { token: a.apiKey })).status, 200);
    const real = await t.api('POST', '/v1/rest/posts/bulk-delete', { token: a.apiKey, body: { postIds: ids } });
    assert.deepEqual(real.body.summary, { succeeded: 1, failed: 2 });
    assert.equal((await t.api('GET', `/v1/rest/posts/${post.id}`, { token: a.apiKey })).status, 404);
    assert.equal((await t.api('GET', `/v1/rest/posts/${live.id}`, { token: a.apiKey })).status, 200);
  });

  it('bulk-delete needs manage_team: 403 insufficient_scope naming it', async () => {
    const res = await t.api('POST', '/v1/rest/posts/bulk-delete', { token: a.basicKey, body: { postIds: ['x'] } });
    assert.equal(res.status, 403);
    assert.equal(res.body.code, 'insufficient_scope');
    assert.match(res.body.message, /manage_team/);
  });
});
