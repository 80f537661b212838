import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { OutboundFetcher, OutboundFetchOptions, OutboundResponse } from '../../src/domain/outbound.js';
import { OutboundRequestError } from '../../src/domain/outbound.js';
import { createLogger } from '../../src/logger.js';
import { createNetworks, createWorker } from '../../src/publishing/engine.js';
import { startLocalBluesky, type LocalBluesky } from '../support/bluesky-pds.js';
import { loadConfig } from '../../src/config.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { TINY_MP4, TINY_PNG } from '../media/fixtures.js';
import { startFakeVideoService, type FakeVideoService } from '../support/fake-bluesky-video.js';
import { startFakeAppView, type FakeAppView } from '../support/fake-bluesky-appview.js';
import { assertAudienceInInsights } from '../insights/network-audience.js';
import { directMedia, pinClock, testWorker } from '../publishing/support.js';
import { ensureCliBuilt, HERALD_CLI } from '../support/cli.js';

// The commands run the CLI bundled from src/ (test/support/cli.ts), built before the first.
before(ensureCliBuilt);

/**
 * Bluesky against a real PDS (@atproto/pds, the server bsky.social runs) and PLC directory on loopback:
 * Herald reaches them as https://bsky.social and https://plc.directory through NETWORK_ORIGIN_OVERRIDES.
 */
const run = promisify(execFile);

describe('Bluesky, against a real PDS', function () {
  this.timeout(60_000);
  let bsky: LocalBluesky;
  let images: http.Server;
  let video: FakeVideoService;
  let appView: FakeAppView;
  let imageUrl: string;
  let t: TestHerald;
  let a: SeededAccount;
  let handleCount = 0;

  before(async () => {
    appView = await startFakeAppView();
    bsky = await startLocalBluesky({ appView });
    appView.pdsUrl = bsky.pdsUrl;
    video = await startFakeVideoService(bsky.pdsUrl);
    images = http.createServer((req, res) => {
      if (req.url?.endsWith('.mp4')) res.writeHead(200, { 'content-type': 'video/mp4' }).end(TINY_MP4);
      else if (req.url === '/article') {
        res
          .writeHead(200, { 'content-type': 'text/html' })
          .end(
            '<html><head><title>Fallback</title><meta property="og:title" content="Launch &amp; more">' +
              '<meta property="og:description" content="What we shipped"><meta ' +
              'property="og:image" content="/picture.png"></head><body></body></html>',
          );
      } else res.writeHead(200, { 'content-type': 'image/png' }).end(TINY_PNG);
    });
    await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
    imageUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}/picture.png`;
  });
  after(async () => {
    await appView?.close();
    await video?.close();
    await bsky?.close();
    images?.close();
  });
  beforeEach(async () => {
    t = await startTestHerald({
      // The test's image server and the PDS a person names are on
      // this machine, which the SSRF guard refuses unless listed.
      // The fake video service finishes after a number of status polls, not seconds: no real wait between polls.
      networks: { ...loadConfig({}).networks, pollWaitScale: 0 },
      outboundAllowHosts: ['localhost', '127.0.0.1'],
      networkOriginOverrides: {
        'https://bsky.social': bsky.pdsUrl,
        'https://plc.directory': bsky.plcUrl,
        'https://video.bsky.app': video.url,
      },
    });
    a = await t.seedAccount({ channels: 0 });
  });
  afterEach(() => t.close());

  async function person() {
    handleCount++;
    return bsky.createAccount(`p${handleCount}${Date.now().toString(36)}.test`);
  }

  async function connect(who: { handle: string; appPassword: string }) {
    const res = await t.api('POST', '/v1/rest/channels/connect', {
      token: a.apiKey,
      body: { network: 'bluesky', identifier: who.handle, appPassword: who.appPassword },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data[0];
  }

  /** A fetcher that passes every call to the real one, and lets a test change what one call answers. */
  function interceptingFetcher(
    intercept: (
      url: string,
      options: OutboundFetchOptions,
      real: () => Promise<OutboundResponse>,
    ) => Promise<OutboundResponse>,
  ): OutboundFetcher & { calls: string[] } {
    const calls: string[] = [];
    return {
      calls,
      fetch: (url, options) => {
        calls.push(`${options.method ?? 'GET'} ${new URL(url).pathname}`);
        return intercept(url, options, () => t.deps.fetcher.fetch(url, options));
      },
      probeDirectMedia: (url, options) => t.deps.fetcher.probeDirectMedia(url, options),
      vetUrl: (url, options) => t.deps.fetcher.vetUrl(url, options),
    };
  }

  async function records(did: string, password: string, handle: string) {
    const session = await bsky.session(handle, password);
    return (
      await bsky.xrpc(
        'GET',
        'com.atproto.repo.listRecords',
        { repo: did, collection: 'app.bsky.feed.post', limit: '100' },
        session.accessJwt,
      )
    ).records;
  }

  async function schedule(channelId: string, body: Record<string, unknown>) {
    const res = await t.api('POST', '/v1/rest/posts', { token: a.apiKey, body: { channelIds: [channelId], ...body } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data[0];
  }

  async function get(id: string) {
    return (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
  }

  it('lists Bluesky as a credentials network with its fields and capabilities', async () => {
    const res = await t.api('GET', '/v1/rest/networks', { token: a.apiKey });
    assert.equal(res.status, 200);
    const bluesky = res.body.data.find((n: any) => n.name === 'bluesky');
    assert.equal(bluesky.configured, true);
    assert.equal(bluesky.notConfigured, null);
    assert.equal(bluesky.connection.kind, 'credentials');
    assert.deepEqual(
      bluesky.connection.fields.map((f: any) => [f.name, f.required, f.secret]),
      [
        ['identifier', true, false],
        ['appPassword', true, true],
        ['service', false, false],
      ],
    );
    assert.equal(bluesky.capabilities.text.limit, 300);
  });

  it('connects with an app password, finding the PDS from the handle, and keeps the credentials sealed', async () => {
    const who = await person();
    const channel = await connect(who);
    assert.equal(channel.network, 'bluesky');
    assert.equal(channel.handle, who.handle);
    assert.equal(channel.status, 'active');
    assert.ok(channel.connectedAt);
    const listed = await t.api('GET', '/v1/rest/channels', { token: a.apiKey });
    const text = JSON.stringify(listed.body);
    assert.ok(
      !text.includes(who.appPassword) && !text.includes('accessJwt') && !text.includes('refreshJwt'),
      'no credential in any answer',
    );
    const row = await t.herald.db('channels').where({ id: channel.id }).first();
    assert.ok(row.credentials.startsWith('v1.'), 'sealed by the secret box');
    assert.ok(
      !row.credentials.includes(who.appPassword) && !row.credentials.includes('eyJ'),
      'nothing readable at rest',
    );
    assert.equal(row.network_account_id, who.did);

    const again = await connect(who);
    assert.equal(again.id, channel.id, 'the same network account keeps its channel');
    const events = (await t.api('GET', '/v1/rest/events?types=channel.connected', { token: a.apiKey })).body.data;
    assert.deepEqual(
      events.map((e: any) => [e.type, e.data.channel.id, e.data.reconnected]),
      [
        ['channel.connected', channel.id, false],
        ['channel.connected', channel.id, true],
      ],
    );
    assert.ok(!JSON.stringify(events).includes(who.appPassword), 'no credential in an event');
    assert.equal((await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data.length, 1);
  });

  it("connects from the CLI: herald channel connect bluesky, on the instance's only account", async function () {
    this.timeout(180_000);
    const who = await person();
    const env = {
      ...process.env,
      DATA_DIR: t.config.dataDir,
      DATABASE_URL: t.config.databaseUrl ?? '',
      // The PDS and the fakes listen on loopback, which the SSRF guard refuses unless it is listed.
      OUTBOUND_ALLOW_HOSTS: 'localhost,127.0.0.1',
      NETWORK_ORIGIN_OVERRIDES: `https://bsky.social=${bsky.pdsUrl},https://plc.directory=${bsky.plcUrl}`,
    };
    const { stdout } = await run(
      'node',
      [
        HERALD_CLI,
        'channel',
        'connect',
        'bluesky',
        '--identifier',
        who.handle,
        '--app-password',
        who.appPassword,
        '--json',
      ],
      { env },
    );
    const [channel] = JSON.parse(stdout).channels;
    assert.equal(channel.handle, who.handle);
    assert.equal(channel.status, 'active');
    assert.ok(!stdout.includes(who.appPassword));
    assert.deepEqual(
      (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data.map((c: any) => c.id),
      [channel.id],
    );
  });

  it("answers 400 naming Bluesky's refusal for a wrong app password, and creates nothing", async () => {
    const who = await person();
    const res = await t.api('POST', '/v1/rest/channels/connect', {
      token: a.apiKey,
      body: {
        network: 'bluesky',
        identifier: who.handle,
        appPassword: 'wrong-wrong-wrong-wrong',
        service: bsky.pdsUrl,
      },
    });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.match(res.body.message, /Bluesky refused the identifier or app password/);
    const missing = await t.api('POST', '/v1/rest/channels/connect', {
      token: a.apiKey,
      body: { network: 'bluesky', identifier: who.handle },
    });
    assert.equal(missing.status, 400);
    assert.match(missing.body.message, /appPassword is required/);
    assert.equal((await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data.length, 0);
    const basic = await t.api('POST', '/v1/rest/channels/connect', {
      token: a.basicKey,
      body: { network: 'bluesky', identifier: who.handle, appPassword: who.appPassword },
    });
    assert.equal(basic.status, 403, 'connecting needs manage_team');
  });

  it(
    'publishes a post with two images, alt text and rich text, ' + 'then its first comment as a reply, exactly once',
    async () => {
      const who = await person();
      const friend = await person();
      const channel = await connect(who);
      const clock = pinClock(t, new Date().toISOString());
      const text = `Hello @${friend.handle} see https://example.com/page #herald`;
      const post = await schedule(channel.id, {
        text,
        imageUrls: [imageUrl, `${imageUrl}?second`],
        firstComment: { text: 'More in the thread', delayMinutes: 1 },
        isScheduled: true,
        dateTime: new Date(clock.now() + 60_000).toISOString(),
      });
      // channelOptions apply on update (SPEC): the alt texts and languages are set as a person would, after writing.
      const updated = await t.api('PATCH', `/v1/rest/posts/${post.id}`, {
        token: a.apiKey,
        body: { channelOptions: { altText: ['a red dot', 'another dot'], langs: ['en'] } },
      });
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
      clock.advance(60_000);
      const worker = testWorker(t);
      await worker.tick();
      const published = await get(post.id);
      assert.equal(published.status, 'published', published.error);
      const rkey = published.permalinkUrl.split('/').pop();
      assert.equal(published.permalinkUrl, `https://bsky.app/profile/${who.handle}/post/${rkey}`);

      let stored = await records(who.did, who.password, who.handle);
      assert.equal(stored.length, 1);
      const record = stored[0].value;
      assert.equal(record.text, text);
      assert.deepEqual(record.langs, ['en']);
      assert.equal(record.embed.$type, 'app.bsky.embed.images');
      assert.deepEqual(
        record.embed.images.map((i: any) => [i.alt, i.aspectRatio]),
        [
          ['a red dot', { width: 1, height: 1 }],
          ['another dot', { width: 1, height: 1 }],
        ],
      );
      const features = record.facets.map((f: any) => f.features[0]);
      assert.deepEqual(
        features.map((f: any) => f.$type.split('#')[1]),
        ['mention', 'link', 'tag'],
      );
      assert.equal(features[0].did, friend.did, 'the mention resolved to a DID');
      const mention = record.facets[0].index;
      assert.equal(Buffer.from(text).subarray(mention.byteStart, mention.byteEnd).toString(), `@${friend.handle}`);

      clock.advance(2 * 60_000);
      await worker.tick();
      stored = await records(who.did, who.password, who.handle);
      assert.equal(stored.length, 2);
      const reply = stored.find((r: any) => r.value.reply).value;
      assert.equal(reply.text, 'More in the thread');
      assert.equal(reply.reply.root.uri, stored.find((r: any) => !r.value.reply).uri);
      assert.equal(reply.reply.parent.uri, reply.reply.root.uri);
      await worker.tick();
      assert.equal((await records(who.did, who.password, who.handle)).length, 2, 'nothing made twice');
    },
  );

  it(
    'publishes a thread as replies on the PDS: ' +
      "each part's parent the part before it, its root the first post, once",
    async () => {
      const who = await person();
      const channel = await connect(who);
      const post = await schedule(channel.id, {
        text: 'A thread, 1/3',
        thread: [{ text: 'Part 2/3', imageUrls: [imageUrl] }, { text: 'Part 3/3' }],
      });
      const worker = testWorker(t);
      await worker.tick();
      const got = await get(post.id);
      assert.equal(got.status, 'published', got.error);
      const stored = await records(who.did, who.password, who.handle);
      assert.equal(stored.length, 3);
      const byText = (text: string) => stored.find((r: any) => r.value.text === text);
      const [head, second, third] = ['A thread, 1/3', 'Part 2/3', 'Part 3/3'].map(byText);
      assert.equal(head.value.reply, undefined);
      assert.deepEqual(second.value.reply, {
        root: { uri: head.uri, cid: head.cid },
        parent: { uri: head.uri, cid: head.cid },
      });
      assert.deepEqual(third.value.reply, {
        root: { uri: head.uri, cid: head.cid },
        parent: { uri: second.uri, cid: second.cid },
      });
      assert.equal(second.value.embed.$type, 'app.bsky.embed.images');
      assert.deepEqual(
        got.thread.map((p: { permalinkUrl: string }) => p.permalinkUrl),
        [second, third].map((r: any) => `https://bsky.app/profile/${who.handle}/post/${r.uri.split('/').pop()}`),
      );
      await worker.tick();
      assert.equal((await records(who.did, who.password, who.handle)).length, 3, 'nothing made twice');
    },
  );

  it(
    'publishes a video through the video service, ' + 'and fails with its reason when the service cannot process one',
    async () => {
      const who = await person();
      const channel = await connect(who);
      const post = await schedule(channel.id, {
        text: 'A clip',
        videoUrls: [imageUrl.replace('picture.png', 'clip.mp4')],
      });
      await testWorker(t).tick();
      const got = await get(post.id);
      assert.equal(got.status, 'published', got.error);
      const [record] = await records(who.did, who.password, who.handle);
      assert.equal(record.value.embed.$type, 'app.bsky.embed.video');
      assert.equal(record.value.embed.video.mimeType, 'video/mp4');
      assert.equal(record.value.embed.video.size, TINY_MP4.length);

      video.failNext = 'Video is too long';
      const refused = await schedule(channel.id, {
        text: 'Too long',
        videoUrls: [imageUrl.replace('picture.png', 'long.mp4')],
      });
      await testWorker(t).tick();
      const failed = await get(refused.id);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /could not process the video: Video is too long/);
    },
  );

  it("gives a post with a link and no media a link card with the page's title, description and picture", async () => {
    const who = await person();
    const channel = await connect(who);
    const article = imageUrl.replace('picture.png', 'article');
    await schedule(channel.id, { text: `Read ${article}` });
    await testWorker(t).tick();
    const [record] = await records(who.did, who.password, who.handle);
    assert.equal(record.value.embed.$type, 'app.bsky.embed.external');
    const { uri, title, description, thumb } = record.value.embed.external;
    assert.deepEqual(
      { uri, title, description },
      { uri: article, title: 'Launch & more', description: 'What we shipped' },
    );
    assert.equal(thumb.mimeType, 'image/png');
  });

  it('a worker killed mid-publish: the post is on the PDS once, found by its record key', async () => {
    const who = await person();
    const channel = await connect(who);
    const clock = pinClock(t, new Date().toISOString());
    const post = await schedule(channel.id, { text: 'Survives a crash' });
    // The first worker's write reaches the PDS, but the worker dies before it hears the answer.
    let wrote!: () => void;
    const written = new Promise<void>((resolve) => {
      wrote = resolve;
    });
    const dying = interceptingFetcher(async (url, _options, real) => {
      const answer = await real();
      if (url.endsWith('com.atproto.repo.putRecord')) {
        wrote();
        return new Promise<OutboundResponse>(() => undefined);
      }
      return answer;
    });
    // Dead: its lease-renewal timer never fires again.
    const frozen = { after: () => ({ cancel() {} }), every: () => ({ cancel() {} }) };
    const first = createWorker({ ...t.deps, timers: frozen }, createLogger({ quiet: true }), {
      networks: createNetworks({ ...t.deps, fetcher: dying }),
      checkMedia: directMedia,
      options: { leaseMs: 10_000 },
    });
    void first.tick();
    await written;
    clock.advance(30_000);
    const second = testWorker(t, { leaseMs: 10_000 });
    await second.tick();
    const got = await get(post.id);
    assert.equal(got.status, 'published', got.error);
    const attempts = await t.deps.repos.publishAttempts.attempts(a.accountId, post.id);
    assert.deepEqual(
      attempts.map((x) => x.outcome),
      ['reconciled'],
    );
    assert.equal((await records(who.did, who.password, who.handle)).length, 1);
  });

  it('a retry after an unknown outcome lands on the same record: one post, never two', async () => {
    const who = await person();
    const channel = await connect(who);
    const post = await schedule(channel.id, { text: 'Timed out once' });
    let dropped = false;
    const flaky = interceptingFetcher(async (url, _options, real) => {
      const answer = await real();
      if (url.endsWith('com.atproto.repo.putRecord') && !dropped) {
        dropped = true;
        throw new OutboundRequestError('timeout', 'the PDS did not answer in time');
      }
      return answer;
    });
    await testWorker(t, {}, createNetworks({ ...t.deps, fetcher: flaky })).tick();
    assert.equal((await get(post.id)).status, 'published');
    assert.equal((await records(who.did, who.password, who.handle)).length, 1);
  });

  it('two workers, one expired session: refreshSession is called once and both posts go out', async () => {
    const who = await person();
    const channel = await connect(who);
    const before = await t.herald.db('channels').where({ id: channel.id }).first();
    await t.herald.db('channels').where({ id: channel.id }).update({ credentials_expire_at: 1 });
    const first = await schedule(channel.id, { text: 'One' });
    const second = await schedule(channel.id, { text: 'Two' });
    const counting = interceptingFetcher((_url, _options, real) => real());
    const networks = createNetworks({ ...t.deps, fetcher: counting });
    await Promise.all([
      testWorker(t, { batchSize: 1 }, networks).tick(),
      testWorker(t, { batchSize: 1 }, networks).tick(),
    ]);
    assert.equal((await get(first.id)).status, 'published');
    assert.equal((await get(second.id)).status, 'published');
    assert.equal(counting.calls.filter((c) => c.endsWith('refreshSession')).length, 1, counting.calls.join('\n'));
    const after = await t.herald.db('channels').where({ id: channel.id }).first();
    assert.equal(Number(after.credentials_version), Number(before.credentials_version) + 1);
  });

  it(
    'classifies failures: ExpiredToken refreshes and retries, ' +
      '429 waits for ratelimit-reset, InvalidRequest is permanent',
    async () => {
      const who = await person();
      const channel = await connect(who);
      const clock = pinClock(t, new Date().toISOString());
      const script: Array<(real: () => Promise<OutboundResponse>) => Promise<OutboundResponse>> = [];
      const scripted = interceptingFetcher((url, _options, real) =>
        url.endsWith('putRecord') && script.length > 0 ? script.shift()!(real) : real(),
      );
      const worker = testWorker(t, {}, createNetworks({ ...t.deps, fetcher: scripted }));
      const answer =
        (status: number, body: unknown, headers: Record<string, string> = {}) =>
        async (): Promise<OutboundResponse> => ({
          url: '',
          status,
          headers: { 'content-type': 'application/json', ...headers },
          body: Buffer.from(JSON.stringify(body)),
          truncated: false,
        });

      script.push(answer(400, { error: 'ExpiredToken', message: 'Token has expired' }));
      const expired = await schedule(channel.id, { text: 'After a refresh' });
      await worker.tick();
      assert.equal((await get(expired.id)).status, 'published', 'refreshed and made once more');
      assert.equal(scripted.calls.filter((c) => c.endsWith('refreshSession')).length, 1);

      const reset = Math.floor(clock.now() / 1000) + 120;
      script.push(
        answer(
          429,
          { error: 'RateLimitExceeded', message: 'Rate Limit Exceeded' },
          { 'ratelimit-reset': String(reset) },
        ),
      );
      const limited = await schedule(channel.id, { text: 'Rate limited' });
      await worker.tick();
      const waiting = await t.herald.db('posts').where({ id: limited.id }).first();
      assert.equal(waiting.status, 'scheduled');
      assert.equal(Number(waiting.next_attempt_at), reset * 1000, 'comes back when Bluesky said');
      assert.equal(
        Number((await t.herald.db('channels').where({ id: channel.id }).first()).rate_limited_until),
        reset * 1000,
      );
      clock.advance(121_000);
      await worker.tick();
      assert.equal((await get(limited.id)).status, 'published');

      script.push(
        answer(400, { error: 'InvalidRequest', message: 'Record/text must not be longer than 3000 graphemes' }),
      );
      const refused = await schedule(channel.id, { text: 'Refused' });
      await worker.tick();
      const failed = await get(refused.id);
      assert.equal(failed.status, 'failed');
      assert.match(failed.error, /InvalidRequest: Record\/text must not be longer/);
    },
  );

  it('a revoked app password: the channel needs reconnecting, and its next posts fail at once saying so', async () => {
    const who = await person();
    const channel = await connect(who);
    const session = await bsky.session(who.handle, who.password);
    await bsky.xrpc('POST', 'com.atproto.server.revokeAppPassword', { name: 'Herald' }, session.accessJwt);
    await t.herald.db('channels').where({ id: channel.id }).update({ credentials_expire_at: 1 });
    const post = await schedule(channel.id, { text: 'After revocation' });
    await testWorker(t).tick();
    const failed = await get(post.id);
    assert.equal(failed.status, 'failed');
    assert.match(failed.error, /reconnect/);
    const listed = (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data[0];
    assert.equal(listed.status, 'needs_reconnect');
    assert.match(listed.statusReason, /Bluesky refused/);

    const next = await schedule(channel.id, { text: 'Next one' });
    await testWorker(t).tick();
    assert.match((await get(next.id)).error, /needs reconnecting .*reconnect the channel/);
    const told = (await t.api('GET', '/v1/rest/events?types=channel.needs_reconnect', { token: a.apiKey })).body.data;
    assert.equal(told.length, 1, 'told once');
    assert.match(told[0].data.reason, /Bluesky refused/);

    const { password: fresh } = await bsky.xrpc(
      'POST',
      'com.atproto.server.createAppPassword',
      { name: 'Herald again' },
      session.accessJwt,
    );
    const again = await t.api('POST', `/v1/rest/channels/${channel.id}/reconnect`, {
      token: a.apiKey,
      body: { identifier: who.handle, appPassword: fresh },
    });
    assert.equal(again.status, 201, JSON.stringify(again.body));
    assert.equal(again.body.data[0].id, channel.id);
    assert.equal(again.body.data[0].status, 'active');
  });

  it('syncs posts made outside Herald as live posts, and disconnecting keeps waiting posts as drafts', async () => {
    const who = await person();
    const channel = await connect(who);
    const session = await bsky.session(who.handle, who.password);
    const written = await bsky.xrpc(
      'POST',
      'com.atproto.repo.createRecord',
      {
        repo: who.did,
        collection: 'app.bsky.feed.post',
        record: {
          $type: 'app.bsky.feed.post',
          text: 'Written in the Bluesky app',
          createdAt: new Date().toISOString(),
        },
      },
      session.accessJwt,
    );
    const ours = await schedule(channel.id, { text: 'Published by Herald' });
    await testWorker(t).tick();
    const published = await get(ours.id);
    appView.counts.set(written.uri, { likeCount: 4, repostCount: 1, replyCount: 2, quoteCount: 1 });
    appView.counts.set(`at://${who.did}/app.bsky.feed.post/${published.permalinkUrl.split('/').pop()}`, {
      likeCount: 9,
      repostCount: 3,
    });
    await testWorker(t).sync();
    const live = await t.api('GET', `/v1/rest/posts?livePosts=true&channelIds=${channel.id}`, { token: a.apiKey });
    assert.equal(live.status, 200, JSON.stringify(live.body));
    const found = live.body.data.filter((p: any) => p.isLivePost);
    assert.deepEqual(
      found.map((p: any) => p.text),
      ['Written in the Bluesky app'],
    );
    assert.deepEqual(
      found[0].metrics,
      { likes: 4, reposts: 1, replies: 2, quotes: 1 },
      'the author feed counts, through the PDS',
    );
    // SPEC keeps metrics off service-made posts in the API; they are stored for the app and the calendar.
    assert.deepEqual(
      (await t.deps.repos.posts.get(a.accountId, ours.id))?.metrics,
      { likes: 9, reposts: 3, replies: 0, quotes: 0 },
      'and the metrics of what Herald published',
    );

    const waiting = await schedule(channel.id, {
      text: 'Not yet',
      isScheduled: true,
      dateTime: new Date(Date.now() + 86_400_000).toISOString(),
    });
    const res = await t.api('DELETE', `/v1/rest/channels/${channel.id}`, { token: a.apiKey });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.data.channel.status, 'disconnected');
    assert.equal(res.body.data.revokedAtNetwork, true);
    assert.deepEqual(res.body.data.draftedPostIds, [waiting.id]);
    assert.equal((await get(waiting.id)).status, 'draft');
    assert.equal(
      (await t.herald.db('channels').where({ id: channel.id }).first()).credentials,
      null,
      'credentials erased',
    );
    const gone = (await t.api('GET', '/v1/rest/events?types=channel.disconnected', { token: a.apiKey })).body.data;
    assert.deepEqual(
      gone.map((e: any) => [e.data.channel.status, e.data.draftedPostIds]),
      [['disconnected', [waiting.id]]],
    );
  });

  it("reads the profile's followersCount at each sync as the channel's audience in REST insights", async () => {
    const who = await person();
    const channel = await connect(who);
    await assertAudienceInInsights(t, a.apiKey, channel.id, (n) => appView.followers.set(who.did, n));
  });
});

describe('Bluesky on a self-hosted PDS without an AppView', function () {
  this.timeout(60_000);
  let bsky: LocalBluesky;
  let t: TestHerald;

  before(async () => {
    bsky = await startLocalBluesky();
  });
  after(async () => bsky?.close());
  beforeEach(async () => {
    // The test's image server and the PDS a person names are on
    // this machine, which the SSRF guard refuses unless listed.
    t = await startTestHerald({
      outboundAllowHosts: ['localhost', '127.0.0.1'],
      networkOriginOverrides: { 'https://bsky.social': bsky.pdsUrl, 'https://plc.directory': bsky.plcUrl },
    });
  });
  afterEach(() => t.close());

  it("syncs the repository's own posts as live posts, without metrics (the feed needs an AppView)", async () => {
    const a = await t.seedAccount({ channels: 0 });
    const who = await bsky.createAccount(`solo${Date.now().toString(36)}.test`);
    const connected = await t.api('POST', '/v1/rest/channels/connect', {
      token: a.apiKey,
      body: { network: 'bluesky', identifier: who.handle, appPassword: who.appPassword },
    });
    assert.equal(connected.status, 201, JSON.stringify(connected.body));
    const session = await bsky.session(who.handle, who.password);
    await bsky.xrpc(
      'POST',
      'com.atproto.repo.createRecord',
      {
        repo: who.did,
        collection: 'app.bsky.feed.post',
        record: { $type: 'app.bsky.feed.post', text: 'Self-hosted', createdAt: new Date().toISOString() },
      },
      session.accessJwt,
    );
    await testWorker(t).sync();
    const live = (await t.api('GET', '/v1/rest/posts?livePosts=true', { token: a.apiKey })).body.data.filter(
      (p: any) => p.isLivePost,
    );
    assert.deepEqual(
      live.map((p: any) => [p.text, p.metrics]),
      [['Self-hosted', {}]],
    );
    const insights = (await t.api('GET', '/v1/rest/insights', { token: a.apiKey })).body.data;
    assert.deepEqual(
      insights.byChannel.map((c: any) => [c.audienceStart, c.audienceEnd]),
      [[null, null]],
      'no AppView, no profile: no audience, never a zero',
    );
  });
});
