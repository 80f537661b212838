import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { finalizeEvent, generateSecretKey, getPublicKey, verifyEvent } from 'nostr-tools/pure';
import WebSocket from 'ws';
import { nsecEncode, npubEncode } from 'nostr-tools/nip19';
import { loadConfig } from '../../src/config.js';
import { callTool } from '../mcp/support.js';
import { openConnectForm } from '../support/connect-form.js';
import { startBunker } from '../support/nostr-bunker.js';
import { startNostrRelay, type LocalRelay } from '../support/nostr-relay.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { pinClock, testWorker } from '../publishing/support.js';
import { ensureCliBuilt, HERALD_CLI } from '../support/cli.js';

// The commands run the CLI bundled from src/ (test/support/cli.ts), built before the first.
before(ensureCliBuilt);

/** Nostr against two real relays (@nostr-relay/core, which checks every id and signature) on loopback. */
describe('Nostr, against real relays', function () {
  this.timeout(30_000);
  let first: LocalRelay;
  let second: LocalRelay;
  let t: TestHerald;
  let a: SeededAccount;

  before(async () => {
    first = await startNostrRelay();
    second = await startNostrRelay();
  });
  after(async () => {
    await first?.close();
    await second?.close();
  });
  beforeEach(async () => {
    first.refuseWith(null);
    second.refuseWith(null);
    t = await startTestHerald({
      // The relays a person names are on 127.0.0.1, which the SSRF guard refuses unless listed.
      outboundAllowHosts: ['127.0.0.1'],
      // A relay that never answers is given up on quickly, so the lost-answer test stays short.
      networks: { ...loadConfig({}).networks, timeoutMs: 1_500 },
    });
    a = await t.seedAccount({ channels: 0 });
  });
  afterEach(() => t.close());

  async function connect(secretKey = generateSecretKey()) {
    const res = await t.api('POST', '/v1/rest/channels/connect', {
      token: a.apiKey,
      body: { network: 'nostr', privateKey: nsecEncode(secretKey), relays: `${first.url}, ${second.url}` },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return { channel: res.body.data[0], pubkey: getPublicKey(secretKey), secretKey };
  }

  async function publishNow(
    channelId: string,
    body: Record<string, unknown>,
    channelOptions?: Record<string, unknown>,
  ) {
    const res = await t.api('POST', '/v1/rest/posts', { token: a.apiKey, body: { channelIds: [channelId], ...body } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const post = res.body.data[0];
    if (channelOptions) {
      const patched = await t.api('PATCH', `/v1/rest/posts/${post.id}`, { token: a.apiKey, body: { channelOptions } });
      assert.equal(patched.status, 200, JSON.stringify(patched.body));
    }
    await testWorker(t).tick();
    return (await t.api('GET', `/v1/rest/posts/${post.id}`, { token: a.apiKey })).body.data;
  }

  it('is listed as a credentials network, and connects with an nsec and relays, the key sealed at rest', async () => {
    const networks = await t.api('GET', '/v1/rest/networks', { token: a.apiKey });
    const nostr = networks.body.data.find((n: any) => n.name === 'nostr');
    assert.equal(nostr.configured, true);
    assert.deepEqual(
      nostr.connection.fields.map((f: any) => [f.name, f.required, f.secret]),
      [
        ['privateKey', false, true],
        ['bunker', false, true],
        ['relays', true, false],
      ],
    );
    assert.equal(nostr.capabilities.firstComment, 'reply');

    const { channel, pubkey, secretKey } = await connect();
    assert.equal(channel.network, 'nostr');
    assert.equal(channel.handle, npubEncode(pubkey));
    const row = await t.herald.db('channels').where({ id: channel.id }).first();
    assert.ok(row.credentials.startsWith('v1.'));
    assert.ok(!row.credentials.includes(Buffer.from(secretKey).toString('hex')), 'the key is not stored in the clear');

    const again = await connect(secretKey);
    assert.equal(again.channel.id, channel.id, 'the same key keeps its channel');
  });

  it('connects from the CLI', async function () {
    this.timeout(120_000);
    const secretKey = generateSecretKey();
    const env = {
      ...process.env,
      DATA_DIR: t.config.dataDir,
      DATABASE_URL: t.config.databaseUrl ?? '',
      // The relays listen on loopback, which the SSRF guard refuses unless it is listed.
      OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
    };
    const { stdout } = await promisify(execFile)(
      'node',
      [
        HERALD_CLI,
        'channel',
        'connect',
        'nostr',
        '--private-key',
        nsecEncode(secretKey),
        '--relays',
        `${first.url} ${second.url}`,
        '--json',
      ],
      { env },
    );
    const [channel] = JSON.parse(stdout).channels;
    assert.equal(channel.handle, npubEncode(getPublicKey(secretKey)));
    assert.ok(!stdout.includes(nsecEncode(secretKey)));
    assert.deepEqual(
      (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data.map((c: any) => c.id),
      [channel.id],
    );
  });

  it("connects from the app's channels page, its labels in people's words, saying what to fix", async function () {
    this.timeout(120_000);
    const app = await openConnectForm(t.url, a, 'nostr');
    try {
      const labels = await app.labels();
      assert.match(labels[0], /^Private key \(optional\) /);
      assert.match(labels[1], /^Remote signer \(optional\) A remote signer's bunker:\/\/\.\.\. address/);
      assert.match(labels[2], /^Relays /);
      await app.send({ relays: first.url });
      assert.match(await app.refusal(), /give the account's private key \(nsec1\.\.\.\), or a remote signer's/);
      const secretKey = generateSecretKey();
      await app.send({ privateKey: npubEncode(getPublicKey(secretKey)), relays: `${first.url} ${second.url}` });
      assert.match(await app.refusal(), /that is the public key \(npub\); Herald needs the private key/);
      await app.send({ privateKey: nsecEncode(secretKey) });
      assert.match(await app.connected(), /Connected /);
      const [channel] = (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data;
      assert.equal(channel.handle, npubEncode(getPublicKey(secretKey)));
      assert.equal(await app.page.inputValue('#connect-nostr-privateKey'), '', 'the key is forgotten');
    } finally {
      await app.close();
    }
  });

  describe('with a NIP-46 remote signer (a bunker on its own real relay)', () => {
    let signerRelay: LocalRelay;
    before(async () => {
      signerRelay = await startNostrRelay();
    });
    after(() => signerRelay?.close());

    async function connectBunker(bunker: string) {
      return t.api('POST', '/v1/rest/channels/connect', {
        token: a.apiKey,
        body: { network: 'nostr', bunker, relays: `${first.url} ${second.url}` },
      });
    }

    it(
      'connects with a bunker:// address, and the notes and replies it signs are published; ' +
        'Herald never holds the key',
      async () => {
        const bunker = await startBunker(signerRelay.url);
        try {
          const wrong = await connectBunker(bunker.address.replace(/secret=\w+/, 'secret=guessed'));
          assert.equal(wrong.status, 400, JSON.stringify(wrong.body));
          assert.match(wrong.body.message, /the remote signer refused the connection \(invalid secret\)/);
          const notBunker = await connectBunker('https://nsec.app/');
          assert.equal(notBunker.status, 400);
          assert.match(notBunker.body.message, /not a remote signer's address: copy the bunker:\/\/\.\.\. address/);
          const neither = await t.api('POST', '/v1/rest/channels/connect', {
            token: a.apiKey,
            body: { network: 'nostr', relays: first.url },
          });
          assert.equal(neither.status, 400);
          assert.match(neither.body.message, /give the account's private key \(nsec1\.\.\.\), or a remote signer's/);

          const res = await connectBunker(bunker.address);
          assert.equal(res.status, 201, JSON.stringify(res.body));
          const channel = res.body.data[0];
          assert.equal(channel.handle, npubEncode(bunker.userPubkey));
          const row = await t.herald.db('channels').where({ id: channel.id }).first();
          assert.ok(row.credentials.startsWith('v1.'));
          assert.ok(!row.credentials.includes(Buffer.from(bunker.userSecretKey).toString('hex')));
          assert.deepEqual(bunker.asked, ['connect', 'connect', 'get_public_key']);

          const post = await publishNow(channel.id, {
            text: 'Signed far away',
            firstComment: { text: 'And its reply', delayMinutes: 0 },
          });
          assert.equal(post.status, 'published', post.error);
          await testWorker(t).tick();
          const note = first.events.find((e) => e.content === 'Signed far away');
          assert.ok(note && verifyEvent(note as never), 'a valid signature');
          assert.equal(note.pubkey, bunker.userPubkey, "signed with the account's key, which only the bunker has");
          assert.equal(bunker.signed[0].id, note.id);
          const reply = first.events.find((e) => e.content === 'And its reply')!;
          assert.equal(reply.pubkey, bunker.userPubkey);
          assert.deepEqual(reply.tags[0].slice(0, 2), ['e', note.id]);
          assert.equal(bunker.signed.length, 2, 'one signature per event');
        } finally {
          await bunker.close();
        }
      },
    );

    it('connects from the CLI with --bunker', async function () {
      this.timeout(120_000);
      const bunker = await startBunker(signerRelay.url);
      try {
        const env = {
          ...process.env,
          DATA_DIR: t.config.dataDir,
          DATABASE_URL: t.config.databaseUrl ?? '',
          // The relays listen on loopback, which the SSRF guard refuses unless it is listed.
          OUTBOUND_ALLOW_HOSTS: '127.0.0.1',
        };
        const args = ['channel', 'connect', 'nostr', '--bunker', bunker.address, '--relays', first.url, '--json'];
        const { stdout } = await promisify(execFile)('node', [HERALD_CLI, ...args], { env });
        const [channel] = JSON.parse(stdout).channels;
        assert.equal(channel.handle, npubEncode(bunker.userPubkey));
        assert.ok(!stdout.includes(new URL(bunker.address).searchParams.get('secret')!), 'the secret is not printed');
        assert.deepEqual(bunker.asked, ['connect', 'get_public_key']);
      } finally {
        await bunker.close();
      }
    });

    it(
      'a lost answer is settled by the same signed event sent again, ' +
        'never a second signature; a signer that refuses needs a reconnect',
      async () => {
        const bunker = await startBunker(signerRelay.url);
        try {
          const channel = (await connectBunker(bunker.address)).body.data[0];
          second.refuseWith('blocked: not here');
          first.silenceNext();
          const before = first.received.length;
          const post = await publishNow(channel.id, { text: 'Signed once, sent twice' });
          assert.equal(post.status, 'published', post.error);
          const sent = first.received.slice(before);
          assert.equal(sent.length, 2, 'sent, then sent again to settle the unknown outcome');
          assert.equal(sent[0].id, sent[1].id, 'the very same event');
          assert.equal(bunker.signed.length, 1, 'the signer was asked once');
          assert.equal(first.events.filter((e) => e.content === 'Signed once, sent twice').length, 1);

          second.refuseWith(null);
          bunker.refuseWith('permission withdrawn');
          const refused = await publishNow(channel.id, { text: 'Not allowed any more' });
          assert.equal(refused.status, 'failed');
          assert.match(refused.error, /the remote signer refused a signature \(permission withdrawn\)/);
          const [listed] = (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data;
          assert.equal(listed.status, 'needs_reconnect');
          assert.ok(!first.events.some((e) => e.content === 'Not allowed any more'));
        } finally {
          await bunker.close();
        }
      },
    );
  });

  it(
    'refuses a public key, a relay that is not a WebSocket ' + 'URL and one on a private address, saying what to fix',
    async () => {
      const cases: [Record<string, string>, RegExp][] = [
        [{ privateKey: npubEncode(getPublicKey(generateSecretKey())), relays: first.url }, /public key \(npub\)/],
        [{ privateKey: nsecEncode(generateSecretKey()), relays: 'https://relay.example' }, /relays are wss:\/\/ URLs/],
        [
          { privateKey: nsecEncode(generateSecretKey()), relays: 'wss://169.254.169.254' },
          /169\.254\.169\.254.*not an address Herald may fetch from/,
        ],
      ];
      for (const [fields, message] of cases) {
        const res = await t.api('POST', '/v1/rest/channels/connect', {
          token: a.apiKey,
          body: { network: 'nostr', ...fields },
        });
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.match(res.body.message, message);
      }
      assert.equal((await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data.length, 0);
    },
  );

  it(
    'publishes a signed kind-1 note with its image to two relays, ' +
      "one refusing: published, each relay's answer kept",
    async () => {
      const { channel, pubkey } = await connect();
      second.refuseWith('blocked: this relay takes no notes from you');
      const before = first.events.length;
      const post = await publishNow(
        channel.id,
        { text: 'Hello, Nostr', imageUrls: ['https://cdn.example/picture.png'] },
        { altText: ['a picture'] },
      );
      assert.equal(post.status, 'published', post.error);
      const note = first.events[before];
      assert.equal(first.events.length, before + 1);
      assert.ok(verifyEvent(note as never), 'signed by the key');
      assert.equal(note.pubkey, pubkey);
      assert.equal(note.kind, 1);
      assert.equal(note.content, 'Hello, Nostr\n\nhttps://cdn.example/picture.png');
      assert.deepEqual(note.tags, [['imeta', 'url https://cdn.example/picture.png', 'alt a picture']]);
      assert.ok(!second.events.some((e) => e.id === note.id), 'the refusing relay stored nothing');
      assert.match(post.permalinkUrl, /^https:\/\/njump\.me\/nevent1/);
      const attempt = await t.herald.db('publish_attempts').where({ post_id: post.id, kind: 'publish' }).first();
      const handle = JSON.parse(attempt.network_handle);
      assert.equal(handle.event.id, note.id);
      assert.match(handle.relays[first.url], /^accepted/);
      assert.equal(handle.relays[second.url], 'permanent: blocked: this relay takes no notes from you');
    },
  );

  it('publishes what an MCP client writes', async () => {
    const { channel } = await connect();
    const tool = await callTool(t, a.apiKey, 'create_text_post', {
      channelIds: [channel.id],
      text: 'Written over MCP',
    });
    assert.notEqual(tool.body.result.isError, true, JSON.stringify(tool.body));
    await testWorker(t).tick();
    const note = first.events.find((e) => e.content === 'Written over MCP');
    assert.ok(note && verifyEvent(note as never));
    const [post] = tool.body.result.structuredContent.data;
    assert.equal((await t.api('GET', `/v1/rest/posts/${post.id}`, { token: a.apiKey })).body.data.status, 'published');
  });

  it("fails for good, naming each relay's reason, when every relay refuses", async () => {
    const { channel } = await connect();
    first.refuseWith('restricted: members only');
    second.refuseWith('blocked: not today');
    const post = await publishNow(channel.id, { text: 'Nobody wants this' });
    assert.equal(post.status, 'failed');
    assert.match(post.error, /restricted: members only/);
    assert.match(post.error, /blocked: not today/);
  });

  it('a lost answer is settled by sending the same signed event again: the same id, one note', async () => {
    const { channel } = await connect();
    second.refuseWith('blocked: not here');
    first.silenceNext();
    const before = first.received.length;
    const post = await publishNow(channel.id, { text: 'Answer lost on the way' });
    assert.equal(post.status, 'published', post.error);
    const sent = first.received.slice(before);
    assert.equal(sent.length, 2, 'sent, then sent again to settle the unknown outcome');
    assert.equal(sent[0].id, sent[1].id, 'the very same event');
    assert.equal(first.events.filter((e) => e.content === 'Answer lost on the way').length, 1);
    const attempts = await t.herald
      .db('publish_attempts')
      .where({ post_id: post.id, kind: 'publish' })
      .select('outcome');
    assert.deepEqual(
      attempts.map((row: { outcome: string }) => row.outcome),
      ['reconciled'],
    );
  });

  it('tries again later when the relays are busy or unreachable, and publishes once one accepts', async () => {
    const { channel } = await connect();
    first.refuseWith('rate-limited: slow down');
    second.refuseWith('error: database busy');
    const clock = pinClock(t, new Date().toISOString());
    const post = await publishNow(channel.id, { text: 'Busy relays' });
    assert.equal(post.status, 'scheduled', 'retried later');
    const row = await t.herald.db('posts').where({ id: post.id }).first();
    assert.ok(Number(row.next_attempt_at) > clock.now());
    first.refuseWith(null);
    clock.advance(60 * 60_000);
    await testWorker(t).tick();
    const published = (await t.api('GET', `/v1/rest/posts/${post.id}`, { token: a.apiKey })).body.data;
    assert.equal(published.status, 'published', published.error);
    assert.equal(first.events.filter((e) => e.content === 'Busy relays').length, 1);
  });

  it("a reply whose answer was lost is found among the account's replies, never sent twice", async () => {
    const { channel } = await connect();
    const clock = pinClock(t, new Date().toISOString());
    const res = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: {
        channelIds: [channel.id],
        text: 'Root of a lost reply',
        firstComment: { text: 'the lost reply', delayMinutes: 1 },
      },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const postId = res.body.data[0].id;
    const worker = testWorker(t);
    await worker.tick();
    second.refuseWith('blocked: no replies here');
    first.silenceNext();
    clock.advance(2 * 60_000);
    await worker.tick();
    assert.equal((await t.deps.repos.commentSteps.commentStep(postId))?.status, 'pending', 'the outcome is unknown');
    clock.advance(2 * 3_600_000);
    await worker.tick();
    const replies = first.received.filter((e) => e.content === 'the lost reply');
    assert.equal(replies.length, 1, 'found, not sent again');
    assert.equal((await t.deps.repos.commentSteps.commentStep(postId))?.networkCommentId, replies[0].id);
  });

  it('makes the first comment a NIP-10 reply marked root, and reads reactions back on sync', async () => {
    const { channel, pubkey } = await connect();
    const res = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: {
        channelIds: [channel.id],
        text: 'A note with a reply',
        firstComment: { text: 'and the reply', delayMinutes: 0 },
      },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const worker = testWorker(t);
    await worker.tick();
    await worker.tick();
    const post = (await t.api('GET', `/v1/rest/posts/${res.body.data[0].id}`, { token: a.apiKey })).body.data;
    assert.equal(post.status, 'published', post.error);
    const root = first.events.find((e) => e.content === 'A note with a reply')!;
    const reply = first.events.find((e) => e.content === 'and the reply');
    assert.ok(reply, 'the reply reached the relay');
    assert.ok(verifyEvent(reply as never));
    assert.deepEqual(reply.tags, [
      ['e', root.id, first.url, 'root', pubkey],
      ['p', pubkey],
    ]);
    assert.equal((await t.deps.repos.commentSteps.commentStep(post.id))?.networkCommentId, reply.id);

    const reaction = finalizeEvent(
      {
        kind: 7,
        created_at: Math.floor(Date.now() / 1000),
        tags: [
          ['e', root.id],
          ['p', pubkey],
        ],
        content: '+',
      },
      generateSecretKey(),
    );
    const socket = new WebSocket(first.url);
    await new Promise((resolve) => socket.once('open', resolve));
    socket.send(JSON.stringify(['EVENT', reaction]));
    await new Promise((resolve) => socket.once('message', resolve));
    socket.close();
    const network = t.deps.networks.get('nostr')!;
    const channelRow = await t.deps.repos.channels.get(a.accountId, channel.id);
    const { connectorChannel } = await import('../../src/domain/networks/channel-connections.js');
    const page = await network.recentPosts(connectorChannel(t.deps, channelRow!), { cursor: null, limit: 10 });
    const synced = page.posts.find((p) => p.networkPostId === root.id);
    assert.ok(synced, 'the note is listed, its reply is not');
    assert.ok(!page.posts.some((p) => p.networkPostId === reply.id));
    assert.deepEqual(synced.metrics, { reactions: 1, replies: 1 });
  });
});
