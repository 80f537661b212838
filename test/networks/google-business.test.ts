import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { loadConfig } from '../../src/config.js';
import { checkChannelConnection } from '../../src/domain/networks/connection-check.js';
import { TINY_JPEG } from '../media/fixtures.js';
import { callTool } from '../mcp/support.js';
import {
  BUSINESS_SCOPE,
  ORIGINS,
  googleBusinessOverrides,
  startFakeGoogleBusiness,
  type FakeGoogleBusiness,
} from '../support/fake-google-business.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { openRedirect } from '../support/herald-page.js';
import { dieMidAttempt, pinClock, testWorker } from '../publishing/support.js';
import { ensureCliBuilt, HERALD_CLI } from '../support/cli.js';

// The commands run the CLI bundled from src/ (test/support/cli.ts), built before the first.
before(ensureCliBuilt);

/**
 * Google Business Profile through Google's documented OAuth, Business Profile APIs and errors
 * (fake-google-business.ts).
 */
describe(
  'Google Business Profile, ' + `against a fake of Google's OAuth and Business Profile APIs (${TEST_DB})`,
  function () {
    this.timeout(60_000);
    let google: FakeGoogleBusiness;
    let t: TestHerald;
    let a: SeededAccount;
    const photo = 'https://images.example.com/bread.jpg';

    async function start(apps = true): Promise<void> {
      google = await startFakeGoogleBusiness();
      const defaults = loadConfig({}).networks;
      t = await startTestHerald({
        networkOriginOverrides: googleBusinessOverrides(google),
        networks: {
          ...defaults,
          apps: apps
            ? {
                google: {
                  clientId: google.client.id,
                  clientSecret: google.client.secret,
                  youtubeDailyQuota: 10_000,
                  youtubeDailyUploads: 100,
                  youtubeChunkBytes: 256 * 1024,
                },
              }
            : {},
        },
        // The network's fake listens on loopback, which the SSRF guard refuses unless it is listed; without the
        // operator's app nothing reaches it, and the guard keeps a new user's defaults.
        ...(apps ? { outboundAllowHosts: ['127.0.0.1'] } : {}),
      });
      google.client.redirectUri = `${t.url}/connect/google_business/callback`;
      a = await t.seedAccount({ channels: 0 });
    }
    beforeEach(() => start());
    afterEach(async () => {
      await t.close();
      await google.close();
    });

    /** Starts connecting, plays the person at Google's consent screen, and follows the redirect back to Herald. */
    async function connectThroughConsent(
      path = '/v1/rest/channels/connect',
      body: Record<string, unknown> = { network: 'google_business' },
    ) {
      const started = await t.api('POST', path, { token: a.apiKey, body });
      assert.equal(started.status, 200, JSON.stringify(started.body));
      const authorizationUrl = new URL(started.body.authorizationUrl);
      const consent = await fetch(authorizationUrl.toString().replace(ORIGINS.accounts, google.urls.accounts), {
        redirect: 'manual',
      });
      assert.equal(consent.status, 302, await consent.text());
      const page = await openRedirect(t, consent.headers.get('location')!);
      return { started: started.body, authorizationUrl, status: page.status, html: await page.text() };
    }

    async function channels() {
      return (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data;
    }

    /** Connects the Springfield location only. */
    async function connected() {
      const done = await connectThroughConsent('/v1/rest/channels/connect', {
        network: 'google_business',
        location: '501',
      });
      assert.equal(done.status, 200, done.html);
      const [channel] = await channels();
      return channel;
    }

    async function get(id: string) {
      return (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
    }

    async function schedule(channelId: string, body: Record<string, unknown>, options?: Record<string, unknown>) {
      const res = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [channelId], ...body },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      if (options) {
        const patched = await t.api('PATCH', `/v1/rest/posts/${res.body.data[0].id}`, {
          token: a.apiKey,
          body: { channelOptions: options },
        });
        assert.equal(patched.status, 200, JSON.stringify(patched.body));
      }
      return res.body.data[0];
    }

    const springfield = () => google.posts.get('locations/501') ?? [];

    it(
      "connects every location the person manages through Google's consent, or the one named; " +
        'reconnects keep to their location; disconnecting drafts waiting posts',
      async () => {
        const listed = (await t.api('GET', '/v1/rest/networks', { token: a.basicKey })).body.data.find(
          (n: any) => n.name === 'google_business',
        );
        assert.deepEqual(
          [listed.displayName, listed.configured, listed.connection.kind, listed.connection.fields[0].name],
          ['Google Business Profile', true, 'oauth', 'location'],
        );

        google.denyNext = true;
        const denied = await connectThroughConsent();
        assert.equal(denied.status, 400);
        assert.match(denied.html, /did not grant access \(access_denied\)/);
        google.grantOnly = ['https://www.googleapis.com/auth/plus.business.manage'];
        const unticked = await connectThroughConsent();
        assert.equal(unticked.status, 400);
        assert.match(unticked.html, /no permission to manage the Business Profile/);
        google.quotaPerMinute = 0;
        const unapproved = await connectThroughConsent();
        assert.equal(unapproved.status, 400);
        assert.match(unapproved.html, /no Business Profile API quota yet/);
        google.quotaPerMinute = 300;
        assert.equal((await channels()).length, 0);

        const all = await connectThroughConsent();
        assert.equal(all.status, 200, all.html);
        assert.match(all.started.warning, /Google Business Profile fetches media from Herald's address/);
        const asked = all.authorizationUrl.searchParams;
        assert.equal(
          all.authorizationUrl.origin + all.authorizationUrl.pathname,
          `${ORIGINS.accounts}/o/oauth2/v2/auth`,
        );
        assert.deepEqual(
          [asked.get('scope'), asked.get('access_type'), asked.get('prompt'), asked.get('code_challenge_method')],
          [BUSINESS_SCOPE, 'offline', 'consent', 'S256'],
        );
        const both = await channels();
        assert.deepEqual(
          both.map((c: any) => [c.network, c.handle, c.displayName]).sort(),
          [
            ['google_business', 'Corner Bakery Station', 'Corner Bakery Station, Shelbyville'],
            ['google_business', 'Corner Bakery', 'Corner Bakery, Springfield'],
          ].sort(),
        );
        const station = both.find((c: any) => c.handle === 'Corner Bakery Station');
        const row = await t.herald.db('channels').where({ id: station.id }).first();
        assert.ok(row.credentials.startsWith('v1.') && !row.credentials.includes('ya29.'));
        assert.ok(
          google.requests.includes('information GET /v1/accounts/2200/locations'),
          'locations listed under each account',
        );

        // A reconnect asks Google again, and keeps to the channel's own location though the consent reaches both.
        const again = await connectThroughConsent(`/v1/rest/channels/${station.id}/reconnect`, {});
        assert.equal(again.status, 200, again.html);
        assert.equal((await channels()).length, 2);

        const waiting = await schedule(station.id, {
          text: 'Fresh bread at six',
          isScheduled: true,
          dateTime: new Date(Date.now() + 3_600_000).toISOString(),
        });
        const gone = await t.api('DELETE', `/v1/rest/channels/${station.id}`, { token: a.apiKey });
        assert.equal(gone.status, 200, JSON.stringify(gone.body));
        assert.deepEqual(
          [gone.body.data.revokedAtNetwork, gone.body.data.draftedPostIds],
          [false, [waiting.id]],
          'nothing revoked at Google: the grant is shared by the other location',
        );
        assert.equal((await get(waiting.id)).status, 'draft');
      },
    );

    it("is listed as not configured, and refuses to connect, without the operator's Google app", async () => {
      await t.close();
      await google.close();
      await start(false);
      const listed = (await t.api('GET', '/v1/rest/networks', { token: a.basicKey })).body.data.find(
        (n: any) => n.name === 'google_business',
      );
      assert.equal(listed.configured, false);
      assert.match(listed.notConfigured, /GOOGLE_CLIENT_ID and GOOGLE_CLIENT_SECRET/);
      const refused = await t.api('POST', '/v1/rest/channels/connect', {
        token: a.apiKey,
        body: { network: 'google_business' },
      });
      assert.equal(refused.status, 400);
    });

    it(
      'connects from the CLI with --location: ' + "prints Google's consent address and waits for the callback",
      async function () {
        this.timeout(120_000);
        const env = {
          ...process.env,
          DATA_DIR: t.config.dataDir,
          DATABASE_URL: t.config.databaseUrl ?? '',
          BASE_URL: t.url,
          GOOGLE_CLIENT_ID: google.client.id,
          GOOGLE_CLIENT_SECRET: google.client.secret,
          NETWORK_ORIGIN_OVERRIDES: Object.entries(googleBusinessOverrides(google))
            .map(([real, local]) => `${real}=${local}`)
            .join(','),
        };
        const child = spawn(
          'node',
          [HERALD_CLI, 'channel', 'connect', 'google_business', '--location', '502', '--json'],
          { env },
        );
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk) => {
          stdout += chunk;
        });
        const address = await new Promise<string>((resolve, reject) => {
          child.stderr.on('data', (chunk) => {
            stderr += chunk;
            const found = /(https:\/\/accounts\.google\.com\/o\/oauth2\/v2\/auth\S+)/.exec(stderr);
            if (found) resolve(found[1]);
          });
          child.on('exit', () => reject(new Error(`the CLI ended without an address: ${stderr}`)));
        });
        const consent = await fetch(address.replace(ORIGINS.accounts, google.urls.accounts), { redirect: 'manual' });
        const page = await fetch(consent.headers.get('location')!);
        assert.equal(page.status, 200, await page.text());
        const code = await new Promise((resolve) => child.on('exit', resolve));
        assert.equal(code, 0, stderr);
        assert.deepEqual(
          JSON.parse(stdout).channels.map((c: any) => c.handle),
          ['Corner Bakery Station'],
        );
      },
    );

    it(
      'refuses when written a first comment, a video, ' +
        "two photos and a file of Herald's library this loopback instance cannot lend Google, on REST and MCP",
      async () => {
        const channel = await connected();
        const draft = (body: Record<string, unknown>) =>
          t.api('POST', '/v1/rest/posts', { token: a.apiKey, body: { channelIds: [channel.id], ...body } });
        const comment = await draft({ text: 'New loaves', firstComment: { text: 'Call us' } });
        assert.equal(comment.status, 400);
        assert.match(
          comment.body.message,
          new RegExp(
            /Google Business Profile has no comments on local posts, so Herald cannot make a first comment there; /
              .source + /remove firstComment for this channel\./.source,
          ),
        );
        assert.equal(comment.body.details[0].path, 'firstComment');
        const video = await draft({ text: 'A clip', videoUrls: ['https://images.example.com/clip.mp4'] });
        assert.equal(video.status, 400);
        assert.match(video.body.message, /Google Business Profile does not take videos/);
        const two = await draft({ text: 'Two', imageUrls: [photo, `${photo}?2`] });
        assert.equal(two.status, 400);
        assert.match(two.body.message, /allows 1 image\(s\) per post/);
        const long = await callTool(t, a.apiKey, 'create_text_post', {
          channelIds: [channel.id],
          text: 'x'.repeat(1501),
        });
        assert.equal(long.body.result.isError, true, JSON.stringify(long.body));
        assert.match(
          long.body.result.content[0].text,
          /Google Business Profile allows 1500 characters; this text has 1501/,
        );

        const created = await callTool(t, a.apiKey, 'create_media_upload', {
          fileName: 'bread.jpg',
          contentType: 'image/jpeg',
          sizeBytes: TINY_JPEG.length,
        });
        const upload = created.body.result.structuredContent;
        const put = await fetch(upload.uploadUrl, {
          method: 'PUT',
          headers: upload.headers,
          body: new Uint8Array(TINY_JPEG),
        });
        assert.equal(put.status, 200);
        const done = await callTool(t, a.apiKey, 'complete_media_upload', { uploadId: upload.uploadId });
        const own = await draft({ text: 'From the library', imageUrls: [done.body.result.structuredContent.data.url] });
        assert.equal(own.status, 400, JSON.stringify(own.body));
        assert.match(
          own.body.message,
          new RegExp(
            /Google Business Profile fetches media from Herald's address, .* /.source +
              /which Google Business Profile cannot reach; set BASE_URL to a public https address/.source,
          ),
        );
      },
    );

    it(
      'publishes local posts written on REST, through MCP and in bulk: ' +
        'the text as summary, one photo by its URL, a call-to-action button',
      async () => {
        const channel = await connected();
        const worker = testWorker(t);
        const withPhoto = await schedule(
          channel.id,
          { text: 'Sourdough is back', imageUrls: [photo] },
          { callToAction: 'ORDER', callToActionUrl: 'https://bakery.example/order', languageCode: 'en' },
        );
        const calling = await schedule(channel.id, { text: 'Ring for cakes' }, { callToAction: 'CALL' });
        const tool = await callTool(t, a.apiKey, 'create_text_post', {
          channelIds: [channel.id],
          text: 'From a model',
        });
        assert.ok(!tool.body.result.isError, JSON.stringify(tool.body));
        const bulk = await t.api('POST', '/v1/rest/posts/bulk', {
          token: a.apiKey,
          body: { posts: [{ channelIds: [channel.id], text: 'Bulk one' }] },
        });
        assert.deepEqual(bulk.body.summary, { succeeded: 1, failed: 0 }, JSON.stringify(bulk.body));
        await worker.tick();

        const made = new Map(springfield().map((p) => [p.summary, p]));
        assert.deepEqual([...made.keys()].sort(), ['Bulk one', 'From a model', 'Ring for cakes', 'Sourdough is back']);
        const sent = made.get('Sourdough is back')!;
        assert.deepEqual(
          [sent.topicType, sent.languageCode, sent.callToAction, sent.media?.map((m) => [m.mediaFormat, m.sourceUrl])],
          ['STANDARD', 'en', { actionType: 'ORDER', url: 'https://bakery.example/order' }, [['PHOTO', photo]]],
        );
        assert.deepEqual(made.get('Ring for cakes')!.callToAction, { actionType: 'CALL' });
        assert.ok(google.requests.includes('posts POST /v4/accounts/1100/locations/501/localPosts'));
        const got = await get(withPhoto.id);
        assert.equal(got.status, 'published', got.error);
        assert.equal(got.permalinkUrl, sent.searchUrl);
        assert.equal((await get(calling.id)).status, 'published');

        const lonely = await schedule(
          channel.id,
          { text: 'A link without a button' },
          {
            callToActionUrl: 'https://bakery.example',
          },
        );
        await worker.tick();
        const refused = await get(lonely.id);
        assert.equal(refused.status, 'failed');
        assert.match(refused.error, /callToActionUrl needs channelOptions.callToAction/);
      },
    );

    it(
      "classifies Google's failures: RESOURCE_EXHAUSTED waits, a project without API access and refusals fail, " +
        'a 5xx to a create is looked up, PERMISSION_DENIED reconnects',
      async () => {
        const channel = await connected();
        const clock = pinClock(t, new Date().toISOString());
        const worker = testWorker(t);
        const status = async (id: string) => (await t.herald.db('posts').where({ id }).first()).status;
        const pausedUntil = async () =>
          Number((await t.herald.db('channels').where({ id: channel.id }).first()).rate_limited_until);

        // The edit limit: 10 a minute per profile, Google's 429 RESOURCE_EXHAUSTED without a retry time.
        for (let i = 0; i < 10; i++) google.postExternally('locations/501', `Edit ${i}`);
        const limited = await schedule(channel.id, { text: 'Eleventh edit this minute' });
        await worker.tick();
        assert.equal(await status(limited.id), 'scheduled');
        assert.equal(await pausedUntil(), clock.now() + 60_000, 'a minute, the window of Google quotas');
        assert.match((await get(limited.id)).error, /429 RESOURCE_EXHAUSTED \(RATE_LIMIT_EXCEEDED\)/);

        // A minute later at Google too; this time Google names its delay in a RetryInfo.
        clock.advance(61_000);
        google.resetLimits();
        google.failNext('/localPosts', 429, 'RESOURCE_EXHAUSTED', 'Quota exceeded.', [
          { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '30s' },
        ]);
        await worker.tick();
        assert.equal(await status(limited.id), 'scheduled');
        assert.equal(await pausedUntil(), clock.now() + 30_000);
        clock.advance(31_000);
        await worker.tick();
        const published = await get(limited.id);
        assert.equal(published.status, 'published', published.error);
        assert.equal(springfield().filter((p) => p.summary === 'Eleventh edit this minute').length, 1);

        google.quotaPerMinute = 0;
        const unapproved = await schedule(channel.id, { text: 'No API access yet' });
        await worker.tick();
        assert.equal(await status(unapproved.id), 'failed');
        assert.match((await get(unapproved.id)).error, /no Business Profile API quota yet.*access request/);
        google.quotaPerMinute = 300;

        google.failNext('/localPosts', 400, 'FAILED_PRECONDITION', 'Location Disabled for Local Post API.', [
          {
            '@type': 'type.googleapis.com/google.mybusiness.v4.ValidationError',
            errorDetails: [{ code: 1304, message: 'LOCATION_DISABLED_FOR_LOCAL_POST_API' }],
          },
        ]);
        const disabled = await schedule(channel.id, { text: 'A chain location' });
        await worker.tick();
        assert.equal(await status(disabled.id), 'failed');
        assert.match(
          (await get(disabled.id)).error,
          /FAILED_PRECONDITION: Location Disabled .*LOCATION_DISABLED_FOR_LOCAL_POST_API/,
        );

        google.nextPostState = 'REJECTED';
        const rejected = await schedule(channel.id, { text: 'Call 555 0100 now' });
        await worker.tick();
        assert.equal(await status(rejected.id), 'failed');
        assert.match((await get(rejected.id)).error, /Google rejected the post under its content policy/);

        // A 503 to a create may follow a post Google made: looked up, and not found, left for a person.
        google.failNext('/localPosts', 503, 'UNAVAILABLE', 'The service is currently unavailable.');
        const unavailable = await schedule(channel.id, { text: 'Google unavailable' });
        await worker.tick();
        assert.equal(await status(unavailable.id), 'unconfirmed');
        assert.equal(springfield().filter((p) => p.summary === 'Google unavailable').length, 0);
        assert.equal((await channels())[0].status, 'active');

        google.failNext('/localPosts', 403, 'PERMISSION_DENIED', 'The caller does not have permission');
        const denied = await schedule(channel.id, { text: 'No longer a manager' });
        await worker.tick();
        assert.equal(await status(denied.id), 'failed');
        const [after] = await channels();
        assert.equal(after.status, 'needs_reconnect');
        assert.match(after.statusReason, /no longer manages this location/);
      },
    );

    it('refreshes an expired access token and publishes; a refresh Google refuses needs a reconnect', async () => {
      const channel = await connected();
      const worker = testWorker(t);
      google.expireAccessTokens();
      const post = await schedule(channel.id, { text: 'After the token lapsed' });
      await worker.tick();
      assert.equal((await get(post.id)).status, 'published', (await get(post.id)).error);
      assert.equal(google.refreshes(), 1);

      google.revokeAll();
      const refused = await schedule(channel.id, { text: 'Access removed' });
      await worker.tick();
      assert.equal((await get(refused.id)).status, 'failed');
      const [after] = await channels();
      assert.equal(after.status, 'needs_reconnect');
      assert.match(after.statusReason, /invalid_grant|expired or revoked/);
    });

    it(
      'settles a lost answer by finding the local post, ' +
        'never by sending it again; one never sent is left unconfirmed',
      async () => {
        const channel = await connected();
        const clock = pinClock(t, new Date().toISOString());
        const worker = testWorker(t);
        // The same words posted an hour before the attempt are another post, not this one.
        google.postExternally('locations/501', 'Answer lost', 60);
        google.dropNextCreateAnswer();
        const post = await schedule(channel.id, { text: 'Answer lost' });
        await worker.tick();
        const got = await get(post.id);
        assert.equal(got.status, 'published', got.error);
        const mine = springfield().filter((p) => p.summary === 'Answer lost');
        assert.equal(mine.length, 2, 'the older one and the one the attempt made');
        assert.equal(got.permalinkUrl, mine[1].searchUrl, 'the one made since the attempt started');
        assert.deepEqual(
          (await t.deps.repos.publishAttempts.attempts(a.accountId, post.id)).map((x) => x.outcome),
          ['reconciled'],
        );

        // An answer that names no post is no proof either way: looked up too.
        google.emptyNextCreateAnswer();
        const unnamed = await schedule(channel.id, { text: 'Answered without a name' });
        await worker.tick();
        const found = await get(unnamed.id);
        assert.equal(found.status, 'published', found.error);
        assert.equal(found.permalinkUrl, springfield().find((p) => p.summary === 'Answered without a name')!.searchUrl);

        const missing = await schedule(channel.id, { text: 'Died before sending' });
        await dieMidAttempt(t, clock);
        clock.advance(2_000);
        await worker.tick();
        assert.equal((await get(missing.id)).status, 'unconfirmed', 'not found: never retried blind');
        assert.equal(springfield().filter((p) => p.summary === 'Died before sending').length, 0);
      },
    );

    it(
      "syncs the location's local posts with no counters (Google reports none per post); " +
        'herald network check reads the scope and the location',
      async () => {
        const channel = await connected();
        google.postExternally('locations/501', 'Made in the Business Profile', 5);
        google.nextPostState = 'REJECTED';
        google.postExternally('locations/501', 'Rejected by Google', 3);
        await testWorker(t).sync();
        const live = await t.api('GET', `/v1/rest/posts?livePosts=true&channelIds=${channel.id}`, { token: a.apiKey });
        assert.deepEqual(
          live.body.data.filter((p: any) => p.isLivePost).map((p: any) => [p.text, p.metrics]),
          [['Made in the Business Profile', {}]],
        );

        const ok = await checkChannelConnection(t.deps, { channelId: channel.id });
        assert.equal(ok.ok, true, JSON.stringify(ok));
        assert.equal(ok.account, 'Corner Bakery');
        assert.deepEqual(ok.grantedScopes, [BUSINESS_SCOPE]);
        assert.ok(!JSON.stringify(ok).includes('ya29.'));

        google.failNext('/localPosts', 403, 'PERMISSION_DENIED', 'The caller does not have permission');
        const denied = await checkChannelConnection(t.deps, { channelId: channel.id });
        assert.equal(denied.ok, false);
        assert.match(denied.problems.join(' '), /PERMISSION_DENIED/);
      },
    );
  },
);
