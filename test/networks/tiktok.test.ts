import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { checkChannelConnection } from '../../src/domain/networks/connection-check.js';
import { loadConfig } from '../../src/config.js';
import { TINY_JPEG, TINY_PNG } from '../media/fixtures.js';
import { callTool } from '../mcp/support.js';
import { API_ORIGIN, CONSENT_ORIGIN, UPLOAD_ORIGIN, startFakeTikTok, type FakeTikTok } from '../support/fake-tiktok.js';
import { assertAudienceInInsights } from '../insights/network-audience.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { openRedirect } from '../support/herald-page.js';
import { serveMediaFiles } from '../support/media-files.js';
import { dieMidAttempt, heraldMediaChecker, pinClock, testWorker } from '../publishing/support.js';
import { ensureCliBuilt, HERALD_CLI } from '../support/cli.js';

// The commands run the CLI bundled from src/ (test/support/cli.ts), built before the first.
before(ensureCliBuilt);

const MB = 1024 * 1024;

/** An MP4 as TikTok reads it: ftyp, a moov with its movie header (the length), and mdat filling up to `bytes`. */
function mp4(seconds: number, bytes: number): Buffer {
  const box = (type: string, payload: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(8 + payload.length);
    head.write(type, 4, 'latin1');
    return Buffer.concat([head, payload]);
  };
  const mvhd = Buffer.alloc(100);
  mvhd.writeUInt32BE(1000, 12);
  mvhd.writeUInt32BE(Math.round(seconds * 1000), 16);
  const head = Buffer.concat([
    box('ftyp', Buffer.from('isom\0\0\x02\0isomiso2avc1mp41', 'latin1')),
    box('moov', box('mvhd', mvhd)),
  ]);
  const fill = Buffer.alloc(bytes - head.length - 8);
  for (let i = 0; i < fill.length; i += 4096) fill[i] = i % 251;
  return Buffer.concat([head, box('mdat', fill)]);
}

/** TikTok through its documented wire format (test/support/fake-tiktok.ts): no TikTok account is reached. */
describe('TikTok, against a fake that speaks its documented API', function () {
  this.timeout(60_000);
  let tiktok: FakeTikTok;
  let files: Awaited<ReturnType<typeof serveMediaFiles>>;
  let filesUrl: string;
  let served: Record<string, { type: string; body: Buffer }>;
  let t: TestHerald;
  let a: SeededAccount;

  before(async () => {
    served = {
      '/short.mp4': { type: 'video/mp4', body: mp4(12, 3 * MB) },
      '/long.mp4': { type: 'video/mp4', body: mp4(15, 12 * MB + 12_345) },
      '/too-long.mp4': { type: 'video/mp4', body: mp4(601, 1 * MB) },
      '/photo-1.jpg': { type: 'image/jpeg', body: TINY_JPEG },
      '/photo-2.jpg': { type: 'image/jpeg', body: TINY_JPEG },
      '/poster.png': { type: 'image/png', body: TINY_PNG },
    };
    files = await serveMediaFiles(served);
    filesUrl = files.origin;
  });
  after(() => files?.close());

  async function start(apps = true): Promise<void> {
    tiktok = await startFakeTikTok({ redirectUri: 'set once Herald listens' });
    // The fakes finish processing after a number of status polls, not seconds: no real wait between polls.
    const defaults = { ...loadConfig({}).networks, pollWaitScale: 0 };
    t = await startTestHerald({
      networkOriginOverrides: { [CONSENT_ORIGIN]: tiktok.url, [API_ORIGIN]: tiktok.url, [UPLOAD_ORIGIN]: tiktok.url },
      networks: {
        ...defaults,
        maxResponseBytes: 32 * MB,
        apps: apps ? { tiktok: { clientId: tiktok.clientKey, clientSecret: tiktok.clientSecret } } : {},
      },
      // The test's own media files are served on 127.0.0.1, which the SSRF guard refuses unless listed.
      outboundAllowHosts: ['127.0.0.1'],
    });
    tiktok.redirectUri = `${t.url}/connect/tiktok/callback`;
    tiktok.verifiedPrefixes = [`${filesUrl}/`];
    a = await t.seedAccount({ channels: 0 });
  }
  beforeEach(() => start());
  afterEach(async () => {
    await t.close();
    await tiktok.close();
  });

  /** Starts connecting, plays the person at TikTok's consent screen, and follows the redirect to Herald. */
  async function connectThroughConsent(
    path = '/v1/rest/channels/connect',
    body: Record<string, unknown> = { network: 'tiktok' },
  ) {
    const started = await t.api('POST', path, { token: a.apiKey, body });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const consent = await fetch(started.body.authorizationUrl.replace(CONSENT_ORIGIN, tiktok.url), {
      redirect: 'manual',
    });
    assert.equal(consent.status, 302, await consent.text());
    const page = await openRedirect(t, consent.headers.get('location')!);
    return { authorizationUrl: new URL(started.body.authorizationUrl), status: page.status, html: await page.text() };
  }

  async function theChannel() {
    const channels = (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data;
    assert.equal(channels.length, 1);
    return channels[0];
  }

  async function get(id: string) {
    return (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
  }

  async function row(id: string) {
    return t.herald.db('posts').where({ id }).first();
  }

  async function schedule(
    channelId: string,
    body: Record<string, unknown>,
    channelOptions: Record<string, unknown> = { privacyLevel: 'PUBLIC_TO_EVERYONE' },
  ) {
    const res = await t.api('POST', '/v1/rest/posts', { token: a.apiKey, body: { channelIds: [channelId], ...body } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const post = res.body.data[0];
    const patched = await t.api('PATCH', `/v1/rest/posts/${post.id}`, { token: a.apiKey, body: { channelOptions } });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    return post;
  }

  async function connected() {
    const done = await connectThroughConsent();
    assert.equal(done.status, 200, done.html);
    return theChannel();
  }

  it(
    "connects through TikTok's consent with the app's client key and the publishing scopes; " +
      'a denied consent connects nothing',
    async () => {
      const first = await connectThroughConsent();
      assert.equal(first.status, 200, first.html);
      assert.match(first.html, /@alice\.makes/);
      const asked = first.authorizationUrl.searchParams;
      assert.equal(
        `${first.authorizationUrl.origin}${first.authorizationUrl.pathname}`,
        'https://www.tiktok.com/v2/auth/authorize/',
      );
      assert.equal(asked.get('client_key'), tiktok.clientKey);
      assert.equal(asked.get('scope'), 'user.info.basic,video.publish,video.upload,video.list,user.info.stats');
      assert.equal(asked.get('redirect_uri'), `${t.url}/connect/tiktok/callback`);
      const channel = await theChannel();
      assert.equal(channel.network, 'tiktok');
      assert.equal(channel.handle, '@alice.makes');
      assert.equal(channel.displayName, 'Alice Makes');
      assert.equal(channel.status, 'active');
      const stored = await t.herald.db('channels').where({ id: channel.id }).first();
      assert.ok(stored.credentials.startsWith('v1.'), 'sealed');
      assert.ok(
        !JSON.stringify((await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body).includes('act.'),
        'no token in the answer',
      );
      assert.ok(
        Math.abs(Number(stored.credentials_expire_at) - (Date.now() + 86_400_000)) < 60_000,
        'expires_in read from the answer',
      );

      tiktok.denyNext = true;
      const denied = await connectThroughConsent();
      assert.equal(denied.status, 400);
      assert.match(denied.html, /did not grant access \(The user denied the request\)/);
      assert.equal((await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data.length, 1);
    },
  );

  it(
    "reads the user's follower_count (user.info.stats) " + "at each sync as the channel's audience in REST insights",
    async () => {
      const channel = await connected();
      await assertAudienceInInsights(t, a.apiKey, channel.id, (n) => {
        tiktok.creator.follower_count = n;
      });
    },
  );

  it('reads no audience where user.info.stats was withheld, and makes no call TikTok would refuse for it', async () => {
    tiktok.grantOnly = ['user.info.basic', 'video.publish', 'video.upload', 'video.list'];
    const without = await connected();
    await testWorker(t).sync();
    const insights = (await t.api('GET', `/v1/rest/insights?channelIds=${without.id}`, { token: a.apiKey })).body.data;
    assert.equal(insights.byChannel[0].audienceEnd, null, 'no audience, never a zero');
    assert.equal((await theChannel()).status, 'active', 'no call refused as a missing permission');
  });

  it("connects from the CLI: prints TikTok's consent address and waits for the callback", async function () {
    this.timeout(180_000);
    const env = {
      ...process.env,
      DATA_DIR: t.config.dataDir,
      DATABASE_URL: t.config.databaseUrl ?? '',
      BASE_URL: t.url,
      // The network's fake listens on loopback, which the SSRF guard refuses unless it is listed.
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      TIKTOK_CLIENT_KEY: tiktok.clientKey,
      TIKTOK_CLIENT_SECRET: tiktok.clientSecret,
      NETWORK_ORIGIN_OVERRIDES: [CONSENT_ORIGIN, API_ORIGIN, UPLOAD_ORIGIN]
        .map((origin) => `${origin}=${tiktok.url}`)
        .join(','),
    };
    const child = spawn('node', [HERALD_CLI, 'channel', 'connect', 'tiktok', '--json'], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    const address = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
        const found = /(https:\/\/www\.tiktok\.com\/v2\/auth\/authorize\/\S+)/.exec(stderr);
        if (found) resolve(found[1]);
      });
      child.on('exit', () => reject(new Error(`the CLI ended without an address: ${stderr}`)));
    });
    const consent = await fetch(address.replace(CONSENT_ORIGIN, tiktok.url), { redirect: 'manual' });
    const page = await fetch(consent.headers.get('location')!);
    assert.equal(page.status, 200, await page.text());
    const code = await new Promise((resolve) => child.on('exit', resolve));
    assert.equal(code, 0, stderr);
    assert.equal(JSON.parse(stdout).channels[0].handle, '@alice.makes');
  });

  it("is listed as not configured, and refuses to connect, without the operator's app", async () => {
    await t.close();
    await tiktok.close();
    await start(false);
    const listed = (await t.api('GET', '/v1/rest/networks', { token: a.apiKey })).body.data.find(
      (n: any) => n.name === 'tiktok',
    );
    assert.equal(listed.configured, false);
    assert.equal(listed.connection.kind, 'oauth');
    const refused = await t.api('POST', '/v1/rest/channels/connect', { token: a.apiKey, body: { network: 'tiktok' } });
    assert.equal(refused.status, 400);
    assert.match(refused.body.message, /not configured for TikTok/);
  });

  it(
    'refuses, when the post is written, a first comment (TikTok has no comment API) ' +
      'and posts without media, on REST, MCP and in bulk',
    async () => {
      const channel = await connected();
      const comment = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: {
          channelIds: [channel.id],
          text: 'New video',
          videoUrls: [`${filesUrl}/short.mp4`],
          firstComment: { text: 'Link in bio' },
          saveAsDraft: true,
        },
      });
      assert.equal(comment.status, 400, JSON.stringify(comment.body));
      assert.match(comment.body.message, /TikTok has no comment API/);
      assert.equal(comment.body.details[0].path, 'firstComment');
      const textOnly = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [channel.id], text: 'Words only', saveAsDraft: true },
      });
      assert.equal(textOnly.status, 400);
      assert.match(textOnly.body.message, /TikTok posts need media/);

      const tool = await callTool(t, a.apiKey, 'create_image_post', {
        channelIds: [channel.id],
        text: 'From a model',
        imageUrls: [`${filesUrl}/photo-1.jpg`],
        firstComment: { text: 'Link in bio' },
        saveAsDraft: true,
      });
      assert.equal(tool.body.result.isError, true, JSON.stringify(tool.body));
      assert.match(tool.body.result.content[0].text, /TikTok has no comment API/);

      const bulk = await t.api('POST', '/v1/rest/posts/bulk', {
        token: a.apiKey,
        body: {
          posts: [
            { channelIds: [channel.id], text: 'fits', imageUrls: [`${filesUrl}/photo-1.jpg`], saveAsDraft: true },
            {
              channelIds: [channel.id],
              text: 'with a comment',
              imageUrls: [`${filesUrl}/photo-1.jpg`],
              firstComment: { text: 'Link in bio' },
              saveAsDraft: true,
            },
          ],
        },
      });
      assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
      assert.deepEqual(bulk.body.summary, { succeeded: 1, failed: 1 });
      assert.match(bulk.body.results[1].error.message, /^posts\[1\]: .*TikTok has no comment API/);

      const created = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [channel.id], text: 'No level', videoUrls: [`${filesUrl}/short.mp4`], saveAsDraft: true },
      });
      const patched = await t.api('PATCH', `/v1/rest/posts/${created.body.data[0].id}`, {
        token: a.apiKey,
        body: { channelOptions: { privacyLevel: 'EVERYONE' } },
      });
      assert.equal(patched.status, 400);
      assert.match(
        patched.body.message,
        new RegExp(
          /TikTok: channelOptions.privacyLevel must be one of /.source +
            /PUBLIC_TO_EVERYONE, MUTUAL_FOLLOW_FRIENDS, FOLLOWER_OF_CREATOR, SELF_ONLY/.source,
        ),
      );
      const unset = await t.api('PATCH', `/v1/rest/posts/${created.body.data[0].id}`, {
        token: a.apiKey,
        body: { channelOptions: { disableDuet: true } },
      });
      assert.equal(unset.status, 400);
      assert.match(unset.body.message, /TikTok needs channelOptions.privacyLevel/);
    },
  );

  // TikTok Content Posting API, media transfer guide, image restrictions: photo posts take JPEG and WebP only.
  it(
    'refuses a PNG photo: when written where Herald holds the file, ' +
      'else when the post goes out, never at content/init',
    async () => {
      const channel = await connected();
      const created = await callTool(t, a.apiKey, 'create_media_upload', {
        fileName: 'poster.png',
        contentType: 'image/png',
        sizeBytes: TINY_PNG.length,
      });
      const target = created.body.result.structuredContent;
      assert.equal(
        (await fetch(target.uploadUrl, { method: 'PUT', headers: target.headers, body: new Uint8Array(TINY_PNG) }))
          .status,
        200,
      );
      const library = (await callTool(t, a.apiKey, 'complete_media_upload', { uploadId: target.uploadId })).body.result
        .structuredContent.data;
      const written = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [channel.id], text: 'A poster', imageUrls: [library.url], saveAsDraft: true },
      });
      assert.equal(written.status, 400, JSON.stringify(written.body));
      assert.match(
        written.body.message,
        /TikTok takes images as JPEG or WebP; imageUrls\[0\] is PNG\. Convert it, or choose another file\./,
      );
      assert.equal(written.body.details[0].path, 'imageUrls[0]');

      const elsewhere = await schedule(channel.id, {
        text: 'A poster from elsewhere',
        imageUrls: [`${filesUrl}/photo-1.jpg`, `${filesUrl}/poster.png`],
      });
      // The files "from elsewhere" are served on 127.0.0.1, which the SSRF guard refuses unless listed.
      await testWorker(t, {}, undefined, heraldMediaChecker(t, ['127.0.0.1'])).tick();
      const got = await get(elsewhere.id);
      assert.equal(got.status, 'failed');
      assert.match(got.error, /TikTok takes images as JPEG or WebP; imageUrls\[1\] is PNG/);
      assert.equal(tiktok.requests.includes('POST /v2/post/publish/content/init/'), false, 'TikTok never saw it');
    },
  );

  // The same document, as the fake holds to it: a PNG that reaches TikTok fails after content/init.
  it("reports TikTok's own refusal of a PNG it pulled, file_format_check_failed, as a permanent failure", async () => {
    const channel = await connected();
    const post = await schedule(channel.id, { text: 'Unchecked poster', imageUrls: [`${filesUrl}/poster.png`] });
    await testWorker(t).tick();
    const got = await get(post.id);
    assert.equal(got.status, 'failed');
    assert.match(got.error, /file_format_check_failed/);
  });

  it(
    "posts a video by FILE_UPLOAD in chunks within TikTok's rules, " +
      "after reading the creator's info, and waits for PUBLISH_COMPLETE",
    async () => {
      const channel = await connected();
      const post = await schedule(
        channel.id,
        { text: 'Twelve megabytes of dots #tiktok', videoUrls: [`${filesUrl}/long.mp4`] },
        { privacyLevel: 'PUBLIC_TO_EVERYONE', disableDuet: true },
      );
      await testWorker(t).tick();
      const got = await get(post.id);
      assert.equal(got.status, 'published', got.error);
      const [publish] = tiktok.publishes;
      const size = 12 * MB + 12_345;
      assert.equal(publish.kind, 'video');
      assert.deepEqual(publish.source_info, {
        source: 'FILE_UPLOAD',
        video_size: size,
        chunk_size: 5 * MB,
        total_chunk_count: 2,
      });
      assert.deepEqual(
        publish.ranges,
        [`bytes 0-${5 * MB - 1}/${size}`, `bytes ${5 * MB}-${size - 1}/${size}`],
        'the last chunk takes the trailing bytes',
      );
      assert.ok(Buffer.concat(publish.bytes).equals(served['/long.mp4'].body), 'the bytes arrived whole, in order');
      assert.deepEqual(
        publish.post_info,
        {
          title: 'Twelve megabytes of dots #tiktok',
          privacy_level: 'PUBLIC_TO_EVERYONE',
          disable_comment: false,
          disable_duet: true,
          disable_stitch: true,
        },
        'stitches stay off: the creator turned them off',
      );
      const indexOf = (what: string) => tiktok.requests.indexOf(what);
      assert.ok(
        indexOf('POST /v2/post/publish/creator_info/query/') < indexOf('POST /v2/post/publish/video/init/'),
        'creator info first',
      );
      assert.ok(
        tiktok.requests.filter((r) => r === 'POST /v2/post/publish/status/fetch/').length >= 2,
        'polled while TikTok processed',
      );
      const video = tiktok.videos[0];
      assert.equal(
        got.permalinkUrl,
        `https://www.tiktok.com/@alice.makes/video/${video.id}`,
        'the int64 id, not rounded',
      );
      assert.equal(video.title, 'Twelve megabytes of dots #tiktok');
    },
  );

  it("sends a video under 5 MB whole, photos by PULL_FROM_URL, and drafts to the creator's inbox", async () => {
    const channel = await connected();
    const short = await schedule(
      channel.id,
      { text: 'Short one', videoUrls: [`${filesUrl}/short.mp4`] },
      { privacyLevel: 'SELF_ONLY' },
    );
    const photos = await schedule(
      channel.id,
      { text: 'Two photos, one story', imageUrls: [`${filesUrl}/photo-1.jpg`, `${filesUrl}/photo-2.jpg`] },
      { privacyLevel: 'MUTUAL_FOLLOW_FRIENDS', title: 'Photo day' },
    );
    const draft = await schedule(
      channel.id,
      { text: 'Finish me in the app', videoUrls: [`${filesUrl}/short.mp4`] },
      { privacyLevel: 'SELF_ONLY', draft: true },
    );
    const worker = testWorker(t);
    await worker.tick();
    for (const id of [short.id, photos.id, draft.id])
      assert.equal((await get(id)).status, 'published', (await get(id)).error);

    const video = tiktok.publishes.find((p) => p.kind === 'video')!;
    const photo = tiktok.publishes.find((p) => p.kind === 'photo')!;
    const inbox = tiktok.publishes.find((p) => p.kind === 'inbox_video')!;
    assert.deepEqual(video.source_info, {
      source: 'FILE_UPLOAD',
      video_size: 3 * MB,
      chunk_size: 3 * MB,
      total_chunk_count: 1,
    });
    assert.deepEqual(video.ranges, [`bytes 0-${3 * MB - 1}/${3 * MB}`]);
    assert.equal(
      (await get(short.id)).permalinkUrl,
      'https://www.tiktok.com/@alice.makes',
      'a private post has no public id',
    );
    assert.equal((await row(short.id)).network_post_id, video.publish_id, 'the publish_id names it');

    assert.equal(photo.kind, 'photo');
    assert.equal(photo.post_mode, 'DIRECT_POST');
    assert.deepEqual(photo.source_info, {
      source: 'PULL_FROM_URL',
      photo_cover_index: 0,
      photo_images: [`${filesUrl}/photo-1.jpg`, `${filesUrl}/photo-2.jpg`],
    });
    assert.equal(photo.post_info.title, 'Photo day');
    assert.equal(photo.post_info.description, 'Two photos, one story');
    assert.equal((await get(photos.id)).permalinkUrl, `https://www.tiktok.com/@alice.makes/photo/${photo.post_id}`);

    assert.equal(inbox.kind, 'inbox_video');
    assert.equal(inbox.status, 'SEND_TO_USER_INBOX');
    assert.ok(tiktok.requests.includes('POST /v2/post/publish/inbox/video/init/'));
    assert.equal(tiktok.videos.length, 2, 'the draft waits in the inbox; nothing is posted for it');
  });

  it(
    'refuses a privacy level the account does not offer, ' +
      'and a video longer than the creator may post, before uploading anything',
    async () => {
      const channel = await connected();
      tiktok.creator.privacy_level_options = ['SELF_ONLY'];
      const hidden = await schedule(
        channel.id,
        { text: 'Public please', videoUrls: [`${filesUrl}/short.mp4`] },
        { privacyLevel: 'PUBLIC_TO_EVERYONE' },
      );
      const long = await schedule(
        channel.id,
        { text: 'Ten minutes and a second', videoUrls: [`${filesUrl}/too-long.mp4`] },
        { privacyLevel: 'SELF_ONLY' },
      );
      await testWorker(t).tick();
      const refused = await get(hidden.id);
      assert.equal(refused.status, 'failed');
      assert.match(
        refused.error,
        /TikTok does not offer privacy level PUBLIC_TO_EVERYONE to @alice\.makes now; it offers SELF_ONLY/,
      );
      const tooLong = await get(long.id);
      assert.equal(tooLong.status, 'failed');
      assert.match(tooLong.error, /up to 600 s; this one runs 601 s/);
      assert.equal(tiktok.publishes.length, 0, 'nothing was initialized');
    },
  );

  it(
    'refreshes an expired token, storing the rotated refresh token; ' +
      'a refused refresh marks the channel needs_reconnect',
    async () => {
      const channel = await connected();
      tiktok.expiresIn = 7_200;
      tiktok.expireAccessTokens();
      const post = await schedule(channel.id, { text: 'After a refresh', imageUrls: [`${filesUrl}/photo-1.jpg`] });
      await testWorker(t).tick();
      assert.equal((await get(post.id)).status, 'published', (await get(post.id)).error);
      assert.deepEqual(tiktok.refreshTokens(), { live: 1, spent: 1 }, 'the spent refresh token was replaced');
      const stored = await t.herald.db('channels').where({ id: channel.id }).first();
      assert.ok(
        Math.abs(Number(stored.credentials_expire_at) - (Date.now() + 7_200_000)) < 60_000,
        'the new expires_in',
      );

      // Another refresh with the stored token works: Herald kept the rotated one.
      tiktok.expireAccessTokens();
      const again = await schedule(channel.id, { text: 'Second refresh', imageUrls: [`${filesUrl}/photo-1.jpg`] });
      await testWorker(t).tick();
      assert.equal((await get(again.id)).status, 'published', (await get(again.id)).error);

      tiktok.revokeAll();
      const revoked = await schedule(channel.id, { text: 'After revocation', imageUrls: [`${filesUrl}/photo-1.jpg`] });
      await testWorker(t).tick();
      const failed = await get(revoked.id);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /reconnect/);
      const listed = await theChannel();
      assert.equal(listed.status, 'needs_reconnect');
      assert.match(listed.statusReason, /Refresh token is invalid or expired/);
    },
  );

  it(
    "maps TikTok's failures: rate_limit_exceeded waits out the window, internal_error retries, " +
      'FAILED with error.code "ok" is permanent, scope_not_authorized needs a reconnect',
    async () => {
      const channel = await connected();
      const clock = pinClock(t, new Date().toISOString());
      const worker = testWorker(t);

      tiktok.failNext(
        '/v2/post/publish/content/init/',
        429,
        'rate_limit_exceeded',
        'The API rate limit was exceeded. Please try again later.',
      );
      const limited = await schedule(channel.id, { text: 'Rate limited', imageUrls: [`${filesUrl}/photo-1.jpg`] });
      await worker.tick();
      const waiting = await row(limited.id);
      assert.equal(waiting.status, 'scheduled');
      const until = Number((await t.herald.db('channels').where({ id: channel.id }).first()).rate_limited_until);
      assert.equal(until, clock.now() + 60_000, 'TikTok sends no reset: the channel waits out its one-minute window');
      assert.equal(Number(waiting.next_attempt_at), until);
      clock.advance(61_000);
      tiktok.failNext(
        '/v2/post/publish/content/init/',
        500,
        'internal_error',
        'Something went wrong. Please try again later.',
      );
      await worker.tick();
      assert.equal((await row(limited.id)).status, 'scheduled', 'internal_error: tried again later');
      clock.advance(60 * 60_000);
      await worker.tick();
      assert.equal((await get(limited.id)).status, 'published');
      assert.equal(tiktok.publishes.length, 1, 'the refused calls made nothing');

      tiktok.failProcessingNext('file_format_check_failed');
      const broken = await schedule(channel.id, { text: 'Not really a video', videoUrls: [`${filesUrl}/short.mp4`] });
      await worker.tick();
      const failed = await get(broken.id);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /TikTok could not publish the post: file_format_check_failed \(status FAILED\)/);

      tiktok.failNext(
        '/v2/post/publish/content/init/',
        403,
        'spam_risk_too_many_posts',
        'The daily post cap for this user is reached.',
      );
      const capped = await schedule(channel.id, { text: 'One too many', imageUrls: [`${filesUrl}/photo-1.jpg`] });
      await worker.tick();
      assert.match(
        (await get(capped.id)).error,
        /TikTok answered HTTP 403 spam_risk_too_many_posts: The daily post cap/,
      );

      tiktok.failNext(
        '/v2/post/publish/creator_info/query/',
        401,
        'scope_not_authorized',
        'The user did not authorize the scope required for completing this request.',
      );
      const scoped = await schedule(channel.id, { text: 'No scope', imageUrls: [`${filesUrl}/photo-1.jpg`] });
      await worker.tick();
      assert.match((await get(scoped.id)).error, /reconnect/);
      assert.equal((await theChannel()).status, 'needs_reconnect');
      const again = await connectThroughConsent(`/v1/rest/channels/${channel.id}/reconnect`, {});
      assert.equal(again.status, 200, again.html);
      assert.equal((await theChannel()).status, 'active');
    },
  );

  it("settles a lost answer by the publish_id or the creator's videos, never posting twice", async () => {
    const channel = await connected();
    // The last chunk makes the post, then the connection drops: the recorded publish_id answers for it.
    tiktok.dropAnswerNext('/upload/');
    const video = await schedule(channel.id, {
      text: 'Answer lost after the last chunk',
      videoUrls: [`${filesUrl}/short.mp4`],
    });
    const worker = testWorker(t);
    await worker.tick();
    const got = await get(video.id);
    assert.equal(got.status, 'published', got.error);
    assert.equal(tiktok.publishes.length, 1);
    assert.equal(got.permalinkUrl, `https://www.tiktok.com/@alice.makes/video/${tiktok.publishes[0].post_id}`);
    const [attempt] = await t.deps.repos.publishAttempts.attempts(a.accountId, video.id);
    assert.equal(attempt.outcome, 'reconciled');

    // A photo init makes the post itself; its answer is lost before any publish_id: found on the creator's videos.
    tiktok.dropAnswerNext('/v2/post/publish/content/init/');
    const photo = await schedule(channel.id, { text: 'Photo answer lost', imageUrls: [`${filesUrl}/photo-1.jpg`] });
    tiktok.processingPolls = 0;
    await worker.tick();
    assert.equal((await get(photo.id)).status, 'published', (await get(photo.id)).error);
    assert.equal(tiktok.publishes.length, 2);

    // A video init whose answer is lost made nothing (TikTok posts only what it received whole): retried.
    tiktok.dropAnswerNext('/v2/post/publish/video/init/');
    const init = await schedule(channel.id, { text: 'Init answer lost', videoUrls: [`${filesUrl}/short.mp4`] });
    const clock = pinClock(t, new Date().toISOString());
    await worker.tick();
    assert.equal((await row(init.id)).status, 'scheduled');
    clock.advance(60 * 60_000);
    await worker.tick();
    assert.equal((await get(init.id)).status, 'published');
    assert.equal(tiktok.videos.filter((v) => v.title === 'Init answer lost').length, 1);
  });

  it(
    'settles an attempt whose worker died mid-publish: ' +
      "by the publish_id it recorded, else by the creator's recent videos",
    async () => {
      const channel = await connected();
      const clock = pinClock(t, new Date().toISOString());
      const recorded = await schedule(channel.id, {
        text: 'Died after the upload',
        videoUrls: [`${filesUrl}/short.mp4`],
      });
      const unrecorded = await schedule(channel.id, {
        text: 'Died before any answer',
        imageUrls: [`${filesUrl}/photo-1.jpg`],
      });
      const missing = await schedule(channel.id, {
        text: 'Died before sending',
        imageUrls: [`${filesUrl}/photo-1.jpg`],
      });
      tiktok.processingPolls = 0;
      const claimed = await dieMidAttempt(t, clock);
      assert.deepEqual([...claimed].sort(), [recorded.id, unrecorded.id, missing.id].sort());

      // What the dead worker had done at TikTok: a whole upload under a recorded publish_id, and a photo post.
      const opened = JSON.parse(
        t.deps.secretBox.open(
          `channel-credentials:${channel.id}`,
          (await t.herald.db('channels').where({ id: channel.id }).first()).credentials,
        ),
      );
      const api = (path: string, body: unknown) =>
        fetch(`${tiktok.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${opened.accessToken}`, 'content-type': 'application/json; charset=UTF-8' },
          body: JSON.stringify(body),
        }).then((r) => r.json());
      const bytes = served['/short.mp4'].body;
      const init = await api('/v2/post/publish/video/init/', {
        post_info: { title: 'Died after the upload', privacy_level: 'PUBLIC_TO_EVERYONE' },
        source_info: {
          source: 'FILE_UPLOAD',
          video_size: bytes.length,
          chunk_size: bytes.length,
          total_chunk_count: 1,
        },
      });
      assert.equal(init.error.code, 'ok', JSON.stringify(init));
      await t.deps.repos.publishAttempts.setHandle(`${recorded.id}:1`, init.data.publish_id);
      const put = await fetch(init.data.upload_url.replace(UPLOAD_ORIGIN, tiktok.url), {
        method: 'PUT',
        headers: { 'content-type': 'video/mp4', 'content-range': `bytes 0-${bytes.length - 1}/${bytes.length}` },
        body: new Uint8Array(bytes),
      });
      assert.equal(put.status, 201);
      tiktok.postExternally('Died before any answer', {}, new Date(clock.now()));

      clock.advance(2_000);
      await testWorker(t).tick();
      assert.equal((await get(recorded.id)).status, 'published', (await get(recorded.id)).error);
      assert.equal((await get(unrecorded.id)).status, 'published', (await get(unrecorded.id)).error);
      const unknown = await get(missing.id);
      assert.equal(unknown.status, 'unconfirmed', 'not found: never retried blind');
      assert.equal(tiktok.publishes.length, 1, 'no second post for any of them');
      assert.equal(tiktok.videos.length, 2);
    },
  );

  it(
    'the fake refuses what TikTok refuses: bad chunk plans, ' +
      'ranges out of order, a JSON call without its charset, a spent refresh token',
    async () => {
      const channel = await connected();
      const opened = JSON.parse(
        t.deps.secretBox.open(
          `channel-credentials:${channel.id}`,
          (await t.herald.db('channels').where({ id: channel.id }).first()).credentials,
        ),
      );
      const post = (path: string, body: unknown, contentType = 'application/json; charset=UTF-8') =>
        fetch(`${tiktok.url}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${opened.accessToken}`, 'content-type': contentType },
          body: JSON.stringify(body),
        }).then(async (r) => ({ status: r.status, body: await r.json() }));
      const info = { title: 'x', privacy_level: 'SELF_ONLY' };
      const init = (source: Record<string, number>) =>
        post('/v2/post/publish/video/init/', { post_info: info, source_info: { source: 'FILE_UPLOAD', ...source } });

      for (const [source, why] of [
        [{ video_size: 12 * MB, chunk_size: 4 * MB, total_chunk_count: 3 }, /between 5 MB and 64 MB/],
        [{ video_size: 12 * MB, chunk_size: 5 * MB, total_chunk_count: 3 }, /rounded down/],
        [{ video_size: 3 * MB, chunk_size: 1 * MB, total_chunk_count: 3 }, /uploaded whole/],
        [{ video_size: 100 * MB, chunk_size: 64 * MB, total_chunk_count: 1 }, /more than one chunk/],
      ] as const) {
        const refused = await init(source);
        assert.equal(refused.status, 400, JSON.stringify(source));
        assert.equal(refused.body.error.code, 'invalid_params');
        assert.match(refused.body.error.message, why);
      }
      const charset = await post('/v2/post/publish/creator_info/query/', {}, 'application/json');
      assert.equal(charset.status, 400);
      const mismatch = await post('/v2/post/publish/video/init/', {
        post_info: { ...info, privacy_level: 'FOLLOWER_OF_CREATOR' },
        source_info: { source: 'FILE_UPLOAD', video_size: MB, chunk_size: MB, total_chunk_count: 1 },
      });
      assert.deepEqual([mismatch.status, mismatch.body.error.code], [403, 'privacy_level_option_mismatch']);
      const unverified = await post('/v2/post/publish/content/init/', {
        post_info: info,
        source_info: {
          source: 'PULL_FROM_URL',
          photo_cover_index: 0,
          photo_images: ['https://elsewhere.example/a.jpg'],
        },
        post_mode: 'DIRECT_POST',
        media_type: 'PHOTO',
      });
      assert.deepEqual([unverified.status, unverified.body.error.code], [403, 'url_ownership_unverified']);

      const ok = await init({ video_size: 12 * MB, chunk_size: 5 * MB, total_chunk_count: 2 });
      assert.equal(ok.body.error.code, 'ok');
      const upload = ok.body.data.upload_url.replace(UPLOAD_ORIGIN, tiktok.url);
      const put = (range: string, bytes: number) =>
        fetch(upload, {
          method: 'PUT',
          headers: { 'content-type': 'video/mp4', 'content-range': range },
          body: new Uint8Array(bytes),
        });
      assert.equal((await put(`bytes ${5 * MB}-${12 * MB - 1}/${12 * MB}`, 7 * MB)).status, 416, 'chunks go in order');
      assert.equal((await put(`bytes 0-${5 * MB - 1}/${12 * MB}`, 5 * MB)).status, 206);
      assert.equal((await put(`bytes ${5 * MB}-${12 * MB - 1}/${12 * MB}`, 7 * MB)).status, 201);

      const refresh = (token: string) =>
        fetch(`${tiktok.url}/v2/oauth/token/`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            client_key: tiktok.clientKey,
            client_secret: tiktok.clientSecret,
            grant_type: 'refresh_token',
            refresh_token: token,
          }),
        }).then(async (r) => ({ status: r.status, body: await r.json() }));
      const rotated = await refresh(opened.refreshToken);
      assert.notEqual(rotated.body.refresh_token, opened.refreshToken);
      assert.equal((await refresh(opened.refreshToken)).body.error, 'invalid_grant', 'a refresh token works once');
      const stale = await post('/v2/post/publish/creator_info/query/', {});
      assert.deepEqual(
        [stale.status, stale.body.error.code],
        [200, 'ok'],
        'the access token it replaced still works until it expires',
      );
    },
  );

  it("syncs the creator's videos with their metrics, checks the connection, and revokes on disconnect", async () => {
    tiktok.grantOnly = ['user.info.basic', 'video.publish', 'video.upload', 'video.list'];
    const channel = await connected();
    tiktok.postExternally(
      'Made in the app',
      { like_count: 42, comment_count: 3, share_count: 2, view_count: 1_000 },
      new Date(Date.now() - 3_000),
    );
    tiktok.postExternally('Second', {}, new Date(Date.now() - 2_000));
    tiktok.postExternally('Third', {}, new Date(Date.now() - 1_000));
    await testWorker(t, { syncDepth: 2 }).sync();
    const live = await t.api('GET', `/v1/rest/posts?livePosts=true&channelIds=${channel.id}`, { token: a.apiKey });
    const found = live.body.data.filter((p: any) => p.isLivePost);
    assert.deepEqual(found.map((p: any) => p.text).sort(), ['Made in the app', 'Second', 'Third']);
    assert.deepEqual(found.find((p: any) => p.text === 'Made in the app').metrics, {
      likes: 42,
      comments: 3,
      shares: 2,
      views: 1_000,
    });

    const ok = await checkChannelConnection(t.deps, { channelId: channel.id });
    assert.deepEqual(
      { ok: ok.ok, account: ok.account, problems: ok.problems },
      { ok: true, account: '@alice.makes', problems: [] },
    );
    assert.deepEqual(ok.grantedScopes, ['user.info.basic', 'video.publish', 'video.upload', 'video.list']);
    assert.ok(!JSON.stringify(ok).includes('act.'), 'no token in the answer');

    tiktok.grantOnly = ['user.info.basic', 'video.publish'];
    tiktok.creator.privacy_level_options = ['SELF_ONLY'];
    tiktok.refreshExpiresIn = 3 * 24 * 3600;
    await connectThroughConsent(`/v1/rest/channels/${channel.id}/reconnect`, {});
    const partial = await checkChannelConnection(t.deps, { channelId: channel.id });
    assert.equal(partial.ok, false);
    assert.deepEqual(partial.grantedScopes, ['user.info.basic', 'video.publish']);
    assert.match(partial.problems[0], /did not grant video\.upload, video\.list/);
    assert.match(partial.problems[1], /SELF_ONLY only/);
    assert.match(partial.problems[2], /refresh token expires/);

    const res = await t.api('DELETE', `/v1/rest/channels/${channel.id}`, { token: a.apiKey });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.revokedAtNetwork, true);
    assert.deepEqual(tiktok.refreshTokens().live, 0, 'TikTok revoked the tokens');
  });
});
