import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import crypto from 'node:crypto';
import { loadConfig } from '../../src/config.js';
import { checkChannelConnection } from '../../src/domain/networks/connection-check.js';
import { pacificDay } from '../../src/publishing/networks/youtube-quota.js';
import { callTool } from '../mcp/support.js';
import { startFakeYouTube, UPLOAD_QUANTUM, type FakeYouTube } from '../support/fake-youtube.js';
import { assertAudienceInInsights } from '../insights/network-audience.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { openRedirect } from '../support/herald-page.js';
import { dieMidAttempt, pinClock, testWorker } from '../publishing/support.js';

/** YouTube through Google's documented OAuth and Data API wire format (test/support/fake-youtube.ts). */
describe("YouTube, against a fake that speaks Google's documented API", function () {
  this.timeout(30_000);
  const film = crypto.randomBytes(2 * UPLOAD_QUANTUM + 90_000);
  let youtube: FakeYouTube;
  let files: http.Server;
  let videoUrl: string;
  let t: TestHerald;
  let a: SeededAccount;

  before(async () => {
    files = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'video/mp4' }).end(film));
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    videoUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}/film.mp4`;
  });
  after(() => files?.close());

  async function startHerald(google: Record<string, number> = {}) {
    const defaults = loadConfig({});
    return startTestHerald({
      networkOriginOverrides: {
        'https://accounts.google.com': youtube.url,
        'https://oauth2.googleapis.com': youtube.url,
        'https://www.googleapis.com': youtube.url,
      },
      networks: {
        ...defaults.networks,
        apps: {
          google: {
            clientId: youtube.client.id,
            clientSecret: youtube.client.secret,
            youtubeDailyQuota: 10_000,
            youtubeDailyUploads: 100,
            youtubeChunkBytes: UPLOAD_QUANTUM,
            ...google,
          },
        },
      },
      // The test's own media files are served on 127.0.0.1, which the SSRF guard refuses unless listed.
      outboundAllowHosts: ['127.0.0.1'],
    });
  }

  beforeEach(async () => {
    youtube = await startFakeYouTube();
    t = await startHerald();
    youtube.client.redirectUri = `${t.url}/connect/youtube/callback`;
    a = await t.seedAccount({ channels: 0 });
  });
  afterEach(async () => {
    await t.close();
    await youtube.close();
  });

  /** Starts connecting, plays the person at Google's consent screen, and follows the redirect to Herald. */
  async function connectThroughConsent(
    path = '/v1/rest/channels/connect',
    body: Record<string, unknown> = { network: 'youtube' },
  ) {
    const started = await t.api('POST', path, { token: a.apiKey, body });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const authorizationUrl = new URL(started.body.authorizationUrl);
    assert.equal(authorizationUrl.origin + authorizationUrl.pathname, 'https://accounts.google.com/o/oauth2/v2/auth');
    // The person's browser goes to Google; here the fake plays Google's consent screen.
    const consent = await fetch(`${youtube.url}${authorizationUrl.pathname}${authorizationUrl.search}`, {
      redirect: 'manual',
    });
    assert.equal(consent.status, 302, await consent.text());
    const page = await openRedirect(t, consent.headers.get('location')!);
    return { authorizationUrl, status: page.status, html: await page.text() };
  }

  async function theChannel() {
    const channels = (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data;
    assert.equal(channels.length, 1);
    return channels[0];
  }

  async function get(id: string) {
    return (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
  }

  /** Creates a post of the film, then sets its channelOptions (an update checks them; a create ignores them). */
  async function schedule(
    channelId: string,
    options: Record<string, unknown> = {},
    body: Record<string, unknown> = {},
  ) {
    const res = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: { channelIds: [channelId], text: 'A film about dots', videoUrls: [videoUrl], ...body },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const patched = await t.api('PATCH', `/v1/rest/posts/${res.body.data[0].id}`, {
      token: a.apiKey,
      body: { channelOptions: { title: 'Dots', ...options } },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    return res.body.data[0];
  }

  async function accessToken(channelId: string): Promise<string> {
    const row = await t.herald.db('channels').where({ id: channelId }).first();
    return JSON.parse(t.deps.secretBox.open(`channel-credentials:${channelId}`, row.credentials)).accessToken;
  }

  it(
    'connects through Google consent with offline access, PKCE and the two YouTube scopes; ' +
      'a denial or a missing permission connects nothing',
    async () => {
      const first = await connectThroughConsent();
      assert.equal(first.status, 200, first.html);
      assert.match(first.html, /@alicefilms/);
      const asked = first.authorizationUrl.searchParams;
      assert.deepEqual(
        [asked.get('access_type'), asked.get('prompt'), asked.get('code_challenge_method')],
        ['offline', 'consent', 'S256'],
      );
      assert.deepEqual(asked.get('scope')!.split(' ').sort(), [
        'https://www.googleapis.com/auth/youtube.force-ssl',
        'https://www.googleapis.com/auth/youtube.upload',
      ]);
      const channel = await theChannel();
      assert.deepEqual(
        [channel.network, channel.handle, channel.displayName, channel.status],
        ['youtube', '@alicefilms', 'Alice Films', 'active'],
      );
      const row = await t.herald.db('channels').where({ id: channel.id }).first();
      assert.ok(row.credentials.startsWith('v1.'));
      assert.ok(!row.credentials.includes(await accessToken(channel.id)));

      youtube.denyNext = true;
      const denied = await connectThroughConsent();
      assert.equal(denied.status, 400);
      assert.match(denied.html, /did not grant access \(access_denied\)/);

      youtube.grantOnly = ['https://www.googleapis.com/auth/youtube.force-ssl'];
      const unticked = await connectThroughConsent();
      assert.equal(unticked.status, 400);
      assert.match(unticked.html, /no permission to upload videos/);

      // A reconnect where Google sends no refresh token is refused: the stored one is never replaced by none.
      const before = JSON.parse(
        t.deps.secretBox.open(
          `channel-credentials:${channel.id}`,
          (await t.herald.db('channels').where({ id: channel.id }).first()).credentials,
        ),
      );
      youtube.withholdRefreshTokenNext = true;
      const withheld = await connectThroughConsent(`/v1/rest/channels/${channel.id}/reconnect`, {});
      assert.equal(withheld.status, 400);
      assert.match(withheld.html, /sent no refresh token/);
      const after = JSON.parse(
        t.deps.secretBox.open(
          `channel-credentials:${channel.id}`,
          (await t.herald.db('channels').where({ id: channel.id }).first()).credentials,
        ),
      );
      assert.equal(after.refreshToken, before.refreshToken);
      assert.equal((await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data.length, 1);
    },
  );

  it("is listed as not configured, and refuses to connect, without the operator's Google app", async () => {
    const bare = await startTestHerald();
    try {
      const b = await bare.seedAccount({ channels: 0 });
      const listed = (await bare.api('GET', '/v1/rest/networks', { token: b.apiKey })).body.data.find(
        (n: any) => n.name === 'youtube',
      );
      assert.equal(listed.configured, false);
      assert.equal(
        listed.notConfigured,
        'This Herald instance is not configured for YouTube: its operator must set ' +
          'GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET (see docs/networks.md, Connecting networks).',
      );
      const refused = await bare.api('POST', '/v1/rest/channels/connect', {
        token: b.apiKey,
        body: { network: 'youtube' },
      });
      assert.equal(refused.status, 400);
      assert.equal(refused.body.message, listed.notConfigured, 'the refusal says what to set');
    } finally {
      await bare.close();
    }
  });

  it(
    'refuses before the post is due what YouTube would refuse: ' +
      'no title, a long title, an unknown privacy, no video (REST, MCP and bulk)',
    async () => {
      await connectThroughConsent();
      const channel = await theChannel();
      const created = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [channel.id], text: 'A film', videoUrls: [videoUrl], saveAsDraft: true },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const update = (channelOptions: Record<string, unknown>) =>
        t.api('PATCH', `/v1/rest/posts/${created.body.data[0].id}`, { token: a.apiKey, body: { channelOptions } });
      const untitled = await update({ privacyStatus: 'unlisted' });
      assert.equal(untitled.status, 400);
      assert.match(untitled.body.message, /YouTube needs channelOptions.title/);
      const long = await update({ title: 'x'.repeat(101) });
      assert.equal(long.status, 400);
      assert.match(long.body.message, /title/);
      assert.match(long.body.message, /100/);
      const privacy = await update({ title: 'Dots', privacyStatus: 'friends' });
      assert.equal(privacy.status, 400);
      assert.match(privacy.body.message, /privacyStatus/);
      const noVideo = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [channel.id], text: 'A film' },
      });
      assert.equal(noVideo.status, 400);
      assert.match(noVideo.body.message, /YouTube/);

      const tool = await callTool(t, a.apiKey, 'create_text_post', { channelIds: [channel.id], text: 'A film' });
      assert.equal(tool.body.result.isError, true, JSON.stringify(tool.body));
      assert.match(tool.body.result.content[0].text, /YouTube/);

      const bulk = await t.api('POST', '/v1/rest/posts/bulk', {
        token: a.apiKey,
        body: {
          posts: [
            { channelIds: [channel.id], text: 'fits', videoUrls: [videoUrl], saveAsDraft: true },
            { channelIds: [channel.id], text: 'no video', saveAsDraft: true },
          ],
        },
      });
      assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
      assert.deepEqual(bulk.body.summary, { succeeded: 1, failed: 1 });
      assert.match(bulk.body.results[1].error.message, /^posts\[1\]: .*YouTube/);
    },
  );

  it(
    'uploads the video in 256 KiB chunks with its title, tags, ' +
      'privacy and schedule, comments first, and syncs statistics',
    async () => {
      await connectThroughConsent();
      const channel = await theChannel();
      const clock = pinClock(t, new Date().toISOString());
      const publishAt = new Date(Date.now() + 86_400_000).toISOString();
      const post = await schedule(
        channel.id,
        { tags: ['dots', 'art'], categoryId: '1', madeForKids: false, publishAt },
        {
          isScheduled: true,
          dateTime: new Date(clock.now() + 60_000).toISOString(),
          firstComment: { text: 'Made with love', delayMinutes: 1 },
        },
      );
      clock.advance(60_000);
      const worker = testWorker(t);
      await worker.tick();
      const published = await get(post.id);
      assert.equal(published.status, 'published', published.error);
      assert.equal(youtube.videos.length, 1);
      const [video] = youtube.videos;
      assert.equal(published.permalinkUrl, `https://www.youtube.com/watch?v=${video.id}`);
      assert.deepEqual(
        [video.snippet.title, video.snippet.description, video.snippet.tags, video.snippet.categoryId],
        ['Dots', 'A film about dots', ['dots', 'art'], '1'],
      );
      assert.deepEqual(
        [video.status.privacyStatus, video.status.publishAt, video.status.selfDeclaredMadeForKids],
        ['private', publishAt, false],
      );
      assert.deepEqual(
        youtube.chunks.map((c) => c.range),
        [
          `bytes 0-${UPLOAD_QUANTUM - 1}/${film.length}`,
          `bytes ${UPLOAD_QUANTUM}-${2 * UPLOAD_QUANTUM - 1}/${film.length}`,
          `bytes ${2 * UPLOAD_QUANTUM}-${film.length - 1}/${film.length}`,
        ],
      );

      // The comment thread is made and its answer lost: the next try finds it (commentThreads.list), never a second.
      youtube.dropNextCommentAnswer();
      clock.advance(2 * 60_000);
      await worker.tick();
      assert.equal((await t.deps.repos.commentSteps.commentStep(post.id))?.status, 'pending', 'the outcome is unknown');
      clock.advance(60 * 60_000);
      await worker.tick();
      assert.deepEqual(
        youtube.comments.map((c) => [c.videoId, c.text]),
        [[video.id, 'Made with love']],
      );
      const step = await t.deps.repos.commentSteps.commentStep(post.id);
      assert.deepEqual([step?.status, step?.networkCommentId], ['done', youtube.comments[0].id]);
      assert.ok(youtube.requests.includes('GET /youtube/v3/commentThreads'), 'looked up');

      youtube.addViews(video.id, 120, 9);
      await worker.sync();
      // SPEC keeps metrics off service-made posts in the API; they are stored for the app and the calendar.
      assert.deepEqual((await t.deps.repos.posts.get(a.accountId, post.id))?.metrics, {
        views: 120,
        likes: 9,
        comments: 1,
        favorites: 0,
      });
    },
  );

  it("reads the channel's statistics.subscriberCount at each sync as its audience in REST insights", async () => {
    await connectThroughConsent();
    await assertAudienceInInsights(t, a.apiKey, (await theChannel()).id, (n) => {
      youtube.channel.subscribers = n;
    });
  });

  it(
    'resumes after a connection broken mid-chunk from the range Google received, ' +
      'and starts one new session when the session is gone',
    async () => {
      await connectThroughConsent();
      const channel = await theChannel();
      youtube.cutNextChunk(100_000);
      const resumed = await schedule(channel.id);
      await testWorker(t).tick();
      assert.equal((await get(resumed.id)).status, 'published');
      assert.equal(youtube.videos.length, 1);
      assert.equal(youtube.videos[0].bytes, film.length);
      assert.ok(
        youtube.requests.filter((r) => r === 'PUT /upload/youtube/v3/videos').length >= 4,
        'asked the session after the break',
      );
      assert.equal(
        youtube.chunks[0].range,
        `bytes 100000-${100_000 + UPLOAD_QUANTUM - 1}/${film.length}`,
        'went on from the 100000 bytes that arrived',
      );
      assert.equal(youtube.uploadsStarted(), 1);

      // The session expires before the video arrives: no video came from it, so one new session is started.
      youtube.expireSessionAfterNextChunk();
      const second = await schedule(channel.id, { title: 'Second' });
      await testWorker(t).tick();
      const got = await get(second.id);
      assert.equal(got.status, 'published', got.error);
      assert.equal(youtube.uploadsStarted(), 3, 'one new session after the gone one');
      assert.equal(youtube.videos.length, 2, 'one video for the post');
    },
  );

  it(
    'a worker killed mid-upload resumes the recorded session, ' +
      'and a lost final answer is found by the session: one video each time',
    async () => {
      await connectThroughConsent();
      const channel = await theChannel();
      const clock = pinClock(t, new Date().toISOString());
      const partial = await schedule(channel.id);
      // The dead worker opened a session, recorded it, and sent the first chunk.
      const token = await accessToken(channel.id);
      const opened = await fetch(`${youtube.url}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'x-upload-content-length': String(film.length),
          'x-upload-content-type': 'video/mp4',
        },
        body: JSON.stringify({
          snippet: { title: 'Dots', description: 'A film about dots' },
          status: { privacyStatus: 'public' },
        }),
      });
      const session = opened.headers.get('location')!;
      const firstChunk = await fetch(session.replace('https://www.googleapis.com', youtube.url), {
        method: 'PUT',
        headers: { authorization: `Bearer ${token}`, 'content-range': `bytes 0-${UPLOAD_QUANTUM - 1}/${film.length}` },
        body: film.subarray(0, UPLOAD_QUANTUM),
      });
      assert.equal(firstChunk.status, 308);
      const [postId] = await dieMidAttempt(t, clock);
      assert.equal(postId, partial.id);
      await t.deps.repos.publishAttempts.setHandle(
        `${postId}:1`,
        JSON.stringify({ session, videoUrl, bytes: film.length, contentType: 'video/mp4' }),
      );
      clock.advance(2_000);
      await testWorker(t).tick();
      const got = await get(partial.id);
      assert.equal(got.status, 'published', got.error);
      assert.equal(youtube.videos.length, 1);
      assert.equal(youtube.uploadsStarted(), 1, 'no second upload');
      assert.equal(
        youtube.chunks[1].range,
        `bytes ${UPLOAD_QUANTUM}-${2 * UPLOAD_QUANTUM - 1}/${film.length}`,
        'went on after the chunk that had arrived',
      );

      // The last chunk arrives, the video is made, and the answer is lost: the session answers with the video.
      youtube.dropAnswerAfterLastChunk();
      const lost = await schedule(channel.id, { title: 'Lost answer' });
      await testWorker(t).tick();
      const settled = await get(lost.id);
      assert.equal(settled.status, 'published', settled.error);
      assert.equal(youtube.videos.length, 2);
      assert.equal(settled.permalinkUrl, `https://www.youtube.com/watch?v=${youtube.videos[0].id}`);
      assert.equal(youtube.uploadsStarted(), 2);
    },
  );

  it(
    "maps YouTube's failures: quotaExceeded waits for midnight Pacific, " +
      'rateLimitExceeded retries, a bad title fails, processing failures fail',
    async () => {
      await connectThroughConsent();
      const channel = await theChannel();
      const clock = pinClock(t, new Date().toISOString());
      const worker = testWorker(t);

      youtube.failNext(
        '/upload/youtube/v3/videos',
        403,
        'rateLimitExceeded',
        'The request cannot be completed because you have exceeded your quota.',
        { 'retry-after': '120' },
        'youtube.quota',
      );
      const limited = await schedule(channel.id);
      await worker.tick();
      const retried = await t.herald.db('posts').where({ id: limited.id }).first();
      assert.equal(retried.status, 'scheduled');
      assert.equal(Number(retried.next_attempt_at), clock.now() + 120_000, 'Retry-After 120 s');

      youtube.failNext(
        '/upload/youtube/v3/videos',
        400,
        'uploadLimitExceeded',
        'The user has exceeded the number of videos they may upload.',
        {},
        'youtube.video',
      );
      clock.advance(121_000);
      await t.herald.db('channels').where({ id: channel.id }).update({ rate_limited_until: null });
      await worker.tick();
      assert.equal((await get(limited.id)).status, 'scheduled');
      assert.equal(
        Number((await t.herald.db('posts').where({ id: limited.id }).first()).next_attempt_at),
        pacificDay(clock.now()).reset,
      );

      youtube.failNext(
        '/upload/youtube/v3/videos',
        400,
        'invalidTitle',
        'The request metadata specifies an invalid video title.',
        {},
        'youtube.video',
      );
      await t.herald.db('channels').where({ id: channel.id }).update({ rate_limited_until: null });
      const refused = await schedule(channel.id, { title: 'A title YouTube refuses' });
      await worker.tick();
      assert.match(
        (await get(refused.id)).error,
        /invalidTitle: The request metadata specifies an invalid video title/,
      );

      youtube.failProcessingNext = 'codec';
      const broken = await schedule(channel.id, { title: 'Broken codec' });
      await worker.tick();
      const failed = await get(broken.id);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /could not process the uploaded video \(codec\)/);

      youtube.failNext(
        '/upload/youtube/v3/videos',
        403,
        'quotaExceeded',
        'The request cannot be completed because you have exceeded ' +
          'your <a href="/youtube/v3/getting-started#quota">quota</a>.',
      );
      const quota = await schedule(channel.id);
      await worker.tick();
      const waiting = await t.herald.db('posts').where({ id: quota.id }).first();
      const midnight = pacificDay(clock.now()).reset;
      assert.equal(waiting.status, 'scheduled');
      assert.equal(Number(waiting.next_attempt_at), midnight);
      assert.equal(
        Number((await t.herald.db('channels').where({ id: channel.id }).first()).rate_limited_until),
        midnight,
      );
      assert.match(waiting.last_error ?? (await get(quota.id)).error ?? '', /midnight Pacific/);
      clock.advance(midnight - clock.now() + 1);
      await worker.tick();
      assert.equal((await get(quota.id)).status, 'published');
    },
  );

  it("refuses an upload early when the project's daily uploads are spent, without calling YouTube", async () => {
    await t.close();
    t = await startHerald({ youtubeDailyUploads: 1 });
    youtube.client.redirectUri = `${t.url}/connect/youtube/callback`;
    a = await t.seedAccount({ channels: 0 });
    await connectThroughConsent();
    const channel = await theChannel();
    const clock = pinClock(t, new Date().toISOString());
    const first = await schedule(channel.id);
    const second = await schedule(channel.id, { title: 'Second' });
    await testWorker(t).tick();
    const states = [await get(first.id), await get(second.id)];
    assert.equal(states.filter((p) => p.status === 'published').length, 1);
    const waiting = states.find((p) => p.status !== 'published');
    assert.equal(waiting.status, 'scheduled');
    assert.match(waiting.error, /spent its 1 daily video uploads \(YOUTUBE_DAILY_UPLOADS\).*midnight Pacific time/);
    assert.equal(youtube.uploadsStarted(), 1, 'the second upload was never started');
    assert.equal(
      Number((await t.herald.db('posts').where({ id: waiting.id }).first()).next_attempt_at),
      pacificDay(clock.now()).reset,
    );
  });

  it(
    "tells a post before its slot that the project's daily uploads are spent, " +
      'until the quota resets (a rehearsal)',
    async () => {
      await t.close();
      t = await startHerald({ youtubeDailyUploads: 1 });
      youtube.client.redirectUri = `${t.url}/connect/youtube/callback`;
      a = await t.seedAccount({ channels: 0 });
      await connectThroughConsent();
      const channel = await theChannel();
      const clock = pinClock(t, new Date().toISOString());
      await schedule(channel.id);
      await testWorker(t).tick();
      const reset = pacificDay(clock.now()).reset;
      const minutes = Math.max(1, Math.min(20, Math.floor((reset - clock.now()) / 60_000) - 1));
      const next = await schedule(
        channel.id,
        { title: 'Next' },
        { isScheduled: true, dateTime: new Date(clock.now() + minutes * 60_000).toISOString() },
      );
      await testWorker(t).rehearse();
      const { risk } = await get(next.id);
      assert.match(risk.reason, /spent its 1 daily video uploads \(YOUTUBE_DAILY_UPLOADS\)/);
      assert.equal(
        risk.advice,
        `Leave the post to go out at ${new Date(reset).toISOString()}, later than planned, or move it to a later time.`,
      );
      assert.equal(youtube.uploadsStarted(), 1, 'the rehearsal started no upload');
    },
  );

  it(
    'refreshes an expired access token and goes on; ' + "a refused refresh needs a reconnect with Google's reasons",
    async () => {
      await connectThroughConsent();
      const channel = await theChannel();
      const worker = testWorker(t);
      const expired = await accessToken(channel.id);
      youtube.expireAccessTokens();
      const refreshed = await schedule(channel.id);
      await worker.tick();
      const got = await get(refreshed.id);
      assert.equal(got.status, 'published', got.error);
      assert.notEqual(await accessToken(channel.id), expired, 'a new access token is stored');

      youtube.revokeAll();
      const revoked = await schedule(channel.id, { title: 'After revocation' });
      await worker.tick();
      assert.match((await get(revoked.id)).error, /reconnect/);
      const listed = await theChannel();
      assert.equal(listed.status, 'needs_reconnect');
      assert.match(listed.statusReason, /invalid_grant|expired or revoked/);
      assert.match(listed.statusReason, /seven days/);
      assert.match(listed.statusReason, /six months/);
    },
  );

  it('checks a live channel without posting: its account and the permissions it was granted', async () => {
    youtube.grantOnly = ['https://www.googleapis.com/auth/youtube.upload'];
    await connectThroughConsent();
    const channel = await theChannel();
    const check = await checkChannelConnection(t.deps, { channelId: channel.id });
    assert.equal(check.account, '@alicefilms');
    assert.deepEqual(check.grantedScopes, ['https://www.googleapis.com/auth/youtube.upload']);
    assert.equal(check.ok, false);
    assert.match(check.problems.join(' '), /youtube\.force-ssl was not granted/);
    assert.equal(youtube.videos.length, 0);

    youtube.revokeAll();
    const revoked = await checkChannelConnection(t.deps, { channelId: channel.id });
    assert.equal(revoked.ok, false);
    assert.match(revoked.problems[0], /Reconnect the channel/);

    const res = await t.api('DELETE', `/v1/rest/channels/${channel.id}`, { token: a.apiKey });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  });
});
