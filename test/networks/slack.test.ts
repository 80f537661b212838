import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { loadConfig } from '../../src/config.js';
import { checkChannelConnection } from '../../src/domain/networks/connection-check.js';
import { TINY_PNG } from '../media/fixtures.js';
import { callTool } from '../mcp/support.js';
import { API_ORIGIN, FILES_ORIGIN, startFakeSlack, type FakeSlack } from '../support/fake-slack.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { openRedirect } from '../support/herald-page.js';
import { serveMediaFiles } from '../support/media-files.js';
import { appReady } from '../support/app-browser.js';
import { openConnectForm } from '../support/connect-form.js';
import { dieMidAttempt, pinClock, testWorker } from '../publishing/support.js';
import { ensureCliBuilt, HERALD_CLI } from '../support/cli.js';

// The commands run the CLI bundled from src/ (test/support/cli.ts), built before the first.
before(ensureCliBuilt);

/** Slack's OAuth v2 and Web API through their documented wire format (test/support/fake-slack.ts). */
describe(`Slack, against a fake of its OAuth and Web API (${TEST_DB})`, function () {
  this.timeout(60_000);
  let slack: FakeSlack;
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

  async function start(apps = true): Promise<void> {
    slack = await startFakeSlack({ redirectUri: 'set once Herald listens' });
    const defaults = loadConfig({}).networks;
    t = await startTestHerald({
      networkOriginOverrides: { [API_ORIGIN]: slack.url, [FILES_ORIGIN]: slack.url },
      networks: {
        ...defaults,
        apps: apps ? { slack: { clientId: slack.clientId, clientSecret: slack.clientSecret } } : {},
      },
      // The network's fake listens on loopback, which the SSRF guard refuses unless it is listed.
      outboundAllowHosts: ['127.0.0.1'],
    });
    slack.redirectUri = `${t.url}/connect/slack/callback`;
    a = await t.seedAccount({ channels: 0 });
  }
  beforeEach(() => start());
  afterEach(async () => {
    await t.close();
    await slack.close();
  });

  /** Starts connecting, plays the person at Slack's consent screen (picking installChannel), follows the redirect. */
  async function connectThroughConsent(
    path = '/v1/rest/channels/connect',
    body: Record<string, unknown> = { network: 'slack' },
  ) {
    const started = await t.api('POST', path, { token: a.apiKey, body });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const consent = await fetch(started.body.authorizationUrl.replace(API_ORIGIN, slack.url), { redirect: 'manual' });
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

  const launches = () => slack.messages.get('C0LAUNCH') ?? [];

  it(
    "connects through Slack's consent, where the person picks the channel; " +
      'reconnects the same channel; revokes the token on disconnect',
    async () => {
      const listed = (await t.api('GET', '/v1/rest/networks', { token: a.basicKey })).body.data.find(
        (n: any) => n.name === 'slack',
      );
      assert.deepEqual([listed.configured, listed.connection.kind], [true, 'oauth']);

      slack.denyNext = true;
      const denied = await connectThroughConsent();
      assert.equal(denied.status, 400);
      assert.match(denied.html, /did not grant access/);
      assert.equal((await channels()).length, 0);

      const done = await connectThroughConsent();
      assert.equal(done.status, 200, done.html);
      assert.equal(
        done.authorizationUrl.origin + done.authorizationUrl.pathname,
        'https://slack.com/oauth/v2/authorize',
      );
      assert.deepEqual(done.authorizationUrl.searchParams.get('scope')!.split(','), [
        'chat:write',
        'files:write',
        'channels:history',
        'groups:history',
        'incoming-webhook',
      ]);
      const [channel] = await channels();
      assert.equal(channel.network, 'slack');
      assert.equal(channel.handle, '#launches');
      assert.equal(channel.displayName, '#launches (Acme)');
      const row = await t.herald.db('channels').where({ id: channel.id }).first();
      assert.ok(row.credentials.startsWith('v1.') && !row.credentials.includes('xoxb-'));

      slack.installChannel = 'C0RANDOM';
      const other = await connectThroughConsent(`/v1/rest/channels/${channel.id}/reconnect`, {});
      assert.equal(other.status, 400, "a reconnect must pick the channel's own Slack channel");
      slack.installChannel = 'C0LAUNCH';
      assert.equal((await connectThroughConsent(`/v1/rest/channels/${channel.id}/reconnect`, {})).status, 200);
      assert.equal((await channels()).length, 1);

      const gone = await t.api('DELETE', `/v1/rest/channels/${channel.id}`, { token: a.apiKey });
      assert.equal(gone.status, 200, JSON.stringify(gone.body));
      assert.equal(gone.body.data.revokedAtNetwork, true);
      assert.equal(slack.revoked.length, 1);
    },
  );

  it(
    "connects from the app's channels page through Slack's consent, " + 'saying so when the person cancels there',
    async function () {
      this.timeout(120_000);
      const app = await openConnectForm(t.url, a, 'slack');
      try {
        // The browser goes to slack.com itself: its requests there are answered by the fake, redirects and all.
        await app.page.route(`${API_ORIGIN}/**`, async (route) => {
          const response = await route.fetch({
            url: route.request().url().replace(API_ORIGIN, slack.url),
            maxRedirects: 0,
          });
          await route.fulfill({ response });
        });
        assert.deepEqual(await app.labels(), [], 'Slack asks nothing here: the person picks the channel at Slack');
        slack.denyNext = true;
        await app.page.click('section[data-network="slack"] button:has-text("Connect at Slack")');
        await app.page.waitForURL(/\/connect\/slack\/callback/);
        assert.match((await app.page.textContent('body')) ?? '', /Slack did not grant access .*nothing was connected/s);
        assert.deepEqual(await channels(), []);

        await app.page.goto(`${t.url}/app/channels`);
        await appReady(app.page);
        await app.page.click('section[data-network="slack"] button:has-text("Connect at Slack")');
        await app.page.waitForURL(/\/connect\/slack\/callback/);
        const [channel] = await channels();
        assert.equal(channel.handle, '#launches');
        await app.page.goto(`${t.url}/app/channels`);
        await appReady(app.page);
        assert.match(
          (await app.page.textContent(`tr[data-channel-id="${channel.id}"]`)) ?? '',
          /active[\s\S]*#launches/,
        );
      } finally {
        await app.close();
      }
    },
  );

  it("is listed as not configured, and refuses to connect, without the operator's app", async () => {
    await t.close();
    await slack.close();
    await start(false);
    const listed = (await t.api('GET', '/v1/rest/networks', { token: a.basicKey })).body.data.find(
      (n: any) => n.name === 'slack',
    );
    assert.equal(listed.configured, false);
    assert.match(listed.notConfigured, /SLACK_CLIENT_ID and SLACK_CLIENT_SECRET/);
    const refused = await t.api('POST', '/v1/rest/channels/connect', { token: a.apiKey, body: { network: 'slack' } });
    assert.equal(refused.status, 400);
  });

  it("connects from the CLI: prints Slack's consent address and waits for the callback", async function () {
    this.timeout(120_000);
    const env = {
      ...process.env,
      DATA_DIR: t.config.dataDir,
      DATABASE_URL: t.config.databaseUrl ?? '',
      BASE_URL: t.url,
      SLACK_CLIENT_ID: slack.clientId,
      SLACK_CLIENT_SECRET: slack.clientSecret,
      NETWORK_ORIGIN_OVERRIDES: `${API_ORIGIN}=${slack.url}`,
    };
    const child = spawn('node', [HERALD_CLI, 'channel', 'connect', 'slack', '--json'], { env });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    const address = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (chunk) => {
        stderr += chunk;
        const found = /(https:\/\/slack\.com\/oauth\/v2\/authorize\S+)/.exec(stderr);
        if (found) resolve(found[1]);
      });
      child.on('exit', () => reject(new Error(`the CLI ended without an address: ${stderr}`)));
    });
    const consent = await fetch(address.replace(API_ORIGIN, slack.url), { redirect: 'manual' });
    const page = await fetch(consent.headers.get('location')!);
    assert.equal(page.status, 200, await page.text());
    const code = await new Promise((resolve) => child.on('exit', resolve));
    assert.equal(code, 0, stderr);
    assert.equal(JSON.parse(stdout).channels[0].handle, '#launches');
  });

  it('refuses at write time a video and text past 3,000 with images, on REST and MCP', async () => {
    const channel = await connected();
    const draft = (body: Record<string, unknown>) =>
      t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [channel.id], saveAsDraft: true, ...body },
      });
    const video = await draft({ text: 'A clip', videoUrls: [`${files.origin}/clip.mp4`] });
    assert.equal(video.status, 400);
    assert.match(video.body.message, /Slack does not take videos/);
    const section = await draft({ text: 'x'.repeat(3001), imageUrls: [`${files.origin}/photo.png`] });
    assert.equal(section.status, 400);
    assert.match(section.body.message, /Slack allows 3000 characters in a post with media; this text has 3001/);
    assert.equal((await draft({ text: 'x'.repeat(3001) })).status, 201);
    const tool = await callTool(t, a.apiKey, 'create_image_post', {
      channelIds: [channel.id],
      text: 'y'.repeat(3001),
      imageUrls: [`${files.origin}/photo.png`],
      saveAsDraft: true,
    });
    assert.equal(tool.body.result.isError, true, JSON.stringify(tool.body));
    assert.match(tool.body.result.content[0].text, /Slack allows 3000 characters in a post with media/);
  });

  it('publishes posts written through MCP and in bulk, through the worker', async () => {
    const channel = await connected();
    const tool = await callTool(t, a.apiKey, 'create_text_post', { channelIds: [channel.id], text: 'From a model' });
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
    assert.deepEqual(bulk.body.summary, { succeeded: 2, failed: 0 });
    await testWorker(t).tick();
    assert.deepEqual(
      launches()
        .map((m) => m.text)
        .sort(),
      ['Bulk one', 'Bulk two', 'From a model'],
    );
  });

  it(
    "publishes escaped text with Herald's key in the metadata, " +
      'images as uploaded files in image blocks, and a first comment in the thread',
    async () => {
      const channel = await connected();
      const clock = pinClock(t, new Date().toISOString());
      const worker = testWorker(t);
      const text = await schedule(channel.id, { text: 'Fish & chips <today>' });
      const pictures = await schedule(channel.id, {
        text: 'Two pictures',
        imageUrls: [`${files.origin}/photo.png`, `${files.origin}/photo.png?b`],
        isScheduled: true,
        dateTime: new Date(clock.now() + 60_000).toISOString(),
        firstComment: { text: 'Thread continues', delayMinutes: 1 },
      });
      const patched = await t.api('PATCH', `/v1/rest/posts/${pictures.id}`, {
        token: a.apiKey,
        body: { channelOptions: { altText: ['a red kite'] } },
      });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
      await worker.tick();
      const sent = await get(text.id);
      assert.equal(sent.status, 'published', sent.error);
      const [first] = launches();
      assert.equal(first.text, 'Fish &amp; chips &lt;today&gt;');
      assert.deepEqual(first.metadata, { event_type: 'herald_post', event_payload: { key: text.id } });
      assert.equal(sent.permalinkUrl, `https://acme.slack.com/archives/C0LAUNCH/p${first.ts.replace('.', '')}`);

      clock.advance(60_000);
      await worker.tick();
      const got = await get(pictures.id);
      assert.equal(got.status, 'published', got.error);
      const message = launches()[1];
      assert.deepEqual(
        message.blocks!.map((b: any) => b.type),
        ['section', 'image', 'image'],
      );
      assert.deepEqual(
        message.blocks!.slice(1).map((b: any) => b.alt_text),
        ['a red kite', 'image 2'],
      );
      const fileIds = message.blocks!.slice(1).map((b: any) => b.slack_file.id);
      assert.deepEqual(
        fileIds.map((id: string) => slack.files.get(id)!.bytes!.length),
        [TINY_PNG.length, TINY_PNG.length],
      );

      clock.advance(2 * 60_000);
      await worker.tick();
      const reply = launches()[2];
      assert.equal(reply.text, 'Thread continues');
      assert.equal(reply.thread_ts, message.ts);
      assert.equal((await t.deps.repos.commentSteps.commentStep(pictures.id))?.networkCommentId, reply.ts);
    },
  );

  it(
    "classifies Slack's failures: 429 waits for Retry-After, " +
      'a 5xx to a message is looked up, channel errors are permanent, token_revoked reconnects',
    async () => {
      const channel = await connected();
      const clock = pinClock(t, new Date().toISOString());
      const worker = testWorker(t);

      slack.failNext('chat.postMessage', { ok: false, error: 'ratelimited' }, 429, { 'retry-after': '30' });
      const limited = await schedule(channel.id, { text: 'Rate limited' });
      await worker.tick();
      assert.equal((await t.herald.db('posts').where({ id: limited.id }).first()).status, 'scheduled');
      const until = Number((await t.herald.db('channels').where({ id: channel.id }).first()).rate_limited_until);
      assert.equal(until, clock.now() + 30_000, 'the channel waits the Retry-After Slack named');
      clock.advance(31_000);
      await worker.tick();
      assert.equal((await get(limited.id)).status, 'published', (await get(limited.id)).error);

      // A 503 to a message may come after Slack made it: looked up by its key, and not found, left for a person.
      slack.failNext('chat.postMessage', { ok: false, error: 'service_unavailable' }, 503);
      const unavailable = await schedule(channel.id, { text: 'Slack unavailable' });
      await worker.tick();
      assert.equal((await get(unavailable.id)).status, 'unconfirmed');
      assert.ok(slack.requests.includes('conversations.history'), 'looked up by its key');
      // Slack's transient errors are the same; a lookup that fails too says so.
      const second = await schedule(channel.id, { text: 'Lookup failed too' });
      slack.failNext('chat.postMessage', { ok: false, error: 'internal_error' });
      slack.failNext('conversations.history', { ok: false, error: 'internal_error' });
      await worker.tick();
      const unsure = await get(second.id);
      assert.equal(unsure.status, 'unconfirmed');
      assert.match(unsure.error, /Asking the network failed too: Slack answered internal_error/);
      assert.equal(
        launches().filter((m) => m.text.startsWith('Slack unavailable') || m.text.startsWith('Lookup')).length,
        0,
      );

      slack.channels[0].archived = true;
      const archived = await schedule(channel.id, { text: 'Into an archived channel' });
      await worker.tick();
      assert.equal((await get(archived.id)).status, 'failed');
      assert.match((await get(archived.id)).error, /Slack answered is_archived/);
      slack.channels[0].archived = false;
      slack.failNext('chat.postMessage', { ok: false, error: 'msg_too_long' });
      const long = await schedule(channel.id, { text: 'Too long for Slack' });
      await worker.tick();
      assert.match((await get(long.id)).error, /msg_too_long/);
      assert.equal((await channels())[0].status, 'active');

      slack.failNext('chat.postMessage', { ok: false, error: 'token_revoked' });
      const revoked = await schedule(channel.id, { text: 'The app was removed' });
      await worker.tick();
      assert.equal((await get(revoked.id)).status, 'failed');
      assert.equal((await channels())[0].status, 'needs_reconnect');
      assert.equal(launches().length, 1, 'only the post that went through was made');
    },
  );

  it('with token rotation, refreshes an expired token and publishes; a refused refresh needs a reconnect', async () => {
    slack.rotation = true;
    const channel = await connected();
    const clock = pinClock(t, new Date().toISOString());
    const worker = testWorker(t);
    slack.expireTokens();
    const post = await schedule(channel.id, { text: 'After the token lapsed' });
    await worker.tick();
    assert.equal(
      (await t.herald.db('posts').where({ id: post.id }).first()).status,
      'scheduled',
      'token_expired: refreshed, then tried again',
    );
    clock.advance(60 * 60_000);
    await worker.tick();
    assert.equal((await get(post.id)).status, 'published', (await get(post.id)).error);
    assert.equal(slack.requests.filter((r) => r === 'oauth.v2.access').length, 2, 'the code, then one refresh');

    slack.expireTokens();
    slack.refuseRefresh();
    const refused = await schedule(channel.id, { text: 'Refresh refused' });
    await worker.tick();
    assert.equal((await get(refused.id)).status, 'failed');
    const [after] = await channels();
    assert.equal(after.status, 'needs_reconnect');
    assert.match(after.statusReason, /invalid_refresh_token/);
  });

  it(
    "settles a lost answer by Herald's key in the channel's metadata, " +
      'and a lost reply in the thread; one never sent is left unconfirmed',
    async () => {
      const channel = await connected();
      const clock = pinClock(t, new Date().toISOString());
      const worker = testWorker(t);
      slack.postExternally('C0LAUNCH', 'Answer lost', 'bot');
      slack.dropAnswerNext('chat.postMessage');
      const post = await schedule(channel.id, {
        text: 'Answer lost',
        firstComment: { text: 'The reply', delayMinutes: 1 },
      });
      await worker.tick();
      const got = await get(post.id);
      assert.equal(got.status, 'published', got.error);
      const mine = launches().filter((m) => m.metadata?.event_payload.key === post.id);
      assert.equal(mine.length, 1);
      assert.equal(
        got.permalinkUrl,
        `https://acme.slack.com/archives/C0LAUNCH/p${mine[0].ts.replace('.', '')}`,
        'the message with the key, not the one with the same words',
      );
      assert.deepEqual(
        (await t.deps.repos.publishAttempts.attempts(a.accountId, post.id)).map((x) => x.outcome),
        ['reconciled'],
      );

      slack.dropAnswerNext('chat.postMessage');
      clock.advance(2 * 60_000);
      await worker.tick();
      clock.advance(60 * 60_000);
      await worker.tick();
      assert.equal(launches().filter((m) => m.text === 'The reply').length, 1);
      const tries = await t.herald
        .db('publish_attempts')
        .where({ post_id: post.id, kind: 'comment' })
        .orderBy('seq')
        .select('outcome');
      assert.deepEqual(
        tries.map((row: { outcome: string }) => row.outcome),
        ['unknown', 'reconciled'],
      );

      const missing = await schedule(channel.id, { text: 'Died before sending' });
      await dieMidAttempt(t, clock);
      clock.advance(2_000);
      await worker.tick();
      assert.equal((await get(missing.id)).status, 'unconfirmed', 'not found: never retried blind');
      assert.equal(launches().filter((m) => m.text === 'Died before sending').length, 0);
    },
  );

  it(
    "syncs the bot's messages with reply and reaction counts; " + 'herald network check reads the granted scopes',
    async () => {
      const channel = await connected();
      slack.postExternally('C0LAUNCH', 'From the bot &amp; co', 'bot', { replies: 2, reactions: 5 });
      slack.postExternally('C0LAUNCH', 'From a person', 'person', { reactions: 1 });
      await testWorker(t).sync();
      const live = await t.api('GET', `/v1/rest/posts?livePosts=true&channelIds=${channel.id}`, { token: a.apiKey });
      const found = live.body.data.filter((p: any) => p.isLivePost);
      assert.deepEqual(
        found.map((p: any) => [p.text, p.metrics]),
        [['From the bot & co', { replies: 2, reactions: 5 }]],
      );

      const ok = await checkChannelConnection(t.deps, { channelId: channel.id });
      assert.equal(ok.ok, true, JSON.stringify(ok));
      assert.equal(ok.account, 'herald in Acme');
      assert.deepEqual(ok.grantedScopes, [
        'chat:write',
        'files:write',
        'channels:history',
        'groups:history',
        'incoming-webhook',
      ]);
      assert.ok(!JSON.stringify(ok).includes('xoxb-'));

      slack.grantOnly = ['chat:write', 'incoming-webhook'];
      await connectThroughConsent(`/v1/rest/channels/${channel.id}/reconnect`, {});
      const partial = await checkChannelConnection(t.deps, { channelId: channel.id });
      assert.equal(partial.ok, false);
      assert.match(partial.problems[0], /not granted files:write, channels:history, groups:history/);
      assert.match(partial.problems[1], /refused to read the channel \(missing_scope\)/);
    },
  );
});
