import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { checkChannelConnection } from '../../src/domain/networks/connection-check.js';
import { TINY_PNG } from '../media/fixtures.js';
import { callTool } from '../mcp/support.js';
import { API_ORIGIN, startFakeTelegram, type FakeTelegram } from '../support/fake-telegram.js';
import { assertAudienceInInsights } from '../insights/network-audience.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { serveMediaFiles } from '../support/media-files.js';
import { openConnectForm } from '../support/connect-form.js';
import { dieMidAttempt, pinClock, testWorker } from '../publishing/support.js';
import { ensureCliBuilt, HERALD_CLI } from '../support/cli.js';

// The commands run the CLI bundled from src/ (test/support/cli.ts), built before the first.
before(ensureCliBuilt);

/** Telegram's Bot API through its documented wire format (test/support/fake-telegram.ts): no bot is reached. */
describe(`Telegram, against a fake of the Bot API (${TEST_DB})`, function () {
  this.timeout(60_000);
  let telegram: FakeTelegram;
  let files: Awaited<ReturnType<typeof serveMediaFiles>>;
  const video = Buffer.alloc(200_000, 7);
  let t: TestHerald;
  let a: SeededAccount;

  before(async () => {
    files = await serveMediaFiles({
      '/photo.png': { type: 'image/png', body: TINY_PNG },
      '/clip.mp4': { type: 'video/mp4', body: video },
    });
  });
  after(() => files?.close());
  beforeEach(async () => {
    telegram = await startFakeTelegram();
    // The test's media files are served on 127.0.0.1, which the SSRF guard refuses unless listed.
    t = await startTestHerald({
      networkOriginOverrides: { [API_ORIGIN]: telegram.url },
      outboundAllowHosts: ['127.0.0.1'],
    });
    a = await t.seedAccount({ channels: 0 });
  });
  afterEach(async () => {
    await t.close();
    await telegram.close();
  });

  async function connect(body: Record<string, unknown> = { botToken: telegram.bot.token, chat: '@acmenews' }) {
    return t.api('POST', '/v1/rest/channels/connect', { token: a.apiKey, body: { network: 'telegram', ...body } });
  }

  async function connected() {
    const res = await connect();
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data[0];
  }

  async function get(id: string) {
    return (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
  }

  async function schedule(channelId: string, body: Record<string, unknown>, channelOptions?: Record<string, unknown>) {
    const res = await t.api('POST', '/v1/rest/posts', { token: a.apiKey, body: { channelIds: [channelId], ...body } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const post = res.body.data[0];
    if (channelOptions) {
      const patched = await t.api('PATCH', `/v1/rest/posts/${post.id}`, { token: a.apiKey, body: { channelOptions } });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
    }
    return post;
  }

  it('is listed by GET /networks as connected with a bot token and a chat', async () => {
    const res = await t.api('GET', '/v1/rest/networks', { token: a.basicKey });
    const row = res.body.data.find((n: any) => n.name === 'telegram');
    assert.equal(row.configured, true);
    assert.equal(row.connection.kind, 'credentials');
    assert.deepEqual(
      row.connection.fields.map((f: any) => [f.name, f.secret]),
      [
        ['botToken', true],
        ['chat', false],
      ],
    );
    assert.equal(row.capabilities.text.withMediaLimit, 1024);
  });

  it(
    "connects a bot that is the channel's administrator, " +
      'checked with getMe, getChat and getChatMember; refuses one that is not',
    async () => {
      const wrong = await connect({ botToken: '123:nope', chat: '@acmenews' });
      assert.equal(wrong.status, 400, JSON.stringify(wrong.body));
      assert.match(wrong.body.message, /Telegram answered 401: Unauthorized: check the bot token/);
      const nowhere = await connect({ botToken: telegram.bot.token, chat: '@elsewhere' });
      assert.equal(nowhere.status, 400);
      assert.match(nowhere.body.message, /chat not found/);
      telegram.chat.members.set(telegram.bot.id, { status: 'administrator', can_post_messages: false });
      const mute = await connect();
      assert.equal(mute.status, 400);
      assert.match(mute.body.message, /@herald_test_bot may not post in the channel/);
      telegram.chat.members.set(telegram.bot.id, { status: 'member' });
      assert.match((await connect()).body.message, /is not an administrator of the channel/);
      assert.equal((await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data.length, 0);

      telegram.chat.members.set(telegram.bot.id, { status: 'administrator', can_post_messages: true });
      const channel = await connected();
      assert.equal(channel.network, 'telegram');
      assert.equal(channel.handle, '@acmenews');
      assert.equal(channel.displayName, 'Acme News');
      const row = await t.herald.db('channels').where({ id: channel.id }).first();
      assert.ok(
        row.credentials.startsWith('v1.') && !row.credentials.includes(telegram.bot.token),
        'the token is sealed',
      );
      assert.deepEqual(telegram.requests.slice(-3), ['GET /getMe', 'GET /getChat', 'GET /getChatMember']);

      // The token revoked in @BotFather: a post needs a reconnect,
      // which takes only the new token and keeps the channel.
      const oldToken = telegram.bot.token;
      const newToken = telegram.revokeToken();
      const post = await schedule(channel.id, { text: 'After the token changed' });
      await testWorker(t).tick();
      assert.equal((await get(post.id)).status, 'failed');
      const broken = (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data[0];
      assert.equal(broken.status, 'needs_reconnect');
      assert.match(broken.statusReason, /Unauthorized/);
      assert.notEqual(newToken, oldToken);
      const again = await t.api('POST', `/v1/rest/channels/${channel.id}/reconnect`, {
        token: a.apiKey,
        body: { botToken: newToken },
      });
      assert.equal(again.status, 201, JSON.stringify(again.body));
      assert.equal(again.body.data[0].id, channel.id);
      assert.equal(again.body.data[0].status, 'active');

      const gone = await t.api('DELETE', `/v1/rest/channels/${channel.id}`, { token: a.apiKey });
      assert.equal(gone.status, 200, JSON.stringify(gone.body));
      assert.equal(gone.body.data.channel.status, 'disconnected');
      assert.equal(gone.body.data.revokedAtNetwork, false, 'only @BotFather revokes a bot token');
    },
  );

  it('connects from the CLI with --bot-token and --chat', async function () {
    this.timeout(120_000);
    const env = {
      ...process.env,
      DATA_DIR: t.config.dataDir,
      DATABASE_URL: t.config.databaseUrl ?? '',
      BASE_URL: t.url,
      NETWORK_ORIGIN_OVERRIDES: `${API_ORIGIN}=${telegram.url}`,
    };
    const child = spawn(
      'node',
      [
        HERALD_CLI,
        'channel',
        'connect',
        'telegram',
        '--bot-token',
        telegram.bot.token,
        `--chat=${telegram.chat.id}`,
        '--json',
      ],
      { env },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const code = await new Promise((resolve) => child.on('exit', resolve));
    assert.equal(code, 0, stderr);
    assert.equal(JSON.parse(stdout).channels[0].handle, '@acmenews');
    assert.ok(
      !stdout.includes(telegram.bot.token) && !stderr.includes(telegram.bot.token),
      'the token is never printed',
    );
  });

  it(
    "connects from the app's channels page, " + 'its form built from GET /networks, saying why Telegram refuses',
    async function () {
      this.timeout(120_000);
      const form = await openConnectForm(t.url, a, 'telegram');
      try {
        assert.equal(
          await form.page.getAttribute('#connect-telegram-botToken', 'type'),
          'password',
          'the token is not shown',
        );
        await form.send({ botToken: '123:wrong', chat: '@acmenews' });
        assert.match(await form.refusal(), /check the bot token/);
        await form.send({ botToken: telegram.bot.token });
        await form.connected();
        const [channel] = (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data;
        assert.equal(channel.handle, '@acmenews');
        assert.equal(
          await form.page.inputValue('#connect-telegram-botToken'),
          '',
          'the form forgets the token once connected',
        );
      } finally {
        await form.close();
      }
    },
  );

  it(
    'refuses at write time a caption past 1,024 with media and a text past 4,096, ' +
      'counted in UTF-16 units, on REST and MCP',
    async () => {
      const channel = await connected();
      const caption = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: {
          channelIds: [channel.id],
          text: 'x'.repeat(1025),
          imageUrls: [`${files.origin}/photo.png`],
          saveAsDraft: true,
        },
      });
      assert.equal(caption.status, 400, JSON.stringify(caption.body));
      assert.match(caption.body.message, /Telegram allows 1024 .* in a post with media; this text has 1025/);
      const alone = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [channel.id], text: 'x'.repeat(1025), saveAsDraft: true },
      });
      assert.equal(alone.status, 201, 'without media the message takes 4,096');
      const long = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [channel.id], text: '😀'.repeat(2049), saveAsDraft: true },
      });
      assert.equal(long.status, 400);
      assert.match(long.body.message, /Telegram allows 4096 .*; this text has 4098/);
      const tool = await callTool(t, a.apiKey, 'create_image_post', {
        channelIds: [channel.id],
        text: 'y'.repeat(1100),
        imageUrls: [`${files.origin}/photo.png`],
        saveAsDraft: true,
      });
      assert.equal(tool.body.result.isError, true, JSON.stringify(tool.body));
      assert.match(tool.body.result.content[0].text, /in a post with media/);
    },
  );

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
    assert.deepEqual(telegram.messages.map((m) => m.text).sort(), ['Bulk one', 'Bulk two', 'From a model']);
  });

  it(
    'publishes text, a photo with its caption, ' + 'an album of a photo and a video, and a first comment as a reply',
    async () => {
      const channel = await connected();
      const clock = pinClock(t, new Date().toISOString());
      const worker = testWorker(t);
      const text = await schedule(channel.id, { text: 'Plain <b>words</b> & *stars*' }, { silent: true });
      const photo = await schedule(channel.id, { text: 'A picture', imageUrls: [`${files.origin}/photo.png`] });
      const album = await schedule(channel.id, {
        text: 'Two things',
        imageUrls: [`${files.origin}/photo.png`],
        videoUrls: [`${files.origin}/clip.mp4`],
        isScheduled: true,
        dateTime: new Date(clock.now() + 60_000).toISOString(),
        firstComment: { text: 'More below', delayMinutes: 1 },
      });
      await worker.tick();
      const sent = await get(text.id);
      assert.equal(sent.status, 'published', sent.error);
      const [first, picture] = telegram.messages;
      assert.equal(first.text, 'Plain <b>words</b> & *stars*', 'sent as written, nothing parsed');
      assert.equal(first.disable_notification, true);
      assert.equal(sent.permalinkUrl, `https://t.me/acmenews/${first.message_id}`);
      assert.equal((await get(photo.id)).status, 'published');
      assert.equal(picture.caption, 'A picture');
      assert.equal(picture.bytes, TINY_PNG.length);

      clock.advance(60_000);
      await worker.tick();
      const albumPost = await get(album.id);
      assert.equal(albumPost.status, 'published', albumPost.error);
      const group = telegram.messages.filter((m) => m.media_group_id);
      assert.equal(group.length, 2);
      assert.equal(group[0].caption, 'Two things');
      assert.equal(group[1].video?.file_size, video.length);
      assert.equal(albumPost.permalinkUrl, `https://t.me/acmenews/${group[0].message_id}`);

      clock.advance(2 * 60_000);
      await worker.tick();
      const reply = telegram.messages.at(-1)!;
      assert.equal(reply.text, 'More below');
      assert.equal(reply.reply_to_message?.message_id, group[0].message_id);
      assert.equal((await t.deps.repos.commentSteps.commentStep(album.id))?.networkCommentId, String(reply.message_id));
    },
  );

  it(
    "classifies Telegram's failures: 429 waits for retry_after, " +
      'a 5xx to a send is unknown, 400 is permanent, 403 reconnects',
    async () => {
      const channel = await connected();
      const clock = pinClock(t, new Date().toISOString());
      const worker = testWorker(t);

      telegram.flood(30);
      const limited = await schedule(channel.id, { text: 'Flood control' });
      await worker.tick();
      assert.equal((await t.herald.db('posts').where({ id: limited.id }).first()).status, 'scheduled');
      const until = Number((await t.herald.db('channels').where({ id: channel.id }).first()).rate_limited_until);
      assert.ok(
        until >= clock.now() + 29_000 && until <= clock.now() + 31_000,
        'the channel waits the retry_after Telegram named',
      );
      telegram.flood(0);
      clock.advance(31_000);
      await worker.tick();
      assert.equal((await get(limited.id)).status, 'published', (await get(limited.id)).error);

      // A 502 to a send may come after the message was made: with no key to look it up by, a person decides.
      telegram.failNext('sendMessage', 502, 'Bad Gateway');
      const gateway = await schedule(channel.id, { text: 'Behind a bad gateway' });
      await worker.tick();
      assert.equal((await get(gateway.id)).status, 'unconfirmed');
      // A 5xx to a read is retried: connecting then says to try again.
      telegram.failNext('getMe', 500, 'Internal Server Error');
      const later = await connect();
      assert.equal(later.status, 503, JSON.stringify(later.body));
      assert.match(later.body.message, /Telegram could not be reached .*try again/);

      telegram.failNext('sendMessage', 400, "Bad Request: can't parse entities: Unsupported start tag");
      const refused = await schedule(channel.id, { text: 'Refused for good' });
      await worker.tick();
      const failed = await get(refused.id);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /Telegram answered 400: Bad Request: can't parse entities/);
      assert.equal((await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data[0].status, 'active');

      telegram.chat.members.set(telegram.bot.id, { status: 'kicked' });
      const kicked = await schedule(channel.id, { text: 'The bot was removed' });
      await worker.tick();
      assert.match((await get(kicked.id)).error, /403: Forbidden: bot is not a member of the channel chat/);
      assert.equal(
        (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data[0].status,
        'needs_reconnect',
      );
      assert.equal(telegram.messages.length, 1, 'only the post that went through was made');
    },
  );

  it(
    'leaves a post whose answer was lost unconfirmed for a person, ' +
      'never sending it again; a lost reply gets no second try',
    async () => {
      const channel = await connected();
      const clock = pinClock(t, new Date().toISOString());
      const worker = testWorker(t);
      telegram.dropAnswerNext('sendMessage');
      const post = await schedule(channel.id, { text: 'Answer lost' });
      await worker.tick();
      clock.advance(60 * 60_000);
      await worker.tick();
      assert.equal((await get(post.id)).status, 'unconfirmed');
      assert.equal(telegram.messages.length, 1, 'made once, and never sent blind again');

      const died = await schedule(channel.id, { text: 'Worker died' });
      await dieMidAttempt(t, clock);
      clock.advance(2_000);
      await worker.tick();
      assert.equal((await get(died.id)).status, 'unconfirmed');
      assert.equal(telegram.messages.length, 1);

      const commented = await schedule(channel.id, {
        text: 'With a reply',
        firstComment: { text: 'The reply', delayMinutes: 1 },
      });
      await worker.tick();
      assert.equal((await get(commented.id)).status, 'published');
      telegram.dropAnswerNext('sendMessage');
      clock.advance(2 * 60_000);
      await worker.tick();
      clock.advance(60 * 60_000);
      await worker.tick();
      assert.equal(
        telegram.messages.filter((m) => m.text === 'The reply').length,
        1,
        'one reply: an unknown outcome is not tried again',
      );
      const step = await t.deps.repos.commentSteps.commentStep(commented.id);
      assert.equal(step?.status, 'failed');
      assert.match(step?.lastError ?? '', /was not tried again, so it is never made twice/);
    },
  );

  it("reads the chat's getChatMemberCount at each sync as the channel's audience in REST insights", async () => {
    const channel = await connected();
    await assertAudienceInInsights(t, a.apiKey, channel.id, (n) => {
      telegram.chat.memberCount = n;
    });
  });

  it(
    'live sync finds nothing a bot cannot read; ' +
      'herald network check names the bot, the chat and its right to post',
    async () => {
      const channel = await connected();
      await testWorker(t).sync();
      const live = await t.api('GET', `/v1/rest/posts?livePosts=true&channelIds=${channel.id}`, { token: a.apiKey });
      assert.equal(live.body.data.filter((p: any) => p.isLivePost).length, 0);
      const ok = await checkChannelConnection(t.deps, { channelId: channel.id });
      assert.deepEqual(
        { ok: ok.ok, account: ok.account, scopes: ok.grantedScopes },
        { ok: true, account: '@herald_test_bot in Acme News', scopes: ['can_post_messages'] },
      );
      assert.ok(!JSON.stringify(ok).includes(telegram.bot.token));
      telegram.chat.members.set(telegram.bot.id, { status: 'administrator', can_post_messages: false });
      const demoted = await checkChannelConnection(t.deps, { channelId: channel.id });
      assert.equal(demoted.ok, false);
      assert.match(demoted.problems[0], /may not post in the channel/);
    },
  );
});
