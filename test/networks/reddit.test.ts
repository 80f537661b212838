import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { loadConfig } from '../../src/config.js';
import { checkChannelConnection } from '../../src/domain/networks/connection-check.js';
import { TINY_PNG } from '../media/fixtures.js';
import { callTool } from '../mcp/support.js';
import {
  API_ORIGIN,
  MEDIA_ORIGIN,
  SOCKET_ORIGIN,
  WWW_ORIGIN,
  startFakeReddit,
  type FakeReddit,
} from '../support/fake-reddit.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { openRedirect } from '../support/herald-page.js';
import { serveMediaFiles } from '../support/media-files.js';
import { dieMidAttempt, pinClock, testWorker } from '../publishing/support.js';
import { ensureCliBuilt, HERALD_CLI } from '../support/cli.js';

// The commands run the CLI bundled from src/ (test/support/cli.ts), built before the first.
before(ensureCliBuilt);

/** Reddit's OAuth and Data API through their documented wire format (test/support/fake-reddit.ts). */
describe(`Reddit, against a fake of its OAuth and Data API (${TEST_DB})`, function () {
  this.timeout(60_000);
  let reddit: FakeReddit;
  let files: Awaited<ReturnType<typeof serveMediaFiles>>;
  let t: TestHerald;
  let a: SeededAccount;

  before(async () => {
    files = await serveMediaFiles({
      '/photo.png': { type: 'image/png', body: TINY_PNG },
      '/clip.mp4': { type: 'video/mp4', body: Buffer.alloc(1000) },
    });
  });
  after(() => files?.close());

  async function start(apps = true, env: Record<string, string> = {}): Promise<void> {
    reddit = await startFakeReddit({ redirectUri: 'set once Herald listens' });
    const defaults = loadConfig({}).networks;
    const app = loadConfig({
      REDDIT_CLIENT_ID: reddit.clientId,
      REDDIT_CLIENT_SECRET: reddit.clientSecret,
      ...env,
    }).networks.apps.reddit;
    t = await startTestHerald({
      networkOriginOverrides: {
        [WWW_ORIGIN]: reddit.url,
        [API_ORIGIN]: reddit.url,
        [MEDIA_ORIGIN]: reddit.url,
        [SOCKET_ORIGIN]: reddit.url,
      },
      networks: {
        ...defaults,
        apps: apps ? { reddit: app } : {},
      },
      // The network's fake listens on loopback, which the SSRF guard refuses unless it is listed; without the
      // operator's app nothing reaches it, and the guard keeps a new user's defaults.
      ...(apps ? { outboundAllowHosts: ['127.0.0.1'] } : {}),
    });
    reddit.redirectUri = `${t.url}/connect/reddit/callback`;
    a = await t.seedAccount({ channels: 0 });
  }
  beforeEach(() => start());
  afterEach(async () => {
    await t.close();
    await reddit.close();
  });

  /** Starts connecting, plays the person at Reddit's consent screen, follows the redirect back to Herald. */
  async function connectThroughConsent(
    path = '/v1/rest/channels/connect',
    body: Record<string, unknown> = { network: 'reddit', subreddit: 'r/selfhosted' },
  ) {
    const started = await t.api('POST', path, { token: a.apiKey, body });
    if (started.status !== 200)
      return { status: started.status, html: JSON.stringify(started.body), body: started.body };
    const consent = await fetch(started.body.authorizationUrl.replace(WWW_ORIGIN, reddit.url), { redirect: 'manual' });
    assert.equal(consent.status, 302, await consent.text());
    const page = await openRedirect(t, consent.headers.get('location')!);
    return { authorizationUrl: new URL(started.body.authorizationUrl), status: page.status, html: await page.text() };
  }

  async function channels() {
    return (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data;
  }

  async function connected() {
    const done = await connectThroughConsent();
    assert.equal(done.status, 200, done.html);
    const [channel] = await channels();
    return channel;
  }

  async function get(id: string) {
    return (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
  }

  async function schedule(channelId: string, body: Record<string, unknown>) {
    const res = await t.api('POST', '/v1/rest/posts', { token: a.apiKey, body: { channelIds: [channelId], ...body } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data[0];
  }

  async function options(postId: string, channelOptions: Record<string, unknown>) {
    const res = await t.api('PATCH', `/v1/rest/posts/${postId}`, { token: a.apiKey, body: { channelOptions } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }

  const made = (title: string) => reddit.submissions.filter((s) => s.title === title);

  it("connects a subreddit through Reddit's consent, granted for good; reconnects; revokes on disconnect", async () => {
    const listed = (await t.api('GET', '/v1/rest/networks', { token: a.basicKey })).body.data.find(
      (n: any) => n.name === 'reddit',
    );
    assert.deepEqual([listed.configured, listed.connection.kind], [true, 'oauth']);
    assert.deepEqual(
      listed.connection.fields.map((f: any) => [f.name, f.required]),
      [['subreddit', true]],
    );
    assert.equal(listed.capabilities.title.limit, 300);

    const unnamed = await t.api('POST', '/v1/rest/channels/connect', {
      token: a.apiKey,
      body: { network: 'reddit', subreddit: 'not a subreddit!' },
    });
    assert.equal(unnamed.status, 400, JSON.stringify(unnamed.body));
    assert.match(unnamed.body.message, /is not a subreddit name/);
    assert.deepEqual(
      unnamed.body.details,
      [{ path: 'subreddit', message: unnamed.body.message }],
      'said of the field, as every field problem is',
    );

    reddit.denyNext = true;
    const denied = await connectThroughConsent();
    assert.equal(denied.status, 400);
    assert.match(denied.html, /did not grant access/);

    const missing = await connectThroughConsent(undefined, { network: 'reddit', subreddit: 'r/nosuchplace' });
    assert.equal(missing.status, 400);
    assert.match(missing.html, /Reddit has no subreddit r\/nosuchplace/);
    assert.equal((await channels()).length, 0);

    const done = await connectThroughConsent();
    assert.equal(done.status, 200, done.html);
    const asked = done.authorizationUrl!;
    assert.equal(asked.origin + asked.pathname, 'https://www.reddit.com/api/v1/authorize');
    assert.equal(asked.searchParams.get('duration'), 'permanent');
    assert.deepEqual(asked.searchParams.get('scope')!.split(' '), ['identity', 'submit', 'read', 'history']);
    const [channel] = await channels();
    assert.equal(channel.network, 'reddit');
    assert.equal(channel.handle, 'r/selfhosted');
    assert.equal(channel.displayName, 'r/selfhosted as u/acme_team');
    const row = await t.herald.db('channels').where({ id: channel.id }).first();
    assert.ok(row.credentials.startsWith('v1.') && !row.credentials.includes(reddit.user.id + '-'));
    assert.ok(
      reddit.userAgents.every((ua) =>
        /^server:herald:1\.0 \(Herald self-hosted publishing; app p-jcoLKBynTLew\)$/.test(ua),
      ),
      'every call names Herald and the app, as Reddit asks',
    );

    // The same account in another subreddit is another channel.
    assert.equal((await connectThroughConsent(undefined, { network: 'reddit', subreddit: 'LinksOnly' })).status, 200);
    assert.deepEqual((await channels()).map((c: any) => c.handle).sort(), ['r/LinksOnly', 'r/selfhosted']);
    assert.equal((await connectThroughConsent(`/v1/rest/channels/${channel.id}/reconnect`, {})).status, 200);
    assert.equal((await channels()).length, 2);

    const gone = await t.api('DELETE', `/v1/rest/channels/${channel.id}`, { token: a.apiKey });
    assert.equal(gone.status, 200, JSON.stringify(gone.body));
    assert.equal(gone.body.data.revokedAtNetwork, true);
    assert.equal(reddit.revoked.length, 1);
  });

  it("is listed as not configured, and refuses to connect, without the operator's app", async () => {
    await t.close();
    await reddit.close();
    await start(false);
    const listed = (await t.api('GET', '/v1/rest/networks', { token: a.basicKey })).body.data.find(
      (n: any) => n.name === 'reddit',
    );
    assert.equal(listed.configured, false);
    assert.match(listed.notConfigured, /REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET/);
    const refused = await t.api('POST', '/v1/rest/channels/connect', {
      token: a.apiKey,
      body: { network: 'reddit', subreddit: 'selfhosted' },
    });
    assert.equal(refused.status, 400);
  });

  it("says which settings to check when Reddit's token endpoint refuses the operator's app (HTTP 401)", async () => {
    const secret = reddit.clientSecret;
    reddit.clientSecret = 'changed at reddit.com/prefs/apps';
    const refused = await connectThroughConsent();
    assert.equal(refused.status, 400);
    assert.match(refused.html, /does not accept this Herald(&#39;|')s app/);
    assert.match(refused.html, /REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET/);
    assert.ok(!refused.html.includes(secret));
    assert.equal((await channels()).length, 0);
  });

  it("names the operator's REDDIT_USER_AGENT to Reddit when it is set", async () => {
    await t.close();
    await reddit.close();
    await start(true, { REDDIT_USER_AGENT: 'server:acme-herald:2.1 (by /u/acme_ops)' });
    assert.equal((await connectThroughConsent()).status, 200);
    assert.ok(reddit.userAgents.length > 0);
    assert.deepEqual([...new Set(reddit.userAgents)], ['server:acme-herald:2.1 (by /u/acme_ops)']);
  });

  it("connects from the CLI: prints Reddit's consent address and waits for the callback", async function () {
    this.timeout(120_000);
    const env = {
      ...process.env,
      DATA_DIR: t.config.dataDir,
      DATABASE_URL: t.config.databaseUrl ?? '',
      BASE_URL: t.url,
      REDDIT_CLIENT_ID: reddit.clientId,
      REDDIT_CLIENT_SECRET: reddit.clientSecret,
      NETWORK_ORIGIN_OVERRIDES: `${WWW_ORIGIN}=${reddit.url},${API_ORIGIN}=${reddit.url}`,
      // The network's fake listens on loopback, which the SSRF guard refuses unless it is listed.
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
    };
    const child = spawn('node', [HERALD_CLI, 'channel', 'connect', 'reddit', '--subreddit', 'r/selfhosted', '--json'], {
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
        const found = /(https:\/\/www\.reddit\.com\/api\/v1\/authorize\S+)/.exec(stderr);
        if (found) resolve(found[1]);
      });
      child.on('exit', () => reject(new Error(`the CLI ended without an address: ${stderr}`)));
    });
    const consent = await fetch(address.replace(WWW_ORIGIN, reddit.url), { redirect: 'manual' });
    const page = await fetch(consent.headers.get('location')!);
    assert.equal(page.status, 200, await page.text());
    const code = await new Promise((resolve) => child.on('exit', resolve));
    assert.equal(code, 0, stderr);
    assert.equal(JSON.parse(stdout).channels[0].handle, 'r/selfhosted');
  });

  it('refuses at write time a title past 300, text beside images or a link, and videos, on REST and MCP', async () => {
    const channel = await connected();
    const draft = (body: Record<string, unknown>) =>
      t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [channel.id], saveAsDraft: true, ...body },
      });
    const long = await draft({ text: `${'t'.repeat(301)}\nThe body` });
    assert.equal(long.status, 400);
    assert.match(
      long.body.message,
      /Reddit takes the text's first line as the title, at most 300 characters; this one has 301/,
    );
    const beside = await draft({ text: 'A title\nAnd a body', imageUrls: [`${files.origin}/photo.png`] });
    assert.equal(beside.status, 400);
    assert.match(beside.body.message, /Reddit shows no text beyond the title on a post with images/);
    const video = await draft({ text: 'A clip', videoUrls: [`${files.origin}/clip.mp4`] });
    assert.equal(video.status, 400);
    assert.match(video.body.message, /Reddit does not take videos/);
    assert.equal((await draft({ text: 'Just a title', imageUrls: [`${files.origin}/photo.png`] })).status, 201);

    const fine = await draft({ text: 'A title\nA body' });
    assert.equal(fine.status, 201);
    const linked = await t.api('PATCH', `/v1/rest/posts/${fine.body.data[0].id}`, {
      token: a.apiKey,
      body: { channelOptions: { link: 'https://example.com/launch' } },
    });
    assert.equal(linked.status, 400);
    assert.match(linked.body.message, /Reddit shows no text beyond the title on a post with channelOptions.link/);
    const notLink = await t.api('PATCH', `/v1/rest/posts/${fine.body.data[0].id}`, {
      token: a.apiKey,
      body: { text: 'A title', channelOptions: { link: 'example' } },
    });
    assert.equal(notLink.status, 400);
    assert.match(notLink.body.message, /channelOptions.link must be a web address/);

    const tool = await callTool(t, a.apiKey, 'create_image_post', {
      channelIds: [channel.id],
      text: 'A title\nand words Reddit would not show',
      imageUrls: [`${files.origin}/photo.png`],
      saveAsDraft: true,
    });
    assert.equal(tool.body.result.isError, true, JSON.stringify(tool.body));
    assert.match(tool.body.result.content[0].text, /Reddit shows no text beyond the title/);
  });

  it('publishes posts written through MCP and in bulk, through the worker, as self posts', async () => {
    const channel = await connected();
    const tool = await callTool(t, a.apiKey, 'create_text_post', {
      channelIds: [channel.id],
      text: 'From a model\nWith a body **in markdown**',
    });
    assert.ok(!tool.body.result.isError, JSON.stringify(tool.body));
    const bulk = await t.api('POST', '/v1/rest/posts/bulk', {
      token: a.apiKey,
      body: {
        posts: [
          { channelIds: [channel.id], text: 'Bulk one' },
          { channelIds: [channel.id], text: 'Bulk two' },
        ],
      },
    });
    assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
    await testWorker(t).tick();
    assert.deepEqual(reddit.submissions.map((s) => [s.subreddit, s.title, s.selftext, s.is_self]).sort(), [
      ['selfhosted', 'Bulk one', '', true],
      ['selfhosted', 'Bulk two', '', true],
      ['selfhosted', 'From a model', 'With a body **in markdown**', true],
    ]);
  });

  it('publishes a titled self post, a link, an image and a gallery, and a first comment as a comment', async () => {
    const channel = await connected();
    const clock = pinClock(t, new Date().toISOString());
    const worker = testWorker(t);
    const self = await schedule(channel.id, {
      text: 'The whole text is the body',
      firstComment: { text: 'More in the comments', delayMinutes: 1 },
    });
    const link = await schedule(channel.id, {
      text: 'Our launch',
      isScheduled: true,
      dateTime: new Date(clock.now() + 60_000).toISOString(),
    });
    const image = await schedule(channel.id, {
      text: 'One picture',
      imageUrls: [`${files.origin}/photo.png`],
      isScheduled: true,
      dateTime: new Date(clock.now() + 60_000).toISOString(),
    });
    const gallery = await schedule(channel.id, {
      text: 'Two pictures',
      imageUrls: [`${files.origin}/photo.png`, `${files.origin}/photo.png?b`],
      isScheduled: true,
      dateTime: new Date(clock.now() + 60_000).toISOString(),
    });
    await options(self.id, { title: 'A title of its own', nsfw: true });
    await options(link.id, { link: 'https://example.com/launch' });
    await worker.tick();

    const sent = await get(self.id);
    assert.equal(sent.status, 'published', sent.error);
    const [first] = made('A title of its own');
    assert.equal(first.selftext, 'The whole text is the body');
    assert.equal(first.over_18, true);
    assert.equal(sent.permalinkUrl, `https://www.reddit.com${first.permalink}`);

    clock.advance(60_000);
    await worker.tick();
    for (const post of [link, image, gallery])
      assert.equal((await get(post.id)).status, 'published', (await get(post.id)).error);
    assert.equal(made('Our launch')[0].url, 'https://example.com/launch');
    assert.equal(made('One picture')[0].post_hint, 'image');
    assert.equal((await get(image.id)).permalinkUrl, `https://www.reddit.com${made('One picture')[0].permalink}`);
    assert.ok(reddit.requests.includes(`SOCKET /rte_images/${made('One picture')[0].id}`), "told on Reddit's socket");
    assert.ok(!reddit.requests.includes('GET /user/acme_team/submitted'), 'so not looked for');
    assert.equal(made('Two pictures')[0].gallery!.length, 2);
    assert.equal(
      (await get(gallery.id)).permalinkUrl,
      `https://www.reddit.com/r/selfhosted/comments/${made('Two pictures')[0].id}/`,
    );

    clock.advance(2 * 60_000);
    await worker.tick();
    const [comment] = reddit.comments;
    assert.equal(comment.body, 'More in the comments');
    assert.equal(comment.link_id, `t3_${first.id}`);
    assert.equal((await t.deps.repos.commentSteps.commentStep(self.id))?.networkCommentId, comment.id);
  });

  it(
    "classifies Reddit's failures: RATELIMIT and 429 wait, X-Ratelimit-Remaining 0 pauses, json.errors and 403 " +
      'are permanent, a 5xx is looked up, 401 refreshes',
    async () => {
      const channel = await connected();
      const clock = pinClock(t, new Date().toISOString());
      const worker = testWorker(t);
      const until = async () =>
        Number((await t.herald.db('channels').where({ id: channel.id }).first()).rate_limited_until);
      const status = async (id: string) => (await t.herald.db('posts').where({ id }).first()).status;

      reddit.failNext('/api/submit', {
        errors: [
          [
            'RATELIMIT',
            "Looks like you've been doing that a lot. Take a break for 9 minutes before trying again.",
            'ratelimit',
          ],
        ],
      });
      const busy = await schedule(channel.id, { text: 'Account throttled' });
      await worker.tick();
      assert.equal(await status(busy.id), 'scheduled');
      assert.equal(await until(), clock.now() + 9 * 60_000, 'the account waits the minutes Reddit named');
      clock.advance(9 * 60_000 + 1000);

      reddit.failNext('/api/submit', { status: 429, body: { message: 'Too Many Requests', error: 429 } });
      await worker.tick();
      assert.equal(await status(busy.id), 'scheduled');
      assert.equal(
        await until(),
        clock.now() + reddit.resetSeconds * 1000,
        'X-Ratelimit-Reset: seconds to the window end',
      );
      clock.advance(reddit.resetSeconds * 1000 + 1000);

      // The window's last request: Herald pauses the channel before Reddit has to refuse.
      reddit.used = reddit.budget - 1;
      await worker.tick();
      assert.equal((await get(busy.id)).status, 'published', (await get(busy.id)).error);
      assert.equal(await until(), clock.now() + reddit.resetSeconds * 1000);
      const waiting = await schedule(channel.id, { text: 'Waits for the window' });
      const calls = reddit.requests.length;
      await worker.tick();
      assert.equal(reddit.requests.length, calls, 'no call while the budget is spent');
      clock.advance(reddit.resetSeconds * 1000 + 1000);
      reddit.used = 0;
      await worker.tick();
      assert.equal((await get(waiting.id)).status, 'published');

      reddit.failNext('/api/submit', {
        errors: [['SUBMIT_VALIDATION_FLAIR_REQUIRED', 'Your post must contain post flair.', 'flair']],
      });
      const flair = await schedule(channel.id, { text: 'Without flair' });
      await worker.tick();
      assert.equal((await get(flair.id)).status, 'failed');
      assert.match((await get(flair.id)).error, /SUBMIT_VALIDATION_FLAIR_REQUIRED: Your post must contain post flair/);

      reddit.failImageNext = true;
      const broken = await schedule(channel.id, { text: 'A broken picture', imageUrls: [`${files.origin}/photo.png`] });
      await worker.tick();
      assert.equal((await get(broken.id)).status, 'failed');
      assert.match((await get(broken.id)).error, /Reddit could not process the image/);

      reddit.failNext('/api/submit', { status: 403, body: { message: 'Forbidden', error: 403 } });
      const banned = await schedule(channel.id, { text: 'Banned here' });
      await worker.tick();
      assert.equal((await get(banned.id)).status, 'failed');
      assert.match((await get(banned.id)).error, /Reddit answered HTTP 403 \(Forbidden\)/);
      assert.equal((await channels())[0].status, 'active');

      // A 503 to a submission may come after Reddit made it: looked up, and not found, left for a person.
      reddit.failNext('/api/submit', { status: 503, body: { message: 'Service Unavailable', error: 503 } });
      const unavailable = await schedule(channel.id, { text: 'Reddit unavailable' });
      await worker.tick();
      assert.equal((await get(unavailable.id)).status, 'unconfirmed');
      assert.ok(reddit.requests.includes('GET /user/acme_team/submitted'), "looked up among the account's posts");
      assert.equal(made('Reddit unavailable').length, 0, 'never sent again blind');

      reddit.expireTokens();
      const expired = await schedule(channel.id, { text: 'After the hour' });
      await worker.tick();
      clock.advance(60 * 60_000);
      await worker.tick();
      assert.equal((await get(expired.id)).status, 'published', (await get(expired.id)).error);

      reddit.expireTokens();
      reddit.refuseRefresh();
      const refused = await schedule(channel.id, { text: 'Refresh refused' });
      await worker.tick();
      assert.equal((await get(refused.id)).status, 'failed');
      const [after] = await channels();
      assert.equal(after.status, 'needs_reconnect');
      assert.match(after.statusReason, /invalid_grant/);
    },
  );

  it(
    "settles a lost answer by the account's submissions, a lost comment by its comments; an attempt that sent " +
      'nothing is sent; an image still processing is found by sync',
    async () => {
      const channel = await connected();
      const clock = pinClock(t, new Date().toISOString());
      reddit.now = () => clock.now();
      const worker = testWorker(t);
      reddit.dropAnswerNext('/api/submit');
      const post = await schedule(channel.id, {
        text: 'Answer lost',
        firstComment: { text: 'The comment', delayMinutes: 1 },
      });
      await worker.tick();
      const got = await get(post.id);
      assert.equal(got.status, 'published', got.error);
      assert.equal(made('Answer lost').length, 1);
      assert.equal(got.permalinkUrl, `https://www.reddit.com${made('Answer lost')[0].permalink}`);
      assert.deepEqual(
        (await t.deps.repos.publishAttempts.attempts(a.accountId, post.id)).map((x) => x.outcome),
        ['reconciled'],
      );

      reddit.dropAnswerNext('/api/comment');
      clock.advance(2 * 60_000);
      await worker.tick();
      clock.advance(60 * 60_000);
      await worker.tick();
      assert.equal(reddit.comments.filter((c) => c.body === 'The comment').length, 1);
      const tries = await t.herald
        .db('publish_attempts')
        .where({ post_id: post.id, kind: 'comment' })
        .orderBy('seq')
        .select('outcome');
      assert.deepEqual(
        tries.map((row: { outcome: string }) => row.outcome),
        ['unknown', 'reconciled'],
      );

      // A worker that died before recording what it would submit sent nothing: the post goes out, once.
      const died = await schedule(channel.id, { text: 'Died before sending' });
      await dieMidAttempt(t, clock);
      clock.advance(2_000);
      await worker.tick();
      await worker.tick();
      assert.equal((await get(died.id)).status, 'published', (await get(died.id)).error);
      assert.equal(made('Died before sending').length, 1);

      reddit.holdImages = true;
      const image = await schedule(channel.id, { text: 'Still processing', imageUrls: [`${files.origin}/photo.png`] });
      await worker.tick();
      assert.equal((await get(image.id)).status, 'unconfirmed');
      reddit.finishProcessing();
      await worker.sync();
      const found = await get(image.id);
      assert.equal(found.status, 'published', found.error);
      assert.equal(found.permalinkUrl, `https://www.reddit.com${made('Still processing')[0].permalink}`);
      assert.equal(made('Still processing').length, 1);
    },
  );

  it("syncs the account's submissions with score, upvote ratio and comments; check reads the grant", async () => {
    const channel = await connected();
    reddit.submitExternally('selfhosted', 'Posted on reddit.com', { score: 42, upvote_ratio: 0.93, num_comments: 7 });
    reddit.submitExternally('LinksOnly', 'Elsewhere', { score: 3 });
    await testWorker(t).sync();
    const live = await t.api('GET', `/v1/rest/posts?livePosts=true&channelIds=${channel.id}`, { token: a.apiKey });
    const found = live.body.data.filter((p: any) => p.isLivePost);
    assert.deepEqual(
      found.map((p: any) => [p.text, p.metrics]),
      [['Posted on reddit.com', { score: 42, upvotePercent: 93, comments: 7 }]],
    );

    const ok = await checkChannelConnection(t.deps, { channelId: channel.id });
    assert.equal(ok.ok, true, JSON.stringify(ok));
    assert.equal(ok.account, 'u/acme_team in r/selfhosted');
    assert.deepEqual(ok.grantedScopes, ['identity', 'submit', 'read', 'history']);

    assert.equal((await connectThroughConsent(undefined, { network: 'reddit', subreddit: 'LinksOnly' })).status, 200);
    const links = (await channels()).find((c: any) => c.handle === 'r/LinksOnly');
    const partial = await checkChannelConnection(t.deps, { channelId: links.id });
    assert.equal(partial.ok, false);
    assert.match(partial.problems[0], /r\/LinksOnly takes link posts only/);
  });
});
