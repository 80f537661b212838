import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { loadConfig } from '../../src/config.js';
import { checkChannelConnection } from '../../src/domain/networks/connection-check.js';
import { TINY_JPEG, TINY_MP4 } from '../media/fixtures.js';
import { callTool } from '../mcp/support.js';
import { startFakeThreads, type FakeThreads } from '../support/fake-threads.js';
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

/** Threads through its documented wire format (test/support/fake-threads.ts), through the real Herald. */
describe('Threads, against a fake that speaks its documented API', function () {
  this.timeout(60_000);
  let threads: FakeThreads;
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

  async function start(configured = true) {
    threads = await startFakeThreads();
    // The fakes finish processing after a number of status polls, not seconds: no real wait between polls.
    const defaults = { ...loadConfig({}).networks, pollWaitScale: 0 };
    t = await startTestHerald({
      networkOriginOverrides: { 'https://threads.net': threads.url, 'https://graph.threads.net': threads.url },
      networks: {
        ...defaults,
        apps: configured
          ? { threads: { clientId: threads.appId, clientSecret: threads.appSecret, graphVersion: 'v1.0' } }
          : {},
      },
      // The test's own media files are served on 127.0.0.1, which the SSRF guard refuses unless listed.
      outboundAllowHosts: ['127.0.0.1'],
    });
    threads.redirectUris.push(`${t.url}/connect/threads/callback`);
    a = await t.seedAccount({ channels: 0 });
  }
  afterEach(async () => {
    await t?.close();
    await threads?.close();
  });

  /** Starts connecting, plays the person at Threads' consent screen, and follows the redirect to Herald. */
  async function connectThroughConsent(
    path = '/v1/rest/channels/connect',
    body: Record<string, unknown> = { network: 'threads' },
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
    return listed.find((c) => c.network === 'threads');
  }

  async function get(id: string) {
    return (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
  }

  async function schedule(body: Record<string, unknown>) {
    const res = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: { channelIds: [(await channel()).id], ...body },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data[0];
  }

  /** What the person's token can do at the fake directly: a dead worker's calls. */
  async function asTheDeadWorker(path: string, form: Record<string, string>) {
    const row = await t.herald
      .db('channels')
      .where({ id: (await channel()).id })
      .first();
    const { accessToken } = JSON.parse(t.deps.secretBox.open(`channel-credentials:${row.id}`, row.credentials));
    const answer = await fetch(`${threads.url}/v1.0/${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(form),
    });
    return answer.json() as Promise<any>;
  }

  describe('connecting', () => {
    it(
      "connects a profile through Threads' consent with a 60-day token, sealed; " +
        'connecting again updates the same channel',
      async () => {
        await start();
        const connected = await connectThroughConsent();
        assert.equal(connected.status, 200, connected.html);
        assert.match(connected.html, /Connected/);
        assert.equal(
          connected.authorizationUrl.origin,
          threads.url,
          'threads.net, rewritten by NETWORK_ORIGIN_OVERRIDES',
        );
        assert.equal(connected.authorizationUrl.pathname, '/oauth/authorize');
        assert.equal(connected.authorizationUrl.searchParams.get('redirect_uri'), `${t.url}/connect/threads/callback`);
        assert.deepEqual(connected.authorizationUrl.searchParams.get('scope')!.split(','), [
          'threads_basic',
          'threads_content_publish',
          'threads_manage_insights',
        ]);
        const made = await channel();
        assert.deepEqual(
          [made.handle, made.displayName, made.status],
          ['analytical.engines', 'Analytical Engines', 'active'],
        );
        const row = await t.herald.db('channels').where({ id: made.id }).first();
        assert.equal(row.network_account_id, threads.account.userId);
        assert.ok(row.credentials.startsWith('v1.'), 'sealed in the vault');
        const { accessToken } = JSON.parse(t.deps.secretBox.open(`channel-credentials:${row.id}`, row.credentials));
        assert.ok(!row.credentials.includes(accessToken), 'no token in the clear');
        assert.ok(
          Number(row.credentials_expire_at) > Date.now() + 59 * DAY_MS,
          'the long-lived token, not the one-hour one',
        );
        assert.deepEqual(threads.requests.slice(1, 5), [
          'POST /oauth/access_token',
          'GET /access_token',
          'GET /v1.0/debug_token',
          'GET /v1.0/me',
        ]);

        const again = await connectThroughConsent(`/v1/rest/channels/${made.id}/reconnect`, {});
        assert.equal(again.status, 200, again.html);
        assert.equal(((await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data as any[]).length, 1);
        assert.deepEqual(threads.refusals, []);
      },
    );

    it(
      'a denied consent or a withheld publishing permission connects nothing and says why; ' +
        'an unconfigured Threads refuses to connect',
      async () => {
        await start();
        threads.denyNext = true;
        const denied = await connectThroughConsent();
        assert.equal(denied.status, 400);
        assert.match(denied.html, /Threads did not grant access \(The user denied your request\)/);
        threads.grantOnly = ['threads_basic'];
        const partial = await connectThroughConsent();
        assert.equal(partial.status, 400);
        assert.match(partial.html, /Threads did not grant threads_content_publish, which Herald needs to publish/);
        assert.equal(await channel(), undefined);
        await t.close();
        await threads.close();

        await start(false);
        const networks = await t.api('GET', '/v1/rest/networks', { token: a.apiKey });
        assert.equal(networks.body.data.find((n: any) => n.name === 'threads').configured, false);
        const refused = await t.api('POST', '/v1/rest/channels/connect', {
          token: a.apiKey,
          body: { network: 'threads' },
        });
        assert.equal(refused.status, 400);
        assert.match(refused.body.message, /not configured for Threads/);
      },
    );

    it("connects from the CLI through Threads' consent", async function () {
      this.timeout(180_000);
      await start();
      const env = {
        ...process.env,
        DATA_DIR: t.config.dataDir,
        DATABASE_URL: t.config.databaseUrl ?? '',
        BASE_URL: t.url,
        // The network's fake listens on loopback, which the SSRF guard refuses unless it is listed.
        OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
        THREADS_APP_ID: threads.appId,
        THREADS_APP_SECRET: threads.appSecret,
        NETWORK_ORIGIN_OVERRIDES: `https://threads.net=${threads.url},https://graph.threads.net=${threads.url}`,
      };
      const child = spawn('node', [HERALD_CLI, 'channel', 'connect', 'threads', '--json'], { env });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
      });
      const address = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (chunk) => {
          stderr += chunk;
          const found = /(http:\/\/\S+\/oauth\/authorize\S+)/.exec(stderr);
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
  });

  describe('publishing', () => {
    beforeEach(async () => {
      await start();
      await connectThroughConsent();
    });

    it(
      'publishes text through a TEXT container after reading the publishing limit, ' + 'recording the container first',
      async () => {
        const post = await schedule({
          text: 'Hello, Threads (ünïcödé) #engines',
          firstComment: { text: 'SPEC names no first comments on Threads', delayMinutes: 0 },
        });
        await testWorker(t).tick();
        await testWorker(t).tick();
        const published = await get(post.id);
        assert.equal(published.status, 'published', published.error);
        const [made] = threads.posts;
        assert.deepEqual([made.text, made.mediaType], ['Hello, Threads (ünïcödé) #engines', 'TEXT_POST']);
        assert.equal(published.permalinkUrl, `https://www.threads.net/@analytical.engines/post/${made.id}`);
        const order = threads.requests.filter((r) => r.startsWith('POST') || r.includes('threads_publishing_limit'));
        assert.deepEqual(order.slice(-3), [
          `GET /v1.0/${threads.account.userId}/threads_publishing_limit`,
          `POST /v1.0/${threads.account.userId}/threads`,
          `POST /v1.0/${threads.account.userId}/threads_publish`,
        ]);
        const [attempt] = await t.deps.repos.publishAttempts.attempts(a.accountId, post.id);
        assert.equal(
          await t.deps.repos.publishAttempts.handleOf(attempt.idempotencyKey),
          made.container,
          "the container was recorded as the attempt's handle",
        );
        assert.equal(
          await t.deps.repos.commentSteps.commentStep(post.id),
          undefined,
          'the first comment is ignored on Threads, as the capabilities row says',
        );
        assert.equal(threads.containers.size, 1, 'no reply container');
        assert.deepEqual(threads.refusals, [], 'Threads refused nothing Herald sent');
        assert.deepEqual([...threads.versionsSeen], ['v1.0']);
      },
    );

    it(
      'publishes a thread as replies (reply_to_id), each to the part before it; ' +
        'a part whose answer was lost is found among the replies, never made twice',
      async () => {
        const clock = pinClock(t, new Date().toISOString());
        const post = await schedule({
          text: 'A thread, 1/3',
          thread: [{ text: 'Part 2/3', imageUrls: [imageUrl] }, { text: 'Part 3/3' }],
        });
        const steps = t.deps.repos.threadSteps;
        const claimDue = steps.claimDue.bind(steps);
        steps.claimDue = async (...args) => {
          const claimed = await claimDue(...args);
          if (claimed.length > 0 && threads.posts.length === 1) threads.dropAnswerNext('/threads_publish');
          return claimed;
        };
        const worker = testWorker(t);
        await worker.tick();
        assert.equal(threads.posts.length, 2, 'part 2 made, its answer lost');
        clock.advance(60 * 60_000);
        await worker.tick();
        const [head, second, third] = threads.posts;
        assert.equal(threads.posts.length, 3);
        assert.deepEqual([head.repliedTo, second.repliedTo, third.repliedTo], [null, head.id, second.id]);
        assert.deepEqual([second.mediaType, third.mediaType], ['IMAGE', 'TEXT_POST']);
        const got = await get(post.id);
        assert.deepEqual(
          got.thread.map((p: { permalinkUrl: string }) => p.permalinkUrl),
          [second, third].map((p) => `https://www.threads.net/@analytical.engines/post/${p.id}`),
        );
        assert.ok(
          threads.requests.includes(`GET /v1.0/${threads.account.userId}/replies`),
          'looked up among the replies',
        );
        assert.deepEqual(threads.refusals, []);
      },
    );

    it(
      'publishes an image, a video once its container is FINISHED, ' +
        'and a carousel of items, each as Threads takes it',
      async () => {
        const image = await schedule({ text: 'A picture', imageUrls: [imageUrl] });
        const video = await schedule({ text: 'A film', videoUrls: [videoUrl] });
        const carousel = await schedule({
          text: 'Three things',
          imageUrls: [imageUrl, `${imageUrl}?2`],
          videoUrls: [`${videoUrl}?3`],
        });
        await testWorker(t).tick();
        for (const id of [image.id, video.id, carousel.id])
          assert.equal((await get(id)).status, 'published', (await get(id)).error);

        const containerOf = (text: string) =>
          threads.containers.get(threads.posts.find((p) => p.text === text)!.container!)!;
        assert.deepEqual(
          [containerOf('A picture').mediaType, containerOf('A picture').url, containerOf('A picture').downloadedType],
          ['IMAGE', imageUrl, 'image/jpeg'],
        );
        assert.deepEqual(
          [containerOf('A film').mediaType, containerOf('A film').downloadedType],
          ['VIDEO', 'video/mp4'],
        );
        const album = containerOf('Three things');
        assert.equal(album.mediaType, 'CAROUSEL');
        assert.deepEqual(
          album.children.map((id) => [
            threads.containers.get(id)!.mediaType,
            threads.containers.get(id)!.isCarouselItem,
          ]),
          [
            ['IMAGE', true],
            ['IMAGE', true],
            ['VIDEO', true],
          ],
        );
        assert.deepEqual(threads.posts.map((p) => p.mediaType).sort(), ['CAROUSEL_ALBUM', 'IMAGE', 'VIDEO']);
        assert.deepEqual(threads.refusals, []);
      },
    );

    it(
      'refuses when written media uploaded to Herald, which Threads cannot fetch from this loopback instance; ' +
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
            /Threads fetches media from Herald's address, .* which Threads cannot reach; /.source +
              /set BASE_URL to a public https address/.source,
          ),
        );
        const inPart = await t.api('POST', '/v1/rest/posts', {
          token: a.apiKey,
          body: {
            channelIds: [(await channel()).id],
            text: 'From Herald',
            thread: [{ text: 'A picture', imageUrls: [media.url] }],
          },
        });
        assert.equal(inPart.status, 400, JSON.stringify(inPart.body));
        assert.equal(inPart.body.details[0].path, 'thread[0].imageUrls[0]', "a part's own file, named where it is");
        const preview = await schedule({ text: 'A preview page', imageUrls: [previewUrl] });
        await testWorker(t).tick();
        const failed = await get(preview.id);
        assert.equal(failed.status, 'failed');
        assert.match(
          failed.error,
          new RegExp(
            /Threads answered: Only photo or video can be accepted as media type\. /.source +
              /The media could not be fetched from this uri: .*\(code 100, subcode 2207052\)/.source,
          ),
        );
        assert.equal(threads.posts.length, 0);
      },
    );

    it('refuses before the post is due what Threads would refuse: on REST, MCP and per bulk entry', async () => {
      const id = (await channel()).id;
      const long = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [id], text: 'é'.repeat(501) },
      });
      assert.equal(long.status, 400);
      assert.match(long.body.message, /Threads allows 500 characters; this text has 501/);
      const many = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: {
          channelIds: [id],
          text: 'Too many',
          imageUrls: Array.from({ length: 11 }, (_, i) => `${imageUrl}?${i}`),
          videoUrls: Array.from({ length: 10 }, (_, i) => `${videoUrl}?${i}`),
        },
      });
      assert.equal(many.status, 400);
      assert.match(many.body.message, /Threads/);
      assert.match(many.body.message, /20/);

      const tool = await callTool(t, a.apiKey, 'create_text_post', { channelIds: [id], text: 'x'.repeat(501) });
      assert.equal(tool.body.result.isError, true, JSON.stringify(tool.body));
      assert.match(tool.body.result.content[0].text, /Threads allows 500 characters; this text has 501/);

      const bulk = await t.api('POST', '/v1/rest/posts/bulk', {
        token: a.apiKey,
        body: {
          posts: [
            { channelIds: [id], text: 'fits' },
            { channelIds: [id], text: 'x'.repeat(501) },
          ],
        },
      });
      assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
      assert.deepEqual(bulk.body.summary, { succeeded: 1, failed: 1 });
      assert.match(
        bulk.body.results[1].error.message,
        /^posts\[1\]: .*Threads allows 500 characters; this text has 501/,
      );
    });
  });

  describe('tokens', () => {
    beforeEach(async () => {
      await start();
      await connectThroughConsent();
    });

    it('refreshes a token once it is a day old (th_refresh_token), and stores the new 60-day expiry', async () => {
      const clock = pinClock(t, new Date().toISOString());
      const id = (await channel()).id;
      const before = await t.herald.db('channels').where({ id }).first();
      const post = await schedule({ text: 'Young token' });
      await testWorker(t).tick();
      assert.equal((await get(post.id)).status, 'published');
      assert.equal(
        threads.requests.filter((r) => r === 'GET /refresh_access_token').length,
        0,
        'a young token is left alone',
      );

      clock.advance(2 * DAY_MS);
      threads.advance(2 * DAY_MS);
      const later = await schedule({ text: 'Older token' });
      await testWorker(t).tick();
      assert.equal((await get(later.id)).status, 'published', (await get(later.id)).error);
      assert.equal(threads.requests.filter((r) => r === 'GET /refresh_access_token').length, 1);
      const after = await t.herald.db('channels').where({ id }).first();
      assert.ok(
        Number(after.credentials_expire_at) > Number(before.credentials_expire_at) + DAY_MS,
        'the new 60-day expiry is stored',
      );
      assert.deepEqual(threads.refusals, []);
    });

    it(
      'an expired token cannot be refreshed (Threads refuses): ' + 'the channel needs a reconnect, saying why',
      async () => {
        pinClock(t, new Date().toISOString());
        threads.expireTokens();
        const post = await schedule({ text: 'Expired' });
        await testWorker(t).tick();
        const failed = await get(post.id);
        assert.equal(failed.status, 'failed');
        assert.match(failed.error, /reconnect/);
        const now = await channel();
        assert.equal(now.status, 'needs_reconnect');
        assert.match(now.statusReason, /Threads refused to refresh the access token .*Session has expired/);
        assert.equal(threads.requests.filter((r) => r === 'GET /refresh_access_token').length, 1, 'tried once');
        assert.equal(threads.posts.length, 0);
      },
    );
  });

  describe('failures and exactly once', () => {
    beforeEach(async () => {
      await start();
      await connectThroughConsent();
    });

    it(
      'throttling (code 4) waits as X-Business-Use-Case-Usage says; ' +
        'a spent publishing limit waits an hour before any container; Media Not Found retries',
      async () => {
        const clock = pinClock(t, '2026-11-23T15:00:00.000Z');
        const worker = testWorker(t);
        const id = (await channel()).id;
        threads.throttleNext(25);
        const throttled = await schedule({ text: 'Throttled' });
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
        threads.quotaTotal = 0;
        await worker.tick();
        const capped = await t.herald.db('posts').where({ id: throttled.id }).first();
        assert.equal(capped.status, 'scheduled');
        assert.equal(Number(capped.next_attempt_at), clock.now() + 3600_000);
        assert.equal(threads.containers.size, 0, 'no container spent on a post Threads would not publish');

        // A container Threads has not finished creating, though its status says FINISHED (fbsamples/threads_api#70).
        threads.quotaTotal = 250;
        clock.advance(3600_000 + 1);
        threads.failNext('/threads_publish', 400, {
          error: {
            message: 'The requested resource does not exist',
            type: 'OAuthException',
            code: 24,
            error_subcode: 4279009,
            is_transient: false,
            error_user_title: 'Media Not Found',
          },
        });
        await worker.tick();
        assert.equal((await get(throttled.id)).status, 'scheduled', 'Media Not Found is tried again');
        assert.equal(threads.posts.length, 0);
        clock.advance(3600_000);
        await worker.tick();
        assert.equal((await get(throttled.id)).status, 'published', (await get(throttled.id)).error);
        assert.equal(threads.posts.length, 1);
      },
    );

    it(
      'a spent publishing limit marks a post at risk before its slot, ' + 'and a limit back clears it (a rehearsal)',
      async () => {
        const clock = pinClock(t, new Date().toISOString());
        threads.quotaTotal = 0;
        const post = await schedule({
          text: 'In twenty minutes',
          isScheduled: true,
          dateTime: new Date(clock.now() + 20 * 60_000).toISOString(),
        });
        const worker = testWorker(t);
        await worker.rehearse();
        const { risk } = await get(post.id);
        assert.equal(
          risk.reason,
          'The Threads profile has published its 0 posts through the API in the last 24 hours.',
        );
        assert.match(risk.advice, /once the network allows it again/);
        assert.equal(threads.containers.size, 0, 'the rehearsal made no container');
        threads.quotaTotal = 250;
        clock.advance(5 * 60_000);
        await worker.rehearse();
        assert.equal((await get(post.id)).risk, null);
      },
    );

    it(
      'a video Threads could not process fails with its error_message; ' +
        "a permanent refusal fails with Meta's words; a revoked token needs a reconnect",
      async () => {
        threads.failProcessingNext = true;
        const film = await schedule({ text: 'Broken film', videoUrls: [videoUrl] });
        await testWorker(t).tick();
        const failed = await get(film.id);
        assert.equal(failed.status, 'failed');
        assert.match(failed.error, /Threads could not process the media \(FAILED_PROCESSING_VIDEO\)/);

        threads.failNext('/threads', 400, {
          error: {
            message: 'The user is temporarily blocked from posting',
            type: 'OAuthException',
            code: 368,
            error_subcode: 1390008,
          },
        });
        const blocked = await schedule({ text: 'Blocked' });
        await testWorker(t).tick();
        assert.equal((await get(blocked.id)).status, 'failed');
        assert.match(
          (await get(blocked.id)).error,
          /Threads answered: The user is temporarily blocked from posting \(code 368, subcode 1390008\)/,
        );
        assert.equal(threads.posts.length, 0);

        threads.revokeAll();
        const revoked = await schedule({ text: 'After revocation' });
        await testWorker(t).tick();
        assert.match((await get(revoked.id)).error, /reconnect/);
        const now = await channel();
        assert.equal(now.status, 'needs_reconnect');
        assert.match(now.statusReason, /The user has not authorized application/);
      },
    );

    it(
      'a threads_publish whose answer was lost is settled by the container (PUBLISHED) ' +
        "and the profile's threads, never posted twice; a lost container is retried",
      async () => {
        const post = await schedule({ text: 'Answer lost' });
        threads.dropAnswerNext('/threads_publish');
        await testWorker(t).tick();
        const got = await get(post.id);
        assert.equal(got.status, 'published', got.error);
        assert.equal(threads.posts.length, 1);
        assert.equal(got.permalinkUrl, `https://www.threads.net/@analytical.engines/post/${threads.posts[0].id}`);
        assert.deepEqual(
          (await t.deps.repos.publishAttempts.attempts(a.accountId, post.id)).map((x) => x.outcome),
          ['reconciled'],
        );
        assert.equal(threads.requests.filter((r) => r.endsWith('/threads_publish')).length, 1);

        // A container whose answer was lost cannot have made a post: the attempt is retried, with a new container.
        const clock = pinClock(t, new Date().toISOString());
        const retried = await schedule({ text: 'Container answer lost' });
        threads.dropAnswerNext(`${threads.account.userId}/threads`);
        await testWorker(t).tick();
        assert.equal((await get(retried.id)).status, 'scheduled', (await get(retried.id)).error);
        clock.advance(3600_000);
        await testWorker(t).tick();
        assert.equal((await get(retried.id)).status, 'published', (await get(retried.id)).error);
        assert.deepEqual(
          threads.posts.map((p) => p.text),
          ['Answer lost', 'Container answer lost'],
        );
        assert.equal(
          [...threads.containers.values()].filter((c) => c.text === 'Container answer lost').length,
          2,
          'the first container is left unpublished',
        );
      },
    );

    it(
      'a worker that died mid-publish: a published container is found, ' +
        'an unpublished one stays unconfirmed, and nothing is posted twice',
      async () => {
        const clock = pinClock(t, new Date().toISOString());
        const made = await schedule({ text: 'Worker died after publishing' });
        const unmade = await schedule({ text: 'Worker died before publishing' });
        const claimed = await dieMidAttempt(t, clock);
        assert.deepEqual([...claimed].sort(), [made.id, unmade.id].sort());
        // What the dead worker had done at Threads: two FINISHED containers, recorded, and one of them published.
        for (const [post, publish] of [
          [made, true],
          [unmade, false],
        ] as const) {
          const container = await asTheDeadWorker(`${threads.account.userId}/threads`, {
            media_type: 'TEXT',
            text: post.text,
          });
          assert.ok(container.id, JSON.stringify(container));
          await t.deps.repos.publishAttempts.setHandle(`${post.id}:1`, container.id);
          if (publish)
            assert.ok(
              (await asTheDeadWorker(`${threads.account.userId}/threads_publish`, { creation_id: container.id })).id,
            );
        }
        clock.advance(2_000);
        await testWorker(t).tick();
        const found = await get(made.id);
        assert.equal(found.status, 'published', found.error);
        assert.equal(found.permalinkUrl, `https://www.threads.net/@analytical.engines/post/${threads.posts[0].id}`);
        assert.equal((await get(unmade.id)).status, 'unconfirmed', 'not published: a person decides, no blind retry');
        assert.equal(threads.posts.length, 1);
      },
    );
  });

  it('herald network check names a withheld insights permission: posts publish, sync brings no metrics', async () => {
    await start();
    threads.grantOnly = ['threads_basic', 'threads_content_publish'];
    await connectThroughConsent();
    threads.postExternally('No insights', { views: 5 });
    const check = await checkChannelConnection(t.deps, { channelId: (await channel()).id });
    assert.deepEqual(check.problems, [
      'Threads did not grant threads_manage_insights: ' +
        'posts publish, but live sync brings no metrics; reconnect and allow it to have them.',
    ]);
    await testWorker(t).sync();
    const live = await t.api('GET', `/v1/rest/posts?livePosts=true&channelIds=${(await channel()).id}`, {
      token: a.apiKey,
    });
    assert.deepEqual(
      live.body.data.filter((p: any) => p.isLivePost).map((p: any) => [p.text, p.metrics]),
      [['No insights', {}]],
    );
    assert.equal(threads.requests.filter((r) => r.endsWith('/insights')).length, 0, 'no call Threads would refuse');
    assert.equal(threads.requests.filter((r) => r.endsWith('/threads_insights')).length, 0, 'nor for the audience');
    const insights = (await t.api('GET', '/v1/rest/insights', { token: a.apiKey })).body.data;
    assert.deepEqual(
      insights.byChannel.map((c: any) => c.audienceEnd),
      [null],
      'no audience, never a zero',
    );
  });

  describe('sync and check', () => {
    beforeEach(async () => {
      await start();
      await connectThroughConsent();
    });

    it(
      "syncs the profile's recent threads with their insights, " +
        "page by page, leaving out reposts of others' threads",
      async () => {
        const id = (await channel()).id;
        threads.postExternally('Posted in the app', {
          views: 300,
          likes: 7,
          replies: 2,
          reposts: 1,
          quotes: 0,
          shares: 4,
        });
        threads.postExternally('Second');
        threads.postExternally('', {}, 'REPOST_FACADE');
        threads.postExternally('Third');
        await testWorker(t, { syncDepth: 2 }).sync();
        const live = await t.api('GET', `/v1/rest/posts?livePosts=true&channelIds=${id}`, { token: a.apiKey });
        const found = live.body.data.filter((p: any) => p.isLivePost);
        assert.deepEqual(found.map((p: any) => p.text).sort(), ['Posted in the app', 'Second', 'Third']);
        assert.deepEqual(found.find((p: any) => p.text === 'Posted in the app').metrics, {
          views: 300,
          likes: 7,
          replies: 2,
          reposts: 1,
          quotes: 0,
          shares: 4,
        });
        assert.ok(
          threads.requests.filter((r) => r === `GET /v1.0/${threads.account.userId}/threads`).length >= 2,
          'more than one page',
        );
        assert.deepEqual(threads.refusals, []);
      },
    );

    it(
      "reads the profile's followers_count (user insights) " +
        "at each sync as the channel's audience in REST insights",
      async () => {
        await assertAudienceInInsights(t, a.apiKey, (await channel()).id, (n) => {
          threads.account.followers = n;
        });
        assert.deepEqual(threads.refusals, []);
      },
    );

    it(
      'herald network check: the profile, the granted permissions and the quota; ' +
        'a revoked token is a problem, with no token in the answer',
      async () => {
        const id = (await channel()).id;
        const good = await checkChannelConnection(t.deps, { channelId: id });
        assert.deepEqual(good.problems, []);
        assert.equal(good.ok, true);
        assert.equal(good.account, 'analytical.engines');
        assert.deepEqual(good.grantedScopes, ['threads_basic', 'threads_content_publish', 'threads_manage_insights']);
        assert.equal(threads.posts.length, 0, 'nothing posted');

        threads.quotaTotal = 0;
        const spent = await checkChannelConnection(t.deps, { channelId: id });
        assert.match(spent.problems.join(' '), /used all 0 posts Threads allows through the API in 24 hours/);

        threads.revokeAll();
        const revoked = await checkChannelConnection(t.deps, { channelId: id });
        assert.equal(revoked.ok, false);
        assert.match(revoked.problems.join(' '), /The user has not authorized application.*reconnect the channel/);
        const row = await t.herald.db('channels').where({ id }).first();
        const { accessToken } = JSON.parse(t.deps.secretBox.open(`channel-credentials:${row.id}`, row.credentials));
        assert.ok(!JSON.stringify(revoked).includes(accessToken), 'no token in the answer');
      },
    );
  });
});
