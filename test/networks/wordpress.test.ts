import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  OutboundRequestError,
  type OutboundFetcher,
  type OutboundFetchOptions,
  type OutboundResponse,
} from '../../src/domain/outbound.js';
import { connectorChannel } from '../../src/domain/networks/channel-connections.js';
import { createNetworks } from '../../src/publishing/engine.js';
import { TINY_MP4, TINY_PNG } from '../media/fixtures.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { openConnectForm } from '../support/connect-form.js';
import { startWordPress, type LocalWordPress } from '../support/wordpress.js';
import { pinClock, testWorker } from '../publishing/support.js';

/** WordPress against a real site from Debian's packages (test/support/wordpress.ts), one for the whole file. */
describe('WordPress, against a real site', function () {
  this.timeout(60_000);
  let wp: LocalWordPress;
  let images: http.Server;
  let imageUrl: string;
  let videoUrl: string;
  let t: TestHerald;
  let a: SeededAccount;

  before(async () => {
    wp = await startWordPress();
    images = http.createServer((req, res) =>
      req.url?.startsWith('/clip.mp4')
        ? res.writeHead(200, { 'content-type': 'video/mp4' }).end(TINY_MP4)
        : res.writeHead(200, { 'content-type': 'image/png' }).end(TINY_PNG),
    );
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    imageUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}/picture.png`;
    videoUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}/clip.mp4`;
  });
  after(async () => {
    images?.close();
    await wp?.close();
  });
  beforeEach(async () => {
    // The site and the test's images are on 127.0.0.1, which the SSRF guard refuses unless listed.
    t = await startTestHerald({ outboundAllowHosts: ['127.0.0.1'] });
    a = await t.seedAccount({ channels: 0 });
  });
  afterEach(() => t.close());

  async function connect(fields: Record<string, string> = {}) {
    return t.api('POST', '/v1/rest/channels/connect', {
      token: a.apiKey,
      body: {
        network: 'wordpress',
        site: wp.url,
        username: wp.username,
        applicationPassword: wp.applicationPassword,
        ...fields,
      },
    });
  }

  async function connected() {
    const res = await connect();
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data[0];
  }

  async function schedule(channelId: string, body: Record<string, unknown>, channelOptions?: Record<string, unknown>) {
    const res = await t.api('POST', '/v1/rest/posts', { token: a.apiKey, body: { channelIds: [channelId], ...body } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const post = res.body.data[0];
    if (channelOptions) {
      const patched = await t.api('PATCH', `/v1/rest/posts/${post.id}`, { token: a.apiKey, body: { channelOptions } });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
    }
    return post;
  }

  async function get(id: string) {
    return (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
  }

  async function sitePost(id: string) {
    const res = await wp.rest(`/wp/v2/posts/${id}`, { query: { context: 'edit' } });
    assert.equal(res.status, 200, JSON.stringify(res.json));
    return res.json;
  }

  /** A fetcher that passes every call to the real one, and lets a test change what one call answers. */
  function interceptingFetcher(
    intercept: (
      url: string,
      options: OutboundFetchOptions,
      real: () => Promise<OutboundResponse>,
    ) => Promise<OutboundResponse>,
  ): OutboundFetcher {
    return {
      fetch: (url, options) => intercept(decodeURIComponent(url), options, () => t.deps.fetcher.fetch(url, options)),
      probeDirectMedia: (url, options) => t.deps.fetcher.probeDirectMedia(url, options),
      vetUrl: (url, options) => t.deps.fetcher.vetUrl(url, options),
    };
  }

  it(
    'connects with a site, a username and an Application ' + 'Password checked against /wp/v2/users/me, sealed at rest',
    async () => {
      const networks = await t.api('GET', '/v1/rest/networks', { token: a.apiKey });
      const wordpress = networks.body.data.find((n: any) => n.name === 'wordpress');
      assert.deepEqual(
        wordpress.connection.fields.map((f: any) => [f.name, f.required, f.secret]),
        [
          ['site', true, false],
          ['username', true, false],
          ['applicationPassword', true, true],
        ],
      );

      const channel = await connected();
      assert.equal(channel.network, 'wordpress');
      assert.equal(channel.handle, `admin@${new URL(wp.url).host}`);
      const row = await t.herald.db('channels').where({ id: channel.id }).first();
      assert.ok(row.credentials.startsWith('v1.'));
      assert.ok(!row.credentials.includes(wp.applicationPassword));

      const plain = await connect({ site: 'http://blog.example' });
      assert.equal(plain.status, 400);
      assert.match(plain.body.message, /only over https/);

      const wrong = await connect({ applicationPassword: 'abcd efgh ijkl mnop qrst uvwx' });
      assert.equal(wrong.status, 400);
      assert.match(wrong.body.message, /refused the username or Application Password/);

      // A reconnect needs only the password: the site and the username come from the channel.
      const again = await t.api('POST', `/v1/rest/channels/${channel.id}/reconnect`, {
        token: a.apiKey,
        body: { applicationPassword: wp.applicationPassword },
      });
      assert.equal(again.status, 201, JSON.stringify(again.body));
      assert.equal(again.body.data[0].id, channel.id);

      const check = await t.deps.networks.get('wordpress')!.check!(
        connectorChannel(t.deps, (await t.deps.repos.channels.get(a.accountId, channel.id))!),
      );
      assert.deepEqual(check.problems, []);
      assert.ok(check.grantedScopes?.includes('publish_posts'));
    },
  );

  it("connects from the app's channels page, its labels in people's words, saying what to fix", async function () {
    this.timeout(120_000);
    const app = await openConnectForm(t.url, a, 'wordpress');
    try {
      assert.deepEqual(
        (await app.labels()).map((l) => l.split(' ').slice(0, 2).join(' ')),
        ['Site address', 'Username The', 'Application password'],
      );
      await app.send({ site: wp.url, username: wp.username, applicationPassword: '   ' });
      assert.match(
        await app.refusal(),
        /^Fill in the application password: An Application Password made for Herald under Users, Profile/,
      );
      await app.send({ applicationPassword: 'abcd efgh ijkl mnop qrst uvwx' });
      await app.page.waitForSelector('section[data-network="wordpress"] [role=alert] >> text=refused the username');
      await app.send({ applicationPassword: wp.applicationPassword });
      assert.match(await app.connected(), /Connected /);
      const [channel] = (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data;
      assert.equal(channel.handle, `admin@${new URL(wp.url).host}`);
      assert.equal(
        await app.page.inputValue('#connect-wordpress-applicationPassword'),
        '',
        'the password is forgotten',
      );
    } finally {
      await app.close();
    }
  });

  it(
    'publishes the first line as title, the rest as the body, ' + 'a featured image and a category; then a comment',
    async () => {
      const channel = await connected();
      const clock = pinClock(t, new Date().toISOString());
      const post = await schedule(
        channel.id,
        {
          text: 'Spring release\n\nWhat is new: <b>faster</b> & smaller.',
          imageUrls: [imageUrl],
          isScheduled: true,
          dateTime: new Date(clock.now() + 60_000).toISOString(),
          firstComment: { text: 'Questions welcome below', delayMinutes: 1 },
        },
        { category: 'Releases', altText: ['the release logo'] },
      );
      clock.advance(60_000);
      const worker = testWorker(t);
      await worker.tick();
      const published = await get(post.id);
      assert.equal(published.status, 'published', published.error);
      const id = published.networkPostId ?? (await t.herald.db('posts').where({ id: post.id }).first()).network_post_id;
      const site = await sitePost(id);
      assert.equal(site.status, 'publish');
      assert.equal(site.title.raw, 'Spring release');
      assert.equal(site.content.raw, '<p>What is new: &lt;b&gt;faster&lt;/b&gt; &amp; smaller.</p>');
      assert.equal(published.permalinkUrl, site.link);
      const categories = (await wp.rest('/wp/v2/categories', { query: { slug: 'releases' } })).json;
      assert.deepEqual(site.categories, [categories[0].id]);
      const media = (await wp.rest(`/wp/v2/media/${site.featured_media}`, { query: { context: 'edit' } })).json;
      assert.equal(media.mime_type, 'image/png');
      assert.equal(media.alt_text, 'the release logo');

      clock.advance(2 * 60_000);
      await worker.tick();
      const comments = (await wp.rest('/wp/v2/comments', { query: { post: String(site.id), context: 'edit' } })).json;
      assert.equal(comments.length, 1);
      assert.equal(comments[0].content.raw, 'Questions welcome below');
      assert.equal((await t.deps.repos.commentSteps.commentStep(post.id))?.networkCommentId, String(comments[0].id));

      const page = await t.deps.networks
        .get('wordpress')!
        .recentPosts(connectorChannel(t.deps, (await t.deps.repos.channels.get(a.accountId, channel.id))!), {
          cursor: null,
          limit: 10,
        });
      const synced = page.posts.find((p) => p.networkPostId === String(site.id));
      assert.deepEqual(synced?.metrics, { comments: 1 });
    },
  );

  it(
    'tags a post by name, making the tags the site lacks, ' +
      'and puts a video in the body as a video block, as an Author',
    async () => {
      const stamp = Date.now();
      const user = await wp.rest('/wp/v2/users', {
        body: {
          username: `author${stamp}`,
          email: `author${stamp}@example.com`,
          password: 'Author-pw-123456',
          roles: ['author'],
        },
      });
      assert.equal(user.status, 201, JSON.stringify(user.json));
      const password = await wp.rest(`/wp/v2/users/${user.json.id}/application-passwords`, {
        body: { name: 'herald' },
      });
      const res = await connect({ username: user.json.username, applicationPassword: password.json.password });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const channel = res.body.data[0];
      const known = await wp.rest('/wp/v2/tags', { body: { name: `Launch ${stamp}` } });
      assert.equal(known.status, 201, JSON.stringify(known.json));

      const tooMany = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [channel.id], text: 'Two videos', videoUrls: [videoUrl, `${videoUrl}?again`] },
      });
      assert.equal(tooMany.status, 400, 'one video a post');

      const post = await schedule(
        channel.id,
        { text: 'Launch day\n\nWatch it.', imageUrls: [imageUrl], videoUrls: [videoUrl] },
        { tags: [`launch ${stamp}`.toUpperCase(), `Brand new ${stamp}`, `Brand new ${stamp}`] },
      );
      await testWorker(t).tick();
      const published = await get(post.id);
      assert.equal(published.status, 'published', published.error);
      const site = await sitePost((await t.herald.db('posts').where({ id: post.id }).first()).network_post_id);
      const made = (await wp.rest('/wp/v2/tags', { query: { search: `Brand new ${stamp}` } })).json;
      assert.equal(made.length, 1, 'the missing tag was made once');
      assert.deepEqual([...site.tags].sort(), [known.json.id, made[0].id].sort(), 'the known tag found by its name');
      const featured = (await wp.rest(`/wp/v2/media/${site.featured_media}`, { query: { context: 'edit' } })).json;
      assert.equal(featured.mime_type, 'image/png', 'the image is the featured image');
      const block = new RegExp(
        /<!-- wp:video \{"id":(\d+)\} -->\n/.source +
          /<figure class="wp-block-video"><video controls src="([^"]+)"><\/video><\/figure>\n/.source +
          /<!-- \/wp:video -->$/.source,
      ).exec(site.content.raw);
      assert.ok(block, site.content.raw);
      assert.match(site.content.raw, /^<p>Watch it\.<\/p>\n/);
      const video = (await wp.rest(`/wp/v2/media/${block[1]}`, { query: { context: 'edit' } })).json;
      assert.equal(video.mime_type, 'video/mp4');
      assert.equal(block[2], video.source_url);
      assert.match(site.content.rendered, /<video controls src="[^"]+\.mp4"/, 'kept for an Author, shown as a video');
    },
  );

  it(
    'a tag made by someone else between the search and ' + 'the make is the one WordPress names in term_exists',
    async () => {
      const channel = await connected();
      const name = `Raced${Date.now()}`;
      let made: number | undefined;
      const racing = interceptingFetcher(async (url, options, real) => {
        const answer = await real();
        if (options.method !== 'POST' && url.includes('/wp/v2/tags') && url.includes(name) && made === undefined)
          made = (await wp.rest('/wp/v2/tags', { body: { name } })).json.id;
        return answer;
      });
      const post = await schedule(channel.id, { text: 'Tagged in a race' }, { tags: [name] });
      await testWorker(t, {}, createNetworks({ ...t.deps, fetcher: racing })).tick();
      const published = await get(post.id);
      assert.equal(published.status, 'published', published.error);
      assert.ok(made, 'the tag was made during the search');
      const site = await sitePost((await t.herald.db('posts').where({ id: post.id }).first()).network_post_id);
      assert.deepEqual(site.tags, [made]);
    },
  );

  it(
    'a publishAt in the future is sent as a future post that WordPress publishes itself; ' +
      'an unknown category fails',
    async () => {
      const channel = await connected();
      const at = new Date(Date.now() + 3 * 24 * 3_600_000);
      at.setUTCMilliseconds(0);
      const future = await schedule(
        channel.id,
        { text: 'Announced later' },
        { title: 'The announcement', publishAt: at.toISOString() },
      );
      await testWorker(t).tick();
      const got = await get(future.id);
      assert.equal(got.status, 'published', got.error);
      const site = await sitePost((await t.herald.db('posts').where({ id: future.id }).first()).network_post_id);
      assert.equal(site.status, 'future');
      assert.equal(site.title.raw, 'The announcement');
      assert.equal(site.content.raw, '<p>Announced later</p>');
      assert.equal(`${site.date_gmt}Z`, at.toISOString().replace('.000Z', 'Z'));

      const unknown = await schedule(channel.id, { text: 'Nowhere' }, { category: 'No such category' });
      await testWorker(t).tick();
      const failed = await get(unknown.id);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /has no category "No such category"/);
    },
  );

  it(
    "never posts twice: a lost answer is settled by the post's slug, " + 'and a retry after a 502 finds the post first',
    async () => {
      const channel = await connected();
      const lost = await schedule(channel.id, { text: 'Answer lost' });
      const dropping = interceptingFetcher(async (url, options, real) => {
        const answer = await real();
        if (options.method === 'POST' && url.includes('/wp/v2/posts'))
          throw new OutboundRequestError('timeout', 'the site did not answer in time');
        return answer;
      });
      await testWorker(t, {}, createNetworks({ ...t.deps, fetcher: dropping })).tick();
      const settled = await get(lost.id);
      assert.equal(settled.status, 'published', settled.error);
      const attempts = await t.herald
        .db('publish_attempts')
        .where({ post_id: lost.id, kind: 'publish' })
        .select('outcome');
      assert.deepEqual(
        attempts.map((row: { outcome: string }) => row.outcome),
        ['reconciled'],
      );
      const slug = `herald-${lost.id.toLowerCase()}`;
      const found = (
        await wp.rest('/wp/v2/posts', { query: { search: 'Answer lost', status: 'any', context: 'edit' } })
      ).json;
      assert.deepEqual(
        found.map((p: any) => p.slug),
        [slug],
        'one post, under its own slug',
      );

      const clock = pinClock(t, new Date().toISOString());
      const failedLate = await schedule(channel.id, { text: 'Made, then a 502' });
      const proxyFails = interceptingFetcher(async (url, options, real) => {
        const answer = await real();
        if (options.method === 'POST' && url.includes('/wp/v2/posts'))
          return { ...answer, status: 502, body: Buffer.from('<html>Bad Gateway</html>') };
        return answer;
      });
      await testWorker(t, {}, createNetworks({ ...t.deps, fetcher: proxyFails })).tick();
      assert.equal(
        (await t.herald.db('posts').where({ id: failedLate.id }).first()).status,
        'scheduled',
        'a 502 is tried again later',
      );
      clock.advance(60 * 60_000);
      await testWorker(t).tick();
      assert.equal((await get(failedLate.id)).status, 'published');
      const made = (
        await wp.rest('/wp/v2/posts', { query: { search: 'Made, then a 502', status: 'any', context: 'edit' } })
      ).json;
      assert.equal(made.length, 1, 'the retry found the post by its slug instead of making slug-2');
    },
  );

  it('a comment whose answer was lost is found on the post by its text, never made twice', async () => {
    const channel = await connected();
    const clock = pinClock(t, new Date().toISOString());
    const post = await schedule(channel.id, {
      text: 'Commented once',
      firstComment: { text: 'Only one of me', delayMinutes: 1 },
    });
    await testWorker(t).tick();
    const dropping = interceptingFetcher(async (url, options, real) => {
      const answer = await real();
      if (options.method === 'POST' && url.includes('/wp/v2/comments'))
        throw new OutboundRequestError('timeout', 'the site did not answer in time');
      return answer;
    });
    clock.advance(2 * 60_000);
    await testWorker(t, {}, createNetworks({ ...t.deps, fetcher: dropping })).tick();
    assert.equal((await t.deps.repos.commentSteps.commentStep(post.id))?.status, 'pending', 'the outcome is unknown');
    clock.advance(2 * 3_600_000);
    await testWorker(t).tick();
    const siteId = (await t.herald.db('posts').where({ id: post.id }).first()).network_post_id;
    const comments = (await wp.rest('/wp/v2/comments', { query: { post: String(siteId), context: 'edit' } })).json;
    assert.equal(comments.length, 1);
    assert.equal((await t.deps.repos.commentSteps.commentStep(post.id))?.networkCommentId, String(comments[0].id));
  });

  it(
    'a user whose role may not publish is told so by check(), ' + 'and the post fails naming the role it needs',
    async () => {
      const user = await wp.rest('/wp/v2/users', {
        body: {
          username: `reader${Date.now()}`,
          email: `reader${Date.now()}@example.com`,
          password: 'Reader-pw-123456',
          roles: ['subscriber'],
        },
      });
      assert.equal(user.status, 201, JSON.stringify(user.json));
      const password = await wp.rest(`/wp/v2/users/${user.json.id}/application-passwords`, {
        body: { name: 'herald' },
      });
      const res = await connect({ username: user.json.username, applicationPassword: password.json.password });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const channel = res.body.data[0];
      const check = await t.deps.networks.get('wordpress')!.check!(
        connectorChannel(t.deps, (await t.deps.repos.channels.get(a.accountId, channel.id))!),
      );
      assert.equal(check.problems.length, 2);
      assert.match(check.problems[0], /may not publish posts.*Author role/);
      const post = await schedule(channel.id, { text: 'Not allowed' });
      await testWorker(t).tick();
      const got = await get(post.id);
      assert.equal(got.status, 'failed');
      assert.match(got.error, /may not publish posts on .*: give the user the Author role or above/);
      assert.equal(
        (await t.herald.db('channels').where({ id: channel.id }).first()).status,
        'active',
        'a role is not a broken connection',
      );
    },
  );

  it(
    'a revoked Application Password needs a reconnect; ' + "disconnecting revokes Herald's password at the site",
    async () => {
      const channel = await connected();
      const before = (await wp.rest('/wp/v2/users/1/application-passwords')).json.length;
      const extra = await wp.rest('/wp/v2/users/1/application-passwords', { body: { name: 'herald-second' } });
      assert.equal(extra.status, 201);
      const reconnected = await t.api('POST', `/v1/rest/channels/${channel.id}/reconnect`, {
        token: a.apiKey,
        body: { applicationPassword: extra.json.password },
      });
      assert.equal(reconnected.status, 201, JSON.stringify(reconnected.body));

      const disconnected = await t.api('DELETE', `/v1/rest/channels/${channel.id}`, { token: a.apiKey });
      assert.ok(disconnected.status < 300, JSON.stringify(disconnected.body));
      const left = (await wp.rest('/wp/v2/users/1/application-passwords')).json;
      assert.equal(left.length, before, 'the password Herald used is gone, the others stay');
      assert.ok(!left.some((p: any) => p.uuid === extra.json.uuid));

      const again = await connect({ applicationPassword: extra.json.password });
      assert.equal(again.status, 400, 'the revoked password no longer signs in');
      const third = await wp.rest('/wp/v2/users/1/application-passwords', { body: { name: 'herald-third' } });
      const channel2 = (await connect({ applicationPassword: third.json.password })).body.data[0];
      assert.equal(
        (await wp.rest(`/wp/v2/users/1/application-passwords/${third.json.uuid}`, { method: 'DELETE' })).status,
        200,
      );
      const post = await schedule(channel2.id, { text: 'After revocation' });
      await testWorker(t).tick();
      const got = await get(post.id);
      assert.equal(got.status, 'failed');
      assert.match(got.error, /Application Password no longer works/);
      assert.equal((await t.herald.db('channels').where({ id: channel2.id }).first()).status, 'needs_reconnect');
    },
  );
});
