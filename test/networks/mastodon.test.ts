import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { TINY_PNG } from '../media/fixtures.js';
import { startFakeMastodon, type FakeMastodon } from '../support/fake-mastodon.js';
import { loadConfig } from '../../src/config.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { pinClock, testWorker } from '../publishing/support.js';
import { ensureCliBuilt, HERALD_CLI } from '../support/cli.js';

// The commands run the CLI bundled from src/ (test/support/cli.ts), built before the first.
before(ensureCliBuilt);

const run = promisify(execFile);

/** Mastodon through its documented wire format (test/support/fake-mastodon.ts): no Mastodon server installs here. */
describe('Mastodon, against a fake that speaks its documented API', function () {
  this.timeout(30_000);
  let mastodon: FakeMastodon;
  let images: http.Server;
  let imageUrl: string;
  let t: TestHerald;
  let a: SeededAccount;

  before(async () => {
    images = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(TINY_PNG));
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    imageUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}/picture.png`;
  });
  after(() => images?.close());
  beforeEach(async () => {
    mastodon = await startFakeMastodon({ maxCharacters: 1000 });
    // The Mastodon instance a person names and the test's images
    // are on 127.0.0.1, which the SSRF guard refuses unless listed.
    t = await startTestHerald({
      outboundAllowHosts: ['127.0.0.1'],
      // The fake finishes processing media after a number of status polls, not seconds: no real wait between polls.
      networks: { ...loadConfig({}).networks, pollWaitScale: 0 },
    });
    a = await t.seedAccount({ channels: 0 });
  });
  afterEach(async () => {
    await t.close();
    await mastodon.close();
  });

  /** Starts connecting, plays the person at Mastodon's consent screen, and follows the redirect to Herald. */
  async function connectThroughConsent(
    path = '/v1/rest/channels/connect',
    body: Record<string, unknown> = { network: 'mastodon', instance: mastodon.url },
  ) {
    const started = await t.api('POST', path, { token: a.apiKey, body });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const consent = await fetch(started.body.authorizationUrl, { redirect: 'manual' });
    assert.equal(consent.status, 302, await consent.text());
    const callback = consent.headers.get('location')!;
    const page = await fetch(callback);
    return {
      authorizationUrl: new URL(started.body.authorizationUrl),
      callback,
      status: page.status,
      html: await page.text(),
    };
  }

  async function theChannel() {
    const channels = (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data;
    assert.equal(channels.length, 1);
    return channels[0];
  }

  async function get(id: string) {
    return (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
  }

  async function schedule(channelId: string, body: Record<string, unknown>) {
    const res = await t.api('POST', '/v1/rest/posts', { token: a.apiKey, body: { channelIds: [channelId], ...body } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data[0];
  }

  it(
    'connects through OAuth with PKCE: one registration per instance, ' +
      'state single-use, same account keeps its channel',
    async () => {
      const first = await connectThroughConsent();
      assert.equal(first.status, 200, first.html);
      assert.match(first.html, /Connected/);
      assert.match(first.html, /@alice@127\.0\.0\.1/);
      // A page a person reads, often on a phone: no ids, a landmark, and the way back to the app.
      assert.match(first.html, /<meta name="viewport" content="width=device-width/);
      assert.match(first.html, /<main>[\s\S]*<a href="\/app\/channels">Go to your channels in Herald<\/a>/);
      assert.equal(first.authorizationUrl.searchParams.get('code_challenge_method'), 'S256');
      assert.equal(first.authorizationUrl.searchParams.get('redirect_uri'), `${t.url}/connect/mastodon/callback`);
      const channel = await theChannel();
      assert.ok(!first.html.includes(channel.id), 'the page names the channel, not its id');
      assert.equal(channel.network, 'mastodon');
      assert.equal(channel.handle, `@alice@${mastodon.host}`);
      assert.equal(channel.displayName, 'Alice');
      assert.equal(channel.status, 'active');

      const replay = await fetch(first.callback);
      assert.equal(replay.status, 400);
      assert.match(await replay.text(), /expired or was already used/);

      await connectThroughConsent();
      assert.equal(mastodon.apps.length, 1, 'Herald registered once on this instance');
      assert.equal((await theChannel()).id, channel.id, 'the same Mastodon account keeps its channel');
      const row = await t.herald.db('channels').where({ id: channel.id }).first();
      assert.ok(row.credentials.startsWith('v1.'));
      assert.equal(row.text_limit, 1000, "the instance's own limit");
    },
  );

  it(
    'gives a new channel the time zone sent with the connect, ' + 'through consent; refuses a zone that is not one',
    async () => {
      const refused = await t.api('POST', '/v1/rest/channels/connect', {
        token: a.apiKey,
        body: { network: 'mastodon', instance: mastodon.url, timezone: 'Mars/Olympus' },
      });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.deepEqual(
        refused.body.details.map((d: { path: string }) => d.path),
        ['timezone'],
      );
      assert.equal(mastodon.apps.length, 0, 'refused before the instance was asked anything');

      const first = await connectThroughConsent(undefined, {
        network: 'mastodon',
        instance: mastodon.url,
        timezone: 'Asia/Tokyo',
      });
      assert.equal(first.status, 200, first.html);
      const channel = await theChannel();
      assert.equal(channel.timezone, 'Asia/Tokyo', 'set when the callback made the channel');

      await connectThroughConsent(undefined, { network: 'mastodon', instance: mastodon.url, timezone: 'Europe/Paris' });
      assert.equal((await theChannel()).timezone, 'Asia/Tokyo', 'a channel connected again keeps its own zone');
    },
  );

  it('connects from the CLI: prints the consent address and waits for the callback', async function () {
    this.timeout(180_000);
    const env = {
      ...process.env,
      DATA_DIR: t.config.dataDir,
      DATABASE_URL: t.config.databaseUrl ?? '',
      BASE_URL: t.url,
      // The network's fake listens on loopback, which the SSRF guard refuses unless it is listed.
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
    };
    const child = spawn('node', [HERALD_CLI, 'channel', 'connect', 'mastodon', '--instance', mastodon.url, '--json'], {
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
    assert.equal(JSON.parse(stdout).channels[0].handle, `@alice@${mastodon.host}`);
  });

  it('a denied consent creates nothing and says why; a forged state is refused', async () => {
    mastodon.denyNext = true;
    const denied = await connectThroughConsent();
    assert.equal(denied.status, 400);
    assert.match(denied.html, /did not grant access/);
    assert.equal((await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data.length, 0);
    const metadata = await t.api('POST', '/v1/rest/channels/connect', {
      token: a.apiKey,
      body: { network: 'mastodon', instance: 'http://169.254.169.254' },
    });
    assert.equal(metadata.status, 400, 'an instance on a private address is refused by the SSRF guard');
    assert.match(metadata.body.message, /169\.254\.169\.254/);
    const forged = await fetch(`${t.url}/connect/mastodon/callback?state=forged&code=abc`);
    assert.equal(forged.status, 400);
    assert.match(await forged.text(), /expired or was already used/);
  });

  it(
    "takes posts up to the instance's limit, and publishes images with descriptions, " +
      'a content warning and a reply as first comment',
    async () => {
      await connectThroughConsent();
      const channel = await theChannel();
      const long = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [channel.id], text: 'x'.repeat(1001) },
      });
      assert.equal(long.status, 400);
      assert.match(long.body.message, /allows 1000 characters/);

      const clock = pinClock(t, new Date().toISOString());
      const post = await schedule(channel.id, {
        text: 'Two pictures\n\nand a warning',
        imageUrls: [imageUrl, `${imageUrl}?b`],
        isScheduled: true,
        dateTime: new Date(clock.now() + 60_000).toISOString(),
        firstComment: { text: 'Thread continues', delayMinutes: 1 },
      });
      const patched = await t.api('PATCH', `/v1/rest/posts/${post.id}`, {
        token: a.apiKey,
        body: {
          channelOptions: {
            altText: ['first picture', 'second picture'],
            spoilerText: 'cw: dots',
            visibility: 'unlisted',
            language: 'en',
          },
        },
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      clock.advance(60_000);
      const worker = testWorker(t);
      await worker.tick();
      const published = await get(post.id);
      assert.equal(published.status, 'published', published.error);
      const [status] = mastodon.statuses;
      assert.equal(published.permalinkUrl, status.url);
      assert.equal(status.content, '<p>Two pictures</p><p>and a warning</p>');
      assert.deepEqual(
        status.media_attachments.map((m) => m.description),
        ['first picture', 'second picture'],
      );
      assert.equal(status.spoiler_text, 'cw: dots');
      assert.equal(status.visibility, 'unlisted');
      assert.equal(status.language, 'en');
      assert.equal(status.idempotencyKey, `herald-${post.id}`);
      assert.ok(
        mastodon.requests.filter((r) => r.startsWith('GET /api/v1/media/')).length >= 2,
        'waited while the instance processed the media',
      );

      // The reply is made and its answer lost: the next try, after the instance forgot the key, finds it in the thread.
      mastodon.dropAnswerNext('/api/v1/statuses');
      clock.advance(2 * 60_000);
      await worker.tick();
      assert.equal((await t.deps.repos.commentSteps.commentStep(post.id))?.status, 'pending', 'the outcome is unknown');
      clock.advance(2 * 3_600_000);
      await worker.tick();
      assert.equal(mastodon.statuses.length, 2);
      assert.equal(mastodon.statuses[1].in_reply_to_id, status.id);
      assert.equal(mastodon.statuses[1].content, '<p>Thread continues</p>');
      assert.ok(mastodon.requests.includes(`GET /api/v1/statuses/${status.id}/context`), 'looked up in the thread');
      assert.equal((await t.deps.repos.commentSteps.commentStep(post.id))?.networkCommentId, mastodon.statuses[1].id);
      const tries = await t.herald
        .db('publish_attempts')
        .where({ post_id: post.id, kind: 'comment' })
        .orderBy('seq')
        .select('outcome');
      assert.deepEqual(
        tries.map((row: { outcome: string }) => row.outcome),
        ['unknown', 'reconciled'],
        'found by the lookup, not re-sent',
      );
    },
  );

  it(
    'publishes a thread as replies, each to the part before it, ' +
      "with the thread's visibility and its own key; a lost answer is settled, never doubled",
    async () => {
      await connectThroughConsent();
      const channel = await theChannel();
      const clock = pinClock(t, new Date().toISOString());
      const post = await schedule(channel.id, {
        text: 'A thread, 1/3',
        thread: [{ text: 'Part 2/3', imageUrls: [imageUrl] }, { text: 'Part 3/3' }],
        saveAsDraft: true,
      });
      const patched = await t.api('PATCH', `/v1/rest/posts/${post.id}`, {
        token: a.apiKey,
        body: { channelOptions: { visibility: 'unlisted' }, saveAsDraft: false },
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      const steps = t.deps.repos.threadSteps;
      const claimDue = steps.claimDue.bind(steps);
      steps.claimDue = async (...args) => {
        const claimed = await claimDue(...args);
        if (claimed.length > 0 && mastodon.statuses.length === 1) mastodon.dropAnswerNext('/api/v1/statuses');
        return claimed;
      };
      const worker = testWorker(t);
      await worker.tick();
      assert.equal(mastodon.statuses.length, 2, 'part 2 made, its answer lost');
      clock.advance(60 * 60_000);
      await worker.tick();
      const [head, second, third] = mastodon.statuses;
      assert.equal(mastodon.statuses.length, 3);
      assert.deepEqual([head.in_reply_to_id, second.in_reply_to_id, third.in_reply_to_id], [null, head.id, second.id]);
      assert.deepEqual(
        mastodon.statuses.map((s) => s.visibility),
        ['unlisted', 'unlisted', 'unlisted'],
      );
      assert.equal(second.media_attachments.length, 1);
      const got = await get(post.id);
      assert.deepEqual(
        got.thread.map((p: { permalinkUrl: string }) => p.permalinkUrl),
        [second.url, third.url],
      );
    },
  );

  it(
    "a lost answer is settled from the account's statuses, " +
      'and a retry under the same key is answered with the first status',
    async () => {
      await connectThroughConsent();
      const channel = await theChannel();
      const post = await schedule(channel.id, { text: 'Answer lost' });
      // The status is made, then the answer never arrives: Herald must find it, not post again.
      mastodon.dropAnswerNext('/api/v1/statuses');
      await testWorker(t).tick();
      const got = await get(post.id);
      assert.equal(got.status, 'published', got.error);
      assert.equal(mastodon.statuses.length, 1);
      assert.equal(got.permalinkUrl, mastodon.statuses[0].url);
      assert.deepEqual(
        (await t.deps.repos.publishAttempts.attempts(a.accountId, post.id)).map((x) => x.outcome),
        ['reconciled'],
      );

      // Mastodon keeps the Idempotency-Key an hour: a second call under the post's key answers the first status.
      const channelRow = await t.herald.db('channels').where({ id: channel.id }).first();
      const { accessToken } = JSON.parse(
        t.deps.secretBox.open(`channel-credentials:${channel.id}`, channelRow.credentials),
      );
      const replay = await fetch(`${mastodon.url}/api/v1/statuses`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${accessToken}`,
          'idempotency-key': `herald-${post.id}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ status: 'Answer lost' }),
      });
      assert.equal((await replay.json()).id, mastodon.statuses[0].id);
      assert.equal(mastodon.statuses.length, 1);

      const again = await fetch(`${mastodon.url}/api/v1/statuses`, { method: 'POST' });
      assert.equal(again.status, 401, 'the fake checks tokens like Mastodon');
    },
  );

  it(
    'retries under the same Idempotency-Key: ' +
      'a status the instance made before failing late is answered back, never made twice',
    async () => {
      await connectThroughConsent();
      const channel = await theChannel();
      const clock = pinClock(t, new Date().toISOString());
      const post = await schedule(channel.id, { text: 'Made, then a 502' });
      // The instance makes the status, then a proxy in front of it answers 502: a retry-later failure for Herald.
      mastodon.failAfterHandlingNext('/api/v1/statuses', 502, { error: 'Bad Gateway' });
      const worker = testWorker(t);
      await worker.tick();
      assert.equal((await t.herald.db('posts').where({ id: post.id }).first()).status, 'scheduled', 'a 502 is retried');
      clock.advance(60 * 60_000);
      await worker.tick();
      const got = await get(post.id);
      assert.equal(got.status, 'published', got.error);
      assert.equal(mastodon.statuses.length, 1, 'the second attempt got the first status back');
      assert.equal(got.permalinkUrl, mastodon.statuses[0].url);
    },
  );

  it(
    'classifies failures: 429 waits for X-RateLimit-Reset, ' +
      "503 retries, 422 fails with Mastodon's words, 401 needs a reconnect",
    async () => {
      await connectThroughConsent();
      const channel = await theChannel();
      const clock = pinClock(t, new Date().toISOString());
      const worker = testWorker(t);

      const reset = new Date(clock.now() + 5 * 60_000).toISOString();
      mastodon.failNext(
        '/api/v1/statuses',
        429,
        { error: 'Too many requests' },
        { 'x-ratelimit-reset': reset, 'x-ratelimit-remaining': '0' },
      );
      const limited = await schedule(channel.id, { text: 'Rate limited' });
      await worker.tick();
      const waiting = await t.herald.db('posts').where({ id: limited.id }).first();
      assert.equal(waiting.status, 'scheduled');
      assert.equal(Number(waiting.next_attempt_at), Date.parse(reset));
      clock.advance(5 * 60_000 + 1);
      mastodon.failNext('/api/v1/statuses', 503, { error: 'Service Unavailable' });
      await worker.tick();
      assert.equal(
        (await t.herald.db('posts').where({ id: limited.id }).first()).status,
        'scheduled',
        '503: tried again later',
      );
      clock.advance(60 * 60_000);
      await worker.tick();
      assert.equal((await get(limited.id)).status, 'published');
      assert.equal(mastodon.statuses.length, 1, 'the failed calls made nothing');

      mastodon.failNext('/api/v1/statuses', 422, { error: 'Validation failed: Text character limit of 1000 exceeded' });
      const refused = await schedule(channel.id, { text: 'Refused' });
      await worker.tick();
      const failed = await get(refused.id);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /Validation failed: Text character limit of 1000 exceeded/);

      mastodon.revokeAll();
      const revoked = await schedule(channel.id, { text: 'After revocation' });
      await worker.tick();
      assert.match((await get(revoked.id)).error, /reconnect/);
      const listed = await theChannel();
      assert.equal(listed.status, 'needs_reconnect');
      assert.match(listed.statusReason, /The access token is invalid/);

      const again = await connectThroughConsent(`/v1/rest/channels/${channel.id}/reconnect`, {});
      assert.equal(again.status, 200, again.html);
      assert.equal((await theChannel()).status, 'active');
    },
  );

  // docs.joinmastodon.org, api/rate-limits: the per-account limit (300 calls in 5 minutes) covers all endpoints.
  it(
    'after a 429, neither live sync nor a first comment calls the account before the reset; ' + 'after it, both go on',
    async () => {
      await connectThroughConsent();
      const channel = await theChannel();
      const clock = pinClock(t, new Date().toISOString());
      const worker = testWorker(t);
      const first = await schedule(channel.id, {
        text: 'Out before the limit',
        firstComment: { text: 'The reply', delayMinutes: 1 },
      });
      await worker.tick();
      assert.equal((await get(first.id)).status, 'published');

      const resetAt = new Date(Date.now() + 10 * 60_000);
      mastodon.setBudget(0, resetAt);
      const limited = await schedule(channel.id, { text: 'Drew the 429' });
      await worker.tick();
      assert.equal(
        Number((await t.herald.db('channels').where({ id: channel.id }).first()).rate_limited_until),
        resetAt.getTime(),
      );
      const calls = mastodon.requests.length;
      clock.advance(2 * 60_000);
      await worker.tick();
      await worker.sync();
      assert.deepEqual(mastodon.requests.slice(calls), [], 'no call on the account before its reset');
      const waiting = await t.deps.repos.commentSteps.commentStep(first.id);
      assert.deepEqual(
        [waiting?.status, waiting?.dueAt, waiting?.attempts],
        ['pending', resetAt.getTime(), 0],
        'the comment waits without a try',
      );

      mastodon.setBudget(300, new Date(Date.now() + 5 * 60_000));
      clock.advance(9 * 60_000);
      await worker.tick();
      await worker.sync();
      assert.equal((await get(limited.id)).status, 'published');
      assert.equal(mastodon.statuses.filter((s) => s.in_reply_to_id).length, 1, 'the first comment, made once');
      assert.ok(
        mastodon.requests.slice(calls).some((r) => /^GET \/api\/v1\/accounts\/[^/]+\/statuses$/.test(r)),
        'synced after the reset',
      );
    },
  );

  it("checks media against the instance's own limits before uploading anything", async () => {
    mastodon.maxMediaAttachments = 1;
    mastodon.imageSizeLimit = 10;
    await connectThroughConsent();
    const channel = await theChannel();
    const two = await schedule(channel.id, { text: 'Two pictures', imageUrls: [imageUrl, `${imageUrl}?b`] });
    const big = await schedule(channel.id, { text: 'A picture too large', imageUrls: [imageUrl] });
    await testWorker(t).tick();
    assert.match((await get(two.id)).error, /takes at most 1 media per post; this post has 2/);
    assert.match((await get(big.id)).error, /larger than the 10 byte limit/);
    assert.equal(mastodon.requests.filter((r) => r === 'POST /api/v2/media').length, 0, 'nothing uploaded');
  });

  it('stops calling a channel whose budget an answer said is spent, until the reset it named', async () => {
    await connectThroughConsent();
    const channel = await theChannel();
    const resetAt = new Date(Date.now() + 10 * 60_000);
    mastodon.setBudget(1, resetAt);
    const first = await schedule(channel.id, { text: 'Last call in the budget' });
    await testWorker(t).tick();
    assert.equal((await get(first.id)).status, 'published');
    assert.equal(
      Number((await t.herald.db('channels').where({ id: channel.id }).first()).rate_limited_until),
      resetAt.getTime(),
    );
    const calls = mastodon.requests.length;
    const second = await schedule(channel.id, { text: 'Waits for the reset' });
    await testWorker(t).tick();
    assert.equal(mastodon.requests.length, calls, 'no call while the budget is spent: no 429 drawn');
    const waiting = await t.herald.db('posts').where({ id: second.id }).first();
    assert.equal(waiting.status, 'scheduled');
    assert.equal(Number(waiting.next_attempt_at), resetAt.getTime());
    assert.equal(Number(waiting.attempt_count), 0, 'waiting for the reset is not an attempt');
  });

  it(
    'syncs statuses written in Mastodon with favourites, ' + 'reblogs and replies, and disconnecting revokes the token',
    async () => {
      await connectThroughConsent();
      const channel = await theChannel();
      mastodon.postExternally('Written on <Mastodon> & elsewhere', { favourites: 7, reblogs: 2, replies: 1 });
      mastodon.postExternally('Second');
      mastodon.postExternally('Third');
      // Pages of two: the sync goes on to older pages while a whole page is new.
      await testWorker(t, { syncDepth: 2 }).sync();
      const live = await t.api('GET', `/v1/rest/posts?livePosts=true&channelIds=${channel.id}`, { token: a.apiKey });
      const found = live.body.data.filter((p: any) => p.isLivePost);
      assert.deepEqual(found.map((p: any) => p.text).sort(), ['Second', 'Third', 'Written on <Mastodon> & elsewhere']);
      assert.deepEqual(found.find((p: any) => p.text.startsWith('Written')).metrics, {
        likes: 7,
        reblogs: 2,
        replies: 1,
      });
      const written = found.find((p: any) => p.text.startsWith('Written'));
      assert.deepEqual(
        (await t.deps.repos.insights.postSamples(a.accountId, written.id)).map((s) => s.counters),
        [{ likes: 7, reblogs: 2, replies: 1 }],
      );
      mastodon.account.followers_count = 57;
      await testWorker(t, { syncDepth: 2 }).sync();
      const audience = await t.deps.repos.insights.audienceSamples(
        a.accountId,
        [channel.id],
        0,
        Number.MAX_SAFE_INTEGER,
      );
      assert.deepEqual(
        audience.map((s) => s.followers),
        [42, 57],
        'followers_count of the account, at each sync',
      );

      assert.equal(mastodon.tokens(), 1);
      const res = await t.api('DELETE', `/v1/rest/channels/${channel.id}`, { token: a.apiKey });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data.revokedAtNetwork, true);
      assert.equal(mastodon.tokens(), 0, 'the token is revoked at the instance');
      assert.equal((await theChannel()).status, 'disconnected');
    },
  );

  it(
    'herald network check verifies a live channel without posting: ' +
      'ok, then the instance refusing the token, then a disconnected channel',
    async function () {
      this.timeout(120_000);
      await connectThroughConsent();
      const channel = await theChannel();
      const env = {
        ...process.env,
        DATA_DIR: t.config.dataDir,
        DATABASE_URL: t.config.databaseUrl ?? '',
        // The network's fake listens on loopback, which the SSRF guard refuses unless it is listed.
        OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
      };
      const check = async () =>
        JSON.parse(
          (await run('node', [HERALD_CLI, 'network', 'check', '--channel', channel.id, '--json'], { env })).stdout,
        );

      assert.deepEqual(await check(), {
        channelId: channel.id,
        network: 'mastodon',
        ok: true,
        account: channel.handle,
        grantedScopes: null,
        problems: [],
      });
      assert.equal(mastodon.statuses.length, 0, 'a check posts nothing');

      mastodon.revokeAll();
      const refused = await check();
      assert.equal(refused.ok, false);
      assert.match(refused.problems[0], /^Mastodon: .*The access token is invalid.*Reconnect the channel\.$/);

      await t.api('DELETE', `/v1/rest/channels/${channel.id}`, { token: a.apiKey });
      await assert.rejects(
        run('node', [HERALD_CLI, 'network', 'check', '--channel', channel.id], { env }),
        (error: { stderr: string }) => {
          assert.match(error.stderr, /is disconnected: connect it again before checking it/);
          return true;
        },
      );
    },
  );
});
