import assert from 'node:assert/strict';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { TINY_PNG } from '../media/fixtures.js';

/** The media library over REST: the same signed upload as the MCP media tools, and the library listed page by page. */
describe(`REST /media: the media library (${TEST_DB})`, function () {
  this.timeout(30_000);
  let t: TestHerald;
  let a: SeededAccount;

  beforeEach(async () => {
    t = await startTestHerald({ validateResponses: true });
    a = await t.seedAccount({ channels: 1 });
  });
  afterEach(() => t.close());

  async function upload(token: string, fileName: string): Promise<{ id: string; url: string }> {
    const started = await t.api('POST', '/v1/rest/media/uploads', {
      token,
      body: { fileName, contentType: 'image/png', sizeBytes: TINY_PNG.length },
    });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    const put = await fetch(started.body.data.uploadUrl, {
      method: started.body.data.method,
      headers: started.body.data.headers,
      body: TINY_PNG,
    });
    assert.equal(put.status, 200);
    const done = await t.api('POST', `/v1/rest/media/uploads/${started.body.data.uploadId}/complete`, { token });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    return done.body.data;
  }

  it('uploads a file through a signed URL, completes it once, and names it in a post', async () => {
    const started = await t.api('POST', '/v1/rest/media/uploads', {
      token: a.basicKey,
      body: { fileName: 'Team photo.png', contentType: 'image/png', sizeBytes: TINY_PNG.length },
    });
    assert.equal(started.status, 201, JSON.stringify(started.body));
    const { uploadId, uploadUrl, headers } = started.body.data;
    assert.match(uploadUrl, new RegExp(`^${t.url}/media/uploads/${uploadId}\\?`));
    assert.deepEqual(headers, { 'content-type': 'image/png' });

    const early = await t.api('POST', `/v1/rest/media/uploads/${uploadId}/complete`, { token: a.basicKey });
    assert.equal(early.status, 422);
    assert.equal(early.body.code, 'upload_incomplete');
    assert.equal((await fetch(uploadUrl, { method: 'PUT', headers, body: TINY_PNG })).status, 200);
    const done = await t.api('POST', `/v1/rest/media/uploads/${uploadId}/complete`, { token: a.basicKey });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    const media = done.body.data;
    assert.deepEqual(
      [media.contentType, media.kind, media.fileName, media.sizeBytes, media.width, media.height],
      ['image/png', 'image', 'Team-photo.png', TINY_PNG.length, 1, 1],
    );
    assert.equal(media.url, `${t.url}/media/${media.id}/Team-photo.png`);
    const again = await t.api('POST', `/v1/rest/media/uploads/${uploadId}/complete`, { token: a.basicKey });
    assert.equal(again.body.data.id, media.id, 'completing again answers the same media');

    const post = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: { text: 'With the photo', channelIds: a.channelIds, mediaIds: [media.id], saveAsDraft: true },
    });
    assert.equal(post.status, 201, JSON.stringify(post.body));
    assert.deepEqual(post.body.data[0].imageUrls, [media.url]);
  });

  it('refuses what the library cannot take, saying what to send instead', async () => {
    const text = await t.api('POST', '/v1/rest/media/uploads', {
      token: a.apiKey,
      body: { fileName: 'notes.txt', contentType: 'text/plain', sizeBytes: 10 },
    });
    assert.equal(text.status, 400);
    assert.match(text.body.message, /contentType text\/plain is not accepted/);
    assert.equal(text.body.details[0].path, 'contentType');
    const huge = await t.api('POST', '/v1/rest/media/uploads', {
      token: a.apiKey,
      body: { fileName: 'big.png', contentType: 'image/png', sizeBytes: t.config.media.maxUploadBytes + 1 },
    });
    assert.equal(huge.status, 400);
    assert.match(huge.body.message, /byte upload limit/);
    const missing = await t.api('POST', '/v1/rest/media/uploads', {
      token: a.apiKey,
      body: { fileName: 'a.png', contentType: 'image/png' },
    });
    assert.equal(missing.status, 400, 'sizeBytes is required');
    const unknown = await t.api('POST', '/v1/rest/media/uploads/01hx0000000000000000000000/complete', {
      token: a.apiKey,
    });
    assert.equal(unknown.status, 404);
  });

  it("lists the account's library newest first, page by page, and never another account's files", async () => {
    const first = await upload(a.apiKey, 'first.png');
    const second = await upload(a.apiKey, 'second.png');
    const third = await upload(a.apiKey, 'third.png');
    const other = await t.seedAccount({ channels: 0 });
    await upload(other.apiKey, 'theirs.png');

    const page1 = await t.api('GET', '/v1/rest/media?limit=2', { token: a.basicKey });
    assert.equal(page1.status, 200, JSON.stringify(page1.body));
    assert.deepEqual(
      page1.body.data.map((m: { id: string }) => m.id),
      [third.id, second.id],
    );
    assert.equal(page1.body.paging.hasMore, true);
    const page2 = await t.api(
      'GET',
      `/v1/rest/media?limit=2&cursor=${encodeURIComponent(page1.body.paging.nextCursor)}`,
      { token: a.basicKey },
    );
    assert.deepEqual(
      page2.body.data.map((m: { id: string }) => m.id),
      [first.id],
    );
    assert.deepEqual(page2.body.paging, { nextCursor: null, hasMore: false });

    const inWorkspace = await t.api(
      'GET',
      `/v1/rest/media?workspaceId=${a.workspaceId}&cursor=${encodeURIComponent(page1.body.paging.nextCursor)}`,
      { token: a.basicKey },
    );
    assert.equal(inWorkspace.status, 400, 'a cursor pages only the listing it came from');
    assert.match(inWorkspace.body.message, /Invalid cursor/);
    const theirs = await t.api('GET', `/v1/rest/media?workspaceId=${other.workspaceId}`, { token: a.basicKey });
    assert.equal(theirs.status, 404, "another account's workspace is not found");
    assert.equal((await t.api('GET', '/v1/rest/media', { token: other.apiKey })).body.data.length, 1);
  });
});
