import assert from 'node:assert/strict';
import { loadConfig } from '../../src/config.js';
import * as provisioning from '../../src/domain/provisioning.js';
import { heraldMediaChecker, testWorker } from '../publishing/support.js';
import { startFakeX, type FakeX } from '../support/fake-x.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { TINY_JPEG, TINY_PNG } from './fixtures.js';

/**
 * Files of Herald's own media library are read from its storage when a post goes out, never fetched back from
 * Herald's address: on the default configuration (no OUTBOUND_ALLOW_HOSTS) an instance at http://127.0.0.1 publishes
 * them. A network that fetches media from the URL itself cannot reach such an instance, and is refused when written.
 */
describe(`media of Herald's own library, on the default configuration (${TEST_DB})`, function () {
  this.timeout(60_000);
  let t: TestHerald;
  let a: SeededAccount;
  let x: FakeX | undefined;

  afterEach(async () => {
    await t?.close();
    await x?.close();
    x = undefined;
  });

  async function start(overrides: Parameters<typeof startTestHerald>[0] = {}) {
    t = await startTestHerald(overrides);
    assert.deepEqual(t.config.outboundAllowHosts, [], 'no host is let past the SSRF guard');
    a = await t.seedAccount({ channels: 1 });
  }

  async function upload(
    file: { name: string; type: string; bytes: Buffer } = { name: 'logo.png', type: 'image/png', bytes: TINY_PNG },
  ): Promise<{ id: string; url: string }> {
    const token = a.apiKey;
    const started = await t.api('POST', '/v1/rest/media/uploads', {
      token,
      body: { fileName: file.name, contentType: file.type, sizeBytes: file.bytes.length },
    });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    const put = await fetch(started.body.data.uploadUrl, {
      method: started.body.data.method,
      headers: started.body.data.headers,
      body: new Uint8Array(file.bytes),
    });
    assert.equal(put.status, 200);
    const done = await t.api('POST', `/v1/rest/media/uploads/${started.body.data.uploadId}/complete`, { token });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    return done.body.data;
  }

  async function publishNow(body: Record<string, unknown>, token = a.apiKey) {
    const created = await t.api('POST', '/v1/rest/posts', { token, body });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await testWorker(t, {}, undefined, heraldMediaChecker(t)).tick();
    return (await t.api('GET', `/v1/rest/posts/${created.body.data[0].id}`, { token })).body.data;
  }

  it('publishes an uploaded image to the sandbox; another account naming its URL has no such file', async () => {
    await start();
    const media = await upload();
    assert.match(media.url, /^http:\/\/127\.0\.0\.1:\d+\/media\//);
    const post = await publishNow({ channelIds: a.channelIds, text: 'Our new logo', mediaIds: [media.id] });
    assert.equal(post.status, 'published', post.error);
    assert.deepEqual(post.imageUrls, [media.url]);

    const other = await t.seedAccount({ channels: 1 });
    const borrowed = await publishNow(
      { channelIds: other.channelIds, text: 'Not ours', imageUrls: [media.url] },
      other.apiKey,
    );
    assert.equal(borrowed.status, 'failed');
    assert.match(borrowed.error, /is not in this account's media library/);
  });

  it('hands the uploaded bytes to X, which takes the file itself', async () => {
    x = await startFakeX();
    await start({
      networkOriginOverrides: { 'https://x.com': x.url, 'https://api.x.com': x.url },
      networks: { ...loadConfig({}).networks, apps: { x: { clientId: x.clientId, clientSecret: x.clientSecret } } },
    });
    x.redirectUris.push(`${t.url}/connect/x/callback`);
    const started = await t.api('POST', '/v1/rest/channels/connect', { token: a.apiKey, body: { network: 'x' } });
    assert.equal(started.status, 200, JSON.stringify(started.body));
    const consent = await fetch(started.body.authorizationUrl, { redirect: 'manual' });
    assert.equal((await fetch(consent.headers.get('location')!)).status, 200);
    const channel = (
      (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data as { id: string; network: string }[]
    ).find((c) => c.network === 'x')!;

    const media = await upload();
    const post = await publishNow({ channelIds: [channel.id], text: 'Our new logo on X', mediaIds: [media.id] });
    assert.equal(post.status, 'published', post.error);
    const sent = x.posts.find((p) => p.typed === 'Our new logo on X')!;
    assert.equal(sent.mediaKeys.length, 1);
    const file = x.media.get(sent.mediaKeys[0].split('_')[1])!;
    assert.deepEqual(
      [file.mediaType, file.totalBytes],
      ['image/png', TINY_PNG.length],
      'the file arrived whole, with its type',
    );
    assert.deepEqual(x.refusals, []);
  });

  it(
    'warns when a network that fetches media from Herald is connected on an instance it cannot reach; ' +
      'X is not warned of',
    async () => {
      await start({
        networks: {
          ...loadConfig({}).networks,
          apps: {
            pinterest: { clientId: 'app', clientSecret: 'secret' },
            x: { clientId: 'app', clientSecret: 'secret' },
          },
        },
      });
      const pinterest = await t.api('POST', '/v1/rest/channels/connect', {
        token: a.apiKey,
        body: { network: 'pinterest' },
      });
      assert.equal(pinterest.status, 200, JSON.stringify(pinterest.body));
      assert.match(
        pinterest.body.warning,
        new RegExp(
          "Pinterest fetches media from Herald's address, " +
            `and this Herald is at ${t.url.replace(/\./g, '\\.')}, which Pinterest cannot reach`,
        ),
      );
      const xStarted = await t.api('POST', '/v1/rest/channels/connect', { token: a.apiKey, body: { network: 'x' } });
      assert.equal(xStarted.status, 200, JSON.stringify(xStarted.body));
      assert.equal(xStarted.body.warning, undefined);
    },
  );

  it(
    'refuses when written a library file for Instagram on an instance Instagram cannot reach, ' +
      'naming BASE_URL; public URLs elsewhere pass',
    async () => {
      await start();
      const instagram = await provisioning.addChannel(t.deps, {
        accountId: a.accountId,
        workspaceId: a.workspaceId,
        network: 'instagram',
        handle: 'brand',
      });
      const media = await upload({ name: 'logo.jpg', type: 'image/jpeg', bytes: TINY_JPEG });
      const refused = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [instagram.id], text: 'Our new logo', mediaIds: [media.id] },
      });
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.match(
        refused.body.message,
        new RegExp(
          `Instagram fetches media from Herald's address, and this Herald is at ${t.url.replace(/\./g, '\\.')}, ` +
            'which Instagram cannot reach; set BASE_URL to a public https address',
        ),
      );
      const sandboxToo = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [a.channelIds[0], instagram.id], text: 'Both', imageUrls: [media.url] },
      });
      assert.equal(sandboxToo.status, 400, 'nothing is written for the other channel either');
      assert.equal((await t.api('GET', '/v1/rest/posts?limit=10', { token: a.apiKey })).body.data.length, 0);
      const draft = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [instagram.id], text: 'Later', mediaIds: [media.id], saveAsDraft: true },
      });
      assert.equal(draft.status, 201, 'a draft goes nowhere, so it is kept until BASE_URL may be public');
      await t.api('DELETE', `/v1/rest/posts/${draft.body.data[0].id}`, { token: a.apiKey });

      const elsewhere = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [instagram.id], text: 'Hosted elsewhere', imageUrls: ['https://cdn.example.com/logo.jpg'] },
      });
      assert.equal(elsewhere.status, 201, JSON.stringify(elsewhere.body));
      const moved = await t.api('PATCH', `/v1/rest/posts/${elsewhere.body.data[0].id}`, {
        token: a.apiKey,
        body: { imageUrls: [media.url] },
      });
      assert.equal(moved.status, 400, JSON.stringify(moved.body));
      assert.match(moved.body.message, /Instagram cannot reach/);
    },
  );
});
