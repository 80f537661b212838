import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { safeMediaChecker } from '../../src/publishing/media-check.js';
import { NETWORK_CAPABILITIES } from '../../src/domain/networks/capabilities.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { provisioning } from './provisioning.js';
import { testWorker } from './support.js';

describe('publishing: network rules', () => {
  it('makes first comments only on the networks SPEC lists (X as a reply), with a media URL only on LinkedIn and Facebook', () => {
    const withComments = Object.values(NETWORK_CAPABILITIES).filter((c) => c.firstComment !== 'none' && c.name !== 'sandbox').map((c) => c.name).sort();
    assert.deepEqual(withComments, ['facebook', 'instagram', 'linkedin', 'tiktok', 'x', 'youtube']);
    assert.equal(NETWORK_CAPABILITIES.x.firstComment, 'reply');
    const withMedia = Object.values(NETWORK_CAPABILITIES).filter((c) => c.commentMediaUrl && c.name !== 'sandbox').map((c) => c.name).sort();
    assert.deepEqual(withMedia, ['facebook', 'linkedin']);
    for (const name of ['threads', 'bluesky', 'mastodon', 'pinterest']) assert.equal(NETWORK_CAPABILITIES[name].firstComment, 'none', name);
  });

  describe('over REST', () => {
    let t: TestHerald;
    let a: SeededAccount;
    beforeEach(async () => {
      t = await startTestHerald();
      a = await t.seedAccount({ channels: 1 });
    });
    afterEach(() => t.close());

    it('refuses text longer than a channel\'s network allows on create and update, naming the limit', async () => {
      const x = await provisioning(t, a, 'x');
      const tooLong = 'a'.repeat(281);
      const created = await t.api('POST', '/v1/rest/posts', { token: a.apiKey, body: { channelIds: [x], text: tooLong, saveAsDraft: true } });
      assert.equal(created.status, 400, JSON.stringify(created.body));
      assert.match(created.body.message, /X allows 280 characters; this text has 281/);
      assert.equal(created.body.details[0].path, 'text');

      const ok = await t.api('POST', '/v1/rest/posts', { token: a.apiKey, body: { channelIds: [x], text: 'a'.repeat(280), saveAsDraft: true } });
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
      const patched = await t.api('PATCH', `/v1/rest/posts/${ok.body.data[0].id}`, { token: a.apiKey, body: { text: tooLong } });
      assert.equal(patched.status, 400, JSON.stringify(patched.body));
      assert.match(patched.body.message, /280 characters/);

      // The same text fits the sandbox: the limit is the channel's network's, not a global one.
      const onSandbox = await t.api('POST', '/v1/rest/posts', { token: a.apiKey, body: { channelIds: a.channelIds, text: tooLong, saveAsDraft: true } });
      assert.equal(onSandbox.status, 201, JSON.stringify(onSandbox.body));
    });

    it('shows the attempts on a read of the post', async () => {
      const created = await t.api('POST', '/v1/rest/posts', { token: a.apiKey, body: { channelIds: a.channelIds, text: 'Counted' } });
      await testWorker(t).tick();
      const got = (await t.api('GET', `/v1/rest/posts/${created.body.data[0].id}`, { token: a.apiKey })).body.data;
      assert.equal(got.status, 'published');
      assert.equal(got.attempts.length, 1);
      assert.deepEqual([got.attempts[0].number, got.attempts[0].outcome, got.attempts[0].error], [1, 'published', null]);
      assert.ok(Date.parse(got.attempts[0].finishedAt) >= Date.parse(got.attempts[0].startedAt));
      const listed = (await t.api('GET', '/v1/rest/posts', { token: a.apiKey })).body.data.find((p: { id: string }) => p.id === got.id);
      assert.deepEqual(listed.attempts, got.attempts);
    });
  });

  describe('media must be direct files (through the SSRF guard)', () => {
    let server: http.Server;
    let base: string;
    let t: TestHerald;
    let a: SeededAccount;
    const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');
    before(async () => {
      server = http.createServer((req, res) => {
        if (req.url === '/photo.png') res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
        else if (req.url === '/watch') res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><body>video page</body></html>');
        else if (req.url === '/data.json') res.writeHead(200, { 'content-type': 'application/json' }).end('{"a":1}');
        else res.writeHead(404).end();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    });
    after(() => new Promise<void>((resolve) => server.close(() => resolve())));
    beforeEach(async () => {
      t = await startTestHerald();
      a = await t.seedAccount({ channels: 1 });
    });
    afterEach(() => t.close());

    const publishWith = async (imageUrls: string[], allowHosts: string[]) => {
      const created = await t.api('POST', '/v1/rest/posts', { token: a.apiKey, body: { channelIds: a.channelIds, text: 'With media', imageUrls } });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      await testWorker(t, {}, undefined, safeMediaChecker(allowHosts)).tick();
      return (await t.api('GET', `/v1/rest/posts/${created.body.data[0].id}`, { token: a.apiKey })).body.data;
    };

    it('publishes a direct image', async () => {
      const got = await publishWith([`${base}/photo.png`], ['127.0.0.1']);
      assert.equal(got.status, 'published', got.error);
    });

    it('fails a post whose media URL is a web page, saying so, without calling the network', async () => {
      const got = await publishWith([`${base}/photo.png`, `${base}/watch`], ['127.0.0.1']);
      assert.equal(got.status, 'failed');
      assert.match(got.error, /is a web page \(HTML\), not an image or video file/);
      assert.deepEqual(got.attempts, []);
      assert.equal(await t.deps.repos.sandbox.countOnChannel(a.channelIds[0]), 0);
    });

    it('fails a post whose media is neither image nor video', async () => {
      const got = await publishWith([`${base}/data.json`], ['127.0.0.1']);
      assert.equal(got.status, 'failed');
      assert.match(got.error, /not a JPEG, PNG/);
    });

    it('refuses loopback media unless the operator allowed the host', async () => {
      const got = await publishWith([`${base}/photo.png`], []);
      assert.equal(got.status, 'failed');
      assert.equal(await t.deps.repos.sandbox.countOnChannel(a.channelIds[0]), 0);
    });
  });
});
