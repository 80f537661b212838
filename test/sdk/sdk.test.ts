import assert from 'node:assert/strict';
import { createHeraldClient } from '../../generated/sdk/index.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';

describe('the generated SDK', () => {
  let t: TestHerald;
  let a: SeededAccount;
  before(async () => {
    t = await startTestHerald();
    a = await t.seedAccount();
  });
  after(() => t.close());

  it('creates and lists posts with types from the spec', async () => {
    const herald = createHeraldClient({ baseUrl: t.url, token: a.apiKey });
    const channels = await herald.GET('/channels');
    assert.equal(channels.data?.data.length, 2);
    const created = await herald.POST('/posts', { body: { channelIds: [channels.data!.data[0].id], text: 'from the SDK' } });
    assert.equal(created.response.status, 201);
    const listed = await herald.GET('/posts', { params: { query: { limit: 10 } } });
    assert.equal(listed.data?.data[0].text, 'from the SDK');
  });

  it('returns the error body on failure', async () => {
    const herald = createHeraldClient({ baseUrl: t.url, token: a.apiKey });
    const res = await herald.GET('/posts/scheduled', { params: { query: { livePosts: true } } });
    assert.equal(res.response.status, 400);
    assert.equal(res.error?.status, false);
    assert.match(res.error!.message, /livePosts/);
  });

  it('is typed by the spec', () => {
    const herald = createHeraldClient({ baseUrl: t.url, token: a.apiKey });
    // These lines only have to compile wrongly: tsc (make test's typecheck) fails if the types loosen.
    const misuse = () => {
      // @ts-expect-error channelIds is required on create
      void herald.POST('/posts', { body: { text: 'no channels' } });
      // @ts-expect-error unknown route
      void herald.GET('/nope');
      // @ts-expect-error limit is a number
      void herald.GET('/posts', { params: { query: { limit: 'ten' } } });
    };
    assert.equal(typeof misuse, 'function');
  });
});
