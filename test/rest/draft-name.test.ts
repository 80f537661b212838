import assert from 'node:assert/strict';
import { futureIso, startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';

describe('isDraft on post writes, the name posts are read back with', () => {
  let t: TestHerald;
  let a: SeededAccount;
  before(async () => {
    t = await startTestHerald();
    a = await t.seedAccount();
  });
  after(() => t.close());

  const create = (body: Record<string, unknown>) =>
    t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: { channelIds: [a.channelIds[0]], text: 'Hello', ...body },
    });

  it('makes a draft on create, as saveAsDraft does, and agrees with it when both are given', async () => {
    const draft = await create({ isDraft: true, dateTime: futureIso() });
    assert.equal(draft.status, 201, JSON.stringify(draft.body));
    assert.equal(draft.body.data[0].isDraft, true);
    assert.equal(draft.body.data[0].status, 'draft');
    const both = await create({ isDraft: true, saveAsDraft: true });
    assert.equal(both.status, 201);
    assert.equal(both.body.data[0].isDraft, true);
    const scheduled = await create({ isDraft: false, isScheduled: true, dateTime: futureIso() });
    assert.equal(scheduled.status, 201);
    assert.equal(scheduled.body.data[0].status, 'scheduled');
  });

  it('answers 400 naming isDraft when it disagrees with saveAsDraft, and writes nothing', async () => {
    const before = (await t.api('GET', '/v1/rest/posts', { token: a.apiKey })).body.data.length;
    const refused = await create({ isDraft: false, saveAsDraft: true });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.message, 'isDraft (false) and saveAsDraft (true) disagree; send one of them.');
    assert.deepEqual(refused.body.details, [
      { path: 'isDraft', message: 'It means the same as saveAsDraft: send only one, or the same value in both.' },
    ]);
    assert.equal((await t.api('GET', '/v1/rest/posts', { token: a.apiKey })).body.data.length, before);
  });

  it('moves a post into and out of drafts on update', async () => {
    const post = (await create({ isScheduled: true, dateTime: futureIso() })).body.data[0];
    const drafted = await t.api('PATCH', `/v1/rest/posts/${post.id}`, { token: a.apiKey, body: { isDraft: true } });
    assert.equal(drafted.status, 200, JSON.stringify(drafted.body));
    assert.equal(drafted.body.data[0].isDraft, true);
    const refused = await t.api('PATCH', `/v1/rest/posts/${post.id}`, {
      token: a.apiKey,
      body: { isDraft: true, saveAsDraft: false },
    });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.details[0].path, 'isDraft');
    const back = await t.api('PATCH', `/v1/rest/posts/${post.id}`, {
      token: a.apiKey,
      body: { isDraft: false, isScheduled: true, dateTime: futureIso(90) },
    });
    assert.equal(back.status, 200, JSON.stringify(back.body));
    assert.equal(back.body.data[0].isDraft, false);
    assert.equal(back.body.data[0].status, 'scheduled');
  });

  it('takes isDraft in each entry of a bulk create', async () => {
    const bulk = await t.api('POST', '/v1/rest/posts/bulk', {
      token: a.apiKey,
      body: { posts: [{ channelIds: [a.channelIds[1]], text: 'Bulk', isDraft: true }] },
    });
    assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
    assert.equal(bulk.body.results[0].data[0].isDraft, true);
  });
});
