/**
 * Media in an S3-compatible bucket: Herald against a real S3 wire-protocol server (s3rver) on loopback,
 * through the official MCP SDK client. The bucket is read back with the AWS SDK, not through Herald.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import S3rver from 's3rver';
import { purgeExpired } from '../../src/domain/housekeeping.js';
import { connectSdkClient } from '../mcp/support.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { TINY_PNG } from './fixtures.js';

const BUCKET = 'herald-media';
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

function ok(result: Awaited<ReturnType<Client['callTool']>>): any {
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  return result.structuredContent;
}

describe(`media in an S3-compatible bucket (${TEST_DB})`, () => {
  let directory: string;
  let s3: S3rver;
  let endpoint: string;
  let bucket: S3Client;
  let origin: http.Server;
  let originBase: string;
  let h: TestHerald;
  let account: SeededAccount;
  let client: Client;

  const keys = async () =>
    ((await bucket.send(new ListObjectsV2Command({ Bucket: BUCKET }))).Contents ?? []).map((o) => o.Key!).sort();
  const object = async (key: string) =>
    Buffer.from(
      await (await bucket.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }))).Body!.transformToByteArray(),
    );

  before(async () => {
    directory = fs.mkdtempSync(path.join(os.tmpdir(), 'herald-s3-'));
    s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory });
    const { port } = await s3.run();
    endpoint = `http://127.0.0.1:${port}`;
    bucket = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials: CREDENTIALS });
    await bucket.send(new CreateBucketCommand({ Bucket: BUCKET }));

    origin = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(TINY_PNG));
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.2', resolve));
    originBase = `http://127.0.0.2:${(origin.address() as AddressInfo).port}`;

    // The image's origin is on loopback, which the SSRF guard refuses unless it is listed.
    h = await startTestHerald({
      outboundAllowHosts: ['127.0.0.2'],
      media: {
        maxUploadBytes: 100_000,
        maxImportBytes: 100_000,
        importTimeoutMs: 5_000,
        s3: { bucket: BUCKET, region: 'us-east-1', endpoint, ...CREDENTIALS, forcePathStyle: true, prefix: 'media/' },
      },
    });
    account = await h.seedAccount();
    client = await connectSdkClient(h, account.basicKey);
  });
  after(async () => {
    await client?.close();
    await h?.close();
    await new Promise((resolve) => origin?.close(resolve));
    await s3?.close();
    fs.rmSync(directory, { recursive: true, force: true });
  });

  it('stores an upload in the bucket and serves the same bytes at the direct link', async () => {
    const upload = ok(
      await client.callTool({
        name: 'create_media_upload',
        arguments: { fileName: 'photo.png', contentType: 'image/png', sizeBytes: TINY_PNG.length },
      }),
    );
    assert.equal(
      (await fetch(upload.uploadUrl, { method: 'PUT', headers: upload.headers, body: TINY_PNG })).status,
      200,
    );
    assert.deepEqual(await keys(), [`media/uploads/${upload.uploadId}`], 'the pending upload lives in the bucket');

    const media = ok(
      await client.callTool({ name: 'complete_media_upload', arguments: { uploadId: upload.uploadId } }),
    ).data;
    const stored = `media/${account.workspaceId}/${media.id}/photo.png`;
    assert.deepEqual(await keys(), [stored], 'completing moves it to its final key and removes the pending one');
    assert.ok((await object(stored)).equals(TINY_PNG));

    const file = await fetch(media.url);
    assert.equal(file.status, 200);
    assert.equal(file.headers.get('content-type'), 'image/png');
    assert.ok(Buffer.from(await file.arrayBuffer()).equals(TINY_PNG));
  });

  it('imports a URL into the bucket', async () => {
    const media = ok(
      await client.callTool({ name: 'import_media_from_url', arguments: { url: `${originBase}/logo.png` } }),
    ).data;
    const stored = `media/${account.workspaceId}/${media.id}/logo.png`;
    assert.ok((await keys()).includes(stored));
    assert.ok((await object(stored)).equals(TINY_PNG));
    assert.ok(Buffer.from(await (await fetch(media.url)).arrayBuffer()).equals(TINY_PNG));
  });

  it('removes an upload never completed from the bucket when it expires', async () => {
    const upload = ok(
      await client.callTool({
        name: 'create_media_upload',
        arguments: { fileName: 'late.png', contentType: 'image/png', sizeBytes: TINY_PNG.length },
      }),
    );
    assert.equal(
      (await fetch(upload.uploadUrl, { method: 'PUT', headers: upload.headers, body: TINY_PNG })).status,
      200,
    );
    assert.ok((await keys()).includes(`media/uploads/${upload.uploadId}`));
    await purgeExpired({ ...h.deps, now: () => Date.parse(upload.expiresAt) + 1 });
    assert.ok(!(await keys()).includes(`media/uploads/${upload.uploadId}`));
  });

  it('answers a clear error, not a crash, when the bucket cannot be reached', async () => {
    const logged: unknown[] = [];
    const broken = await startTestHerald(
      {
        // The image origin for imports is on loopback, which the SSRF guard refuses unless it is listed.
        outboundAllowHosts: ['127.0.0.2'],
        media: {
          maxUploadBytes: 100_000,
          maxImportBytes: 100_000,
          importTimeoutMs: 5_000,
          s3: {
            bucket: 'missing-bucket',
            region: 'us-east-1',
            endpoint,
            ...CREDENTIALS,
            forcePathStyle: true,
            prefix: 'media/',
          },
        },
      },
      { info: () => undefined, warn: () => undefined, error: (_message, error) => logged.push(error) },
    );
    try {
      const owner = await broken.seedAccount();
      const mcp = await connectSdkClient(broken, owner.basicKey);
      try {
        const upload = ok(
          await mcp.callTool({
            name: 'create_media_upload',
            arguments: { fileName: 'a.png', contentType: 'image/png', sizeBytes: TINY_PNG.length },
          }),
        );
        const put = await fetch(upload.uploadUrl, { method: 'PUT', headers: upload.headers, body: TINY_PNG });
        assert.equal(put.status, 503);
        const body = await put.json();
        assert.equal(body.code, 'service_unavailable');
        assert.match(body.message, /media storage is unavailable \(the bucket answered NoSuchBucket\).*S3_\* settings/);
        assert.doesNotMatch(
          JSON.stringify(body),
          /S3RVER|missing-bucket/,
          'no credentials or bucket names in the answer',
        );
        const imported = await mcp.callTool({
          name: 'import_media_from_url',
          arguments: { url: `${originBase}/logo.png` },
        });
        assert.equal(imported.isError, true);
        assert.match((imported.content as { text: string }[])[0].text, /media storage is unavailable/);
        assert.deepEqual(
          logged.map((error) => (error as Error).name),
          ['NoSuchBucket', 'NoSuchBucket'],
          'the operator finds the cause in the log',
        );
      } finally {
        await mcp.close();
      }
    } finally {
      await broken.close();
    }
  });
});
