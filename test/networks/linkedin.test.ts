import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { loadConfig } from '../../src/config.js';
import { checkChannelConnection } from '../../src/domain/networks/connection-check.js';
import { TINY_PNG } from '../media/fixtures.js';
import { callTool } from '../mcp/support.js';
import { shownText, startFakeLinkedIn, VIDEO_PART_BYTES, type FakeLinkedIn } from '../support/fake-linkedin.js';
import { assertAudienceInInsights } from '../insights/network-audience.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { openRedirect } from '../support/herald-page.js';
import { serveMediaFiles } from '../support/media-files.js';
import { dieMidAttempt, pinClock, testWorker } from '../publishing/support.js';
import { ensureCliBuilt, HERALD_CLI } from '../support/cli.js';

// The commands run the CLI bundled from src/ (test/support/cli.ts), built before the first.
before(ensureCliBuilt);

/** LinkedIn through its documented wire format (test/support/fake-linkedin.ts), through the real Herald. */
describe('LinkedIn, against a fake that speaks its documented API', function () {
  this.timeout(60_000);
  let linkedin: FakeLinkedIn;
  let files: Awaited<ReturnType<typeof serveMediaFiles>>;
  let imageUrl: string;
  let videoUrl: string;
  const video = Buffer.alloc(VIDEO_PART_BYTES + 1000, 7);
  let t: TestHerald;
  let a: SeededAccount;
  const ORG = 'urn:li:organization:2414183';

  before(async () => {
    files = await serveMediaFiles({
      '/picture.png': { type: 'image/png', body: TINY_PNG },
      '/film.mp4': { type: 'video/mp4', body: video },
    });
    imageUrl = `${files.origin}/picture.png`;
    videoUrl = `${files.origin}/film.mp4`;
  });
  after(() => files?.close());

  async function start(app: Partial<{ apiVersion: string; organizations: boolean }> = {}, configured = true) {
    linkedin = await startFakeLinkedIn();
    // The fakes finish processing after a number of status polls, not seconds: no real wait between polls.
    const defaults = { ...loadConfig({}).networks, pollWaitScale: 0 };
    t = await startTestHerald({
      networkOriginOverrides: { 'https://www.linkedin.com': linkedin.url, 'https://api.linkedin.com': linkedin.url },
      networks: {
        ...defaults,
        apps: configured
          ? {
              linkedin: {
                clientId: linkedin.clientId,
                clientSecret: linkedin.clientSecret,
                apiVersion: '202510',
                organizations: true,
                ...app,
              },
            }
          : {},
      },
      // The test's own media files are served on 127.0.0.1, which the SSRF guard refuses unless listed.
      outboundAllowHosts: ['127.0.0.1'],
    });
    linkedin.redirectUris.push(`${t.url}/connect/linkedin/callback`);
    a = await t.seedAccount({ channels: 0 });
  }
  afterEach(async () => {
    await t?.close();
    await linkedin?.close();
  });

  /** Starts connecting, plays the member at LinkedIn's consent screen, and follows the redirect to Herald. */
  async function connectThroughConsent(
    path = '/v1/rest/channels/connect',
    body: Record<string, unknown> = { network: 'linkedin' },
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

  async function channelOf(networkAccountId: string) {
    const row = await t.herald.db('channels').where({ network_account_id: networkAccountId }).first();
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
    it('connects the member and every Page they administer from one consent, each as its own channel', async () => {
      await start();
      const first = await connectThroughConsent();
      assert.equal(first.status, 200, first.html);
      assert.match(first.html, /Connected/);
      assert.equal(
        first.authorizationUrl.origin,
        linkedin.url,
        'the real www.linkedin.com, rewritten by NETWORK_ORIGIN_OVERRIDES',
      );
      assert.equal(first.authorizationUrl.pathname, '/oauth/v2/authorization');
      assert.equal(first.authorizationUrl.searchParams.get('redirect_uri'), `${t.url}/connect/linkedin/callback`);
      assert.deepEqual(first.authorizationUrl.searchParams.get('scope')!.split(' ').sort(), [
        'openid',
        'profile',
        'r_organization_social',
        'rw_organization_admin',
        'w_member_social',
        'w_organization_social',
      ]);
      const listed = await channels();
      assert.deepEqual(listed.map((c) => [c.network, c.handle, c.displayName, c.status]).sort(), [
        ['linkedin', 'Ada Lovelace', 'Ada Lovelace', 'active'],
        ['linkedin', 'analytical-engines', 'Analytical Engines Ltd', 'active'],
      ]);
      const row = await t.herald.db('channels').where({ network_account_id: ORG }).first();
      assert.ok(row.credentials.startsWith('v1.'), 'sealed in the vault');
      assert.ok(
        Number(row.credentials_expire_at) > Date.now() + 59 * 24 * 3600_000,
        "LinkedIn's 60-day expiry is kept",
      );

      // Connecting again updates the same two channels; a reconnect of the Page keeps to the Page.
      await connectThroughConsent();
      assert.equal((await channels()).length, 2);
      const page = await channelOf(ORG);
      const again = await connectThroughConsent(`/v1/rest/channels/${page.id}/reconnect`, {});
      assert.equal(again.status, 200, again.html);
      assert.equal((await channels()).length, 2);
    });

    it('connects one Page alone when asked, from REST or from the CLI', async function () {
      this.timeout(180_000);
      await start();
      const one = await connectThroughConsent('/v1/rest/channels/connect', { network: 'linkedin', page: '2414183' });
      assert.equal(one.status, 200, one.html);
      assert.deepEqual(
        (await channels()).map((c) => c.handle),
        ['analytical-engines'],
      );
      const stranger = await connectThroughConsent('/v1/rest/channels/connect', { network: 'linkedin', page: '999' });
      assert.equal(stranger.status, 400);
      assert.match(stranger.html, /LinkedIn granted no access to 999/);

      const env = {
        ...process.env,
        DATA_DIR: t.config.dataDir,
        DATABASE_URL: t.config.databaseUrl ?? '',
        BASE_URL: t.url,
        // The network's fake listens on loopback, which the SSRF guard refuses unless it is listed.
        OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
        LINKEDIN_CLIENT_ID: linkedin.clientId,
        LINKEDIN_CLIENT_SECRET: linkedin.clientSecret,
        NETWORK_ORIGIN_OVERRIDES: `https://www.linkedin.com=${linkedin.url},https://api.linkedin.com=${linkedin.url}`,
      };
      const child = spawn(
        'node',
        [HERALD_CLI, 'channel', 'connect', 'linkedin', '--page', 'urn:li:person:Xy12AbCd', '--json'],
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
          const found = /(http:\/\/\S+\/oauth\/v2\/authorization\S+)/.exec(stderr);
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
        ['Ada Lovelace'],
      );
    });

    it("asks only for the member's scopes when the operator says the app has no Page product", async () => {
      await start({ organizations: false });
      const connected = await connectThroughConsent();
      assert.equal(connected.status, 200, connected.html);
      assert.deepEqual(connected.authorizationUrl.searchParams.get('scope')!.split(' ').sort(), [
        'openid',
        'profile',
        'w_member_social',
      ]);
      assert.deepEqual(
        (await channels()).map((c) => c.handle),
        ['Ada Lovelace'],
      );
    });

    it(
      'a denied consent or a scope the app lacks creates nothing and says why; ' +
        'an unconfigured LinkedIn refuses to connect',
      async () => {
        await start();
        linkedin.denyNext = true;
        const denied = await connectThroughConsent();
        assert.equal(denied.status, 400);
        assert.match(denied.html, /LinkedIn did not grant access \(The user cancelled the authorization\)/);
        linkedin.productScopes = ['openid', 'profile', 'w_member_social'];
        const unauthorized = await connectThroughConsent();
        assert.equal(unauthorized.status, 400);
        assert.match(
          unauthorized.html,
          new RegExp(
            /Scope &quot;w_organization_social&quot; is not authorized for your application|/.source +
              /Scope "w_organization_social" is not authorized/.source,
          ),
        );
        assert.equal((await channels()).length, 0);
        await t.close();
        await linkedin.close();

        await start({}, false);
        const networks = await t.api('GET', '/v1/rest/networks', { token: a.apiKey });
        assert.equal(networks.body.data.find((n: any) => n.name === 'linkedin').configured, false);
        const refused = await t.api('POST', '/v1/rest/channels/connect', {
          token: a.apiKey,
          body: { network: 'linkedin' },
        });
        assert.equal(refused.status, 400);
        assert.match(refused.body.message, /not configured for LinkedIn/);
      },
    );
  });

  describe('publishing', () => {
    beforeEach(async () => {
      await start();
      await connectThroughConsent();
    });

    it('publishes text as the member with the configured LinkedIn-Version, the post URN from x-restli-id', async () => {
      const member = await channelOf('urn:li:person:Xy12AbCd');
      const post = await schedule(member.id, { text: 'Hello, LinkedIn (ünïcödé)' });
      await testWorker(t).tick();
      const published = await get(post.id);
      assert.equal(published.status, 'published', published.error);
      const [made] = linkedin.posts;
      assert.equal(made.author, 'urn:li:person:Xy12AbCd');
      assert.equal(made.commentary, 'Hello, LinkedIn \\(ünïcödé\\)');
      assert.equal(shownText(made.commentary), 'Hello, LinkedIn (ünïcödé)');
      assert.equal(made.visibility, 'PUBLIC');
      assert.equal(published.permalinkUrl, `https://www.linkedin.com/feed/update/${made.id}/`);
      assert.deepEqual([...linkedin.versionsSeen], ['202510']);
    });

    it(
      'publishes a Page post with several images as a multi-image post, ' +
        'a video through its parts, and a first comment with an image',
      async () => {
        const page = await channelOf(ORG);
        const clock = pinClock(t, new Date().toISOString());
        const gallery = await schedule(page.id, {
          text: 'Three pictures',
          imageUrls: [imageUrl, `${imageUrl}?2`, `${imageUrl}?3`],
          firstComment: { text: 'More in the comments', mediaUrl: `${imageUrl}?c`, delayMinutes: 1 },
        });
        const described = await t.api('PATCH', `/v1/rest/posts/${gallery.id}`, {
          token: a.apiKey,
          body: { channelOptions: { altText: ['one', 'two', 'three'] } },
        });
        assert.equal(described.status, 200, JSON.stringify(described.body));
        const single = await schedule(page.id, { text: 'One picture', imageUrls: [imageUrl] });
        const film = await schedule(page.id, { text: 'A film', videoUrls: [videoUrl] });
        const worker = testWorker(t);
        await worker.tick();
        for (const id of [gallery.id, single.id, film.id])
          assert.equal((await get(id)).status, 'published', (await get(id)).error);

        const made = (text: string) => linkedin.posts.find((p) => p.commentary === text)!;
        assert.equal(made('Three pictures').author, ORG);
        assert.deepEqual(
          made('Three pictures').content!.multiImage!.images.map((i) => i.altText),
          ['one', 'two', 'three'],
        );
        assert.equal(made('One picture').content!.media!.id.startsWith('urn:li:image:'), true);
        const videoUrn = made('A film').content!.media!.id;
        assert.ok(videoUrn.startsWith('urn:li:video:'));
        assert.equal(linkedin.uploads.get(videoUrn), video.length, 'every byte, in the two parts LinkedIn asked for');
        assert.equal(
          linkedin.requests.filter((r) => r.startsWith('PUT /dms-uploads/') && r.includes('/part-')).length,
          2,
        );
        assert.ok(
          linkedin.requests.filter((r) => r.startsWith('GET /rest/videos/')).length >= 2,
          'waited until the video was AVAILABLE',
        );

        // The comment is made and its answer lost: the next try finds it among the post's comments, never a second.
        linkedin.dropAnswerNext(`/rest/socialActions/${encodeURIComponent(made('Three pictures').id)}/comments`);
        clock.advance(2 * 60_000);
        await worker.tick();
        clock.advance(60 * 60_000);
        await worker.tick();
        assert.equal(linkedin.comments.length, 1);
        assert.equal(
          (await t.deps.repos.commentSteps.commentStep(gallery.id))?.networkCommentId,
          linkedin.comments[0].id,
        );
        const tries = await t.herald
          .db('publish_attempts')
          .where({ post_id: gallery.id, kind: 'comment' })
          .orderBy('seq')
          .select('outcome');
        assert.deepEqual(
          tries.map((row: { outcome: string }) => row.outcome),
          ['unknown', 'reconciled'],
        );
        const [comment] = linkedin.comments;
        assert.equal(comment.object, made('Three pictures').id);
        assert.equal(comment.actor, ORG);
        assert.equal(comment.message.text, 'More in the comments');
        assert.ok(comment.content![0].entity.image.startsWith('urn:li:image:'));
        assert.deepEqual(linkedin.refusals, [], 'LinkedIn refused nothing Herald sent');
      },
    );

    it("fails a post whose video LinkedIn could not process, with LinkedIn's reason", async () => {
      const page = await channelOf(ORG);
      linkedin.failVideoProcessingNext = true;
      const film = await schedule(page.id, { text: 'A broken film', videoUrls: [videoUrl] });
      await testWorker(t).tick();
      const failed = await get(film.id);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /LinkedIn could not process the video \(The video's codec is not supported\)/);
      assert.equal(linkedin.posts.length, 0);
    });

    it('refuses before the post is due what LinkedIn would refuse: on REST, MCP and per bulk entry', async () => {
      const page = await channelOf(ORG);
      const long = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [page.id], text: 'é'.repeat(3001) },
      });
      assert.equal(long.status, 400);
      assert.match(long.body.message, /LinkedIn allows 3000 characters; this text has 3001/);
      const films = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [page.id], text: 'Two films', videoUrls: [videoUrl, `${videoUrl}?2`] },
      });
      assert.equal(films.status, 400);
      assert.match(films.body.message, /LinkedIn/);
      const mixed = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [page.id], text: 'Mixed', imageUrls: [imageUrl], videoUrls: [videoUrl] },
      });
      assert.equal(mixed.status, 400);
      assert.match(mixed.body.message, /LinkedIn/);

      const tool = await callTool(t, a.apiKey, 'create_text_post', { channelIds: [page.id], text: 'é'.repeat(3001) });
      assert.equal(tool.body.result.isError, true, JSON.stringify(tool.body));
      assert.match(tool.body.result.content[0].text, /LinkedIn allows 3000 characters; this text has 3001/);

      const bulk = await t.api('POST', '/v1/rest/posts/bulk', {
        token: a.apiKey,
        body: {
          posts: [
            { channelIds: [page.id], text: 'fits' },
            { channelIds: [page.id], text: 'x'.repeat(3001) },
          ],
        },
      });
      assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
      assert.deepEqual(bulk.body.summary, { succeeded: 1, failed: 1 });
      assert.match(
        bulk.body.results[1].error.message,
        /^posts\[1\]: .*LinkedIn allows 3000 characters; this text has 3001/,
      );
    });
  });

  describe('tokens', () => {
    it(
      'refreshes an expired token where LinkedIn granted a refresh token, ' +
        'and needs a reconnect when the refresh is refused',
      async () => {
        await start();
        linkedin.grantRefreshTokens = true;
        await connectThroughConsent();
        const page = await channelOf(ORG);
        const clock = pinClock(t, new Date().toISOString());
        const worker = testWorker(t);
        linkedin.expireTokens();
        const post = await schedule(page.id, { text: 'After a refresh' });
        await worker.tick();
        assert.equal((await get(post.id)).status, 'scheduled', 'refreshed, then tried again');
        assert.equal(
          linkedin.requests.filter((r) => r === 'POST /oauth/v2/accessToken').length,
          2,
          'the code, then one refresh',
        );
        clock.advance(60 * 60_000);
        await worker.tick();
        assert.equal((await get(post.id)).status, 'published');

        linkedin.revokeAll();
        const refused = await schedule(page.id, { text: 'Refresh refused' });
        await worker.tick();
        clock.advance(60 * 60_000);
        await worker.tick();
        const failed = await get(refused.id);
        assert.equal(failed.status, 'failed');
        assert.match(failed.error, /reconnect/);
        const channel = await channelOf(ORG);
        assert.equal(channel.status, 'needs_reconnect');
        assert.match(channel.statusReason, /revoked|refresh/);
        const events = await t.herald.db('events').where({ type: 'channel.needs_reconnect' });
        assert.ok(events.length >= 1, 'the channel event that says so');
      },
    );

    it("refreshes ahead of LinkedIn's expiry, so no call is made with a token about to lapse", async () => {
      await start();
      linkedin.grantRefreshTokens = true;
      linkedin.tokenLifetimeSeconds = 5 * 60;
      await connectThroughConsent();
      const member = await channelOf('urn:li:person:Xy12AbCd');
      const row = await t.herald.db('channels').where({ id: member.id }).first();
      const post = await schedule(member.id, { text: 'Just in time' });
      await testWorker(t).tick();
      assert.equal((await get(post.id)).status, 'published');
      assert.equal(
        linkedin.requests.filter((r) => r === 'POST /oauth/v2/accessToken').length,
        2,
        'the code, then the refresh ahead',
      );
      assert.deepEqual(linkedin.refusals, []);
      const after = await t.herald.db('channels').where({ id: member.id }).first();
      assert.ok(
        Number(after.credentials_expire_at) > Number(row.credentials_expire_at) + 24 * 3600_000,
        'the new 60-day expiry is stored',
      );
    });

    it('without a refresh token, an expired token needs a reconnect at once, saying why', async () => {
      await start();
      await connectThroughConsent();
      const member = await channelOf('urn:li:person:Xy12AbCd');
      linkedin.expireTokens();
      const post = await schedule(member.id, { text: 'Expired' });
      await testWorker(t).tick();
      const failed = await get(post.id);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /EXPIRED_ACCESS_TOKEN.*no refresh token/);
      assert.equal((await channelOf('urn:li:person:Xy12AbCd')).status, 'needs_reconnect');
      assert.equal(linkedin.posts.length, 0);
    });
  });
  describe('failures and exactly once', () => {
    beforeEach(async () => {
      await start();
      await connectThroughConsent();
    });

    it(
      "429 waits until LinkedIn's daily limits reset at midnight UTC; 5xx before posting retries; " +
        "422 fails with LinkedIn's words; a revoked token needs a reconnect",
      async () => {
        const page = await channelOf(ORG);
        const clock = pinClock(t, '2026-11-23T15:00:00.000Z');
        const worker = testWorker(t);
        linkedin.failNext('/rest/posts', 429, {
          status: 429,
          serviceErrorCode: 101,
          code: 'TOO_MANY_REQUESTS',
          message: 'Resource level throttle APPLICATION DAY limit for calls to this resource is reached.',
        });
        const limited = await schedule(page.id, { text: 'Rate limited' });
        await worker.tick();
        const waiting = await t.herald.db('posts').where({ id: limited.id }).first();
        assert.equal(waiting.status, 'scheduled');
        const midnight = Date.parse('2026-11-24T00:00:00.000Z');
        assert.equal(Number(waiting.next_attempt_at), midnight);
        assert.equal(
          Number((await t.herald.db('channels').where({ id: page.id }).first()).rate_limited_until),
          midnight,
          'the channel waits too',
        );
        clock.advance(9 * 3600_000 + 1);
        linkedin.failNext('/rest/images', 503, { status: 503, message: 'Service Unavailable' });
        linkedin.failNext('/rest/posts', 503, { status: 503, message: 'Service Unavailable' });
        await worker.tick();
        assert.equal((await get(limited.id)).status, 'scheduled', '503: tried again later');
        clock.advance(3600_000);
        await worker.tick();
        assert.equal((await get(limited.id)).status, 'published');
        assert.equal(linkedin.posts.length, 1, 'the refused calls made nothing');

        linkedin.failNext('/rest/posts', 422, {
          status: 422,
          code: 'UNPROCESSABLE_ENTITY',
          message: '/commentary :: Duplicate post is detected',
        });
        const refused = await schedule(page.id, { text: 'Refused' });
        await worker.tick();
        const failed = await get(refused.id);
        assert.equal(failed.status, 'failed');
        assert.match(
          failed.error,
          /LinkedIn answered HTTP 422 UNPROCESSABLE_ENTITY: \/commentary :: Duplicate post is detected/,
        );

        linkedin.revokeAll();
        const revoked = await schedule(page.id, { text: 'After revocation' });
        await worker.tick();
        assert.match((await get(revoked.id)).error, /reconnect/);
        const channel = await channelOf(ORG);
        assert.equal(channel.status, 'needs_reconnect');
        assert.match(
          channel.statusReason,
          /REVOKED_ACCESS_TOKEN: The token used in the request has been revoked by the user/,
        );
      },
    );

    it(
      'a retired LinkedIn-Version (426) ' + 'fails the post saying the operator must move LINKEDIN_VERSION forward',
      async () => {
        linkedin.oldestActiveVersion = '202601';
        const member = await channelOf('urn:li:person:Xy12AbCd');
        const post = await schedule(member.id, { text: 'Old version' });
        await testWorker(t).tick();
        const failed = await get(post.id);
        assert.equal(failed.status, 'failed');
        assert.match(
          failed.error,
          new RegExp(
            /LinkedIn no longer serves API version 202510 \(Requested version 202510 is not active\): /.source +
              /the operator must set LINKEDIN_VERSION/.source,
          ),
        );
        assert.equal((await channelOf('urn:li:person:Xy12AbCd')).status, 'active', 'the channel itself is fine');
      },
    );

    // learn.microsoft.com, LinkedIn Marketing, community-management/shares/little-text-format: commentary is little
    // text; every reserved character | { } @ [ ] ( ) < > # \ * _ ~ is escaped with a backslash, even outside an
    // element, or LinkedIn cuts the post there.
    it(
      "escapes the little text format's reserved characters in the commentary, " + 'keeping the hashtags people write',
      async () => {
        const page = await channelOf(ORG);
        const text = 'Launch notes (v2) #launch: ask @ops [beta] *now* ~50% off_peak~ <today> a|b {x} C:\\temp a#b';
        const post = await schedule(page.id, { text });
        await testWorker(t).tick();
        const got = await get(post.id);
        assert.equal(got.status, 'published', got.error);
        const [made] = linkedin.posts;
        assert.equal(
          made.commentary,
          'Launch notes \\(v2\\) #launch: ' +
            'ask \\@ops \\[beta\\] \\*now\\* \\~50% off\\_peak\\~ \\<today\\> a\\|b \\{x\\} C:\\\\temp a\\#b',
        );
        assert.equal(shownText(made.commentary), text, 'people see the whole text, hashtag included');
      },
    );

    it("a Page post made before its answer was lost is found among the Page's posts, never made twice", async () => {
      const page = await channelOf(ORG);
      const post = await schedule(page.id, { text: 'Answer lost (again)', imageUrls: [imageUrl] });
      linkedin.dropAnswerNext('/rest/posts');
      await testWorker(t).tick();
      const got = await get(post.id);
      assert.equal(got.status, 'published', got.error);
      assert.equal(linkedin.posts.length, 1);
      assert.equal(got.permalinkUrl, `https://www.linkedin.com/feed/update/${linkedin.posts[0].id}/`);
      assert.deepEqual(
        (await t.deps.repos.publishAttempts.attempts(a.accountId, post.id)).map((x) => x.outcome),
        ['reconciled'],
      );
    });

    it(
      'a 502 to the post call is an unknown outcome: ' +
        'looked up, and without a post found it waits for a person, not a retry',
      async () => {
        const page = await channelOf(ORG);
        const post = await schedule(page.id, { text: 'Bad gateway' });
        linkedin.failNext('/rest/posts', 502, { status: 502, message: 'Bad Gateway' });
        const worker = testWorker(t);
        await worker.tick();
        const got = await get(post.id);
        assert.equal(got.status, 'unconfirmed');
        assert.match(got.error, /cannot confirm/);
        await worker.tick();
        assert.equal(linkedin.posts.length, 0, 'never posted blind');
        assert.ok(linkedin.requests.includes('GET /rest/posts'), "the Page's posts were looked at");
      },
    );

    it(
      "a member's lost answer stays unconfirmed for a person " +
        "(LinkedIn lists members' posts only with r_member_social), never posted twice",
      async () => {
        const member = await channelOf('urn:li:person:Xy12AbCd');
        const post = await schedule(member.id, { text: 'Member answer lost' });
        linkedin.dropAnswerNext('/rest/posts');
        const worker = testWorker(t);
        await worker.tick();
        await worker.tick();
        await worker.sync();
        const got = await get(post.id);
        assert.equal(got.status, 'unconfirmed');
        assert.equal(linkedin.posts.length, 1, 'made once, by the lost call, and not again');
        assert.deepEqual(linkedin.refusals, [], 'no call LinkedIn would refuse');
      },
    );

    it(
      'a worker that died mid-publish is settled from the ' + "Page's posts by its text, time and recorded media",
      async () => {
        const page = await channelOf(ORG);
        const clock = pinClock(t, new Date().toISOString());
        const post = await schedule(page.id, { text: 'Worker died' });
        const [claimed] = await dieMidAttempt(t, clock);
        assert.equal(claimed, post.id);
        // The dead worker's call got through before it died.
        linkedin.postExternally(ORG, 'Worker died');
        clock.advance(2_000);
        await testWorker(t).tick();
        const got = await get(post.id);
        assert.equal(got.status, 'published', got.error);
        assert.equal(linkedin.posts.length, 1, 'found, not made again');
        assert.equal(got.permalinkUrl, `https://www.linkedin.com/feed/update/${linkedin.posts[0].id}/`);

        const lost = await schedule(page.id, { text: 'Worker died before the call' });
        await dieMidAttempt(t, clock);
        clock.advance(2_000);
        await testWorker(t).tick();
        assert.equal((await get(lost.id)).status, 'unconfirmed', 'not found: a person decides, no blind retry');
        assert.equal(linkedin.posts.length, 1);
      },
    );
  });

  describe('sync and check', () => {
    beforeEach(async () => {
      await start();
      await connectThroughConsent();
    });

    it(
      'warns a week before a token LinkedIn will not refresh expires, ' +
        'and asks for a reconnect a day before; a refreshable one is left alone',
      async () => {
        await t.close();
        await linkedin.close();
        await start();
        linkedin.tokenLifetimeSeconds = 5 * 24 * 3600;
        await connectThroughConsent();
        const clock = pinClock(t, new Date().toISOString());
        const worker = testWorker(t);
        await worker.sync();
        const warned = await channelOf(ORG);
        assert.equal(warned.status, 'active');
        assert.match(
          warned.statusReason,
          /^LinkedIn's access expires on \d{4}-\d{2}-\d{2}: reconnect the channel before then/,
        );
        assert.equal((await t.herald.db('events').where({ type: 'channel.needs_reconnect' })).length, 0);

        clock.advance(4 * 24 * 3600_000 + 3600_000);
        await worker.sync();
        const due = await channelOf(ORG);
        assert.equal(due.status, 'needs_reconnect');
        assert.match(due.statusReason, /cannot renew it without you: reconnect the channel/);
        assert.equal(
          (await t.herald.db('events').where({ type: 'channel.needs_reconnect' })).length,
          2,
          "one event for each of the member's channels",
        );

        linkedin.grantRefreshTokens = true;
        await connectThroughConsent(`/v1/rest/channels/${due.id}/reconnect`, {});
        await worker.sync();
        clock.advance(4 * 24 * 3600_000 + 3600_000);
        await worker.sync();
        const renewable = await channelOf(ORG);
        assert.equal(renewable.status, 'active', 'a refresh token renews it: nothing to ask');
        assert.equal(renewable.statusReason, null);
      },
    );

    it(
      "reads a Page's follower count (networkSizes) " +
        'at each sync as its audience in REST insights; a member has none',
      async () => {
        await assertAudienceInInsights(t, a.apiKey, (await channelOf(ORG)).id, (n) => {
          linkedin.organizations[0].followers = n;
        });
        const insights = (await t.api('GET', '/v1/rest/insights', { token: a.apiKey })).body.data;
        assert.deepEqual(
          insights.byChannel.map((c: any) => [c.name, c.audienceEnd]).sort(),
          [
            ['Ada Lovelace', null],
            ['Analytical Engines Ltd', 1529],
          ],
          "LinkedIn tells a member's followers to no app it has not made a partner: none, never a zero",
        );
        assert.deepEqual(linkedin.refusals, []);
      },
    );

    it(
      "syncs a Page's posts written on LinkedIn with their share statistics; " +
        'a member without r_member_social has nothing to read',
      async () => {
        const page = await channelOf(ORG);
        linkedin.postExternally(ORG, 'Written on LinkedIn', {
          likeCount: 7,
          commentCount: 2,
          shareCount: 1,
          impressionCount: 120,
          clickCount: 9,
        });
        linkedin.postExternally(ORG, 'Second \\(with a note\\) for @[Ada](urn:li:person:ada1) {hashtag|\\#|engines}');
        linkedin.postExternally(ORG, 'Third');
        linkedin.postExternally('urn:li:person:Xy12AbCd', 'By the member');
        await testWorker(t, { syncDepth: 2 }).sync();
        const live = await t.api('GET', `/v1/rest/posts?livePosts=true&channelIds=${page.id}`, { token: a.apiKey });
        const found = live.body.data.filter((p: any) => p.isLivePost);
        assert.deepEqual(found.map((p: any) => p.text).sort(), [
          'Second (with a note) for Ada #engines',
          'Third',
          'Written on LinkedIn',
        ]);
        assert.deepEqual(found.find((p: any) => p.text === 'Written on LinkedIn').metrics, {
          likes: 7,
          comments: 2,
          shares: 1,
          impressions: 120,
          clicks: 9,
        });
        const member = await channelOf('urn:li:person:Xy12AbCd');
        const memberLive = await t.api('GET', `/v1/rest/posts?livePosts=true&channelIds=${member.id}`, {
          token: a.apiKey,
        });
        assert.equal(memberLive.body.data.filter((p: any) => p.isLivePost).length, 0);
        assert.equal((await channelOf('urn:li:person:Xy12AbCd')).status, 'active');
      },
    );

    it(
      'herald network check: the token, the account and the granted scopes; ' +
        'a token near expiry without refresh, and a retired version, are problems',
      async () => {
        const page = await channelOf(ORG);
        const good = await checkChannelConnection(t.deps, { channelId: page.id });
        assert.deepEqual(good.problems, []);
        assert.equal(good.ok, true);
        assert.equal(good.account, 'Analytical Engines Ltd');
        assert.ok(good.grantedScopes!.includes('w_organization_social'));

        linkedin.tokenLifetimeSeconds = 3 * 24 * 3600;
        linkedin.productScopes = [
          'openid',
          'profile',
          'w_member_social',
          'w_organization_social',
          'rw_organization_admin',
          'r_organization_social',
        ];
        await connectThroughConsent();
        const soon = await checkChannelConnection(t.deps, { channelId: page.id });
        assert.equal(soon.ok, false);
        assert.match(
          soon.problems.join(' '),
          new RegExp(
            /expires on \d{4}-\d{2}-\d{2} and LinkedIn grants this app no refresh token: /.source +
              /reconnect the channel before then/.source,
          ),
        );

        linkedin.oldestActiveVersion = '202601';
        const retired = await checkChannelConnection(t.deps, { channelId: page.id });
        assert.match(retired.problems.join(' '), /LINKEDIN_VERSION/);

        linkedin.revokeAll();
        const revoked = await checkChannelConnection(t.deps, { channelId: page.id });
        assert.match(revoked.problems.join(' '), /no longer active .*reconnect the channel/);
        assert.ok(!JSON.stringify(revoked).includes('AQ'), 'no token in the answer');
      },
    );
  });
});
