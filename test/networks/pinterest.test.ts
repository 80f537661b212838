import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { checkChannelConnection } from '../../src/domain/networks/connection-check.js';
import { loadConfig } from '../../src/config.js';
import { TINY_PNG } from '../media/fixtures.js';
import { callTool } from '../mcp/support.js';
import {
  API_ORIGIN,
  CONSENT_ORIGIN,
  UPLOAD_ORIGIN,
  startFakePinterest,
  type FakePinterest,
} from '../support/fake-pinterest.js';
import { assertAudienceInInsights } from '../insights/network-audience.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { openRedirect } from '../support/herald-page.js';
import { serveMediaFiles } from '../support/media-files.js';
import { dieMidAttempt, pinClock, testWorker } from '../publishing/support.js';
import { ensureCliBuilt, HERALD_CLI } from '../support/cli.js';

// The commands run the CLI bundled from src/ (test/support/cli.ts), built before the first.
before(ensureCliBuilt);

const RECIPES = '549755885176';

/** Pinterest through its documented wire format (test/support/fake-pinterest.ts): no Pinterest account is reached. */
describe('Pinterest, against a fake that speaks its documented API', function () {
  this.timeout(60_000);
  let pinterest: FakePinterest;
  let files: Awaited<ReturnType<typeof serveMediaFiles>>;
  let filesUrl: string;
  const video = Buffer.alloc(300_000, 7);
  let t: TestHerald;
  let a: SeededAccount;

  before(async () => {
    files = await serveMediaFiles({
      '/photo.png': { type: 'image/png', body: TINY_PNG },
      '/clip.mp4': { type: 'video/mp4', body: video },
      '/page.html': { type: 'text/html', body: '<html>a preview page</html>' },
    });
    filesUrl = files.origin;
  });
  after(() => files?.close());

  async function start(apps = true): Promise<void> {
    pinterest = await startFakePinterest({ redirectUri: 'set once Herald listens' });
    // The fakes finish processing after a number of status polls, not seconds: no real wait between polls.
    const defaults = { ...loadConfig({}).networks, pollWaitScale: 0 };
    t = await startTestHerald({
      networkOriginOverrides: {
        [CONSENT_ORIGIN]: pinterest.url,
        [API_ORIGIN]: pinterest.url,
        [UPLOAD_ORIGIN]: pinterest.url,
      },
      networks: {
        ...defaults,
        apps: apps ? { pinterest: { clientId: pinterest.clientId, clientSecret: pinterest.clientSecret } } : {},
      },
      // The test's own media files are served on 127.0.0.1, which the SSRF guard refuses unless listed.
      outboundAllowHosts: ['127.0.0.1'],
    });
    pinterest.redirectUri = `${t.url}/connect/pinterest/callback`;
    a = await t.seedAccount({ channels: 0 });
  }
  beforeEach(() => start());
  afterEach(async () => {
    await t.close();
    await pinterest.close();
  });

  /** Starts connecting, plays the person at Pinterest's consent screen, and follows the redirect to Herald. */
  async function connectThroughConsent(
    path = '/v1/rest/channels/connect',
    body: Record<string, unknown> = { network: 'pinterest' },
  ) {
    const started = await t.api('POST', path, { token: a.apiKey, body });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const consent = await fetch(started.body.authorizationUrl.replace(CONSENT_ORIGIN, pinterest.url), {
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

  async function connected() {
    const done = await connectThroughConsent();
    assert.equal(done.status, 200, done.html);
    return theChannel();
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
    channelOptions: Record<string, unknown> = { boardId: RECIPES },
  ) {
    const res = await t.api('POST', '/v1/rest/posts', { token: a.apiKey, body: { channelIds: [channelId], ...body } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const post = res.body.data[0];
    const patched = await t.api('PATCH', `/v1/rest/posts/${post.id}`, { token: a.apiKey, body: { channelOptions } });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    return post;
  }

  async function storedCredentials(channelId: string) {
    return JSON.parse(
      t.deps.secretBox.open(
        `channel-credentials:${channelId}`,
        (await t.herald.db('channels').where({ id: channelId }).first()).credentials,
      ),
    );
  }

  it(
    "connects through Pinterest's consent with the app's id and the publishing scopes; " +
      'a denied consent connects nothing',
    async () => {
      const first = await connectThroughConsent();
      assert.equal(first.status, 200, first.html);
      assert.match(first.html, /alicemakes/);
      const asked = first.authorizationUrl.searchParams;
      assert.equal(
        `${first.authorizationUrl.origin}${first.authorizationUrl.pathname}`,
        'https://www.pinterest.com/oauth/',
      );
      assert.equal(asked.get('client_id'), pinterest.clientId);
      assert.equal(asked.get('response_type'), 'code');
      assert.equal(asked.get('scope'), 'boards:read,boards:write,pins:read,pins:write,user_accounts:read');
      assert.equal(asked.get('redirect_uri'), `${t.url}/connect/pinterest/callback`);
      const channel = await theChannel();
      assert.equal(channel.network, 'pinterest');
      assert.equal(channel.handle, 'alicemakes');
      assert.equal(channel.displayName, 'Alice Makes');
      assert.equal(channel.status, 'active');
      const stored = await t.herald.db('channels').where({ id: channel.id }).first();
      assert.ok(stored.credentials.startsWith('v1.'), 'sealed');
      assert.ok(
        !JSON.stringify((await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body).includes('pina_'),
        'no token in the answer',
      );
      assert.ok(
        Math.abs(Number(stored.credentials_expire_at) - (Date.now() + 30 * 86_400_000)) < 60_000,
        'expires_in (30 days) read from the answer',
      );
      const opened = await storedCredentials(channel.id);
      assert.deepEqual(pinterest.scopesOf(opened.accessToken), [
        'boards:read',
        'boards:write',
        'pins:read',
        'pins:write',
        'user_accounts:read',
      ]);

      pinterest.denyNext = true;
      const denied = await connectThroughConsent();
      assert.equal(denied.status, 400);
      assert.match(denied.html, /The user declined access/);
      assert.equal((await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data.length, 1);
    },
  );

  it("reads the account's follower_count at each sync as the channel's audience in REST insights", async () => {
    const channel = await connected();
    await assertAudienceInInsights(t, a.apiKey, channel.id, (n) => {
      pinterest.user.follower_count = n;
    });
  });

  it("connects from the CLI: prints Pinterest's consent address and waits for the callback", async function () {
    this.timeout(180_000);
    const env = {
      ...process.env,
      DATA_DIR: t.config.dataDir,
      DATABASE_URL: t.config.databaseUrl ?? '',
      BASE_URL: t.url,
      // The network's fake listens on loopback, which the SSRF guard refuses unless it is listed.
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      PINTEREST_APP_ID: pinterest.clientId,
      PINTEREST_APP_SECRET: pinterest.clientSecret,
      NETWORK_ORIGIN_OVERRIDES: [CONSENT_ORIGIN, API_ORIGIN, UPLOAD_ORIGIN]
        .map((origin) => `${origin}=${pinterest.url}`)
        .join(','),
    };
    const child = spawn('node', [HERALD_CLI, 'channel', 'connect', 'pinterest', '--json'], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    const address = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
        const found = /(https:\/\/www\.pinterest\.com\/oauth\/\S+)/.exec(stderr);
        if (found) resolve(found[1]);
      });
      child.on('exit', () => reject(new Error(`the CLI ended without an address: ${stderr}`)));
    });
    const consent = await fetch(address.replace(CONSENT_ORIGIN, pinterest.url), { redirect: 'manual' });
    const page = await fetch(consent.headers.get('location')!);
    assert.equal(page.status, 200, await page.text());
    const code = await new Promise((resolve) => child.on('exit', resolve));
    assert.equal(code, 0, stderr);
    assert.equal(JSON.parse(stdout).channels[0].handle, 'alicemakes');
  });

  it("is listed as not configured, and refuses to connect, without the operator's app", async () => {
    await t.close();
    await pinterest.close();
    await start(false);
    const listed = (await t.api('GET', '/v1/rest/networks', { token: a.apiKey })).body.data.find(
      (n: any) => n.name === 'pinterest',
    );
    assert.equal(listed.configured, false);
    assert.equal(listed.connection.kind, 'oauth');
    const refused = await t.api('POST', '/v1/rest/channels/connect', {
      token: a.apiKey,
      body: { network: 'pinterest' },
    });
    assert.equal(refused.status, 400);
    assert.match(refused.body.message, /not configured for Pinterest/);
  });

  it(
    'refuses before the post is due a first comment, a Pin without media or a board, ' +
      "and texts past Pinterest's limits, on REST, MCP and in bulk",
    async () => {
      const channel = await connected();
      const comment = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: {
          channelIds: [channel.id],
          text: 'Pie',
          imageUrls: [`${filesUrl}/photo.png`],
          firstComment: { text: 'Recipe inside' },
          saveAsDraft: true,
        },
      });
      assert.equal(comment.status, 400, JSON.stringify(comment.body));
      assert.match(comment.body.message, /Pinterest has no comment API/);
      assert.equal(comment.body.details[0].path, 'firstComment');
      const textOnly = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [channel.id], text: 'Words only', saveAsDraft: true },
      });
      assert.equal(textOnly.status, 400);
      assert.match(textOnly.body.message, /Pinterest posts need media/);
      const long = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: {
          channelIds: [channel.id],
          text: 'x'.repeat(801),
          imageUrls: [`${filesUrl}/photo.png`],
          saveAsDraft: true,
        },
      });
      assert.equal(long.status, 400);
      assert.match(long.body.message, /Pinterest allows 800 characters; this text has 801/);

      const tool = await callTool(t, a.apiKey, 'create_image_post', {
        channelIds: [channel.id],
        text: 'From a model',
        imageUrls: [`${filesUrl}/photo.png`],
        firstComment: { text: 'Recipe inside' },
        saveAsDraft: true,
      });
      assert.equal(tool.body.result.isError, true, JSON.stringify(tool.body));
      assert.match(tool.body.result.content[0].text, /Pinterest has no comment API/);

      const bulk = await t.api('POST', '/v1/rest/posts/bulk', {
        token: a.apiKey,
        body: {
          posts: [
            { channelIds: [channel.id], text: 'fits', imageUrls: [`${filesUrl}/photo.png`], saveAsDraft: true },
            {
              channelIds: [channel.id],
              text: 'with a comment',
              imageUrls: [`${filesUrl}/photo.png`],
              firstComment: { text: 'Recipe inside' },
              saveAsDraft: true,
            },
          ],
        },
      });
      assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
      assert.deepEqual(bulk.body.summary, { succeeded: 1, failed: 1 });
      assert.match(bulk.body.results[1].error.message, /^posts\[1\]: .*Pinterest has no comment API/);

      const created = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [channel.id], text: 'No board', imageUrls: [`${filesUrl}/photo.png`], saveAsDraft: true },
      });
      const noBoard = await t.api('PATCH', `/v1/rest/posts/${created.body.data[0].id}`, {
        token: a.apiKey,
        body: { channelOptions: { title: 'Pie' } },
      });
      assert.equal(noBoard.status, 400);
      assert.match(noBoard.body.message, /Pinterest needs channelOptions.boardId/);
      const longTitle = await t.api('PATCH', `/v1/rest/posts/${created.body.data[0].id}`, {
        token: a.apiKey,
        body: { channelOptions: { boardId: RECIPES, title: 't'.repeat(101) } },
      });
      assert.equal(longTitle.status, 400);
      assert.match(longTitle.body.message, /Pinterest allows 100 characters in channelOptions.title; this one has 101/);
    },
  );

  it("publishes an image Pin on the chosen board: Pinterest pulls the image from the post's URL", async () => {
    const channel = await connected();
    const post = await schedule(
      channel.id,
      { text: 'Apple pie, the easy way', imageUrls: [`${filesUrl}/photo.png`] },
      {
        boardId: RECIPES,
        title: 'Apple pie',
        link: 'https://example.com/pie',
        altText: 'A golden pie on a table',
      },
    );
    await testWorker(t).tick();
    const got = await get(post.id);
    assert.equal(got.status, 'published', got.error);
    const [pin] = pinterest.pins;
    assert.deepEqual(pinterest.pinBodies[0], {
      board_id: RECIPES,
      description: 'Apple pie, the easy way',
      title: 'Apple pie',
      link: 'https://example.com/pie',
      alt_text: 'A golden pie on a table',
      media_source: { source_type: 'image_url', url: `${filesUrl}/photo.png` },
    });
    assert.equal(pin.bytes, TINY_PNG.length, 'Pinterest fetched the image itself');
    assert.equal(got.permalinkUrl, `https://www.pinterest.com/pin/${pin.id}/`);
    assert.equal((await row(post.id)).network_post_id, pin.id);
  });

  it(
    'publishes a video Pin: registers the upload, sends the file with its form fields, ' +
      'waits for succeeded; a failed processing fails the post',
    async () => {
      const channel = await connected();
      pinterest.processingPolls = 1;
      const post = await schedule(
        channel.id,
        { text: 'Twelve seconds of pie', videoUrls: [`${filesUrl}/clip.mp4`] },
        { boardId: RECIPES, title: 'Pie video' },
      );
      const worker = testWorker(t);
      await worker.tick();
      const got = await get(post.id);
      assert.equal(got.status, 'published', got.error);
      const [media] = pinterest.media;
      assert.equal(media.status, 'succeeded');
      assert.ok(media.bytes.equals(video), 'the file arrived whole');
      assert.equal(media.contentType, 'video/mp4');
      assert.deepEqual(
        media.fields,
        [...Object.keys(media.upload_parameters), 'file'],
        'every upload parameter, then the file',
      );
      const reads = pinterest.requests.filter((r) => r === `GET /v5/media/${media.media_id}`).length;
      assert.ok(reads >= 2, 'the status was read until succeeded');
      assert.ok(
        pinterest.requests.indexOf('POST /v5/pins') > pinterest.requests.lastIndexOf(`GET /v5/media/${media.media_id}`),
        'the Pin only after processing',
      );
      assert.deepEqual(pinterest.pinBodies[0].media_source, {
        source_type: 'video_id',
        media_id: media.media_id,
        cover_image_key_frame_time: 1,
      });
      assert.equal(got.permalinkUrl, `https://www.pinterest.com/pin/${pinterest.pins[0].id}/`);

      pinterest.failProcessingNext();
      const broken = await schedule(channel.id, { text: 'Not really a video', videoUrls: [`${filesUrl}/clip.mp4`] });
      await worker.tick();
      const failed = await get(broken.id);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /Pinterest could not process the video \(media \d+: status failed\)/);
      assert.equal(pinterest.pins.length, 1, 'no Pin for the failed video');
    },
  );

  it(
    'refreshes an expired token by HTTP Basic, storing the new refresh token; ' +
      'a refused refresh marks the channel needs_reconnect',
    async () => {
      const channel = await connected();
      const before = await storedCredentials(channel.id);
      pinterest.expiresIn = 7_200;
      pinterest.expireAccessTokens();
      const post = await schedule(channel.id, { text: 'After a refresh', imageUrls: [`${filesUrl}/photo.png`] });
      await testWorker(t).tick();
      assert.equal((await get(post.id)).status, 'published', (await get(post.id)).error);
      const after = await storedCredentials(channel.id);
      assert.notEqual(after.accessToken, before.accessToken);
      assert.notEqual(
        after.refreshToken,
        before.refreshToken,
        'the refresh token Pinterest answered replaced the old one',
      );
      const stored = await t.herald.db('channels').where({ id: channel.id }).first();
      assert.ok(
        Math.abs(Number(stored.credentials_expire_at) - (Date.now() + 7_200_000)) < 60_000,
        'the new expires_in',
      );

      pinterest.revokeAll();
      const revoked = await schedule(channel.id, { text: 'After revocation', imageUrls: [`${filesUrl}/photo.png`] });
      await testWorker(t).tick();
      const failed = await get(revoked.id);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /reconnect/);
      const listed = await theChannel();
      assert.equal(listed.status, 'needs_reconnect');
      assert.match(listed.statusReason, /Invalid refresh token/);
    },
  );

  it(
    "maps Pinterest's failures: 429 waits until x-ratelimit-reset, 5xx retries, " +
      'a missing board or an unfetchable image is permanent, a 403 short of the scopes needs a reconnect',
    async () => {
      const channel = await connected();
      const clock = pinClock(t, new Date().toISOString());
      const worker = testWorker(t);

      pinterest.limits.org_write = 0;
      const limited = await schedule(channel.id, { text: 'Rate limited', imageUrls: [`${filesUrl}/photo.png`] });
      await worker.tick();
      const waiting = await row(limited.id);
      assert.equal(waiting.status, 'scheduled');
      const until = Number((await t.herald.db('channels').where({ id: channel.id }).first()).rate_limited_until);
      assert.ok(
        until > clock.now() && until <= clock.now() + 60_000,
        'the channel waits until the reset Pinterest named',
      );
      assert.equal(Number(waiting.next_attempt_at), until);
      assert.equal(pinterest.pins.length, 0);
      pinterest.limits.org_write = 100;
      clock.advance(61_000);
      pinterest.failNext('/v5/pins', 503, 503, 'Service unavailable.');
      await worker.tick();
      assert.equal((await row(limited.id)).status, 'scheduled', '5xx: tried again later');
      clock.advance(60 * 60_000);
      await worker.tick();
      assert.equal((await get(limited.id)).status, 'published');
      assert.equal(pinterest.pins.length, 1, 'the refused calls made nothing');

      const lost = await schedule(
        channel.id,
        { text: 'On a board that is gone', imageUrls: [`${filesUrl}/photo.png`] },
        { boardId: '123' },
      );
      const page = await schedule(channel.id, { text: 'A page, not an image', imageUrls: [`${filesUrl}/page.html`] });
      await worker.tick();
      assert.match((await get(lost.id)).error, /Pinterest answered HTTP 404 \(code 404\): Board not found\./);
      assert.equal((await get(lost.id)).status, 'failed');
      assert.match((await get(page.id)).error, /Sorry we could not fetch the image/);
      assert.equal(pinterest.pins.length, 1);
      assert.equal((await theChannel()).status, 'active', 'refusals of one post leave the channel as it was');

      // A grant short of pins:write: Pinterest's 403 is one a reconnect granting every scope mends.
      pinterest.grantOnly = ['boards:read', 'pins:read', 'user_accounts:read'];
      assert.equal((await connectThroughConsent(`/v1/rest/channels/${channel.id}/reconnect`, {})).status, 200);
      const unscoped = await schedule(channel.id, { text: 'Without pins:write', imageUrls: [`${filesUrl}/photo.png`] });
      await worker.tick();
      const refused = await get(unscoped.id);
      assert.equal(refused.status, 'failed');
      assert.match(
        refused.error,
        /HTTP 403 \(code 29\): You are not permitted to access that resource.*did not grant boards:write, pins:write/,
      );
      assert.equal((await theChannel()).status, 'needs_reconnect');
      pinterest.grantOnly = null;
      assert.equal((await connectThroughConsent(`/v1/rest/channels/${channel.id}/reconnect`, {})).status, 200);
      assert.equal((await theChannel()).status, 'active');
    },
  );

  it(
    'pauses the channel when an answer says its budget is spent, ' + 'until x-ratelimit-reset, without drawing a 429',
    async () => {
      const channel = await connected();
      const clock = pinClock(t, new Date().toISOString());
      pinterest.limits.org_write = 1;
      const worker = testWorker(t);
      const first = await schedule(channel.id, {
        text: 'The last call of the minute',
        imageUrls: [`${filesUrl}/photo.png`],
      });
      await worker.tick();
      assert.equal((await get(first.id)).status, 'published', (await get(first.id)).error);
      const until = Number((await t.herald.db('channels').where({ id: channel.id }).first()).rate_limited_until);
      assert.ok(
        until > clock.now() && until <= clock.now() + 60_000,
        'x-ratelimit-remaining 0: paused until the reset',
      );

      const second = await schedule(channel.id, {
        text: 'Waits for the next minute',
        imageUrls: [`${filesUrl}/photo.png`],
      });
      await worker.tick();
      assert.equal((await row(second.id)).status, 'scheduled');
      assert.equal(
        pinterest.requests.filter((r) => r === 'POST /v5/pins').length,
        1,
        'no call against a spent budget, so no 429',
      );
      clock.advance(until - clock.now() + 1_000);
      pinterest.limits.org_write = 100;
      await worker.tick();
      assert.equal((await get(second.id)).status, 'published', (await get(second.id)).error);
    },
  );

  it(
    "settles a lost answer by the board's recent Pins, " + 'never pinning twice; a lost media registration is retried',
    async () => {
      const channel = await connected();
      pinterest.dropAnswerNext('/v5/pins');
      const post = await schedule(channel.id, {
        text: 'Answer lost after the Pin',
        imageUrls: [`${filesUrl}/photo.png`],
      });
      const worker = testWorker(t);
      await worker.tick();
      const got = await get(post.id);
      assert.equal(got.status, 'published', got.error);
      assert.equal(pinterest.pins.length, 1);
      assert.equal(got.permalinkUrl, `https://www.pinterest.com/pin/${pinterest.pins[0].id}/`);
      const [attempt] = await t.deps.repos.publishAttempts.attempts(a.accountId, post.id);
      assert.equal(attempt.outcome, 'reconciled');
      assert.ok(
        pinterest.requests.includes(`GET /v5/boards/${RECIPES}/pins`),
        'looked up on the board the attempt recorded',
      );

      // A video Pin's lost answer: the image Pin with the same description on the board is not it.
      const decoy = pinterest.pinExternally(RECIPES, 'Video answer lost');
      pinterest.dropAnswerNext('/v5/pins');
      const lostVideo = await schedule(channel.id, { text: 'Video answer lost', videoUrls: [`${filesUrl}/clip.mp4`] });
      await worker.tick();
      const settled = await get(lostVideo.id);
      assert.equal(settled.status, 'published', settled.error);
      const videoPin = pinterest.pins.find((p) => p.media_source.source_type === 'video_id')!;
      assert.equal(settled.permalinkUrl, `https://www.pinterest.com/pin/${videoPin.id}/`);
      assert.notEqual(videoPin.id, decoy.id);

      pinterest.dropAnswerNext('/v5/media');
      const clip = await schedule(channel.id, {
        text: 'Registration answer lost',
        videoUrls: [`${filesUrl}/clip.mp4`],
      });
      const clock = pinClock(t, new Date().toISOString());
      await worker.tick();
      assert.equal((await row(clip.id)).status, 'scheduled', 'a registered upload is not a Pin: retried');
      clock.advance(60 * 60_000);
      await worker.tick();
      assert.equal((await get(clip.id)).status, 'published', (await get(clip.id)).error);
      assert.equal(pinterest.pins.filter((p) => p.description === 'Registration answer lost').length, 1);
    },
  );

  it(
    'settles an attempt whose worker died mid-publish by the recent Pins, ' + 'and leaves one not found unconfirmed',
    async () => {
      const channel = await connected();
      const clock = pinClock(t, new Date().toISOString());
      const recorded = await schedule(channel.id, { text: 'Died after the Pin', imageUrls: [`${filesUrl}/photo.png`] });
      const unrecorded = await schedule(channel.id, {
        text: 'Died before recording',
        imageUrls: [`${filesUrl}/photo.png`],
      });
      const missing = await schedule(channel.id, { text: 'Died before sending', imageUrls: [`${filesUrl}/photo.png`] });
      const claimed = await dieMidAttempt(t, clock);
      assert.deepEqual([...claimed].sort(), [recorded.id, unrecorded.id, missing.id].sort());

      // What the dead worker had done at Pinterest: two Pins, one after recording its board.
      const { accessToken } = await storedCredentials(channel.id);
      const pin = (description: string) =>
        fetch(`${pinterest.url}/v5/pins`, {
          method: 'POST',
          headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/json' },
          body: JSON.stringify({
            board_id: RECIPES,
            description,
            media_source: { source_type: 'image_url', url: `${filesUrl}/photo.png` },
          }),
        });
      await t.deps.repos.publishAttempts.setHandle(`${recorded.id}:1`, JSON.stringify({ boardId: RECIPES }));
      assert.equal((await pin('Died after the Pin')).status, 201);
      assert.equal((await pin('Died before recording')).status, 201);

      clock.advance(2_000);
      await testWorker(t).tick();
      assert.equal((await get(recorded.id)).status, 'published', (await get(recorded.id)).error);
      assert.equal((await get(unrecorded.id)).status, 'published', (await get(unrecorded.id)).error);
      assert.equal((await get(missing.id)).status, 'unconfirmed', 'not found: never retried blind');
      assert.equal(pinterest.pins.length, 2, 'no second Pin for any of them');
    },
  );

  it(
    'the fake refuses what Pinterest refuses: the app without HTTP Basic, a spent refresh token, ' +
      'a missing scope, PinCreate past its limits, an unready video, an upload without its policy fields',
    async () => {
      const channel = await connected();
      const { accessToken, refreshToken } = await storedCredentials(channel.id);
      const token = (form: Record<string, string>, basic?: string) =>
        fetch(`${pinterest.url}/v5/oauth/token`, {
          method: 'POST',
          headers: {
            'content-type': 'application/x-www-form-urlencoded',
            ...(basic ? { authorization: `Basic ${basic}` } : {}),
          },
          body: new URLSearchParams(form),
        }).then(async (r) => ({ status: r.status, body: await r.json() }));
      const app = Buffer.from(`${pinterest.clientId}:${pinterest.clientSecret}`).toString('base64');
      assert.deepEqual(await token({ grant_type: 'refresh_token', refresh_token: refreshToken }), {
        status: 401,
        body: { code: 2, message: 'Authentication failed.' },
      });
      assert.equal((await token({ grant_type: 'refresh_token', refresh_token: refreshToken }, app)).status, 200);
      assert.equal(
        (await token({ grant_type: 'refresh_token', refresh_token: refreshToken }, app)).status,
        400,
        'a refresh token works once',
      );
      const consent = await fetch(
        `${pinterest.url}/oauth/?client_id=${pinterest.clientId}` +
          `&redirect_uri=${encodeURIComponent('https://elsewhere.example/cb')}&response_type=code&scope=pins:read`,
        { redirect: 'manual' },
      );
      assert.equal(consent.status, 400, 'an unregistered redirect URI');

      const api = (method: string, path: string, body?: unknown, contentType = 'application/json') =>
        fetch(`${pinterest.url}${path}`, {
          method,
          headers: {
            authorization: `Bearer ${accessToken}`,
            ...(body === undefined ? {} : { 'content-type': contentType }),
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        }).then(async (r) => ({ status: r.status, body: await r.json().catch(() => undefined), headers: r.headers }));
      const image = { source_type: 'image_url', url: `${filesUrl}/photo.png` };
      const read = await api('GET', '/v5/user_account');
      assert.equal(read.status, 200);
      assert.equal(read.headers.get('x-ratelimit-limit'), '1000');
      assert.ok(Number(read.headers.get('x-ratelimit-reset')) <= 60);
      for (const [body, status, why] of [
        [{ board_id: RECIPES, title: 't'.repeat(101), media_source: image }, 400, /title is longer than 100/],
        [
          { board_id: RECIPES, description: 'd'.repeat(801), media_source: image },
          400,
          /description is longer than 800/,
        ],
        [{ board_id: 'recipes', media_source: image }, 400, /board_id must be a string of digits/],
        [{ board_id: '1', media_source: image }, 404, /Board not found/],
        [{ board_id: RECIPES }, 400, /source_type is required/],
      ] as const) {
        const refused = await api('POST', '/v5/pins', body);
        assert.equal(refused.status, status, JSON.stringify(body));
        assert.match(refused.body.message, why);
      }
      assert.equal(
        (await api('POST', '/v5/pins', { board_id: RECIPES, media_source: image }, 'text/plain')).status,
        415,
      );

      const registered = (await api('POST', '/v5/media', { media_type: 'video' })).body;
      const early = await api('POST', '/v5/pins', {
        board_id: RECIPES,
        media_source: { source_type: 'video_id', media_id: registered.media_id },
      });
      assert.deepEqual(
        [early.status, early.body.message],
        [400, `Media ${registered.media_id} is not ready: its status is registered.`],
      );
      const upload = (fields: Record<string, string>, fileFirst = false) => {
        const form = new FormData();
        if (fileFirst) form.append('file', new Blob([new Uint8Array(video)], { type: 'video/mp4' }), 'clip.mp4');
        for (const [name, value] of Object.entries(fields)) form.append(name, value);
        if (!fileFirst) form.append('file', new Blob([new Uint8Array(video)], { type: 'video/mp4' }), 'clip.mp4');
        return fetch(`${pinterest.url}/`, { method: 'POST', body: form }).then(async (r) => ({
          status: r.status,
          text: await r.text(),
        }));
      };
      const { policy: _policy, ...withoutPolicy } = registered.upload_parameters;
      const noPolicy = await upload(withoutPolicy);
      assert.equal(noPolicy.status, 403);
      assert.match(noPolicy.text, /<Code>AccessDenied<\/Code>.*\$policy/);
      assert.equal((await upload(registered.upload_parameters, true)).status, 400, 'the file goes last');
      assert.equal((await upload(registered.upload_parameters)).status, 204);

      pinterest.grantOnly = ['pins:read', 'user_accounts:read'];
      await connectThroughConsent(`/v1/rest/channels/${channel.id}/reconnect`, {});
      const narrow = (await storedCredentials(channel.id)).accessToken;
      const boards = await fetch(`${pinterest.url}/v5/boards`, { headers: { authorization: `Bearer ${narrow}` } });
      assert.deepEqual(
        [boards.status, await boards.json()],
        [403, { code: 29, message: 'You are not permitted to access that resource.' }],
      );
    },
  );

  it(
    "syncs the account's Pins with their lifetime metrics, " + 'and checks the connection, listing the boards',
    async () => {
      pinterest.grantOnly = ['boards:read', 'boards:write', 'pins:read', 'pins:write', 'user_accounts:read'];
      const channel = await connected();
      pinterest.pinExternally(
        RECIPES,
        'Made in the app',
        { impression: 240, save: 20, pin_click: 37, outbound_click: 5, comment: 2, reaction: 10 },
        new Date(Date.now() - 3_000),
      );
      pinterest.pinExternally(RECIPES, 'Second', {}, new Date(Date.now() - 2_000));
      pinterest.pinExternally(RECIPES, 'Third', {}, new Date(Date.now() - 1_000));
      await testWorker(t, { syncDepth: 2 }).sync();
      const live = await t.api('GET', `/v1/rest/posts?livePosts=true&channelIds=${channel.id}`, { token: a.apiKey });
      const found = live.body.data.filter((p: any) => p.isLivePost);
      assert.deepEqual(found.map((p: any) => p.text).sort(), ['Made in the app', 'Second', 'Third']);
      assert.deepEqual(found.find((p: any) => p.text === 'Made in the app').metrics, {
        impressions: 240,
        saves: 20,
        pinClicks: 37,
        outboundClicks: 5,
        comments: 2,
        reactions: 10,
      });

      const ok = await checkChannelConnection(t.deps, { channelId: channel.id });
      assert.deepEqual(
        { ok: ok.ok, account: ok.account, problems: ok.problems },
        { ok: true, account: `alicemakes (boards: "Recipes" ${RECIPES})`, problems: [] },
      );
      assert.deepEqual(ok.grantedScopes, [
        'boards:read',
        'boards:write',
        'pins:read',
        'pins:write',
        'user_accounts:read',
      ]);
      assert.ok(!JSON.stringify(ok).includes('pina_'), 'no token in the answer');

      pinterest.grantOnly = ['boards:read', 'pins:read', 'user_accounts:read'];
      pinterest.boards = [];
      pinterest.refreshExpiresIn = 3 * 24 * 3600;
      await connectThroughConsent(`/v1/rest/channels/${channel.id}/reconnect`, {});
      const partial = await checkChannelConnection(t.deps, { channelId: channel.id });
      assert.equal(partial.ok, false);
      assert.deepEqual(partial.grantedScopes, ['boards:read', 'pins:read', 'user_accounts:read']);
      assert.match(partial.problems[0], /did not grant boards:write, pins:write/);
      assert.match(partial.problems[1], /no boards/);
      assert.match(partial.problems[2], /refresh token expires/);
    },
  );
});
