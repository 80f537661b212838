import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { loadConfig } from '../../src/config.js';
import { checkChannelConnection } from '../../src/domain/networks/connection-check.js';
import { TINY_JPEG, TINY_MP4 } from '../media/fixtures.js';
import { callTool } from '../mcp/support.js';
import { startFakeInstagram, type FakeInstagram } from '../support/fake-instagram.js';
import { assertAudienceInInsights } from '../insights/network-audience.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { openRedirect } from '../support/herald-page.js';
import { serveMediaFiles } from '../support/media-files.js';
import { dieMidAttempt, pinClock, testWorker } from '../publishing/support.js';
import { ensureCliBuilt, HERALD_CLI } from '../support/cli.js';

// The commands run the CLI bundled from src/ (test/support/cli.ts), built before the first.
before(ensureCliBuilt);

/** The smallest JPEG whose frame header says its size (1 x 1), as Herald reads it. */
const DAY_MS = 24 * 3600_000;

/** Instagram through its documented wire format (test/support/fake-instagram.ts), through the real Herald. */
describe('Instagram, against a fake that speaks its documented API', function () {
  this.timeout(60_000);
  let instagram: FakeInstagram;
  let files: Awaited<ReturnType<typeof serveMediaFiles>>;
  let imageUrl: string;
  let videoUrl: string;
  let previewUrl: string;
  let t: TestHerald;
  let a: SeededAccount;

  before(async () => {
    files = await serveMediaFiles({
      '/picture.jpg': { type: 'image/jpeg', body: TINY_JPEG },
      '/film.mp4': { type: 'video/mp4', body: TINY_MP4 },
      '/preview/picture.jpg': {
        type: 'text/html',
        body: '<!DOCTYPE html><html><body>Preview of picture.jpg</body></html>',
      },
    });
    imageUrl = `${files.origin}/picture.jpg`;
    videoUrl = `${files.origin}/film.mp4`;
    previewUrl = `${files.origin}/preview/picture.jpg`;
  });
  after(() => files?.close());

  async function start(configured = true, facebook = false) {
    instagram = await startFakeInstagram();
    // The fakes finish processing after a number of status polls, not seconds: no real wait between polls.
    const defaults = { ...loadConfig({}).networks, pollWaitScale: 0 };
    const apps = configured
      ? { instagram: { clientId: instagram.appId, clientSecret: instagram.appSecret, graphVersion: 'v23.0' } }
      : {};
    t = await startTestHerald({
      networkOriginOverrides: {
        'https://www.instagram.com': instagram.url,
        'https://api.instagram.com': instagram.url,
        'https://graph.instagram.com': instagram.url,
        'https://www.facebook.com': instagram.facebookUrl,
        'https://graph.facebook.com': instagram.facebookUrl,
      },
      networks: {
        ...defaults,
        apps: facebook
          ? {
              ...apps,
              facebook: {
                clientId: instagram.facebook.appId,
                clientSecret: instagram.facebook.appSecret,
                graphVersion: 'v23.0',
              },
            }
          : apps,
      },
      // The test's own media files are served on 127.0.0.1, which the SSRF guard refuses unless listed.
      outboundAllowHosts: ['127.0.0.1'],
    });
    instagram.redirectUris.push(`${t.url}/connect/instagram/callback`);
    a = await t.seedAccount({ channels: 0 });
  }
  afterEach(async () => {
    await t?.close();
    await instagram?.close();
  });

  /** Starts connecting, plays the person at Instagram's consent screen, and follows the redirect to Herald. */
  async function connectThroughConsent(
    path = '/v1/rest/channels/connect',
    body: Record<string, unknown> = { network: 'instagram' },
  ) {
    const started = await t.api('POST', path, { token: a.apiKey, body });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const consent = await fetch(started.body.authorizationUrl, { redirect: 'manual' });
    assert.equal(consent.status, 302, await consent.text());
    const page = await openRedirect(t, consent.headers.get('location')!);
    return { authorizationUrl: new URL(started.body.authorizationUrl), status: page.status, html: await page.text() };
  }

  async function channel() {
    const listed = (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data as any[];
    return listed.find((c) => c.network === 'instagram');
  }

  async function get(id: string) {
    return (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
  }

  async function schedule(body: Record<string, unknown>, channelOptions?: Record<string, unknown>) {
    const res = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: { channelIds: [(await channel()).id], ...body },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const post = res.body.data[0];
    if (channelOptions) {
      const set = await t.api('PATCH', `/v1/rest/posts/${post.id}`, { token: a.apiKey, body: { channelOptions } });
      assert.equal(set.status, 200, JSON.stringify(set.body));
    }
    return post;
  }

  /** What the person's token can do at the fake directly: a dead worker's calls. */
  async function asTheDeadWorker(path: string, form: Record<string, string>) {
    const row = await t.herald
      .db('channels')
      .where({ id: (await channel()).id })
      .first();
    const { accessToken } = JSON.parse(t.deps.secretBox.open(`channel-credentials:${row.id}`, row.credentials));
    const answer = await fetch(`${instagram.url}/v23.0/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
    return answer.json() as Promise<any>;
  }

  describe('connecting', () => {
    it(
      'connects a professional account through Instagram Login with a 60-day token, sealed; ' +
        'connecting again updates the same channel',
      async () => {
        await start();
        const connected = await connectThroughConsent();
        assert.equal(connected.status, 200, connected.html);
        assert.match(connected.html, /Connected/);
        assert.equal(
          connected.authorizationUrl.origin,
          instagram.url,
          'www.instagram.com, rewritten by NETWORK_ORIGIN_OVERRIDES',
        );
        assert.equal(connected.authorizationUrl.pathname, '/oauth/authorize');
        assert.equal(
          connected.authorizationUrl.searchParams.get('redirect_uri'),
          `${t.url}/connect/instagram/callback`,
        );
        assert.deepEqual(connected.authorizationUrl.searchParams.get('scope')!.split(','), [
          'instagram_business_basic',
          'instagram_business_content_publish',
          'instagram_business_manage_comments',
          'instagram_business_manage_insights',
        ]);
        const made = await channel();
        assert.deepEqual(
          [made.handle, made.displayName, made.status],
          ['analytical.engines', 'Analytical Engines', 'active'],
        );
        const row = await t.herald.db('channels').where({ id: made.id }).first();
        assert.equal(
          row.network_account_id,
          instagram.account.userId,
          "the professional account's id, not the app-scoped one",
        );
        assert.ok(row.credentials.startsWith('v1.'), 'sealed in the vault');
        assert.ok(!row.credentials.includes('IGAA'));
        assert.ok(
          Number(row.credentials_expire_at) > Date.now() + 59 * DAY_MS,
          'the long-lived token, not the one-hour one',
        );

        const again = await connectThroughConsent(`/v1/rest/channels/${made.id}/reconnect`, {});
        assert.equal(again.status, 200, again.html);
        assert.equal(((await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data as any[]).length, 1);
        assert.deepEqual(instagram.refusals, []);
      },
    );

    it(
      'a denied consent or a withheld publishing permission connects nothing and says why; ' +
        'an unconfigured Instagram refuses to connect',
      async () => {
        await start();
        instagram.denyNext = true;
        const denied = await connectThroughConsent();
        assert.equal(denied.status, 400);
        assert.match(denied.html, /Instagram did not grant access \(The user denied your request.\)/);
        instagram.grantOnly = ['instagram_business_basic'];
        const partial = await connectThroughConsent();
        assert.equal(partial.status, 400);
        assert.match(
          partial.html,
          /Instagram did not grant instagram_business_content_publish, which Herald needs to publish/,
        );
        assert.equal(await channel(), undefined);
        await t.close();
        await instagram.close();

        await start(false);
        const networks = await t.api('GET', '/v1/rest/networks', { token: a.apiKey });
        assert.equal(networks.body.data.find((n: any) => n.name === 'instagram').configured, false);
        const refused = await t.api('POST', '/v1/rest/channels/connect', {
          token: a.apiKey,
          body: { network: 'instagram' },
        });
        assert.equal(refused.status, 400);
        assert.match(refused.body.message, /not configured for Instagram/);
      },
    );
  });

  describe('through Facebook Login', () => {
    it(
      "connects the Instagram account linked to a Page with the Page's token, " +
        'publishes and comments through graph.facebook.com, and checks',
      async () => {
        await start(true, true);
        instagram.denyNext = true;
        const denied = await connectThroughConsent('/v1/rest/channels/connect', {
          network: 'instagram',
          login: 'facebook',
        });
        assert.equal(denied.status, 400);
        assert.match(denied.html, /Instagram did not grant access \(Permissions error\)/);

        const connected = await connectThroughConsent('/v1/rest/channels/connect', {
          network: 'instagram',
          login: 'facebook',
        });
        assert.equal(connected.status, 200, connected.html);
        assert.equal(connected.authorizationUrl.pathname, '/v23.0/dialog/oauth');
        assert.equal(connected.authorizationUrl.searchParams.get('client_id'), instagram.facebook.appId);
        assert.ok(
          connected.authorizationUrl.searchParams.get('scope')!.split(',').includes('instagram_content_publish'),
        );
        const listed = (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data as any[];
        assert.deepEqual(
          listed.map((c) => c.handle),
          ['analytical.engines'],
          'the Page without an Instagram account is not a channel',
        );
        const row = await t.herald.db('channels').where({ id: listed[0].id }).first();
        assert.equal(row.credentials_expire_at, null, 'a Page token from a long-lived user token does not expire');

        const clock = pinClock(t, new Date().toISOString());
        const post = await schedule({
          text: 'Through the Page',
          imageUrls: [imageUrl],
          firstComment: { text: 'First', delayMinutes: 1 },
        });
        const worker = testWorker(t);
        await worker.tick();
        assert.equal((await get(post.id)).status, 'published', (await get(post.id)).error);
        clock.advance(2 * 60_000);
        await worker.tick();
        assert.deepEqual(
          instagram.comments.map((c) => c.message),
          ['First'],
        );
        const published = instagram.requests.filter((r) => r.endsWith('/media_publish') || r.endsWith('/comments'));
        assert.deepEqual(published, [
          `facebook: POST /v23.0/${instagram.account.userId}/media_publish`,
          `facebook: POST /v23.0/${instagram.media[0].id}/comments`,
        ]);
        const check = await checkChannelConnection(t.deps, { channelId: listed[0].id });
        assert.deepEqual(check.problems, []);
        assert.ok(check.grantedScopes!.includes('instagram_content_publish'));
        assert.deepEqual(instagram.refusals, []);

        // A reconnect keeps to Facebook Login.
        const again = await connectThroughConsent(`/v1/rest/channels/${listed[0].id}/reconnect`, {});
        assert.equal(again.authorizationUrl.pathname, '/v23.0/dialog/oauth');
        assert.equal(again.status, 200, again.html);

        instagram.revokeAll();
        const revoked = await schedule({ text: 'Revoked', imageUrls: [imageUrl] });
        await worker.tick();
        assert.match((await get(revoked.id)).error, /reconnect/);
        assert.equal((await channel()).status, 'needs_reconnect');
      },
    );
  });

  it('connects from the CLI with --login facebook', async function () {
    this.timeout(180_000);
    await start(true, true);
    const env = {
      ...process.env,
      DATA_DIR: t.config.dataDir,
      DATABASE_URL: t.config.databaseUrl ?? '',
      BASE_URL: t.url,
      // The network's fake listens on loopback, which the SSRF guard refuses unless it is listed.
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      FACEBOOK_APP_ID: instagram.facebook.appId,
      FACEBOOK_APP_SECRET: instagram.facebook.appSecret,
      NETWORK_ORIGIN_OVERRIDES: [
        `https://www.facebook.com=${instagram.facebookUrl}`,
        `https://graph.facebook.com=${instagram.facebookUrl}`,
      ].join(','),
    };
    const child = spawn('node', [HERALD_CLI, 'channel', 'connect', 'instagram', '--login', 'facebook', '--json'], {
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
      ['analytical.engines'],
    );
  });

  describe('audience', () => {
    const setFollowers = (n: number) => {
      instagram.account.followers_count = n;
    };
    it("reads the account's followers_count at each sync as the channel's audience in REST insights", async () => {
      await start();
      await connectThroughConsent();
      await assertAudienceInInsights(t, a.apiKey, (await channel()).id, setFollowers);
    });

    it('reads it the same way through Facebook Login, with the Page token', async () => {
      await start(true, true);
      const connected = await connectThroughConsent('/v1/rest/channels/connect', {
        network: 'instagram',
        login: 'facebook',
      });
      assert.equal(connected.status, 200, connected.html);
      await assertAudienceInInsights(t, a.apiKey, (await channel()).id, setFollowers);
    });
  });

  describe('publishing', () => {
    beforeEach(async () => {
      await start();
      await connectThroughConsent();
    });

    it(
      'publishes an image through a FINISHED container after reading the quota, ' +
        'then the first comment on the media',
      async () => {
        const clock = pinClock(t, new Date().toISOString());
        const post = await schedule({
          text: 'Hello, Instagram (ünïcödé) #engines',
          imageUrls: [imageUrl],
          firstComment: { text: 'More in the comments', delayMinutes: 1 },
        });
        const worker = testWorker(t);
        await worker.tick();
        const published = await get(post.id);
        assert.equal(published.status, 'published', published.error);
        const [media] = instagram.media;
        assert.equal(media.caption, 'Hello, Instagram (ünïcödé) #engines');
        assert.equal(published.permalinkUrl, `https://www.instagram.com/p/${media.id}/`);
        const container = instagram.containers.get(media.container!)!;
        assert.equal(container.url, imageUrl, "Meta fetched the post's own URL");
        assert.equal(container.downloadedType, 'image/jpeg');
        const order = instagram.requests.filter((r) => r.startsWith('POST') || r.includes('content_publishing_limit'));
        assert.deepEqual(order.slice(-3), [
          `GET /v23.0/${instagram.account.userId}/content_publishing_limit`,
          `POST /v23.0/${instagram.account.userId}/media`,
          `POST /v23.0/${instagram.account.userId}/media_publish`,
        ]);
        const [attempt] = await t.deps.repos.publishAttempts.attempts(a.accountId, post.id);
        assert.deepEqual(
          JSON.parse((await t.deps.repos.publishAttempts.handleOf(attempt.idempotencyKey))!),
          { container: container.id, kind: 'feed' },
          "the container was recorded as the attempt's handle",
        );

        // The comment is made and its answer lost: the next try finds it among the media's comments, never a second.
        instagram.dropAnswerNext(`${media.id}/comments`);
        clock.advance(2 * 60_000);
        await worker.tick();
        clock.advance(60 * 60_000);
        await worker.tick();
        assert.deepEqual(
          instagram.comments.map((c) => [c.media, c.message]),
          [[media.id, 'More in the comments']],
        );
        const tries = await t.herald
          .db('publish_attempts')
          .where({ post_id: post.id, kind: 'comment' })
          .orderBy('seq')
          .select('outcome');
        assert.deepEqual(
          tries.map((row: { outcome: string }) => row.outcome),
          ['unknown', 'reconciled'],
        );
        assert.deepEqual(instagram.refusals, [], 'Instagram refused nothing Herald sent');
        assert.deepEqual([...instagram.versionsSeen], ['v23.0']);
      },
    );

    it('publishes a carousel of images and a video, a reel and a story, each as Instagram takes it', async () => {
      const carousel = await schedule({
        text: 'Three things',
        imageUrls: [imageUrl, `${imageUrl}?2`],
        videoUrls: [videoUrl],
      });
      const reel = await schedule(
        { text: 'A reel', videoUrls: [`${videoUrl}?reel`] },
        { kind: 'reels', shareToFeed: false },
      );
      const story = await schedule({ text: 'Not shown', imageUrls: [`${imageUrl}?story`] }, { kind: 'story' });
      await testWorker(t).tick();
      for (const id of [carousel.id, reel.id, story.id])
        assert.equal((await get(id)).status, 'published', (await get(id)).error);

      const containerOf = (caption: string) =>
        instagram.containers.get(instagram.media.find((m) => m.caption === caption)!.container!)!;
      const album = containerOf('Three things');
      assert.equal(album.mediaType, 'CAROUSEL');
      assert.deepEqual(
        album.children.map((id) => [
          instagram.containers.get(id)!.mediaType,
          instagram.containers.get(id)!.isCarouselItem,
        ]),
        [
          ['IMAGE', true],
          ['IMAGE', true],
          ['VIDEO', true],
        ],
      );
      assert.equal(instagram.containers.get(album.children[2])!.downloadedType, 'video/mp4');
      const reelContainer = containerOf('A reel');
      assert.deepEqual([reelContainer.mediaType, reelContainer.shareToFeed], ['REELS', 'false']);
      const storyContainer = [...instagram.containers.values()].find((c) => c.mediaType === 'STORIES')!;
      assert.equal(storyContainer.url, `${imageUrl}?story`);
      assert.equal(storyContainer.status, 'PUBLISHED');
      assert.deepEqual(instagram.refusals, []);
    });

    it(
      'refuses when written media uploaded to Herald, which Meta cannot fetch from this loopback instance; ' +
        "a preview page instead of a file fails with Meta's words",
      async () => {
        const created = await callTool(t, a.apiKey, 'create_media_upload', {
          fileName: 'photo.jpg',
          contentType: 'image/jpeg',
          sizeBytes: TINY_JPEG.length,
        });
        assert.notEqual(created.body.result.isError, true, JSON.stringify(created.body));
        const upload = created.body.result.structuredContent;
        const put = await fetch(upload.uploadUrl, {
          method: 'PUT',
          headers: upload.headers,
          body: new Uint8Array(TINY_JPEG),
        });
        assert.equal(put.status, 200);
        const done = await callTool(t, a.apiKey, 'complete_media_upload', { uploadId: upload.uploadId });
        assert.notEqual(done.body.result.isError, true, JSON.stringify(done.body));
        const media = done.body.result.structuredContent.data;
        assert.match(media.url, new RegExp(`^${t.url}/media/`));
        const hosted = await t.api('POST', '/v1/rest/posts', {
          token: a.apiKey,
          body: { channelIds: [(await channel()).id], text: 'From Herald', imageUrls: [media.url] },
        });
        assert.equal(hosted.status, 400, JSON.stringify(hosted.body));
        assert.match(
          hosted.body.message,
          new RegExp(
            /Instagram fetches media from Herald's address, .* which Instagram cannot reach; /.source +
              /set BASE_URL to a public https address/.source,
          ),
        );
        const preview = await schedule({ text: 'A preview page', imageUrls: [previewUrl] });
        await testWorker(t).tick();
        const failed = await get(preview.id);
        assert.equal(failed.status, 'failed');
        assert.match(
          failed.error,
          new RegExp(
            /Instagram answered: Only photo or video can be accepted as media type\. /.source +
              /The media could not be fetched from this uri: .*\(code 9004, subcode 2207052\)/.source,
          ),
        );
        assert.equal(instagram.media.length, 0);
      },
    );

    it('refuses before the post is due what Instagram would refuse: on REST, MCP and per bulk entry', async () => {
      const id = (await channel()).id;
      const long = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [id], text: 'é'.repeat(2201), imageUrls: [imageUrl] },
      });
      assert.equal(long.status, 400);
      assert.match(long.body.message, /Instagram allows 2200 characters; this text has 2201/);
      const bare = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [id], text: 'No picture' },
      });
      assert.equal(bare.status, 400);
      assert.match(bare.body.message, /Instagram posts need media/);
      const eleven = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: {
          channelIds: [id],
          text: 'Too many',
          imageUrls: Array.from({ length: 11 }, (_, i) => `${imageUrl}?${i}`),
        },
      });
      assert.equal(eleven.status, 400);
      assert.match(eleven.body.message, /Instagram/);
      const post = await schedule({ text: 'Kind', imageUrls: [imageUrl] });
      const kind = await t.api('PATCH', `/v1/rest/posts/${post.id}`, {
        token: a.apiKey,
        body: { channelOptions: { kind: 'igtv' } },
      });
      assert.equal(kind.status, 400);
      assert.match(kind.body.message, /Instagram.*kind/);
      const reel = await t.api('PATCH', `/v1/rest/posts/${post.id}`, {
        token: a.apiKey,
        body: { channelOptions: { kind: 'reels' } },
      });
      assert.equal(reel.status, 400);
      assert.match(
        reel.body.message,
        new RegExp(
          /Instagram: a post with channelOptions.kind "reels" carries exactly one video; /.source +
            /this one has 1 image\(s\) and 0 video\(s\)/.source,
        ),
      );
      const story = await schedule({ text: 'Story', imageUrls: [imageUrl, `${imageUrl}?2`] });
      const stories = await t.api('PATCH', `/v1/rest/posts/${story.id}`, {
        token: a.apiKey,
        body: { channelOptions: { kind: 'story' } },
      });
      assert.equal(stories.status, 400);
      assert.match(stories.body.message, /carries one image or one video; this one has 2 image\(s\)/);
      const fine = await t.api('PATCH', `/v1/rest/posts/${story.id}`, {
        token: a.apiKey,
        body: { imageUrls: [imageUrl], channelOptions: { kind: 'story' } },
      });
      assert.equal(fine.status, 200, JSON.stringify(fine.body));

      const tool = await callTool(t, a.apiKey, 'create_text_post', { channelIds: [id], text: 'No picture' });
      assert.equal(tool.body.result.isError, true, JSON.stringify(tool.body));
      assert.match(tool.body.result.content[0].text, /Instagram posts need media/);

      const bulk = await t.api('POST', '/v1/rest/posts/bulk', {
        token: a.apiKey,
        body: {
          posts: [
            { channelIds: [id], text: 'fits', imageUrls: [imageUrl] },
            { channelIds: [id], text: 'x'.repeat(2201), imageUrls: [imageUrl] },
          ],
        },
      });
      assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
      assert.deepEqual(bulk.body.summary, { succeeded: 1, failed: 1 });
      assert.match(
        bulk.body.results[1].error.message,
        /^posts\[1\]: .*Instagram allows 2200 characters; this text has 2201/,
      );
    });
  });

  describe('tokens', () => {
    beforeEach(async () => {
      await start();
      await connectThroughConsent();
    });

    it('refreshes a token past half its life once it is a day old, and stores the new 60-day expiry', async () => {
      const clock = pinClock(t, new Date().toISOString());
      const id = (await channel()).id;
      const before = await t.herald.db('channels').where({ id }).first();
      const post = await schedule({ text: 'Young token', imageUrls: [imageUrl] });
      await testWorker(t).tick();
      assert.equal((await get(post.id)).status, 'published');
      assert.equal(
        instagram.requests.filter((r) => r === 'GET /refresh_access_token').length,
        0,
        'a young token is left alone',
      );

      clock.advance(31 * DAY_MS);
      instagram.advance(31 * DAY_MS);
      const later = await schedule({ text: 'Old token', imageUrls: [imageUrl] });
      await testWorker(t).tick();
      assert.equal((await get(later.id)).status, 'published', (await get(later.id)).error);
      assert.equal(instagram.requests.filter((r) => r === 'GET /refresh_access_token').length, 1);
      const after = await t.herald.db('channels').where({ id }).first();
      assert.ok(
        Number(after.credentials_expire_at) > Number(before.credentials_expire_at) + 30 * DAY_MS,
        'the new 60-day expiry is stored',
      );
      assert.deepEqual(instagram.refusals, []);
    });

    it('an expired token cannot be refreshed (Meta refuses): the channel needs a reconnect, saying why', async () => {
      pinClock(t, new Date().toISOString());
      instagram.expireTokens();
      const post = await schedule({ text: 'Expired', imageUrls: [imageUrl] });
      const worker = testWorker(t);
      await worker.tick();
      const failed = await get(post.id);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /reconnect/);
      const now = await channel();
      assert.equal(now.status, 'needs_reconnect');
      assert.match(now.statusReason, /Instagram refused to refresh the access token .*Session has expired/);
      assert.equal(instagram.requests.filter((r) => r === 'GET /refresh_access_token').length, 1, 'tried once');
      assert.equal(instagram.media.length, 0);
      assert.ok((await t.herald.db('events').where({ type: 'channel.needs_reconnect' })).length >= 1);
    });
  });

  describe('failures and exactly once', () => {
    beforeEach(async () => {
      await start();
      await connectThroughConsent();
    });

    it(
      'throttling waits as X-Business-Use-Case-Usage says; ' +
        'a spent daily quota waits an hour before any container; a media download timeout retries',
      async () => {
        const clock = pinClock(t, '2026-11-23T15:00:00.000Z');
        const worker = testWorker(t);
        const id = (await channel()).id;
        instagram.throttleNext(25);
        const throttled = await schedule({ text: 'Throttled', imageUrls: [imageUrl] });
        await worker.tick();
        const waiting = await t.herald.db('posts').where({ id: throttled.id }).first();
        assert.equal(waiting.status, 'scheduled');
        const back = clock.now() + 25 * 60_000;
        assert.equal(Number(waiting.next_attempt_at), back);
        assert.equal(
          Number((await t.herald.db('channels').where({ id }).first()).rate_limited_until),
          back,
          'the channel waits too',
        );

        clock.advance(26 * 60_000);
        instagram.quotaTotal = 0;
        await worker.tick();
        const capped = await t.herald.db('posts').where({ id: throttled.id }).first();
        assert.equal(capped.status, 'scheduled');
        assert.equal(Number(capped.next_attempt_at), clock.now() + 3600_000);
        assert.equal(instagram.containers.size, 0, 'no container spent on a post Meta would not publish');

        instagram.quotaTotal = 100;
        clock.advance(3600_000 + 1);
        instagram.failNext(`/${instagram.account.userId}/media`, 400, {
          error: {
            message: 'It takes too long to download the media.',
            type: 'OAuthException',
            code: -2,
            error_subcode: 2207003,
            is_transient: false,
          },
        });
        await worker.tick();
        assert.equal((await get(throttled.id)).status, 'scheduled', 'a download timeout is tried again');
        clock.advance(3600_000);
        await worker.tick();
        assert.equal((await get(throttled.id)).status, 'published', (await get(throttled.id)).error);
        assert.equal(instagram.media.length, 1);
      },
    );

    it('a video Instagram could not process fails with its status; a revoked token needs a reconnect', async () => {
      instagram.failProcessingNext = true;
      const reel = await schedule({ text: 'Broken film', videoUrls: [videoUrl] });
      await testWorker(t).tick();
      const failed = await get(reel.id);
      assert.equal(failed.status, 'failed');
      assert.match(
        failed.error,
        /Instagram could not process the media \(Error: Media upload has failed with error code 2207026\)/,
      );
      assert.equal(instagram.media.length, 0);

      instagram.revokeAll();
      const revoked = await schedule({ text: 'After revocation', imageUrls: [imageUrl] });
      await testWorker(t).tick();
      assert.match((await get(revoked.id)).error, /reconnect/);
      const now = await channel();
      assert.equal(now.status, 'needs_reconnect');
      assert.match(now.statusReason, /The user has not authorized application/);
    });

    it(
      'a media_publish whose answer was lost is settled by the container (PUBLISHED) ' +
        "and the account's media, a story by its stories; never posted twice",
      async () => {
        const post = await schedule({ text: 'Answer lost', imageUrls: [imageUrl] });
        instagram.dropAnswerNext('/media_publish');
        await testWorker(t).tick();
        const got = await get(post.id);
        assert.equal(got.status, 'published', got.error);
        assert.equal(instagram.media.length, 1);
        assert.equal(got.permalinkUrl, `https://www.instagram.com/p/${instagram.media[0].id}/`);
        assert.deepEqual(
          (await t.deps.repos.publishAttempts.attempts(a.accountId, post.id)).map((x) => x.outcome),
          ['reconciled'],
        );
        assert.equal(instagram.requests.filter((r) => r.endsWith('/media_publish')).length, 1);

        // A story has no caption and is not among the feed's media: it is found among the account's stories.
        const story = await schedule({ text: 'A story', imageUrls: [imageUrl] }, { kind: 'story' });
        instagram.dropAnswerNext('/media_publish');
        await testWorker(t).tick();
        const storyGot = await get(story.id);
        assert.equal(storyGot.status, 'published', storyGot.error);
        assert.equal(
          storyGot.permalinkUrl,
          `https://www.instagram.com/stories/analytical.engines/${instagram.media[1].id}/`,
        );
        assert.equal(instagram.media.length, 2);
      },
    );

    it(
      'a worker that died mid-publish: a published container is found, ' +
        'an unpublished one stays unconfirmed, and nothing is posted twice',
      async () => {
        const clock = pinClock(t, new Date().toISOString());
        const made = await schedule({ text: 'Worker died after publishing', imageUrls: [imageUrl] });
        const unmade = await schedule({ text: 'Worker died before publishing', imageUrls: [imageUrl] });
        const claimed = await dieMidAttempt(t, clock);
        assert.deepEqual([...claimed].sort(), [made.id, unmade.id].sort());
        // What the dead worker had done at Instagram: two FINISHED containers, recorded, and one of them published.
        for (const [post, publish] of [
          [made, true],
          [unmade, false],
        ] as const) {
          const container = await asTheDeadWorker(`${instagram.account.userId}/media`, {
            image_url: imageUrl,
            caption: post.text,
          });
          assert.ok(container.id, JSON.stringify(container));
          await t.deps.repos.publishAttempts.setHandle(
            `${post.id}:1`,
            JSON.stringify({ container: container.id, kind: 'feed' }),
          );
          if (publish)
            assert.ok(
              (await asTheDeadWorker(`${instagram.account.userId}/media_publish`, { creation_id: container.id })).id,
            );
        }
        clock.advance(2_000);
        await testWorker(t).tick();
        const found = await get(made.id);
        assert.equal(found.status, 'published', found.error);
        assert.equal(found.permalinkUrl, `https://www.instagram.com/p/${instagram.media[0].id}/`);
        assert.equal((await get(unmade.id)).status, 'unconfirmed', 'not published: a person decides, no blind retry');
        assert.equal(instagram.media.length, 1);
      },
    );
  });

  describe('sync and check', () => {
    beforeEach(async () => {
      await start();
      await connectThroughConsent();
    });

    it("syncs the account's recent media with like and comment counts and their insights, page by page", async () => {
      const id = (await channel()).id;
      instagram.postExternally('Posted in the app', {
        likes: 7,
        comments: 2,
        insights: { reach: 120, saved: 3, shares: 1, views: 300 },
      });
      instagram.postExternally('Second');
      instagram.postExternally('Third');
      await testWorker(t, { syncDepth: 2 }).sync();
      const live = await t.api('GET', `/v1/rest/posts?livePosts=true&channelIds=${id}`, { token: a.apiKey });
      const found = live.body.data.filter((p: any) => p.isLivePost);
      assert.deepEqual(found.map((p: any) => p.text).sort(), ['Posted in the app', 'Second', 'Third']);
      assert.deepEqual(found.find((p: any) => p.text === 'Posted in the app').metrics, {
        likes: 7,
        comments: 2,
        reach: 120,
        saved: 3,
        shares: 1,
        views: 300,
      });
      assert.ok(
        instagram.requests.filter((r) => r.endsWith('/media') && r.startsWith('GET')).length >= 2,
        'more than one page',
      );
      assert.deepEqual(instagram.refusals, []);
    });

    it(
      'herald network check: the account, the granted permissions and the quota; ' +
        'a revoked token is a problem, with no token in the answer',
      async () => {
        const id = (await channel()).id;
        const good = await checkChannelConnection(t.deps, { channelId: id });
        assert.deepEqual(good.problems, []);
        assert.equal(good.ok, true);
        assert.equal(good.account, 'analytical.engines');
        assert.ok(good.grantedScopes!.includes('instagram_business_content_publish'));
        assert.equal(instagram.media.length, 0, 'nothing posted');

        instagram.revokeAll();
        const revoked = await checkChannelConnection(t.deps, { channelId: id });
        assert.equal(revoked.ok, false);
        assert.match(revoked.problems.join(' '), /The user has not authorized application.*reconnect the channel/);
        assert.ok(!JSON.stringify(revoked).includes('IGAA'), 'no token in the answer');
      },
    );
  });
});
