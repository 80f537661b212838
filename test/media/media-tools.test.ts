/**
 * The media tools through the official MCP SDK client: signed upload round trip, type and size checks,
 * and import_media_from_url against a local origin on 127.0.0.2 (allowed by OUTBOUND_ALLOW_HOSTS) plus
 * the SSRF refusals the guard must make.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { connectSdkClient } from '../mcp/support.js';
import { purgeExpired } from '../../src/domain/housekeeping.js';
import { TINY_MP4, TINY_PNG } from './fixtures.js';

const MEDIA_AI_CALENDAR_TOOLS = [
  'create_media_upload',
  'complete_media_upload',
  'import_media_from_url',
  'generate_post',
  'suggest_hashtags',
  'rewrite',
  'generate_image',
  'get_calendar_view_options',
  'get_shareable_calendars',
  'get_in_app_calendar_url',
  'create_public_calendar_link',
  'update_shareable_calendar',
  'delete_shareable_calendar',
];

const ORIGIN_HOST = '127.0.0.2';

async function startOrigin(): Promise<{ base: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://origin');
    if (url.pathname === '/photo.png') res.writeHead(200, { 'content-type': 'image/png' }).end(TINY_PNG);
    else if (url.pathname === '/clip.mp4') res.writeHead(200, { 'content-type': 'video/mp4' }).end(TINY_MP4);
    else if (url.pathname === '/watch')
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!DOCTYPE html><html><head><title>Video</title></head><body>player</body></html>');
    else if (url.pathname === '/preview')
      res
        .writeHead(200, { 'content-type': 'application/octet-stream' })
        .end('<html><body>Preview of photo.png</body></html>');
    else if (url.pathname === '/huge.png') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.concat([TINY_PNG, Buffer.alloc(200_000)]));
    } else if (url.pathname === '/go') res.writeHead(302, { location: url.searchParams.get('to')! }).end();
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, ORIGIN_HOST, resolve));
  return {
    base: `http://${ORIGIN_HOST}:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function ok(result: Awaited<ReturnType<Client['callTool']>>): any {
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  return result.structuredContent;
}

function failure(result: Awaited<ReturnType<Client['callTool']>>): string {
  assert.equal(result.isError, true, `expected a tool error, got ${JSON.stringify(result.structuredContent)}`);
  return (result.content as { text: string }[])[0].text;
}

describe(`media tools through the MCP SDK client (${TEST_DB})`, () => {
  let h: TestHerald;
  let account: SeededAccount;
  let client: Client;
  let origin: Awaited<ReturnType<typeof startOrigin>>;

  before(async () => {
    origin = await startOrigin();
    h = await startTestHerald({
      // The image origin for imports is on loopback, which the SSRF guard refuses unless it is listed.
      outboundAllowHosts: [ORIGIN_HOST],
      media: { maxUploadBytes: 100_000, maxImportBytes: 100_000, importTimeoutMs: 5_000 },
    });
    account = await h.seedAccount();
    client = await connectSdkClient(h, account.basicKey);
  });
  after(async () => {
    await client.close();
    await h.close();
    await origin.close();
  });

  it('lists the 13 media, AI and calendar tools on /mcp, and all but generate_image on /mcp/claude', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    for (const name of MEDIA_AI_CALENDAR_TOOLS) assert.ok(names.includes(name), `${name} is listed on /mcp`);
    const claude = await connectSdkClient(h, account.basicKey, '/mcp/claude');
    try {
      const claudeNames = (await claude.listTools()).tools.map((t) => t.name);
      assert.ok(!claudeNames.includes('generate_image'));
      for (const name of MEDIA_AI_CALENDAR_TOOLS.filter((n) => n !== 'generate_image'))
        assert.ok(claudeNames.includes(name), `${name} on /mcp/claude`);
    } finally {
      await claude.close();
    }
  });

  it('uploads through the signed URL, completes, serves a direct file link, and posts it by media id', async () => {
    const upload = ok(
      await client.callTool({
        name: 'create_media_upload',
        arguments: { fileName: 'Team photo.PNG', contentType: 'image/png', sizeBytes: TINY_PNG.length },
      }),
    );
    assert.match(upload.uploadUrl, new RegExp(`^${h.url}/media/uploads/${upload.uploadId}\\?`));
    assert.equal(upload.method, 'PUT');

    const tampered = await fetch(upload.uploadUrl.replace(/sig=[^&]+/, 'sig=forged'), {
      method: 'PUT',
      headers: upload.headers,
      body: TINY_PNG,
    });
    assert.equal(tampered.status, 403);
    const early = await client.callTool({ name: 'complete_media_upload', arguments: { uploadId: upload.uploadId } });
    assert.match(failure(early), /PUT the file to the uploadUrl first/);

    const put = await fetch(upload.uploadUrl, { method: 'PUT', headers: upload.headers, body: TINY_PNG });
    assert.equal(put.status, 200);
    const media = ok(
      await client.callTool({ name: 'complete_media_upload', arguments: { uploadId: upload.uploadId } }),
    ).data;
    assert.equal(media.contentType, 'image/png');
    assert.equal(media.kind, 'image');
    assert.equal(media.fileName, 'Team-photo.png');
    assert.deepEqual([media.width, media.height], [1, 1]);
    assert.equal(media.sizeBytes, TINY_PNG.length);
    assert.equal(media.url, `${h.url}/media/${media.id}/Team-photo.png`);

    const again = ok(
      await client.callTool({ name: 'complete_media_upload', arguments: { uploadId: upload.uploadId } }),
    ).data;
    assert.equal(again.id, media.id, 'completing twice answers the same media');

    const file = await fetch(media.url);
    assert.equal(file.status, 200);
    assert.equal(file.headers.get('content-type'), 'image/png');
    assert.ok(Buffer.from(await file.arrayBuffer()).equals(TINY_PNG));

    const post = ok(
      await client.callTool({
        name: 'create_image_post',
        arguments: { channelIds: [account.channelIds[0]], mediaIds: [media.id], saveAsDraft: true },
      }),
    );
    assert.deepEqual(post.data[0].imageUrls, [media.url]);
    assert.equal(post.data[0].type, 'image');
    const rest = await h.api('POST', '/v1/rest/posts', {
      token: account.apiKey,
      body: { text: 'over REST', channelIds: [account.channelIds[1]], saveAsDraft: true, mediaIds: [media.id] },
      headers: { 'idempotency-key': `media-${media.id}` },
    });
    assert.equal(rest.status, 201, JSON.stringify(rest.body));
    assert.deepEqual(rest.body.data[0].imageUrls, [media.url]);
    const unknown = await client.callTool({
      name: 'create_text_post',
      arguments: { text: 'x', channelIds: [account.channelIds[0]], mediaIds: ['nope'], saveAsDraft: true },
    });
    assert.match(failure(unknown), /No media nope in this account/);
  });

  it('refuses a file whose bytes are not the type it claims, and types networks do not take', async () => {
    const upload = ok(
      await client.callTool({
        name: 'create_media_upload',
        arguments: { fileName: 'fake.png', contentType: 'image/png', sizeBytes: 100 },
      }),
    );
    const put = await fetch(upload.uploadUrl, {
      method: 'PUT',
      headers: upload.headers,
      body: '<html><script>alert(1)</script></html>',
    });
    assert.equal(put.status, 200);
    assert.match(
      failure(await client.callTool({ name: 'complete_media_upload', arguments: { uploadId: upload.uploadId } })),
      /accepted types are image\/jpeg/,
    );
    assert.match(
      failure(
        await client.callTool({
          name: 'create_media_upload',
          arguments: { fileName: 'a.svg', contentType: 'image/svg+xml', sizeBytes: 10 },
        }),
      ),
      /not accepted/,
    );
    const wrongHeader = ok(
      await client.callTool({
        name: 'create_media_upload',
        arguments: { fileName: 'a.png', contentType: 'image/png', sizeBytes: 100 },
      }),
    );
    assert.equal(
      (await fetch(wrongHeader.uploadUrl, { method: 'PUT', headers: { 'content-type': 'text/html' }, body: 'x' }))
        .status,
      415,
    );
  });

  it('refuses oversized files: declared over the limit, and more bytes than declared', async () => {
    assert.match(
      failure(
        await client.callTool({
          name: 'create_media_upload',
          arguments: { fileName: 'big.png', contentType: 'image/png', sizeBytes: 100_001 },
        }),
      ),
      /100000 byte upload limit/,
    );
    const upload = ok(
      await client.callTool({
        name: 'create_media_upload',
        arguments: { fileName: 'a.png', contentType: 'image/png', sizeBytes: 10 },
      }),
    );
    const put = await fetch(upload.uploadUrl, { method: 'PUT', headers: upload.headers, body: TINY_PNG });
    assert.equal(put.status, 413);
    assert.match(
      failure(await client.callTool({ name: 'complete_media_upload', arguments: { uploadId: upload.uploadId } })),
      /PUT the file/,
    );
  });

  it('forgets uploads never completed once they expire (housekeeping)', async () => {
    const upload = ok(
      await client.callTool({
        name: 'create_media_upload',
        arguments: { fileName: 'a.png', contentType: 'image/png', sizeBytes: TINY_PNG.length },
      }),
    );
    assert.equal(
      (await fetch(upload.uploadUrl, { method: 'PUT', headers: upload.headers, body: TINY_PNG })).status,
      200,
    );
    const purged = await purgeExpired({ ...h.deps, now: () => Date.parse(upload.expiresAt) + 1 });
    assert.ok(purged.mediaUploads >= 1);
    assert.match(
      failure(await client.callTool({ name: 'complete_media_upload', arguments: { uploadId: upload.uploadId } })),
      /No upload/,
    );
    assert.equal(
      (await fetch(upload.uploadUrl, { method: 'PUT', headers: upload.headers, body: TINY_PNG })).status,
      403,
    );
  });

  it('imports a direct image and a video from a URL, reading the video duration', async () => {
    const image = ok(
      await client.callTool({ name: 'import_media_from_url', arguments: { url: `${origin.base}/photo.png` } }),
    ).data;
    assert.equal(image.contentType, 'image/png');
    assert.equal(image.fileName, 'photo.png');
    const served = await fetch(image.url);
    assert.ok(Buffer.from(await served.arrayBuffer()).equals(TINY_PNG));
    const video = ok(
      await client.callTool({
        name: 'import_media_from_url',
        arguments: { url: `${origin.base}/go?to=/clip.mp4`, fileName: 'launch clip' },
      }),
    ).data;
    assert.equal(video.kind, 'video');
    assert.equal(video.contentType, 'video/mp4');
    assert.equal(video.fileName, 'launch-clip.mp4');
    assert.equal(video.durationSeconds, 2.5);
  });

  it('refuses HTML pages (watch pages, storage previews) saying why, and files over the import limit', async () => {
    assert.match(
      failure(await client.callTool({ name: 'import_media_from_url', arguments: { url: `${origin.base}/watch` } })),
      /web page \(HTML\), not an image or video file/,
    );
    assert.match(
      failure(await client.callTool({ name: 'import_media_from_url', arguments: { url: `${origin.base}/preview` } })),
      /web page \(HTML\)/,
    );
    assert.match(
      failure(await client.callTool({ name: 'import_media_from_url', arguments: { url: `${origin.base}/huge.png` } })),
      /larger than the 100000 byte limit/,
    );
  });

  it(
    'refuses server-side request forgery: loopback, private, metadata, ' +
      'a name resolving to loopback, and a redirect to a private address',
    async () => {
      const port = new URL(origin.base).port;
      const attempts = [
        `http://127.0.0.1:${port}/photo.png`,
        'http://10.0.0.1/photo.png',
        'http://169.254.169.254/latest/meta-data/',
        `http://localhost:${port}/photo.png`,
        'http://[::ffff:127.0.0.1]/photo.png',
        `${origin.base}/go?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`,
        `${origin.base}/go?to=${encodeURIComponent('http://10.1.2.3/photo.png')}`,
      ];
      for (const url of attempts) {
        const message = failure(await client.callTool({ name: 'import_media_from_url', arguments: { url } }));
        assert.match(message, /is not an address Herald may fetch from; use a URL on the public internet\./, url);
      }
    },
  );
});
