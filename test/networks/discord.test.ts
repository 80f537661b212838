import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { callTool } from '../mcp/support.js';
import { checkChannelConnection } from '../../src/domain/networks/connection-check.js';
import { connectorChannel } from '../../src/domain/networks/channel-connections.js';
import { TINY_PNG } from '../media/fixtures.js';
import { API_ORIGIN, startFakeDiscord, type FakeDiscord } from '../support/fake-discord.js';
import { assertAudienceInInsights } from '../insights/network-audience.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { serveMediaFiles } from '../support/media-files.js';
import { openConnectForm } from '../support/connect-form.js';
import { dieMidAttempt, pinClock, testWorker } from '../publishing/support.js';
import { ensureCliBuilt, HERALD_CLI } from '../support/cli.js';

// The commands run the CLI bundled from src/ (test/support/cli.ts), built before the first.
before(ensureCliBuilt);

const SEND_MESSAGES = String(1n << 11n);

/** Discord's bot API through its documented wire format (test/support/fake-discord.ts): no Discord is reached. */
describe(`Discord, against a fake of its HTTP API (${TEST_DB})`, function () {
  this.timeout(60_000);
  let discord: FakeDiscord;
  let files: Awaited<ReturnType<typeof serveMediaFiles>>;
  const video = Buffer.alloc(150_000, 3);
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
    discord = await startFakeDiscord();
    t = await startTestHerald({
      networkOriginOverrides: { [API_ORIGIN]: discord.url },
      // The network's fake listens on loopback, which the SSRF guard refuses unless it is listed.
      outboundAllowHosts: ['127.0.0.1'],
    });
    a = await t.seedAccount({ channels: 0 });
  });
  afterEach(async () => {
    await t.close();
    await discord.close();
  });

  async function connect(
    body: Record<string, unknown> = { botToken: discord.bot.token, channelId: discord.channel.id },
  ) {
    return t.api('POST', '/v1/rest/channels/connect', { token: a.apiKey, body: { network: 'discord', ...body } });
  }

  async function connected() {
    const res = await connect();
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data[0];
  }

  async function get(id: string) {
    return (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
  }

  async function channelStatus() {
    return (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data[0].status;
  }

  async function schedule(channelId: string, body: Record<string, unknown>) {
    const res = await t.api('POST', '/v1/rest/posts', { token: a.apiKey, body: { channelIds: [channelId], ...body } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data[0];
  }

  it('is listed by GET /networks, connected with a bot token and a channel id, or a webhook', async () => {
    const res = await t.api('GET', '/v1/rest/networks', { token: a.basicKey });
    const row = res.body.data.find((n: any) => n.name === 'discord');
    assert.equal(row.configured, true);
    assert.deepEqual(
      row.connection.fields.map((f: any) => [f.name, f.required, f.secret]),
      [
        ['botToken', false, true],
        ['channelId', false, false],
        ['webhookUrl', false, true],
      ],
    );
    assert.equal(row.capabilities.text.limit, 2000);
  });

  it(
    'connects a bot whose permissions in the channel, ' +
      'computed from roles and overwrites, let it post; refuses the rest',
    async () => {
      assert.match(
        (await connect({ botToken: 'wrong', channelId: discord.channel.id })).body.message,
        /Discord answered HTTP 401: 401: Unauthorized: check the bot token/,
      );
      assert.match(
        (await connect({ botToken: discord.bot.token, channelId: '42' })).body.message,
        /code 10003\): Unknown Channel/,
      );
      assert.match(
        (await connect({ botToken: discord.bot.token, channelId: 'general' })).body.message,
        /is not a Discord channel id/,
      );
      discord.channel.permission_overwrites = [{ id: discord.roles[1].id, type: 0, allow: '0', deny: SEND_MESSAGES }];
      const muted = await connect();
      assert.equal(muted.status, 400);
      assert.match(muted.body.message, /Herald lacks Send Messages in #announcements/);
      discord.channel.permission_overwrites = [{ id: discord.bot.id, type: 1, allow: SEND_MESSAGES, deny: '0' }];
      discord.channel.type = 15;
      assert.match((await connect()).body.message, /not a server's text or announcement channel/);
      discord.channel.type = 0;
      assert.equal((await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data.length, 0);

      const channel = await connected();
      assert.equal(channel.handle, '#announcements');
      assert.equal(channel.displayName, '#announcements (Acme Community)');
      const row = await t.herald.db('channels').where({ id: channel.id }).first();
      assert.ok(row.credentials.startsWith('v1.') && !row.credentials.includes(discord.bot.token));

      const newToken = discord.resetToken();
      const post = await schedule(channel.id, { text: 'After a token reset' });
      await testWorker(t).tick();
      assert.equal((await get(post.id)).status, 'failed');
      assert.equal(await channelStatus(), 'needs_reconnect');
      const again = await t.api('POST', `/v1/rest/channels/${channel.id}/reconnect`, {
        token: a.apiKey,
        body: { botToken: newToken },
      });
      assert.equal(again.status, 201, JSON.stringify(again.body));
      assert.equal(again.body.data[0].id, channel.id);
      assert.equal(await channelStatus(), 'active');

      const gone = await t.api('DELETE', `/v1/rest/channels/${channel.id}`, { token: a.apiKey });
      assert.equal(gone.body.data.channel.status, 'disconnected');
      assert.equal(gone.body.data.revokedAtNetwork, false);
    },
  );

  it('connects from the CLI with --bot-token and --channel-id', async function () {
    this.timeout(120_000);
    const env = {
      ...process.env,
      DATA_DIR: t.config.dataDir,
      DATABASE_URL: t.config.databaseUrl ?? '',
      BASE_URL: t.url,
      NETWORK_ORIGIN_OVERRIDES: `${API_ORIGIN}=${discord.url}`,
    };
    const child = spawn(
      'node',
      [
        HERALD_CLI,
        'channel',
        'connect',
        'discord',
        '--bot-token',
        discord.bot.token,
        '--channel-id',
        discord.channel.id,
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
    assert.equal(JSON.parse(stdout).channels[0].handle, '#announcements');
  });

  it(
    "connects from the app's channels page, " + "its labels in people's words, saying why Discord refuses",
    async function () {
      this.timeout(120_000);
      const app = await openConnectForm(t.url, a, 'discord');
      try {
        const labels = await app.labels();
        assert.match(labels[0], /^Bot token /);
        assert.match(labels[1], /^Channel \(optional\) The channel's id/);
        assert.match(labels[2], /^Webhook address \(optional\) Or, instead of a bot, the channel's webhook address/);
        assert.equal(
          await app.page.getAttribute('#connect-discord-botToken', 'type'),
          'password',
          'the token is hidden',
        );
        await app.send({ botToken: 'wrong', channelId: discord.channel.id });
        assert.match(await app.refusal(), /check the bot token, and that the bot was invited/);
        discord.channel.permission_overwrites = [{ id: discord.roles[1].id, type: 0, allow: '0', deny: SEND_MESSAGES }];
        await app.send({ botToken: discord.bot.token });
        await app.page.waitForSelector('section[data-network="discord"] [role=alert] >> text=lacks Send Messages');
        discord.channel.permission_overwrites = [];
        await app.send({ botToken: discord.bot.token });
        assert.match(await app.connected(), /Connected #announcements \(Acme Community\)/);
        const [channel] = (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data;
        assert.equal(channel.handle, '#announcements');
        assert.equal(await app.page.inputValue('#connect-discord-botToken'), '', 'the form forgets the token');
      } finally {
        await app.close();
      }
    },
  );

  it('refuses at write time text past 2,000 characters and more than 10 files', async () => {
    const channel = await connected();
    const long = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: { channelIds: [channel.id], text: 'x'.repeat(2001), saveAsDraft: true },
    });
    assert.equal(long.status, 400);
    assert.match(long.body.message, /Discord allows 2000 characters; this text has 2001/);
    const many = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: {
        channelIds: [channel.id],
        text: 'Lots',
        imageUrls: Array.from({ length: 11 }, (_, i) => `${files.origin}/photo.png?${i}`),
        saveAsDraft: true,
      },
    });
    assert.equal(many.status, 400);
    assert.match(many.body.message, /Discord allows 10 image\(s\) per post/);
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
    assert.deepEqual(discord.messages.map((m) => m.content).sort(), ['Bulk one', 'Bulk two', 'From a model']);
  });

  it('publishes a message with its files under a nonce it enforces, and a first comment as a reply', async () => {
    const channel = await connected();
    const clock = pinClock(t, new Date().toISOString());
    const worker = testWorker(t);
    const post = await schedule(channel.id, {
      text: 'Launch day',
      imageUrls: [`${files.origin}/photo.png`],
      videoUrls: [`${files.origin}/clip.mp4`],
      isScheduled: true,
      dateTime: new Date(clock.now() + 60_000).toISOString(),
      firstComment: { text: 'Details inside', delayMinutes: 1 },
    });
    clock.advance(60_000);
    await worker.tick();
    const got = await get(post.id);
    assert.equal(got.status, 'published', got.error);
    const [message] = discord.messages;
    assert.equal(message.content, 'Launch day');
    assert.deepEqual(
      message.attachments.map((f) => [f.filename, f.size]),
      [
        ['photo.png', TINY_PNG.length],
        ['clip.mp4', video.length],
      ],
    );
    assert.ok(message.nonce && message.nonce.length <= 25);
    assert.equal(
      got.permalinkUrl,
      `https://discord.com/channels/${discord.guild.id}/${discord.channel.id}/${message.id}`,
    );

    clock.advance(2 * 60_000);
    await worker.tick();
    const reply = discord.messages[1];
    assert.equal(reply.content, 'Details inside');
    assert.equal(reply.message_reference?.message_id, message.id);
    assert.notEqual(reply.nonce, message.nonce);
    assert.equal((await t.deps.repos.commentSteps.commentStep(post.id))?.networkCommentId, reply.id);
  });

  it(
    "classifies Discord's failures: 429 waits for retry_after, a spent bucket pauses the channel, " +
      'a 5xx to a message is looked up, 50035 and 40005 are permanent, 50013 needs a reconnect',
    async () => {
      const channel = await connected();
      const clock = pinClock(t, new Date().toISOString());
      const worker = testWorker(t);

      discord.bucket = { limit: 5, remaining: 0, resetAfter: 2.5 };
      const limited = await schedule(channel.id, { text: 'Rate limited' });
      await worker.tick();
      assert.equal((await t.herald.db('posts').where({ id: limited.id }).first()).status, 'scheduled');
      const until = Number((await t.herald.db('channels').where({ id: channel.id }).first()).rate_limited_until);
      assert.ok(
        until >= clock.now() + 2_500 && until <= clock.now() + 3_000,
        `waits the retry_after Discord named (${until - clock.now()} ms)`,
      );
      discord.bucket = { limit: 5, remaining: 1, resetAfter: 4 };
      clock.advance(5_000);
      await worker.tick();
      assert.equal((await get(limited.id)).status, 'published', (await get(limited.id)).error);
      const paused = Number((await t.herald.db('channels').where({ id: channel.id }).first()).rate_limited_until);
      assert.ok(paused > Date.now(), 'X-RateLimit-Remaining 0 on the answer: paused until X-RateLimit-Reset');
      clock.advance(paused - clock.now() + 1_000);

      discord.bucket = { limit: 5, remaining: 5, resetAfter: 5 };
      const messagesPath = `/channels/${discord.channel.id}/messages`;
      discord.failNext(messagesPath, 502, { message: 'Bad Gateway', code: 0 });
      const flaky = await schedule(channel.id, { text: 'A 502 first' });
      await worker.tick();
      // A 502 may come after the message was made, and a retry after the nonce is forgotten: looked up, not re-sent.
      assert.equal((await get(flaky.id)).status, 'unconfirmed', "not among the channel's messages: a person decides");
      assert.ok(discord.requests.includes(`GET ${messagesPath}`), 'looked up in the channel');

      discord.failNext(messagesPath, 400, {
        message: 'Invalid Form Body',
        code: 50035,
        errors: { embeds: { _errors: [{ code: 'X', message: 'bad' }] } },
      });
      const invalid = await schedule(channel.id, { text: 'Invalid' });
      await worker.tick();
      assert.equal((await get(invalid.id)).status, 'failed');
      assert.match((await get(invalid.id)).error, /Discord answered HTTP 400 \(code 50035\): Invalid Form Body/);
      discord.failNext(messagesPath, 413, { message: 'Request entity too large', code: 40005 });
      const large = await schedule(channel.id, { text: 'Too large', imageUrls: [`${files.origin}/photo.png`] });
      await worker.tick();
      assert.match((await get(large.id)).error, /code 40005/);
      assert.equal(await channelStatus(), 'active');

      discord.channel.permission_overwrites = [{ id: discord.roles[1].id, type: 0, allow: '0', deny: SEND_MESSAGES }];
      const denied = await schedule(channel.id, { text: 'Permission taken away' });
      await worker.tick();
      assert.match((await get(denied.id)).error, /code 50013\): Missing Permissions/);
      assert.equal(await channelStatus(), 'needs_reconnect');
      assert.equal(discord.messages.length, 1, 'only the post that went through was made');
    },
  );

  it(
    "settles a lost answer from the channel's messages, and a retry under the nonce answers the first message; " +
      'a post that never went out is left unconfirmed',
    async () => {
      const channel = await connected();
      const clock = pinClock(t, new Date().toISOString());
      const worker = testWorker(t);
      const messagesPath = `/channels/${discord.channel.id}/messages`;
      discord.postExternally('Answer lost', 'person');
      discord.dropAnswerNext(messagesPath);
      const post = await schedule(channel.id, {
        text: 'Answer lost',
        firstComment: { text: 'The reply', delayMinutes: 1 },
      });
      await worker.tick();
      const got = await get(post.id);
      assert.equal(got.status, 'published', got.error);
      const mine = discord.messages.filter((m) => m.author.bot);
      assert.equal(mine.length, 1, "made once; the person's message with the same words is not it");
      assert.equal(got.permalinkUrl.split('/').pop(), mine[0].id);
      assert.deepEqual(
        (await t.deps.repos.publishAttempts.attempts(a.accountId, post.id)).map((x) => x.outcome),
        ['reconciled'],
      );

      // Discord keeps the nonce for a few minutes: the same message sent again answers the first.
      const replay = await fetch(`${discord.url}/api/v10${messagesPath}`, {
        method: 'POST',
        headers: { authorization: `Bot ${discord.bot.token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ content: 'Answer lost', nonce: mine[0].nonce, enforce_nonce: true }),
      });
      assert.equal((await replay.json()).id, mine[0].id);
      assert.equal(discord.messages.filter((m) => m.author.bot).length, 1);

      // The reply is made and its answer lost: found among the messages after the post, not sent again.
      discord.dropAnswerNext(messagesPath);
      discord.forgetNonces();
      clock.advance(2 * 60_000);
      await worker.tick();
      clock.advance(60 * 60_000);
      await worker.tick();
      assert.equal(discord.messages.filter((m) => m.content === 'The reply').length, 1);
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
      assert.equal(discord.messages.filter((m) => m.content === 'Died before sending').length, 0);
    },
  );

  it(
    "reads the server's approximate_member_count at " + "each sync as the channel's audience in REST insights",
    async () => {
      const channel = await connected();
      await assertAudienceInInsights(t, a.apiKey, channel.id, (n) => {
        discord.memberCount = n;
      });
    },
  );

  describe('connected with an incoming webhook instead of a bot', () => {
    const hookPath = () => `/webhooks/${discord.webhook.id}/${discord.webhook.token}`;
    async function hooked() {
      const res = await connect({ webhookUrl: discord.webhookUrl });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.data[0];
    }

    it('reads no audience for a webhook, which may not read its server: none in insights, never a zero', async () => {
      const channel = await hooked();
      discord.memberCount = 1500;
      await testWorker(t).sync();
      const res = await t.api('GET', `/v1/rest/insights?channelIds=${channel.id}`, { token: a.apiKey });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      const row = res.body.data.byChannel.find((c: any) => c.channelId === channel.id);
      assert.ok(row, JSON.stringify(res.body.data));
      assert.equal(row.audienceEnd ?? null, null, JSON.stringify(row));
      assert.ok(!discord.requests.some((r) => r.includes('with_counts')), 'the server was not asked');
    });

    it('checks the webhook at connect, and refuses an address that is not one or a webhook deleted', async () => {
      const nothing = await connect({});
      assert.equal(nothing.status, 400);
      assert.match(nothing.body.message, /give the bot's token and the channel's id, or the channel's webhook address/);
      const elsewhere = await connect({ webhookUrl: 'https://example.com/api/webhooks/1/abc' });
      assert.match(elsewhere.body.message, /not a Discord webhook address: copy it from the channel/);
      const wrongToken = await connect({ webhookUrl: discord.webhookUrl.replace(/[^/]+$/, 'nope') });
      assert.match(wrongToken.body.message, /code 50027\): Invalid Webhook Token: check the webhook address/);

      const channel = await hooked();
      assert.equal(channel.handle, 'webhook Acme News');
      assert.equal(channel.displayName, 'Acme News (webhook)');
      const row = await t.herald.db('channels').where({ id: channel.id }).first();
      assert.ok(row.credentials.startsWith('v1.') && !row.credentials.includes(discord.webhook.token), 'sealed');
      assert.deepEqual(discord.requests.slice(-1), [`GET ${hookPath()}`], 'no bot was asked');
      const fromOldHost = await connect({
        webhookUrl: discord.webhookUrl.replace('discord.com/api', 'discordapp.com/api/v10'),
      });
      assert.equal(
        fromOldHost.body.data[0].id,
        channel.id,
        'the same webhook, copied from the old host, is the same channel',
      );

      discord.deleteWebhook();
      const post = await schedule(channel.id, { text: 'After the webhook was deleted' });
      await testWorker(t).tick();
      assert.match((await get(post.id)).error, /code 10015\): Unknown Webhook/);
      assert.equal(await channelStatus(), 'needs_reconnect');
      // Reconnected with a bot instead: the channel id is the webhook's own channel.
      const again = await t.api('POST', `/v1/rest/channels/${channel.id}/reconnect`, {
        token: a.apiKey,
        body: { botToken: discord.bot.token },
      });
      assert.equal(again.status, 201, JSON.stringify(again.body));
      assert.equal(again.body.data[0].id, channel.id);
      assert.equal(again.body.data[0].handle, '#announcements');
    });

    it(
      'executes the webhook with wait=true and its files; ' +
        'the first comment is the next message; check reads the webhook',
      async () => {
        const channel = await hooked();
        const post = await schedule(channel.id, {
          text: 'From a webhook',
          imageUrls: [`${files.origin}/photo.png`],
          firstComment: { text: 'And then this', delayMinutes: 0 },
        });
        const worker = testWorker(t);
        await worker.tick();
        await worker.tick();
        const got = await get(post.id);
        assert.equal(got.status, 'published', got.error);
        const [message, comment] = discord.messages;
        assert.equal(message.webhook_id, discord.webhook.id);
        assert.equal(message.content, 'From a webhook');
        assert.equal(message.attachments[0].filename, 'photo.png');
        assert.equal(message.nonce, undefined, 'a webhook takes no nonce');
        assert.equal(
          got.permalinkUrl,
          `https://discord.com/channels/${discord.guild.id}/${discord.channel.id}/${message.id}`,
        );
        assert.equal(comment.content, 'And then this');
        assert.equal(comment.message_reference, undefined, 'a webhook cannot reply');
        assert.deepEqual(
          discord.requests.filter((r) => r.startsWith('POST')),
          [`POST ${hookPath()}`, `POST ${hookPath()}`],
        );
        const synced = await t.deps.networks.get('discord')!.recentPosts!(
          connectorChannel(t.deps, (await t.deps.repos.channels.get(a.accountId, channel.id))!),
          { cursor: null, limit: 10 },
        );
        assert.deepEqual(synced.posts, [], 'a webhook reads no messages');
        const check = await t.deps.networks.get('discord')!.check!(
          connectorChannel(t.deps, (await t.deps.repos.channels.get(a.accountId, channel.id))!),
        );
        assert.deepEqual(
          [check.account, check.problems],
          [`the webhook Acme News of channel ${discord.channel.id}`, []],
        );
      },
    );

    it('leaves a post whose answer was lost unconfirmed, never executing the webhook again', async () => {
      const channel = await hooked();
      discord.dropAnswerNext(hookPath());
      const post = await schedule(channel.id, { text: 'Answer lost on a webhook' });
      const clock = pinClock(t, new Date().toISOString());
      const worker = testWorker(t);
      await worker.tick();
      clock.advance(60 * 60_000);
      await worker.tick();
      const got = await get(post.id);
      assert.equal(got.status, 'unconfirmed', got.error);
      assert.equal(discord.messages.filter((m) => m.content === 'Answer lost on a webhook').length, 1);
      assert.equal(discord.requests.filter((r) => r.startsWith('POST')).length, 1);
    });
  });

  it(
    "syncs the bot's messages with their reactions, not replies or people's; " +
      'herald network check lists the permissions',
    async () => {
      const channel = await connected();
      discord.postExternally('From the bot elsewhere', 'bot', 7);
      discord.postExternally('From a person', 'person', 3);
      await testWorker(t).sync();
      const live = await t.api('GET', `/v1/rest/posts?livePosts=true&channelIds=${channel.id}`, { token: a.apiKey });
      const found = live.body.data.filter((p: any) => p.isLivePost);
      assert.deepEqual(
        found.map((p: any) => [p.text, p.metrics]),
        [['From the bot elsewhere', { reactions: 7 }]],
      );

      const ok = await checkChannelConnection(t.deps, { channelId: channel.id });
      assert.equal(ok.ok, true, JSON.stringify(ok));
      assert.equal(ok.account, 'Herald in #announcements (Acme Community)');
      assert.deepEqual(ok.grantedScopes, ['View Channel', 'Send Messages', 'Attach Files', 'Read Message History']);
      assert.ok(!JSON.stringify(ok).includes(discord.bot.token));
      discord.roles[0].permissions = String(1n << 10n);
      const partial = await checkChannelConnection(t.deps, { channelId: channel.id });
      assert.equal(partial.ok, false);
      assert.match(partial.problems[0], /lacks Read Message History/);
    },
  );
});
