import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { loadConfig } from '../../src/config.js';
import { checkChannelConnection } from '../../src/domain/networks/connection-check.js';
import { TINY_PNG } from '../media/fixtures.js';
import { callTool } from '../mcp/support.js';
import { startFakeX, type FakeX } from '../support/fake-x.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { openRedirect } from '../support/herald-page.js';
import { serveMediaFiles } from '../support/media-files.js';
import { assertAudienceInInsights } from '../insights/network-audience.js';
import { dieMidAttempt, pinClock, testWorker } from '../publishing/support.js';
import { ensureCliBuilt, HERALD_CLI } from '../support/cli.js';

// The commands run the CLI bundled from src/ (test/support/cli.ts), built before the first.
before(ensureCliBuilt);

const MB = 1024 * 1024;

/** X through its documented wire format (test/support/fake-x.ts), through the real Herald. */
describe('X, against a fake that speaks its documented API', function () {
  this.timeout(60_000);
  let x: FakeX;
  let files: Awaited<ReturnType<typeof serveMediaFiles>>;
  let imageUrl: string;
  let gifUrl: string;
  let videoUrl: string;
  const video = Buffer.alloc(2 * MB + 1000, 7);
  let t: TestHerald;
  let a: SeededAccount;

  before(async () => {
    files = await serveMediaFiles({
      '/picture.png': { type: 'image/png', body: TINY_PNG },
      '/loop.gif': { type: 'image/gif', body: Buffer.from('GIF89a-not-really') },
      '/film.mp4': { type: 'video/mp4', body: video },
    });
    imageUrl = `${files.origin}/picture.png`;
    gifUrl = `${files.origin}/loop.gif`;
    videoUrl = `${files.origin}/film.mp4`;
  });
  after(() => files?.close());

  async function start(configured = true) {
    x = await startFakeX();
    // The fakes finish processing after a number of status polls, not seconds: no real wait between polls.
    const defaults = { ...loadConfig({}).networks, pollWaitScale: 0 };
    t = await startTestHerald({
      networkOriginOverrides: { 'https://x.com': x.url, 'https://api.x.com': x.url },
      networks: { ...defaults, apps: configured ? { x: { clientId: x.clientId, clientSecret: x.clientSecret } } : {} },
      // The test's own media files are served on 127.0.0.1, which the SSRF guard refuses unless listed.
      outboundAllowHosts: ['127.0.0.1'],
    });
    x.redirectUris.push(`${t.url}/connect/x/callback`);
    a = await t.seedAccount({ channels: 0 });
  }
  afterEach(async () => {
    await t?.close();
    await x?.close();
  });

  /** Starts connecting, plays the person at X's consent screen, and follows the redirect to Herald. */
  async function connectThroughConsent(
    path = '/v1/rest/channels/connect',
    body: Record<string, unknown> = { network: 'x' },
  ) {
    const started = await t.api('POST', path, { token: a.apiKey, body });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const consent = await fetch(started.body.authorizationUrl, { redirect: 'manual' });
    assert.equal(consent.status, 302, await consent.text());
    const page = await openRedirect(t, consent.headers.get('location')!);
    return { authorizationUrl: new URL(started.body.authorizationUrl), status: page.status, html: await page.text() };
  }

  async function channel() {
    return ((await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data as any[]).find(
      (c) => c.network === 'x',
    );
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

  describe('connecting', () => {
    it(
      "connects through X's consent with PKCE and Basic client authentication, " +
        'keeping the 2-hour token and its refresh token',
      async () => {
        await start();
        const connected = await connectThroughConsent();
        assert.equal(connected.status, 200, connected.html);
        assert.match(connected.html, /Connected/);
        const u = connected.authorizationUrl;
        assert.equal(u.origin, x.url, 'the real x.com, rewritten by NETWORK_ORIGIN_OVERRIDES');
        assert.equal(u.pathname, '/i/oauth2/authorize');
        assert.equal(u.searchParams.get('code_challenge_method'), 'S256');
        assert.deepEqual(u.searchParams.get('scope')!.split(' ').sort(), [
          'media.write',
          'offline.access',
          'tweet.read',
          'tweet.write',
          'users.read',
        ]);
        const c = await channel();
        assert.deepEqual([c.handle, c.displayName, c.status], ['herald_dev', 'Herald Dev', 'active']);
        const row = await t.herald.db('channels').where({ id: c.id }).first();
        assert.ok(row.credentials.startsWith('v1.'), 'sealed in the vault');
        const expiresIn = Number(row.credentials_expire_at) - Date.now();
        assert.ok(expiresIn > 7100_000 && expiresIn <= 7200_000, "X's 2-hour expiry is kept");
        assert.equal(row.text_limit, null, 'no subscription: 280');
        assert.deepEqual(x.refusals, []);
      },
    );

    it('keeps the longer text limit of a Premium account, and X takes its long post', async () => {
      await start();
      x.user.subscription_type = 'Premium';
      await connectThroughConsent();
      const c = await channel();
      assert.equal((await t.herald.db('channels').where({ id: c.id }).first()).text_limit, 25_000);
      const long = await schedule({ text: 'a'.repeat(1000) });
      await testWorker(t).tick();
      assert.equal((await get(long.id)).status, 'published', (await get(long.id)).error);
      assert.equal(x.posts[0].text.length, 1000, 'X took the long post from a Premium account');
    });

    /**
     * A browser signed in to the app as the account's owner: its cookies, and REST calls as the app's page makes them.
     */
    async function signedInBrowser() {
      const jar = new Map<string, string>();
      const send = async (
        url: string,
        init: { method?: string; headers?: Record<string, string>; body?: string } = {},
      ) => {
        const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
        const response = await fetch(new URL(url, t.url), {
          ...init,
          headers: { ...init.headers, cookie },
          redirect: 'manual',
        });
        for (const set of response.headers.getSetCookie()) {
          const [pair] = set.split(';');
          jar.set(pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1));
        }
        return response;
      };
      const form = await (await send('/app/sign-in')).text();
      const csrf = /name="csrf_token" value="([^"]+)"/.exec(form)![1];
      const signedIn = await send('/app/sign-in', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ csrf_token: csrf, email: a.email, password: a.password }).toString(),
      });
      assert.equal(signedIn.status, 303);
      return {
        send,
        startConnect: async () => {
          const started = await send('/v1/rest/channels/connect', {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-csrf-token': jar.get('herald_web_csrf')! },
            body: JSON.stringify({ network: 'x' }),
          });
          assert.equal(started.status, 200);
          const consent = await fetch((await started.json()).authorizationUrl, { redirect: 'manual' });
          assert.equal(consent.status, 302);
          return consent.headers.get('location')!;
        },
      };
    }

    it(
      'finishes a connection started in the app only in that browser: ' +
        'another browser, even signed in as the same person, connects nothing',
      async () => {
        await start();
        const browser = await signedInBrowser();
        for (const elsewhere of [
          (url: string) => fetch(url),
          async (url: string) => (await signedInBrowser()).send(url),
        ]) {
          const callback = await browser.startConnect();
          const page = await elsewhere(callback);
          assert.equal(page.status, 403);
          assert.match(
            await page.text(),
            /started in another browser, or you signed out of Herald since; nothing was connected/,
          );
          assert.equal(await channel(), undefined);
          assert.equal((await browser.send(callback)).status, 400, 'the refused callback spent the state');
        }
        const page = await browser.send(await browser.startConnect());
        assert.equal(page.status, 200, await page.text());
        assert.equal((await channel()).handle, 'herald_dev');
      },
    );

    it('connects from the CLI: the address to open, then the callback', async function () {
      this.timeout(180_000);
      await start();
      const env = {
        ...process.env,
        DATA_DIR: t.config.dataDir,
        DATABASE_URL: t.config.databaseUrl ?? '',
        BASE_URL: t.url,
        // The network's fake listens on loopback, which the SSRF guard refuses unless it is listed.
        OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
        X_CLIENT_ID: x.clientId,
        X_CLIENT_SECRET: x.clientSecret,
        NETWORK_ORIGIN_OVERRIDES: `https://x.com=${x.url},https://api.x.com=${x.url}`,
      };
      const child = spawn('node', [HERALD_CLI, 'channel', 'connect', 'x', '--json'], { env });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk) => {
        stdout += chunk;
      });
      const address = await new Promise<string>((resolve, reject) => {
        child.stderr.on('data', (chunk) => {
          stderr += chunk;
          const found = /(http:\/\/\S+\/i\/oauth2\/authorize\S+)/.exec(stderr);
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
        JSON.parse(stdout).channels.map((c: any) => [c.network, c.handle]),
        [['x', 'herald_dev']],
      );
    });

    it('a denied consent connects nothing and says why; an unconfigured X refuses to connect', async () => {
      await start();
      x.denyNext = true;
      const denied = await connectThroughConsent();
      assert.equal(denied.status, 400);
      assert.match(denied.html, /X did not grant access \(access_denied\)/);
      assert.equal(await channel(), undefined);
      await t.close();
      await x.close();

      await start(false);
      const networks = await t.api('GET', '/v1/rest/networks', { token: a.apiKey });
      assert.equal(networks.body.data.find((n: any) => n.name === 'x').configured, false);
      const refused = await t.api('POST', '/v1/rest/channels/connect', { token: a.apiKey, body: { network: 'x' } });
      assert.equal(refused.status, 400);
      assert.match(refused.body.message, /not configured for X/);
    });
  });

  describe('publishing', () => {
    beforeEach(async () => {
      await start();
      await connectThroughConsent();
    });

    it('publishes text; images with alt text through the chunked upload; a first comment as a reply', async () => {
      const clock = pinClock(t, new Date().toISOString());
      const text = await schedule({
        text: 'Hello, X (ünïcödé) https://example.com/a/very/long/link/that/counts/as/twenty-three',
      });
      const gallery = await schedule({
        text: 'Two pictures',
        imageUrls: [imageUrl, `${imageUrl}?2`],
        firstComment: { text: 'More below', delayMinutes: 1 },
      });
      const described = await t.api('PATCH', `/v1/rest/posts/${gallery.id}`, {
        token: a.apiKey,
        body: { channelOptions: { altText: ['a red kite', 'a blue sky'] } },
      });
      assert.equal(described.status, 200, JSON.stringify(described.body));
      const worker = testWorker(t);
      await worker.tick();
      for (const id of [text.id, gallery.id]) assert.equal((await get(id)).status, 'published', (await get(id)).error);

      const made = (prefix: string) => x.posts.find((p) => p.text.startsWith(prefix))!;
      assert.match(made('Hello, X').text, /https:\/\/t\.co\//);
      assert.equal((await get(text.id)).permalinkUrl, `https://x.com/herald_dev/status/${made('Hello, X').id}`);
      const pictures = made('Two pictures');
      assert.equal(pictures.mediaKeys.length, 2);
      assert.deepEqual(
        pictures.mediaKeys.map((k) => x.media.get(k.split('_')[1])!.altText),
        ['a red kite', 'a blue sky'],
      );
      assert.ok(
        pictures.mediaKeys.every((k) => k.startsWith('3_')),
        'uploaded as tweet_image',
      );

      clock.advance(2 * 60_000);
      await worker.tick();
      const reply = x.posts.find((p) => p.inReplyTo === pictures.id);
      assert.equal(reply?.text, 'More below');
      assert.deepEqual(x.refusals, [], 'X refused nothing Herald sent');
    });

    it(
      "uploads a video in 1 MB segments and waits for X's processing; " +
        "a GIF as tweet_gif; a failed processing fails with X's reason",
      async () => {
        const film = await schedule({ text: 'A film', videoUrls: [videoUrl] });
        const loop = await schedule({ text: 'A loop', imageUrls: [gifUrl] });
        await testWorker(t).tick();
        assert.equal((await get(film.id)).status, 'published', (await get(film.id)).error);
        assert.equal((await get(loop.id)).status, 'published', (await get(loop.id)).error);
        const filmKey = x.posts.find((p) => p.typed === 'A film')!.mediaKeys[0];
        assert.ok(filmKey.startsWith('7_'));
        assert.equal(x.media.get(filmKey.split('_')[1])!.totalBytes, video.length);
        assert.ok(
          x.segmentSizes.includes(MB) && x.segmentSizes.includes(1000),
          'three segments: 1 MB, 1 MB and the rest',
        );
        assert.ok(x.requests.filter((r) => r === 'GET /2/media/upload').length >= 2, 'polled STATUS until succeeded');
        assert.ok(x.posts.find((p) => p.typed === 'A loop')!.mediaKeys[0].startsWith('16_'));

        x.failProcessingNext = true;
        const broken = await schedule({ text: 'A broken film', videoUrls: [`${videoUrl}?2`] });
        await testWorker(t).tick();
        const failed = await get(broken.id);
        assert.equal(failed.status, 'failed');
        assert.match(failed.error, /X could not process the media \(InvalidMedia: Unsupported video format\)/);
        assert.equal(x.posts.filter((p) => p.typed === 'A broken film').length, 0);
      },
    );

    it(
      'refuses before the post is due what X would refuse, ' + "counted X's way: on REST, MCP and per bulk entry",
      async () => {
        const c = await channel();
        const cjk = await t.api('POST', '/v1/rest/posts', {
          token: a.apiKey,
          body: { channelIds: [c.id], text: '漢'.repeat(141) },
        });
        assert.equal(cjk.status, 400);
        assert.match(cjk.body.message, /X allows 280 characters; this text has 282/);
        const family = await t.api('POST', '/v1/rest/posts', {
          token: a.apiKey,
          body: { channelIds: [c.id], text: '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}'.repeat(141) },
        });
        assert.equal(family.status, 400);
        assert.match(
          family.body.message,
          new RegExp(
            /X allows 280 characters; this text has 282 /.source +
              /\(X counts each link as 23, and each emoji and CJK character as 2\)/.source,
          ),
        );
        const emoji = await schedule({ text: `${'\u{1F468}\u200D\u{1F469}\u200D\u{1F467}'.repeat(138)} ok` });
        const link = `https://example.com/${'p'.repeat(100)}`;
        const links = await t.api('POST', '/v1/rest/posts', {
          token: a.apiKey,
          body: { channelIds: [c.id], text: `${link} ${'a'.repeat(256)}` },
        });
        assert.equal(links.status, 201, 'a 120-character link counts 23: 23 + 1 + 256 = 280 fits');
        const five = await t.api('POST', '/v1/rest/posts', {
          token: a.apiKey,
          body: { channelIds: [c.id], text: 'Five', imageUrls: [1, 2, 3, 4, 5].map((n) => `${imageUrl}?${n}`) },
        });
        assert.equal(five.status, 400);
        assert.match(five.body.message, /X allows 4 image\(s\) per post; this post has 5/);
        const gifs = await t.api('POST', '/v1/rest/posts', {
          token: a.apiKey,
          body: { channelIds: [c.id], text: 'Two loops', imageUrls: [gifUrl, `${gifUrl}?2`] },
        });
        assert.equal(gifs.status, 400);
        assert.match(gifs.body.message, /X allows 1 GIF\(s\) per post; this post has 2/);
        const mixed = await t.api('POST', '/v1/rest/posts', {
          token: a.apiKey,
          body: { channelIds: [c.id], text: 'Mixed', imageUrls: [imageUrl], videoUrls: [videoUrl] },
        });
        assert.equal(mixed.status, 400);
        assert.match(mixed.body.message, /X takes one kind of media per post/);

        const tool = await callTool(t, a.apiKey, 'create_text_post', { channelIds: [c.id], text: '漢'.repeat(141) });
        assert.equal(tool.body.result.isError, true, JSON.stringify(tool.body));
        assert.match(tool.body.result.content[0].text, /X allows 280 characters; this text has 282/);

        const bulk = await t.api('POST', '/v1/rest/posts/bulk', {
          token: a.apiKey,
          body: {
            posts: [
              { channelIds: [c.id], text: 'fits' },
              { channelIds: [c.id], text: 'x'.repeat(281) },
            ],
          },
        });
        assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
        assert.deepEqual(bulk.body.summary, { succeeded: 1, failed: 1 });
        assert.match(bulk.body.results[1].error.message, /^posts\[1\]: .*X allows 280 characters; this text has 281/);

        // 138 families (2 each) and " ok": 279 by X's count, though 693 code points; X takes it.
        await testWorker(t).tick();
        assert.equal((await get(emoji.id)).status, 'published', (await get(emoji.id)).error);
        assert.deepEqual(x.refusals, [], "Herald's count and X's agree");
      },
    );
  });
  describe('insights', () => {
    it(
      "reads the user's public_metrics.followers_count at " + "each sync as the channel's audience in REST insights",
      async () => {
        await start();
        await connectThroughConsent();
        await assertAudienceInInsights(t, a.apiKey, (await channel()).id, (n) => {
          x.user.public_metrics.followers_count = n;
        });
      },
    );
  });

  describe('tokens', () => {
    beforeEach(async () => {
      await start();
      await connectThroughConsent();
    });

    it(
      'refreshes a token X answers 401 to (during a media upload too), ' +
        'storing the rotated refresh token; a refused refresh needs a reconnect',
      async () => {
        const clock = pinClock(t, new Date().toISOString());
        const worker = testWorker(t);
        const c = await channel();
        x.expireTokens();
        const post = await schedule({ text: 'After a refresh', imageUrls: [imageUrl] });
        await worker.tick();
        assert.equal((await get(post.id)).status, 'scheduled', 'refreshed, then tried again');
        assert.ok(
          x.refusals.includes('401 POST /2/media/upload/initialize Unauthorized'),
          'the 401 came from the media upload',
        );
        assert.equal(x.requests.filter((r) => r === 'POST /2/oauth2/token').length, 2, 'the code, then one refresh');
        clock.advance(60 * 60_000);
        await worker.tick();
        assert.equal((await get(post.id)).status, 'published', (await get(post.id)).error);

        // The rotated refresh token was stored: a second expiry refreshes again.
        x.expireTokens();
        const again = await schedule({ text: 'After a second refresh' });
        await worker.tick();
        clock.advance(60 * 60_000);
        await worker.tick();
        assert.equal((await get(again.id)).status, 'published', (await get(again.id)).error);
        assert.ok(!x.refusals.some((r) => r.includes('/2/oauth2/token')), 'no refresh token was spent twice');

        x.revokeAll();
        const refused = await schedule({ text: 'Refresh refused' });
        await worker.tick();
        clock.advance(60 * 60_000);
        await worker.tick();
        const failed = await get(refused.id);
        assert.equal(failed.status, 'failed');
        assert.match(failed.error, /reconnect/);
        const after = await channel();
        assert.equal(after.id, c.id);
        assert.equal(after.status, 'needs_reconnect');
        assert.match(
          after.statusReason,
          /X refused to refresh the access token \(Value passed for the token was invalid\.\)/,
        );
      },
    );

    it('refreshes ahead of the 2-hour expiry, so no call is made with a token about to lapse', async () => {
      const c = await channel();
      const clock = pinClock(t, new Date(Date.now() + 7200_000 - 60_000).toISOString());
      const post = await schedule({ text: 'Just in time' });
      await testWorker(t).tick();
      assert.equal((await get(post.id)).status, 'published', (await get(post.id)).error);
      assert.equal(
        x.requests.filter((r) => r === 'POST /2/oauth2/token').length,
        2,
        'the code, then the refresh ahead',
      );
      assert.deepEqual(x.refusals, []);
      const row = await t.herald.db('channels').where({ id: c.id }).first();
      assert.ok(Number(row.credentials_expire_at) > clock.now() + 7000_000, 'the new expiry is stored');
    });

    it("a refresh refused for Herald's app (rotated secret) fails the post for the operator", async () => {
      const c = await channel();
      pinClock(t, new Date(Date.now() + 7200_000 - 60_000).toISOString());
      x.clientSecret = 'rotated-at-developer.x.com';
      const post = await schedule({ text: 'Refused app' });
      await testWorker(t).tick();
      const failed = await get(post.id);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /X refused to refresh the access token \(Missing valid authorization header\)/);
      assert.match(failed.error, /the operator must check X_CLIENT_ID and X_CLIENT_SECRET/);
      const after = await channel();
      assert.equal(after.id, c.id);
      assert.equal(after.status, 'active', "reconnecting would not mend the operator's app");
    });
  });

  describe('failures and exactly once', () => {
    beforeEach(async () => {
      await start();
      await connectThroughConsent();
    });

    it(
      '429 waits until x-rate-limit-reset (the channel too); ' +
        "a spent 24-hour budget waits for its own reset; 400 fails with X's words",
      async () => {
        const clock = pinClock(t, new Date().toISOString());
        const worker = testWorker(t);
        const c = await channel();
        const reset = Math.floor(clock.now() / 1000) + 600;
        x.failNext(
          '/2/tweets',
          429,
          { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 },
          { 'x-rate-limit-limit': '100', 'x-rate-limit-remaining': '0', 'x-rate-limit-reset': String(reset) },
        );
        const limited = await schedule({ text: 'Rate limited' });
        await worker.tick();
        const waiting = await t.herald.db('posts').where({ id: limited.id }).first();
        assert.equal(waiting.status, 'scheduled');
        assert.equal(Number(waiting.next_attempt_at), reset * 1000);
        assert.equal(
          Number((await t.herald.db('channels').where({ id: c.id }).first()).rate_limited_until),
          reset * 1000,
          'the channel waits too',
        );
        clock.advance(600_000 + 1);
        await worker.tick();
        assert.equal((await get(limited.id)).status, 'published');

        x.failNext('/2/tweets', 400, {
          errors: [{ message: 'The `text` field is invalid' }],
          title: 'Invalid Request',
          detail: 'One or more parameters to your request was invalid.',
          type: 'https://api.twitter.com/2/problems/invalid-request',
        });
        const refused = await schedule({ text: 'Refused' });
        await worker.tick();
        const failed = await get(refused.id);
        assert.equal(failed.status, 'failed');
        assert.match(
          failed.error,
          /X answered HTTP 400: One or more parameters to your request was invalid\.; The `text` field is invalid/,
        );

        const daily = Math.floor(clock.now() / 1000) + 20 * 3600;
        x.failNext(
          '/2/tweets',
          429,
          { title: 'Too Many Requests', detail: 'Too Many Requests', type: 'about:blank', status: 429 },
          {
            'x-rate-limit-remaining': '99',
            'x-rate-limit-reset': String(Math.floor(clock.now() / 1000) + 900),
            'x-user-limit-24hour-limit': '17',
            'x-user-limit-24hour-remaining': '0',
            'x-user-limit-24hour-reset': String(daily),
          },
        );
        const capped = await schedule({ text: 'Daily cap' });
        await worker.tick();
        assert.equal(
          Number((await t.herald.db('posts').where({ id: capped.id }).first()).next_attempt_at),
          daily * 1000,
        );
      },
    );

    it(
      'a post whose answer was lost is found on the timeline by its text and media, ' +
        'never made twice; a 503 to the post call is looked up, not retried',
      async () => {
        const post = await schedule({ text: 'Answer lost https://example.com/page', imageUrls: [imageUrl] });
        x.dropAnswerNext('/2/tweets');
        const worker = testWorker(t);
        await worker.tick();
        const got = await get(post.id);
        assert.equal(got.status, 'published', got.error);
        assert.equal(x.posts.length, 1);
        assert.equal(got.permalinkUrl, `https://x.com/herald_dev/status/${x.posts[0].id}`);
        assert.deepEqual(
          (await t.deps.repos.publishAttempts.attempts(a.accountId, post.id)).map((r) => r.outcome),
          ['reconciled'],
        );

        const gateway = await schedule({ text: 'Bad gateway' });
        x.failNext('/2/tweets', 503, {
          title: 'Service Unavailable',
          detail: 'Service Unavailable',
          type: 'about:blank',
          status: 503,
        });
        await worker.tick();
        const unsure = await get(gateway.id);
        assert.equal(unsure.status, 'unconfirmed');
        assert.match(unsure.error, /cannot confirm/);
        await worker.tick();
        assert.equal(x.posts.length, 1, 'never posted blind');
      },
    );

    it(
      "X's 403 duplicate content after an unknown outcome settles the post as published with the post found, " +
        'never a second try; an old duplicate is refused',
      async () => {
        const post = await schedule({ text: 'Said once' });
        // The earlier attempt's post went out, but Herald never learned it (the timeline did not show it yet).
        x.dropAnswerNext('/2/tweets');
        x.failNext('/2/users/', 503, {
          title: 'Service Unavailable',
          detail: 'Service Unavailable',
          type: 'about:blank',
          status: 503,
        });
        const clock = pinClock(t, new Date().toISOString());
        const worker = testWorker(t);
        await worker.tick();
        assert.equal((await get(post.id)).status, 'unconfirmed');
        // A person looked too soon, found nothing, and rescheduled it.
        const settled0 = await t.api('POST', `/v1/rest/posts/${post.id}/settle`, {
          token: a.apiKey,
          body: { published: false },
        });
        assert.equal(settled0.status, 200, JSON.stringify(settled0.body));
        const rescheduled = await t.api('PATCH', `/v1/rest/posts/${post.id}`, {
          token: a.apiKey,
          body: { dateTime: new Date(clock.now() + 60_000).toISOString() },
        });
        assert.equal(rescheduled.status, 200, JSON.stringify(rescheduled.body));
        clock.advance(2 * 60_000);
        await worker.tick();
        const settled = await get(post.id);
        assert.equal(settled.status, 'published', settled.error);
        assert.equal(x.posts.length, 1, 'one post on X');
        assert.equal(settled.permalinkUrl, `https://x.com/herald_dev/status/${x.posts[0].id}`);
        assert.ok(
          x.refusals.some((r) =>
            r.startsWith('403 POST /2/tweets You are not allowed to create a Tweet with duplicate content'),
          ),
        );

        // Written on X an hour before this Herald post was: X still refuses the same text.
        x.postExternally('Said last week', {}, clock.now() - 3600_000);
        const old = await schedule({ text: 'Said last week' });
        await worker.tick();
        const refused = await get(old.id);
        assert.equal(refused.status, 'failed');
        assert.match(
          refused.error,
          /X answered HTTP 403: You are not allowed to create a Tweet with duplicate content/,
        );
      },
    );

    it(
      'a lost answer to a media upload is retried later ' + '(no post can have been made), and published once',
      async () => {
        const clock = pinClock(t, new Date().toISOString());
        const post = await schedule({ text: 'Upload interrupted', imageUrls: [imageUrl] });
        x.dropAnswerNext('/2/media/upload/initialize');
        const worker = testWorker(t);
        await worker.tick();
        assert.equal((await get(post.id)).status, 'scheduled', 'retried later, not left unconfirmed');
        clock.advance(60 * 60_000);
        await worker.tick();
        assert.equal((await get(post.id)).status, 'published', (await get(post.id)).error);
        assert.equal(x.posts.length, 1);
      },
    );

    it(
      'a post that spends the last of the 15-minute window pauses ' +
        'the channel until x-rate-limit-reset, so the next waits',
      async () => {
        const clock = pinClock(t, new Date().toISOString());
        const c = await channel();
        x.spendPostWindow();
        const first = await schedule({ text: 'Last in the window' });
        const second = await schedule({ text: 'Next window' });
        const worker = testWorker(t, { concurrency: 1, batchSize: 1 });
        await worker.tick();
        await worker.tick();
        assert.equal(x.posts.length, 1, 'only one post in the spent window');
        const statuses = [(await get(first.id)).status, (await get(second.id)).status].sort();
        assert.deepEqual(statuses, ['published', 'scheduled']);
        const paused = Number((await t.herald.db('channels').where({ id: c.id }).first()).rate_limited_until);
        assert.ok(paused > clock.now() + 800_000 && paused <= Date.now() + 900_000, "until X's reset, 15 minutes on");
        assert.ok(!x.refusals.some((r) => r.startsWith('429')), 'no 429 drawn');
        const waiting = [first, second].find((p) => x.posts[0].text !== p.text)!;
        assert.equal(
          Number((await t.herald.db('posts').where({ id: waiting.id }).first()).next_attempt_at),
          paused,
          'the next post waits for the reset',
        );
      },
    );

    it(
      'publishes a thread as a reply chain, each part replying to the one before; ' +
        'a part whose answer was lost is found, never made twice',
      async () => {
        const clock = pinClock(t, new Date().toISOString());
        const post = await schedule({
          text: 'A thread, 1/3',
          thread: [{ text: 'Part 2/3', imageUrls: [imageUrl] }, { text: 'Part 3/3' }],
        });
        // The answer to part 2 is lost once X has made it: the drop is armed when the thread step is claimed.
        const steps = t.deps.repos.threadSteps;
        const claimDue = steps.claimDue.bind(steps);
        steps.claimDue = async (...args) => {
          const claimed = await claimDue(...args);
          if (claimed.length > 0 && x.posts.length === 1) x.dropAnswerNext('/2/tweets');
          return claimed;
        };
        const worker = testWorker(t);
        await worker.tick();
        assert.equal((await get(post.id)).status, 'published');
        assert.equal(x.posts.length, 2, 'part 2 made, its answer lost');
        clock.advance(60 * 60_000);
        await worker.tick();
        const [head, second, third] = x.posts;
        assert.equal(x.posts.length, 3, 'part 2 once, then part 3');
        assert.deepEqual([head.inReplyTo, second.inReplyTo, third.inReplyTo], [null, head.id, second.id]);
        assert.equal(second.typed, 'Part 2/3');
        assert.equal(second.mediaKeys.length, 1, "the part's own image");
        const got = await get(post.id);
        assert.deepEqual(
          got.thread.map((p: { permalinkUrl: string }) => p.permalinkUrl),
          [second, third].map((p) => `https://x.com/herald_dev/status/${p.id}`),
        );
        const tries = await t.herald
          .db('publish_attempts')
          .where({ post_id: post.id, kind: 'part' })
          .orderBy('seq')
          .select('outcome');
        assert.deepEqual(
          tries.map((row: { outcome: string }) => row.outcome),
          ['reconciled', 'published'],
        );
        assert.deepEqual(x.refusals, []);
      },
    );

    it(
      'a first comment whose answer was lost is found among ' +
        "the account's replies before any new try: one reply on X",
      async () => {
        const clock = pinClock(t, new Date().toISOString());
        const post = await schedule({ text: 'With a comment', firstComment: { text: 'The comment', delayMinutes: 1 } });
        const worker = testWorker(t);
        await worker.tick();
        assert.equal((await get(post.id)).status, 'published');
        x.dropAnswerNext('/2/tweets');
        clock.advance(2 * 60_000);
        await worker.tick();
        clock.advance(60 * 60_000);
        await worker.tick();
        const replies = x.posts.filter((p) => p.inReplyTo === x.posts[0].id);
        assert.equal(replies.length, 1, 'one reply on X');
        assert.deepEqual(x.refusals, [], 'no second try, so no duplicate to refuse');
        const tries = await t.herald
          .db('publish_attempts')
          .where({ post_id: post.id, kind: 'comment' })
          .orderBy('seq')
          .select('outcome');
        assert.deepEqual(
          tries.map((row: { outcome: string }) => row.outcome),
          ['unknown', 'reconciled'],
        );
        const step = await t.herald.db('first_comment_steps').where({ post_id: post.id }).first();
        assert.equal(step.status, 'done');
        assert.equal(step.network_comment_id, replies[0].id, 'the earlier reply is the comment');
      },
    );

    it('a worker that died mid-publish is settled from the timeline by text and time, never posted twice', async () => {
      const clock = pinClock(t, new Date().toISOString());
      const post = await schedule({ text: 'Worker died' });
      const [claimed] = await dieMidAttempt(t, clock);
      assert.equal(claimed, post.id);
      // The dead worker's call got through before it died.
      x.postExternally('Worker died');
      clock.advance(2_000);
      await testWorker(t).tick();
      const got = await get(post.id);
      assert.equal(got.status, 'published', got.error);
      assert.equal(x.posts.length, 1, 'found, not made again');
      assert.equal(got.permalinkUrl, `https://x.com/herald_dev/status/${x.posts[0].id}`);

      const lost = await schedule({ text: 'Worker died before the call' });
      await dieMidAttempt(t, clock);
      clock.advance(2_000);
      await testWorker(t).tick();
      assert.equal((await get(lost.id)).status, 'unconfirmed', 'not found: a person decides, no blind retry');
      assert.equal(x.posts.length, 1);
    });
  });

  describe('sync and check', () => {
    beforeEach(async () => {
      await start();
      await connectThroughConsent();
    });

    it(
      "syncs the user's recent posts from the timeline with their public metrics, " + 'page by page, without replies',
      async () => {
        x.postExternally('Written on X', {
          like_count: 7,
          retweet_count: 2,
          reply_count: 1,
          quote_count: 3,
          bookmark_count: 4,
          impression_count: 120,
        });
        for (let n = 1; n <= 6; n++) x.postExternally(`Older ${n}`, {}, Date.now() - n * 60_000);
        x.postExternally('A reply, such as a first comment').inReplyTo = x.posts[0].id;
        await testWorker(t, { syncDepth: 5 }).sync();
        const c = await channel();
        const live = await t.api('GET', `/v1/rest/posts?livePosts=true&channelIds=${c.id}`, { token: a.apiKey });
        const found = live.body.data.filter((p: any) => p.isLivePost);
        assert.equal(found.length, 7);
        assert.equal(
          x.requests.filter((r) => r.startsWith('GET /2/users/') && r.endsWith('/tweets')).length,
          2,
          'two pages of at most 5',
        );
        assert.deepEqual(found.find((p: any) => p.text === 'Written on X').metrics, {
          likes: 7,
          reposts: 2,
          replies: 1,
          quotes: 3,
          bookmarks: 4,
          impressions: 120,
        });
        assert.deepEqual(x.refusals, []);
      },
    );

    it(
      'herald network check: the token, the account and the granted scopes; ' +
        'a revoked token is a problem; no token is ever shown',
      async () => {
        const c = await channel();
        const good = await checkChannelConnection(t.deps, { channelId: c.id });
        assert.deepEqual(good.problems, []);
        assert.equal(good.ok, true);
        assert.equal(good.account, '@herald_dev');
        assert.deepEqual([...good.grantedScopes!].sort(), [
          'media.write',
          'offline.access',
          'tweet.read',
          'tweet.write',
          'users.read',
        ]);
        assert.equal(x.posts.length, 0, 'nothing posted');

        x.revokeAll();
        const revoked = await checkChannelConnection(t.deps, { channelId: c.id });
        assert.equal(revoked.ok, false);
        assert.match(
          revoked.problems.join(' '),
          /X refused the token \(X answered HTTP 401: Unauthorized\): reconnect the channel/,
        );
        const shown = JSON.stringify([good, revoked]);
        assert.ok(
          x.issuedTokens().length > 0 && x.issuedTokens().every((token) => !shown.includes(token)),
          'no token in the answer',
        );
      },
    );

    it('revokes both tokens at X on disconnect', async () => {
      const c = await channel();
      const res = await t.api('DELETE', `/v1/rest/channels/${c.id}`, { token: a.apiKey });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.data.revokedAtNetwork, true);
      assert.equal(x.liveTokens(), 0, 'X revoked the access and refresh tokens');
      assert.deepEqual(x.refusals, []);
    });
  });
});
