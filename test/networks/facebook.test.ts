import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { loadConfig } from '../../src/config.js';
import { checkChannelConnection } from '../../src/domain/networks/connection-check.js';
import { TINY_MP4, TINY_PNG } from '../media/fixtures.js';
import { callTool } from '../mcp/support.js';
import { startFakeFacebook, type FakeFacebook } from '../support/fake-facebook.js';
import { assertAudienceInInsights } from '../insights/network-audience.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { openRedirect } from '../support/herald-page.js';
import { serveMediaFiles } from '../support/media-files.js';
import { dieMidAttempt, pinClock, testWorker } from '../publishing/support.js';
import { ensureCliBuilt, HERALD_CLI } from '../support/cli.js';

// The commands run the CLI bundled from src/ (test/support/cli.ts), built before the first.
before(ensureCliBuilt);

/** Facebook Pages through Meta's documented Graph API (test/support/fake-facebook.ts), through the real Herald. */
describe('Facebook Pages, against a fake that speaks the Graph API', function () {
  this.timeout(60_000);
  let facebook: FakeFacebook;
  let files: Awaited<ReturnType<typeof serveMediaFiles>>;
  let imageUrl: string;
  let videoUrl: string;
  let t: TestHerald;
  let a: SeededAccount;

  before(async () => {
    files = await serveMediaFiles({
      '/picture.png': { type: 'image/png', body: TINY_PNG },
      '/film.mp4': { type: 'video/mp4', body: TINY_MP4 },
    });
    imageUrl = `${files.origin}/picture.png`;
    videoUrl = `${files.origin}/film.mp4`;
  });
  after(() => files?.close());

  async function start(configured = true) {
    facebook = await startFakeFacebook();
    // The fakes finish processing after a number of status polls, not seconds: no real wait between polls.
    const defaults = { ...loadConfig({}).networks, pollWaitScale: 0 };
    t = await startTestHerald({
      networkOriginOverrides: { 'https://www.facebook.com': facebook.url, 'https://graph.facebook.com': facebook.url },
      networks: {
        ...defaults,
        apps: configured
          ? { facebook: { clientId: facebook.appId, clientSecret: facebook.appSecret, graphVersion: 'v23.0' } }
          : {},
      },
      // The test's own media files are served on 127.0.0.1, which the SSRF guard refuses unless listed.
      outboundAllowHosts: ['127.0.0.1'],
    });
    facebook.redirectUris.push(`${t.url}/connect/facebook/callback`);
    a = await t.seedAccount({ channels: 0 });
  }
  afterEach(async () => {
    await t?.close();
    await facebook?.close();
  });

  /** Starts connecting, plays the person at Facebook's dialog, and follows the redirect to Herald. */
  async function connectThroughConsent(
    path = '/v1/rest/channels/connect',
    body: Record<string, unknown> = { network: 'facebook' },
  ) {
    const started = await t.api('POST', path, { token: a.apiKey, body });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const consent = await fetch(started.body.authorizationUrl, { redirect: 'manual' });
    assert.equal(consent.status, 302, await consent.text());
    const page = await openRedirect(t, consent.headers.get('location')!);
    return { authorizationUrl: new URL(started.body.authorizationUrl), status: page.status, html: await page.text() };
  }

  async function channels() {
    return (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data as any[];
  }

  async function channelOf(pageId: string) {
    const row = await t.herald.db('channels').where({ network_account_id: pageId }).first();
    return (await channels()).find((c) => c.id === row.id);
  }

  async function get(id: string) {
    return (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
  }

  async function schedule(channelId: string, body: Record<string, unknown>) {
    const res = await t.api('POST', '/v1/rest/posts', { token: a.apiKey, body: { channelIds: [channelId], ...body } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data[0];
  }

  describe('connecting', () => {
    it(
      'connects every Page granted at Facebook Login as its own channel, ' +
        "with a long-lived token's Page token sealed",
      async () => {
        await start();
        const first = await connectThroughConsent();
        assert.equal(first.status, 200, first.html);
        assert.match(first.html, /Connected/);
        assert.equal(
          first.authorizationUrl.origin,
          facebook.url,
          'the real www.facebook.com, rewritten by NETWORK_ORIGIN_OVERRIDES',
        );
        assert.equal(first.authorizationUrl.pathname, '/v23.0/dialog/oauth');
        assert.equal(first.authorizationUrl.searchParams.get('redirect_uri'), `${t.url}/connect/facebook/callback`);
        assert.deepEqual(first.authorizationUrl.searchParams.get('scope')!.split(',').sort(), [
          'business_management',
          'pages_manage_engagement',
          'pages_manage_posts',
          'pages_read_engagement',
          'pages_show_list',
          'publish_video',
          'read_insights',
        ]);
        assert.deepEqual((await channels()).map((c) => [c.network, c.handle, c.status]).sort(), [
          ['facebook', 'Compilers Weekly', 'active'],
          ['facebook', 'Harbor Bakery', 'active'],
        ]);
        assert.ok(facebook.requests.includes('GET /oauth/access_token'));
        assert.equal(
          facebook.requests.filter((r) => r === 'GET /oauth/access_token').length,
          2,
          'the code, then fb_exchange_token',
        );
        const row = await t.herald.db('channels').where({ network_account_id: '501' }).first();
        assert.ok(row.credentials.startsWith('v1.'), 'sealed in the vault');
        assert.ok(!JSON.stringify(await channels()).includes('EAA'), 'no token in the API');
        assert.deepEqual([...facebook.versionsSeen], ['v23.0']);

        // Connecting again updates the same channels; a reconnect keeps to the channel's own Page.
        await connectThroughConsent();
        assert.equal((await channels()).length, 2);
        const bakery = await channelOf('502');
        const again = await connectThroughConsent(`/v1/rest/channels/${bakery.id}/reconnect`, {});
        assert.equal(again.status, 200, again.html);
        assert.equal((await channels()).length, 2);
        assert.deepEqual(facebook.refusals, []);
      },
    );

    it(
      'connects one Page when asked; a Page not granted, ' +
        'a denied dialog or an unconfigured app creates nothing and says why',
      async () => {
        await start();
        const one = await connectThroughConsent('/v1/rest/channels/connect', { network: 'facebook', page: '502' });
        assert.equal(one.status, 200, one.html);
        assert.deepEqual(
          (await channels()).map((c) => c.handle),
          ['Harbor Bakery'],
        );

        facebook.grantPages = ['502'];
        const notGranted = await connectThroughConsent('/v1/rest/channels/connect', {
          network: 'facebook',
          page: '501',
        });
        assert.equal(notGranted.status, 400);
        assert.match(notGranted.html, /Facebook did not grant Herald the Page 501/);
        facebook.grantPages = [];
        const none = await connectThroughConsent();
        assert.equal(none.status, 400);
        assert.match(none.html, /Facebook granted Herald no Page/);

        facebook.denyNext = true;
        const denied = await connectThroughConsent();
        assert.equal(denied.status, 400);
        assert.match(denied.html, /access_denied|Permissions error/);
        assert.equal((await channels()).length, 1);
        await t.close();
        await facebook.close();

        await start(false);
        const networks = await t.api('GET', '/v1/rest/networks', { token: a.apiKey });
        assert.equal(networks.body.data.find((n: any) => n.name === 'facebook').configured, false);
        const refused = await t.api('POST', '/v1/rest/channels/connect', {
          token: a.apiKey,
          body: { network: 'facebook' },
        });
        assert.equal(refused.status, 400);
        assert.match(refused.body.message, /not configured for Facebook/);
      },
    );
  });

  describe('connecting from the CLI', () => {
    it(
      "herald channel connect facebook --page prints Facebook's " + 'dialog and connects that Page after the callback',
      async function () {
        this.timeout(180_000);
        await start();
        const env = {
          ...process.env,
          DATA_DIR: t.config.dataDir,
          DATABASE_URL: t.config.databaseUrl ?? '',
          BASE_URL: t.url,
          // The network's fake listens on loopback, which the SSRF guard refuses unless it is listed.
          OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
          FACEBOOK_APP_ID: facebook.appId,
          FACEBOOK_APP_SECRET: facebook.appSecret,
          FACEBOOK_GRAPH_VERSION: 'v23.0',
          NETWORK_ORIGIN_OVERRIDES: [
            `https://www.facebook.com=${facebook.url}`,
            `https://graph.facebook.com=${facebook.url}`,
          ].join(','),
        };
        const child = spawn('node', [HERALD_CLI, 'channel', 'connect', 'facebook', '--page', '502', '--json'], {
          env,
        });
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk) => {
          stdout += chunk;
        });
        const address = await new Promise<string>((resolve, reject) => {
          child.stderr.on('data', (chunk) => {
            stderr += chunk;
            const found = /(http:\/\/\S+\/dialog\/oauth\S+)/.exec(stderr);
            if (found) resolve(found[1]);
          });
          child.on('exit', () => reject(new Error(`the CLI ended without an address: ${stderr}`)));
        });
        const consent = await fetch(address, { redirect: 'manual' });
        const page = await fetch(consent.headers.get('location')!);
        assert.equal(page.status, 200, await page.text());
        const code = await new Promise((resolve) => child.on('exit', resolve));
        assert.equal(code, 0, stderr);
        assert.deepEqual(
          JSON.parse(stdout).channels.map((c: any) => c.handle),
          ['Harbor Bakery'],
        );
      },
    );
  });

  describe('publishing', () => {
    beforeEach(async () => {
      await start();
      await connectThroughConsent();
    });

    it(
      'publishes text, a link, photos as one feed post of unpublished photos, ' +
        'and a first comment with an attachment',
      async () => {
        const page = await channelOf('501');
        const clock = pinClock(t, new Date().toISOString());
        const text = await schedule(page.id, { text: 'Hello, Facebook (ünïcödé)' });
        const linked = await schedule(page.id, { text: 'Read this' });
        const options = await t.api('PATCH', `/v1/rest/posts/${linked.id}`, {
          token: a.apiKey,
          body: { channelOptions: { link: 'https://example.com/article' } },
        });
        assert.equal(options.status, 200, JSON.stringify(options.body));
        const linkWithPhoto = await schedule(page.id, { text: 'A link and a photo', imageUrls: [imageUrl] });
        await t.api('PATCH', `/v1/rest/posts/${linkWithPhoto.id}`, {
          token: a.apiKey,
          body: { channelOptions: { link: 'https://example.com/article' } },
        });
        const gallery = await schedule(page.id, {
          text: 'Two pictures',
          imageUrls: [imageUrl, `${imageUrl}?2`],
          firstComment: { text: 'More in the comments', mediaUrl: `${imageUrl}?c`, delayMinutes: 1 },
        });
        const worker = testWorker(t);
        await worker.tick();
        for (const id of [text.id, linked.id, gallery.id])
          assert.equal((await get(id)).status, 'published', (await get(id)).error);
        const refused = await get(linkWithPhoto.id);
        assert.equal(refused.status, 'failed');
        assert.match(
          refused.error,
          /Facebook attaches a link only to a post without photos or a video: remove channelOptions.link or the media/,
        );

        const made = (message: string) => facebook.posts.find((p) => p.message === message)!;
        assert.equal(made('Hello, Facebook (ünïcödé)').pageId, '501');
        assert.equal(made('Read this').link, 'https://example.com/article');
        assert.equal(made('Two pictures').photos.length, 2);
        assert.deepEqual(
          facebook.photos.map((p) => [p.published, p.attachedTo]),
          [
            [false, made('Two pictures').id],
            [false, made('Two pictures').id],
          ],
          'nothing uploaded for the refused link',
        );
        assert.equal(facebook.posts.length, 3, 'the photos made no post of their own');
        const published = await get(gallery.id);
        assert.equal(
          published.permalinkUrl,
          `https://www.facebook.com/501/posts/pfbid0${made('Two pictures').id.split('_')[1]}`,
        );

        // The comment is made and its answer lost: the next try finds it among the post's comments, never a second.
        facebook.dropAnswerNext(`POST /${made('Two pictures').id}/comments`);
        clock.advance(2 * 60_000);
        await worker.tick();
        clock.advance(60 * 60_000);
        await worker.tick();
        assert.equal(facebook.comments.length, 1);
        const tries = await t.herald
          .db('publish_attempts')
          .where({ post_id: gallery.id, kind: 'comment' })
          .orderBy('seq')
          .select('outcome');
        assert.deepEqual(
          tries.map((row: { outcome: string }) => row.outcome),
          ['unknown', 'reconciled'],
        );
        const [comment] = facebook.comments;
        assert.equal(comment.objectId, made('Two pictures').id);
        assert.equal(comment.message, 'More in the comments');
        assert.equal(comment.attachmentUrl, `${imageUrl}?c`);
        assert.deepEqual(facebook.refusals, [], 'Meta refused nothing Herald sent');
      },
    );

    it(
      'publishes one video by file_url and waits until Meta has processed it; ' +
        "a processing error fails the post with Meta's reason",
      async () => {
        const page = await channelOf('501');
        facebook.processingPolls = 2;
        const film = await schedule(page.id, { text: 'A film', videoUrls: [videoUrl] });
        await testWorker(t).tick();
        const published = await get(film.id);
        assert.equal(published.status, 'published', published.error);
        const [video] = facebook.videos;
        assert.equal(video.description, 'A film');
        assert.equal(video.fileUrl, videoUrl);
        assert.equal(video.bytes, TINY_MP4.length);
        assert.equal(published.permalinkUrl, `https://www.facebook.com/501/videos/${video.id}/`);
        assert.equal(
          facebook.requests.filter((r) => r === `GET /${video.id}`).length,
          2,
          'read while processing, then ready',
        );

        facebook.failVideoProcessingNext = true;
        const broken = await schedule(page.id, { text: 'A broken film', videoUrls: [videoUrl] });
        await testWorker(t).tick();
        const failed = await get(broken.id);
        assert.equal(failed.status, 'failed');
        assert.match(
          failed.error,
          /Facebook could not process the video \(Video Processing Error: the video codec is not supported\)/,
        );
      },
    );

    it('refuses before the post is due what Facebook would refuse: on REST, MCP and per bulk entry', async () => {
      const page = await channelOf('501');
      const films = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [page.id], text: 'Two films', videoUrls: [videoUrl, `${videoUrl}?2`] },
      });
      assert.equal(films.status, 400);
      assert.match(films.body.message, /Facebook/);
      const mixed = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [page.id], text: 'Mixed', imageUrls: [imageUrl], videoUrls: [videoUrl] },
      });
      assert.equal(mixed.status, 400);
      assert.match(mixed.body.message, /Facebook/);
      // Facebook's 63,206 characters lie beyond Herald's own 10,000, so its media rules are what a post runs into.
      const eleven = Array.from({ length: 11 }, (_, i) => `${imageUrl}?${i}`);
      const many = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [page.id], text: 'Eleven', imageUrls: eleven },
      });
      assert.equal(many.status, 400);
      assert.match(many.body.message, /Facebook allows 10 image\(s\) per post; this post has 11/);
      const post = await schedule(page.id, { text: 'A link' });
      const badLink = await t.api('PATCH', `/v1/rest/posts/${post.id}`, {
        token: a.apiKey,
        body: { channelOptions: { link: 42 } },
      });
      assert.equal(badLink.status, 400);
      assert.match(badLink.body.message, /Facebook: channelOptions\.link/);

      const tool = await callTool(t, a.apiKey, 'create_image_post', {
        channelIds: [page.id],
        text: 'Eleven',
        imageUrls: eleven,
      });
      assert.equal(tool.body.result.isError, true, JSON.stringify(tool.body));
      assert.match(tool.body.result.content[0].text, /Facebook allows 10 image\(s\) per post; this post has 11/);

      const bulk = await t.api('POST', '/v1/rest/posts/bulk', {
        token: a.apiKey,
        body: {
          posts: [
            { channelIds: [page.id], text: 'fits' },
            { channelIds: [page.id], text: 'Eleven', imageUrls: eleven },
          ],
        },
      });
      assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
      assert.deepEqual(bulk.body.summary, { succeeded: 1, failed: 1 });
      assert.match(
        bulk.body.results[1].error.message,
        /^posts\[1\]: .*Facebook allows 10 image\(s\) per post; this post has 11/,
      );
      assert.equal(facebook.posts.length, 0);
    });
  });

  describe('tokens', () => {
    it(
      'an expired Page token is renewed from the user token; ' +
        'when Facebook refuses that too, the channel needs a reconnect',
      async () => {
        await start();
        await connectThroughConsent();
        const page = await channelOf('501');
        const clock = pinClock(t, new Date().toISOString());
        const worker = testWorker(t);
        facebook.expirePageTokens();
        const post = await schedule(page.id, { text: 'After a refresh' });
        await worker.tick();
        assert.equal((await get(post.id)).status, 'scheduled', 'refreshed, then tried again');
        assert.ok(facebook.requests.includes('GET /501'), 'the Page token asked again with the user token');
        clock.advance(60 * 60_000);
        await worker.tick();
        assert.equal((await get(post.id)).status, 'published', (await get(post.id)).error);

        facebook.expirePageTokens();
        facebook.expireUserTokens();
        const refused = await schedule(page.id, { text: 'Refresh refused' });
        await worker.tick();
        clock.advance(60 * 60_000);
        await worker.tick();
        const failed = await get(refused.id);
        assert.equal(failed.status, 'failed');
        assert.match(failed.error, /reconnect/);
        const channel = await channelOf('501');
        assert.equal(channel.status, 'needs_reconnect');
        assert.match(channel.statusReason, /Session has expired/);
        assert.ok((await t.herald.db('events').where({ type: 'channel.needs_reconnect' })).length >= 1);
      },
    );
  });

  describe('failures and exactly once', () => {
    beforeEach(async () => {
      await start();
      await connectThroughConsent();
    });

    it(
      'a throttled Page waits until X-Business-Use-Case-Usage says access returns; ' +
        "a 5xx before posting retries; #368 and #506 fail with Meta's words; a removed app needs a reconnect",
      async () => {
        const page = await channelOf('501');
        const clock = pinClock(t, '2026-11-23T15:00:00.000Z');
        const worker = testWorker(t);
        facebook.failNext(
          '/501/feed',
          400,
          { message: '(#32) Page request limit reached', type: 'OAuthException', code: 32, is_transient: false },
          {
            'x-business-use-case-usage': JSON.stringify({
              501: [
                {
                  type: 'pages',
                  call_count: 100,
                  total_cputime: 12,
                  total_time: 30,
                  estimated_time_to_regain_access: 17,
                },
              ],
            }),
          },
        );
        const limited = await schedule(page.id, { text: 'Rate limited' });
        await worker.tick();
        const waiting = await t.herald.db('posts').where({ id: limited.id }).first();
        assert.equal(waiting.status, 'scheduled');
        const back = Date.parse('2026-11-23T15:17:00.000Z');
        assert.equal(Number(waiting.next_attempt_at), back);
        assert.equal(
          Number((await t.herald.db('channels').where({ id: page.id }).first()).rate_limited_until),
          back,
          'the channel waits too',
        );

        clock.advance(17 * 60_000 + 1);
        facebook.failNext('/501/photos', 500, {
          message: 'An unknown error has occurred.',
          type: 'OAuthException',
          code: 1,
          is_transient: true,
        });
        const photo = await schedule(page.id, { text: 'A photo after a hiccup', imageUrls: [imageUrl] });
        await worker.tick();
        assert.equal((await get(limited.id)).status, 'published');
        assert.equal((await get(photo.id)).status, 'scheduled', 'the unpublished photo failed: tried again later');
        clock.advance(3600_000);
        await worker.tick();
        assert.equal((await get(photo.id)).status, 'published', (await get(photo.id)).error);
        assert.equal(facebook.posts.length, 2, 'the refused calls made nothing');

        facebook.failNext('/501/feed', 400, {
          message:
            'It looks like you were misusing this feature by going too fast. ' +
            "You've been temporarily blocked from using it.",
          type: 'OAuthException',
          code: 368,
          error_subcode: 1390008,
        });
        const blocked = await schedule(page.id, { text: 'Blocked' });
        await worker.tick();
        assert.equal((await get(blocked.id)).status, 'failed');
        assert.match(
          (await get(blocked.id)).error,
          /Facebook answered: It looks like you were misusing this feature.*\(code 368, subcode 1390008\)/,
        );

        facebook.postExternally('501', 'Said twice');
        const duplicate = await schedule(page.id, { text: 'Said twice' });
        await worker.tick();
        assert.equal((await get(duplicate.id)).status, 'failed');
        assert.match((await get(duplicate.id)).error, /Duplicate status message \(code 506\)/);

        facebook.revokeAll();
        const revoked = await schedule(page.id, { text: 'After removal' });
        await worker.tick();
        assert.match((await get(revoked.id)).error, /reconnect/);
        const channel = await channelOf('501');
        assert.equal(channel.status, 'needs_reconnect');
        assert.match(channel.statusReason, /has not authorized application.*code 190, subcode 458/);
      },
    );

    it(
      "an answer whose X-App-Usage says the app's hour is spent pauses " +
        "the channel for Meta's rolling hour, though the post went out",
      async () => {
        const page = await channelOf('501');
        const clock = pinClock(t, '2026-11-23T15:00:00.000Z');
        facebook.appUsage = { call_count: 100, total_cputime: 40, total_time: 55 };
        const post = await schedule(page.id, { text: 'Last call this hour' });
        await testWorker(t).tick();
        assert.equal((await get(post.id)).status, 'published');
        assert.equal(
          Number((await t.herald.db('channels').where({ id: page.id }).first()).rate_limited_until),
          clock.now() + 3600_000,
        );
      },
    );

    it(
      'a permission the person unticked (#200) ' + 'fails the first comment, saying a reconnect granting it mends it',
      async () => {
        facebook.declineScopes = ['pages_manage_engagement'];
        await connectThroughConsent();
        const page = await channelOf('501');
        const clock = pinClock(t, new Date().toISOString());
        const post = await schedule(page.id, {
          text: 'Comment refused',
          firstComment: { text: 'First!', delayMinutes: 1 },
        });
        const worker = testWorker(t);
        await worker.tick();
        assert.equal((await get(post.id)).status, 'published');
        clock.advance(2 * 60_000);
        await worker.tick();
        assert.equal(facebook.comments.length, 0);
        const [failed] = await t.herald.db('events').where({ type: 'post.first_comment.failed' });
        assert.ok(failed, 'the comment failed');
        assert.match(
          JSON.stringify(failed),
          new RegExp(
            /requires the pages_manage_engagement permission.*/.source +
              /reconnect the channel and grant the permission Herald asks for/.source,
          ),
        );
      },
    );

    it("a feed post made before its answer was lost is found among the Page's posts, never made twice", async () => {
      const page = await channelOf('501');
      const post = await schedule(page.id, { text: 'Answer lost', imageUrls: [imageUrl, `${imageUrl}?2`] });
      facebook.dropAnswerNext('POST /501/feed');
      await testWorker(t).tick();
      const got = await get(post.id);
      assert.equal(got.status, 'published', got.error);
      assert.equal(facebook.posts.length, 1);
      assert.equal(got.permalinkUrl, `https://www.facebook.com/501/posts/pfbid0${facebook.posts[0].id.split('_')[1]}`);
      assert.deepEqual(
        (await t.deps.repos.publishAttempts.attempts(a.accountId, post.id)).map((x) => x.outcome),
        ['reconciled'],
      );

      // The same words posted on Facebook without the attempt's photos are not the attempt's post.
      const other = await schedule(page.id, { text: 'Same words', imageUrls: [imageUrl] });
      facebook.failNext('/501/feed', 500, {
        message: 'An unexpected error has occurred. Please retry your request later.',
        type: 'OAuthException',
        code: 2,
        is_transient: true,
      });
      facebook.postExternally('501', 'Same words');
      await testWorker(t).tick();
      assert.equal((await get(other.id)).status, 'unconfirmed');

      const film = await schedule(page.id, { text: 'Film answer lost', videoUrls: [videoUrl] });
      facebook.dropAnswerNext('POST /501/videos');
      await testWorker(t).tick();
      const video = await get(film.id);
      assert.equal(video.status, 'published', video.error);
      assert.equal(facebook.videos.length, 1, "found among the Page's videos");
      assert.deepEqual(facebook.refusals, []);
      assert.ok(facebook.requests.includes('GET /501/videos'));
    });

    it(
      'a transient error to the feed post is an unknown outcome: ' +
        'looked up, and without a post found it waits for a person, not a retry',
      async () => {
        const page = await channelOf('501');
        const post = await schedule(page.id, { text: 'Transient' });
        facebook.failNext('/501/feed', 500, {
          message: 'An unexpected error has occurred. Please retry your request later.',
          type: 'OAuthException',
          code: 2,
          is_transient: true,
        });
        const worker = testWorker(t);
        await worker.tick();
        const got = await get(post.id);
        assert.equal(got.status, 'unconfirmed');
        assert.match(got.error, /cannot confirm/);
        await worker.tick();
        assert.equal(facebook.posts.length, 0, 'never posted blind');
        assert.ok(facebook.requests.includes('GET /501/published_posts'), "the Page's posts were looked at");
      },
    );

    it("a worker that died mid-publish is settled from the Page's posts by its text and time", async () => {
      const page = await channelOf('501');
      const clock = pinClock(t, new Date().toISOString());
      const post = await schedule(page.id, { text: 'Worker died' });
      const [claimed] = await dieMidAttempt(t, clock);
      assert.equal(claimed, post.id);
      // The dead worker's feed post got through before it died.
      facebook.postExternally('501', 'Worker died');
      clock.advance(2_000);
      await testWorker(t).tick();
      const got = await get(post.id);
      assert.equal(got.status, 'published', got.error);
      assert.equal(facebook.posts.length, 1, 'found, not made again');

      const lost = await schedule(page.id, { text: 'Worker died before the call' });
      await dieMidAttempt(t, clock);
      clock.advance(2_000);
      await testWorker(t).tick();
      assert.equal((await get(lost.id)).status, 'unconfirmed', 'not found: a person decides, no blind retry');
      assert.equal(facebook.posts.length, 1);
    });
  });

  describe('sync and check', () => {
    beforeEach(async () => {
      await start();
      await connectThroughConsent();
    });

    it(
      "syncs the Page's posts written on Facebook with reactions, " +
        'comments, shares and the views insight, page by page',
      async () => {
        const page = await channelOf('501');
        facebook.postExternally('501', 'Written on Facebook', { reactions: 7, shares: 2, views: 140 });
        facebook.postExternally('501', 'Second');
        facebook.postExternally('501', 'Third');
        facebook.postExternally('502', 'On the other Page');
        await testWorker(t, { syncDepth: 2 }).sync();
        const live = await t.api('GET', `/v1/rest/posts?livePosts=true&channelIds=${page.id}`, { token: a.apiKey });
        const found = live.body.data.filter((p: any) => p.isLivePost);
        assert.deepEqual(found.map((p: any) => p.text).sort(), ['Second', 'Third', 'Written on Facebook']);
        assert.deepEqual(found.find((p: any) => p.text === 'Written on Facebook').metrics, {
          reactions: 7,
          comments: 0,
          shares: 2,
          post_total_media_view_unique: 140,
        });
        assert.equal(
          facebook.requests.filter((r) => r === 'GET /501/published_posts').length,
          2,
          'two posts a page, then the older one by its cursor',
        );
        assert.deepEqual(facebook.refusals, [], 'no deprecated insight metric asked for');
      },
    );

    it("reads the Page's followers_count at each sync as the channel's audience in REST insights", async () => {
      await assertAudienceInInsights(t, a.apiKey, (await channelOf('501')).id, (n) => {
        facebook.pages[0].followers_count = n;
      });
    });

    it(
      'herald network check: the Page token, the Page, ' + 'the granted permissions, and what is missing or ending',
      async () => {
        const page = await channelOf('501');
        const good = await checkChannelConnection(t.deps, { channelId: page.id });
        assert.deepEqual(good.problems, []);
        assert.equal(good.ok, true);
        assert.equal(good.account, 'Compilers Weekly');
        assert.ok(good.grantedScopes!.includes('pages_manage_posts'));

        facebook.declineScopes = ['read_insights'];
        facebook.dataAccessSeconds = 3 * 24 * 3600;
        await connectThroughConsent();
        const partial = await checkChannelConnection(t.deps, { channelId: page.id });
        assert.equal(partial.ok, false);
        assert.match(
          partial.problems.join(' '),
          new RegExp(
            /Facebook did not grant read_insights, which Herald needs to read post insights for live sync: /.source +
              /reconnect and allow it/.source,
          ),
        );
        assert.match(
          partial.problems.join(' '),
          /Facebook's data access for this connection ends \d{4}-\d{2}-\d{2}: reconnect the channel before then/,
        );

        facebook.revokeAll();
        const revoked = await checkChannelConnection(t.deps, { channelId: page.id });
        assert.equal(revoked.ok, false);
        assert.match(revoked.problems.join(' '), /no longer valid .*not authorized application.*reconnect the channel/);
        assert.ok(!JSON.stringify(revoked).includes('EAA'), 'no token in the answer');
      },
    );
  });
});
