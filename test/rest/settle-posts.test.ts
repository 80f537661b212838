import assert from 'node:assert/strict';
import { cannotTellNetworks, dieMidAttempt, pinClock, testWorker } from '../publishing/support.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';

describe('POST /posts/{postId}/settle: an unconfirmed post marked by a person who checked the network', () => {
  let t: TestHerald;
  let a: SeededAccount;
  beforeEach(async () => {
    t = await startTestHerald();
    a = await t.seedAccount({ channels: 1 });
  });
  afterEach(() => t.close());

  async function unconfirmedPost(): Promise<string> {
    const clock = pinClock(t, new Date().toISOString());
    const res = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: { channelIds: [a.channelIds[0]], text: 'Maybe out' },
    });
    const id = res.body.data[0].id;
    await dieMidAttempt(t, clock);
    clock.advance(2_000);
    // The sandbox itself can tell an attempt made nothing (and retries it); a person settles where a network cannot.
    await testWorker(t, {}, cannotTellNetworks(t)).tick();
    return id;
  }

  it('marks it published with its address, and refuses to settle it twice', async () => {
    const id = await unconfirmedPost();
    const bad = await t.api('POST', `/v1/rest/posts/${id}/settle`, {
      token: a.apiKey,
      body: { published: true, permalinkUrl: 'javascript:alert(1)' },
    });
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /permalinkUrl/);
    const res = await t.api('POST', `/v1/rest/posts/${id}/settle`, {
      token: a.apiKey,
      body: { published: true, permalinkUrl: 'https://social.example/@me/1' },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.status, 'published');
    assert.equal(res.body.data.permalinkUrl, 'https://social.example/@me/1');
    const again = await t.api('POST', `/v1/rest/posts/${id}/settle`, { token: a.apiKey, body: { published: false } });
    assert.equal(again.status, 409);
    assert.match(again.body.message, /is published; only an unconfirmed post/);
  });

  it('marks it not published: failed, saying a person checked; another account cannot see it', async () => {
    const id = await unconfirmedPost();
    const other = await t.seedAccount();
    assert.equal(
      (await t.api('POST', `/v1/rest/posts/${id}/settle`, { token: other.apiKey, body: { published: false } })).status,
      404,
    );
    const res = await t.api('POST', `/v1/rest/posts/${id}/settle`, { token: a.apiKey, body: { published: false } });
    assert.equal(res.body.data.status, 'failed');
    assert.match(res.body.data.error, /A person checked the network/);
    assert.deepEqual(
      res.body.data.attempts.map((x: any) => x.outcome),
      ['permanent'],
    );
  });
});
