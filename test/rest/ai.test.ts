import assert from 'node:assert/strict';
import { countText } from '../../src/domain/networks/text-length.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';

const LAUNCH =
  'We just launched Herald, a self-hosted social publishing tool for small teams. ' +
  'Schedule posts to LinkedIn and Mastodon from one shared calendar.';

/** The AI helpers over REST: the same domain functions as the MCP AI tools, each answer naming its provider. */
describe(`REST /ai: drafts, rewrites, hashtags and images (${TEST_DB})`, function () {
  this.timeout(30_000);
  let t: TestHerald;
  let a: SeededAccount;

  beforeEach(async () => {
    t = await startTestHerald({ validateResponses: true });
    a = await t.seedAccount({ channels: 1 });
  });
  afterEach(() => t.close());

  it("drafts variants within the network's limit, counted its way", async () => {
    const drafted = await t.api('POST', '/v1/rest/ai/post-drafts', {
      token: a.basicKey,
      body: { prompt: LAUNCH, network: 'x', variants: 2 },
    });
    assert.equal(drafted.status, 200, JSON.stringify(drafted.body));
    assert.equal(drafted.body.provider, 'herald-offline');
    assert.deepEqual([drafted.body.network, drafted.body.maxCharacters, drafted.body.variants.length], ['x', 280, 2]);
    for (const variant of drafted.body.variants) assert.ok(countText('x', variant.text) <= 280, variant.text);
    const unknown = await t.api('POST', '/v1/rest/ai/post-drafts', {
      token: a.basicKey,
      body: { prompt: LAUNCH, network: 'myspace' },
    });
    assert.equal(unknown.status, 400);
    assert.match(unknown.body.message, /no connector for network "myspace"/);
  });

  it('rewrites to fit a network named in the request or in the instruction', async () => {
    const named = await t.api('POST', '/v1/rest/ai/rewrites', {
      token: a.basicKey,
      body: { text: LAUNCH.repeat(4), instruction: 'Fit this post.', network: 'mastodon' },
    });
    assert.equal(named.status, 200, JSON.stringify(named.body));
    assert.deepEqual(
      [named.body.network, named.body.maxCharacters, named.body.provider],
      ['mastodon', 500, 'herald-offline'],
    );
    assert.ok(named.body.characters <= 500);
    const inWords = await t.api('POST', '/v1/rest/ai/rewrites', {
      token: a.basicKey,
      body: { text: LAUNCH.repeat(4), instruction: 'shorter, for X' },
    });
    assert.equal(inWords.body.network, 'x');
    assert.ok(countText('x', inWords.body.text) <= 280);
    const empty = await t.api('POST', '/v1/rest/ai/rewrites', {
      token: a.basicKey,
      body: { text: '', instruction: 'shorter' },
    });
    assert.equal(empty.status, 400);
  });

  it('suggests distinct hashtags', async () => {
    const tags = await t.api('POST', '/v1/rest/ai/hashtags', { token: a.basicKey, body: { text: LAUNCH, count: 4 } });
    assert.equal(tags.status, 200, JSON.stringify(tags.body));
    assert.equal(tags.body.provider, 'herald-offline');
    assert.ok(tags.body.hashtags.length > 0 && tags.body.hashtags.length <= 4);
    assert.equal(new Set(tags.body.hashtags.map((tag: string) => tag.toLowerCase())).size, tags.body.hashtags.length);
  });

  it('makes an image into the media library, listed there and servable', async () => {
    const made = await t.api('POST', '/v1/rest/ai/images', {
      token: a.basicKey,
      body: { prompt: 'Spring menu launch', size: 'landscape' },
    });
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.provider, 'herald-offline');
    assert.deepEqual([made.body.data.kind, made.body.data.width, made.body.data.height], ['image', 1536, 1024]);
    const listed = await t.api('GET', '/v1/rest/media', { token: a.basicKey });
    assert.deepEqual(
      listed.body.data.map((m: { id: string }) => m.id),
      [made.body.data.id],
    );
    const served = await fetch(made.body.data.url);
    assert.equal(served.status, 200);
    assert.equal(served.headers.get('content-type'), made.body.data.contentType);
    const control = await t.api('POST', '/v1/rest/ai/images', { token: a.basicKey, body: { prompt: 'a\u0007b' } });
    assert.equal(control.status, 400);
    assert.match(control.body.message, /control character U\+0007/);
  });
});

describe(`REST /ai counts against the account's write budget (${TEST_DB})`, function () {
  this.timeout(30_000);

  it('refuses the third AI call in a minute when the write budget is two, while reads still pass', async () => {
    const t = await startTestHerald({
      rateLimits: {
        restReadsPerMinute: 100_000,
        restWritesPerMinute: 2,
        accountPerHour: 1_000_000,
        mcpPerTokenPerMinute: 100_000,
      },
    });
    try {
      const a = await t.seedAccount({ channels: 1 });
      assert.equal(
        (await t.api('POST', '/v1/rest/ai/hashtags', { token: a.basicKey, body: { text: LAUNCH } })).status,
        200,
      );
      assert.equal(
        (
          await t.api('POST', '/v1/rest/ai/rewrites', {
            token: a.basicKey,
            body: { text: LAUNCH, instruction: 'shorter' },
          })
        ).status,
        200,
      );
      const third = await t.api('POST', '/v1/rest/ai/post-drafts', { token: a.basicKey, body: { prompt: LAUNCH } });
      assert.equal(third.status, 429);
      assert.match(third.body.message, /REST write budget/);
      assert.equal(
        (await t.api('GET', '/v1/rest/media', { token: a.basicKey })).status,
        200,
        'reads have their own budget',
      );
    } finally {
      await t.close();
    }
  });
});
