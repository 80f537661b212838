import assert from 'node:assert/strict';
import { futureIso, startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { insertLivePost } from '../support/posts.js';

describe('team: labels over REST', () => {
  let t: TestHerald;
  let a: SeededAccount;
  let other: SeededAccount;
  before(async () => {
    t = await startTestHerald();
    a = await t.seedAccount();
    other = await t.seedAccount();
  });
  after(() => t.close());

  const api = (method: string, path: string, body?: unknown, token = a.apiKey) =>
    t.api(method, `/v1/rest${path}`, { token, body });
  const post = async (text: string) =>
    (await api('POST', '/posts', { channelIds: [a.channelIds[0]], text, isScheduled: true, dateTime: futureIso(600) }))
      .body.data[0];

  let evergreen: any;
  let promo: any;

  it('creates workspace labels, unique by name whatever the case, with a #rrggbb colour', async () => {
    const created = await api('POST', '/labels', { name: 'Evergreen', color: '#22AA55' }, a.basicKey);
    assert.equal(created.status, 201);
    evergreen = created.body.data;
    assert.equal(evergreen.color, '#22aa55');
    assert.equal(evergreen.workspaceId, a.workspaceId);
    promo = (await api('POST', '/labels', { name: 'Promo', color: '#ff0000' })).body.data;
    const dup = await api('POST', '/labels', { name: 'EVERGREEN', color: '#000000' });
    assert.equal(dup.status, 409);
    assert.equal(dup.body.code, 'label_exists');
    assert.equal((await api('POST', '/labels', { name: 'x', color: 'green' })).status, 400);
    // Another account may use the same name, and sees only its own labels.
    assert.equal((await api('POST', '/labels', { name: 'Evergreen', color: '#123456' }, other.apiKey)).status, 201);
    assert.deepEqual(
      (await api('GET', '/labels')).body.data.map((l: any) => l.name),
      ['Evergreen', 'Promo'],
    );
    assert.deepEqual(
      (await api('GET', '/labels', undefined, other.apiKey)).body.data.map((l: any) => l.name),
      ['Evergreen'],
    );
  });

  it('applies and removes labels; posts carry them and GET /posts filters by labelIds', async () => {
    const p1 = await post('one');
    const p2 = await post('two');
    assert.deepEqual(p1.labels, []);
    const applied = await api('POST', `/posts/${p1.id}/labels`, { labelIds: [promo.id, evergreen.id] });
    assert.equal(applied.status, 200);
    assert.deepEqual(
      applied.body.data.labels.map((l: any) => l.name),
      ['Evergreen', 'Promo'],
    );
    await api('POST', `/posts/${p2.id}/labels`, { labelIds: [promo.id] });
    const filtered = await api('GET', `/posts?labelIds=${evergreen.id}`);
    assert.deepEqual(
      filtered.body.data.map((p: any) => p.id),
      [p1.id],
    );
    const either = await api('GET', `/posts?labelIds=${evergreen.id}&labelIds=${promo.id}`);
    assert.deepEqual(either.body.data.map((p: any) => p.id).sort(), [p1.id, p2.id].sort());
    // A listing reads each post's labels with its page: every label whole, by name.
    const listed = (await api('GET', '/posts?limit=100')).body.data;
    assert.deepEqual(
      listed.find((p: any) => p.id === p1.id).labels,
      [evergreen, promo].map(({ id, name, color }: any) => ({ id, name, color })),
    );
    assert.deepEqual(
      listed.find((p: any) => p.id === p2.id).labels.map((l: any) => l.name),
      ['Promo'],
    );
    const removed = await api('DELETE', `/posts/${p1.id}/labels/${promo.id}`);
    assert.deepEqual(
      removed.body.data.labels.map((l: any) => l.name),
      ['Evergreen'],
    );
    const history = await api('GET', `/posts/${p1.id}/history`);
    assert.deepEqual(
      history.body.data.map((e: any) => e.kind),
      ['created', 'labelled', 'unlabelled'],
    );
    assert.equal(history.body.data[1].actorUserId, a.userId);
    // Another account's label cannot be put on this account's post, nor this post labelled by another account.
    const foreign = (await api('GET', '/labels', undefined, other.apiKey)).body.data[0];
    assert.equal((await api('POST', `/posts/${p1.id}/labels`, { labelIds: [foreign.id] })).status, 404);
    assert.equal((await api('POST', `/posts/${p1.id}/labels`, { labelIds: [foreign.id] }, other.apiKey)).status, 404);
  });

  it('records a retargeted copy in the history of both posts', async () => {
    const p = await post('moving');
    const res = await api('PATCH', `/posts/${p.id}`, { channelIds: [a.channelIds[0], a.channelIds[1]] });
    const copy = res.body.data.find((x: any) => x.id !== p.id);
    assert.deepEqual(
      (await api('GET', `/posts/${p.id}/history`)).body.data.map((e: any) => e.kind),
      ['created', 'updated'],
    );
    const copyHistory = (await api('GET', `/posts/${copy.id}/history`)).body.data;
    assert.deepEqual(
      copyHistory.map((e: any) => [e.kind, e.details.copiedFrom]),
      [['created', p.id]],
    );
  });

  it('refuses labels on live posts with an explanation', async () => {
    const live = await insertLivePost(t.deps, a, Date.now() - 60_000);
    const res = await api('POST', `/posts/${live.id}/labels`, { labelIds: [evergreen.id] });
    assert.equal(res.status, 409);
    assert.equal(res.body.code, 'live_post_read_only');
    assert.equal((await api('DELETE', `/posts/${live.id}/labels/${evergreen.id}`)).status, 409);
    const listed = await api('GET', `/posts/${live.id}`);
    assert.deepEqual(listed.body.data.labels, []);
  });

  it('bulk-label needs manage_team and answers per id', async () => {
    const p3 = await post('three');
    const live = await insertLivePost(t.deps, a, Date.now() - 60_000);
    const denied = await api('POST', '/posts/bulk-label', { postIds: [p3.id], labelIds: [promo.id] }, a.basicKey);
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, 'insufficient_scope');
    assert.match(denied.body.message, /manage_team/);
    const res = await api('POST', '/posts/bulk-label', { postIds: [p3.id, live.id, 'nope'], labelIds: [promo.id] });
    assert.equal(res.status, 200);
    assert.deepEqual(
      res.body.results.map((r: any) => [r.id, r.ok, r.error?.code]),
      [
        [p3.id, true, undefined],
        [live.id, false, 'live_post_read_only'],
        ['nope', false, 'not_found'],
      ],
    );
    assert.deepEqual(res.body.summary, { succeeded: 1, failed: 2 });
    const off = await api('POST', '/posts/bulk-label', { postIds: [p3.id], labelIds: [promo.id], action: 'remove' });
    assert.equal(off.body.summary.succeeded, 1);
    assert.deepEqual((await api('GET', `/posts/${p3.id}`)).body.data.labels, []);
  });
});
