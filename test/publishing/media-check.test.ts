import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { safeMediaChecker } from '../../src/publishing/media-check.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { testWorker } from './support.js';

const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001000000010806000000', 'hex');

describe('publishing: media URLs must be direct files', () => {
  let t: TestHerald;
  let a: SeededAccount;
  let files: http.Server;
  let base: string;
  before(async () => {
    t = await startTestHerald();
    a = await t.seedAccount({ channels: 1 });
    files = http.createServer((req, res) => {
      if (req.url === '/photo.png') res.writeHead(200, { 'content-type': 'image/png' }).end(PNG);
      else if (req.url === '/watch') res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><html><body>A video page</body></html>');
      else res.writeHead(404).end();
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', () => resolve()));
    base = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  });
  after(async () => {
    files.closeAllConnections();
    await new Promise((resolve) => files.close(resolve));
    await t.close();
  });

  const publish = async (body: Record<string, unknown>, allowHosts: string[]) => {
    const res = await t.api('POST', '/v1/rest/posts', { token: a.apiKey, body: { channelIds: a.channelIds, ...body } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    await testWorker(t, {}, undefined, safeMediaChecker(allowHosts)).tick();
    return (await t.api('GET', `/v1/rest/posts/${res.body.data[0].id}`, { token: a.apiKey })).body.data;
  };

  it('publishes a post whose image URL is a direct image file', async () => {
    const post = await publish({ text: 'A photo', imageUrls: [`${base}/photo.png`] }, ['127.0.0.1']);
    assert.equal(post.status, 'published', post.error);
  });

  it('fails a post whose video URL is a web page, saying so', async () => {
    const post = await publish({ text: 'A watch page', videoUrls: [`${base}/watch`] }, ['127.0.0.1']);
    assert.equal(post.status, 'failed');
    assert.match(post.error, /is a web page \(HTML\), not an image or video file/);
    assert.equal(await t.deps.repos.sandbox.countOnChannel(a.channelIds[0]), 1, 'only the photo post reached the network');
  });

  it('fails a post whose media URL points into Herald’s own network (SSRF guard)', async () => {
    const post = await publish({ text: 'Internal', imageUrls: [`${base}/photo.png`] }, []);
    assert.equal(post.status, 'failed');
    assert.match(post.error, /cannot be used/);
  });
});
