import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { connectorChannel } from '../../src/domain/networks/channel-connections.js';
import { NOT_MADE } from '../../src/domain/networks/connector.js';
import { SandboxNetwork } from '../../src/publishing/networks/sandbox.js';
import { NETWORK_CAPABILITIES } from '../../src/domain/networks/capabilities.js';
import * as provisioning_ from '../../src/domain/provisioning.js';
import { newId } from '../../src/domain/ids.js';
import { jpegOfSize, TINY_MP4, TINY_PNG } from '../media/fixtures.js';
import { callTool } from '../mcp/support.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { provisioning } from './provisioning.js';
import { heraldMediaChecker, testWorker } from './support.js';

describe('publishing: network rules', () => {
  it(
    'makes first comments on the networks SPEC lists (X as a reply; TikTok and Pinterest, ' +
      'which have no comment API, and Google Business Profile, whose local posts take none, refuse them) ' +
      'as replies on Bluesky, Mastodon and Nostr, and as comments on WordPress and Reddit, ' +
      'with a media URL only on LinkedIn and Facebook',
    () => {
      const withComments = Object.values(NETWORK_CAPABILITIES)
        .filter((c) => c.firstComment !== 'none' && c.name !== 'sandbox')
        .map((c) => c.name)
        .sort();
      assert.deepEqual(withComments, [
        'bluesky',
        'discord',
        'facebook',
        'instagram',
        'linkedin',
        'mastodon',
        'nostr',
        'reddit',
        'slack',
        'telegram',
        'wordpress',
        'x',
        'youtube',
      ]);
      assert.deepEqual(
        Object.values(NETWORK_CAPABILITIES)
          .filter((c) => c.firstCommentRefused)
          .map((c) => c.name),
        ['tiktok', 'pinterest', 'google_business'],
      );
      assert.equal(NETWORK_CAPABILITIES.bluesky.firstComment, 'reply');
      assert.equal(NETWORK_CAPABILITIES.mastodon.firstComment, 'reply');
      assert.equal(NETWORK_CAPABILITIES.x.firstComment, 'reply');
      assert.equal(NETWORK_CAPABILITIES.nostr.firstComment, 'reply');
      assert.equal(NETWORK_CAPABILITIES.wordpress.firstComment, 'comment');
      assert.equal(NETWORK_CAPABILITIES.telegram.firstComment, 'reply');
      assert.equal(NETWORK_CAPABILITIES.discord.firstComment, 'reply');
      assert.equal(NETWORK_CAPABILITIES.slack.firstComment, 'reply');
      assert.equal(NETWORK_CAPABILITIES.reddit.firstComment, 'comment');
      const withMedia = Object.values(NETWORK_CAPABILITIES)
        .filter((c) => c.commentMediaUrl && c.name !== 'sandbox')
        .map((c) => c.name)
        .sort();
      assert.deepEqual(withMedia, ['facebook', 'linkedin']);
      for (const name of ['threads', 'pinterest']) assert.equal(NETWORK_CAPABILITIES[name].firstComment, 'none', name);
    },
  );

  describe('over REST', () => {
    let t: TestHerald;
    let a: SeededAccount;
    beforeEach(async () => {
      t = await startTestHerald();
      a = await t.seedAccount({ channels: 1 });
    });
    afterEach(() => t.close());

    it("refuses text longer than a channel's network allows on create and update, naming the limit", async () => {
      const x = await provisioning(t, a, 'x');
      const tooLong = 'a'.repeat(281);
      const created = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [x], text: tooLong, saveAsDraft: true },
      });
      assert.equal(created.status, 400, JSON.stringify(created.body));
      assert.match(created.body.message, /X allows 280 characters; this text has 281/);
      assert.equal(created.body.details[0].path, 'text');

      const ok = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [x], text: 'a'.repeat(280), saveAsDraft: true },
      });
      assert.equal(ok.status, 201, JSON.stringify(ok.body));
      const patched = await t.api('PATCH', `/v1/rest/posts/${ok.body.data[0].id}`, {
        token: a.apiKey,
        body: { text: tooLong },
      });
      assert.equal(patched.status, 400, JSON.stringify(patched.body));
      assert.match(patched.body.message, /280 characters/);

      // The same text fits the sandbox: the limit is the channel's network's, not a global one.
      const onSandbox = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: a.channelIds, text: tooLong, saveAsDraft: true },
      });
      assert.equal(onSandbox.status, 201, JSON.stringify(onSandbox.body));
    });

    it('counts X text the way X does: CJK weighs 2, a link 23 whatever its length', async () => {
      const x = await provisioning(t, a, 'x');
      const cjk = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [x], text: '日'.repeat(141), saveAsDraft: true },
      });
      assert.equal(cjk.status, 400, JSON.stringify(cjk.body));
      assert.match(
        cjk.body.message,
        new RegExp(`Channel ${x}: X allows 280 characters; this text has 282 \\(X counts each link as 23`),
      );
      const link = `https://example.com/${'long/'.repeat(30)}`;
      const withLink = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [x], text: `${'a'.repeat(250)} ${link}`, saveAsDraft: true },
      });
      assert.equal(withLink.status, 201, JSON.stringify(withLink.body));
    });

    it('counts Bluesky text in graphemes, so combined characters count once', async () => {
      const bluesky = await provisioning(t, a, 'bluesky');
      const text = 'e\u0301'.repeat(300);
      const fits = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [bluesky], text, saveAsDraft: true },
      });
      assert.equal(fits.status, 201, JSON.stringify(fits.body));
      const over = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [bluesky], text: `${text}!`, saveAsDraft: true },
      });
      assert.equal(over.status, 400);
      assert.match(over.body.message, /Bluesky allows 300 characters; this text has 301/);
    });

    it('refuses a channel on a network Herald has no connector for, at channel and at post creation', async () => {
      await assert.rejects(
        provisioning_.addChannel(t.deps, {
          accountId: a.accountId,
          workspaceId: a.workspaceId,
          network: 'friendster',
          handle: '@f',
        }),
        /Herald has no connector for network "friendster"; it publishes to sandbox, x/,
      );
      const twitter = await provisioning_.addChannel(t.deps, {
        accountId: a.accountId,
        workspaceId: a.workspaceId,
        network: 'Twitter',
        handle: '@t',
      });
      assert.equal(
        (await t.deps.repos.channels.get(a.accountId, twitter.id))?.network,
        'x',
        'stored under the name connectors are registered by',
      );
      // A channel stored before networks were checked (or by an older Herald).
      const legacy = newId();
      await t.deps.repos.channels.create({
        id: legacy,
        accountId: a.accountId,
        workspaceId: a.workspaceId,
        network: 'friendster',
        handle: '@old',
        name: '@old',
        timezone: 'UTC',
        queuePaused: false,
        createdAt: Date.now(),
      });
      const created = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [a.channelIds[0], legacy], text: 'Hello' },
      });
      assert.equal(created.status, 400, JSON.stringify(created.body));
      assert.match(
        created.body.message,
        new RegExp(`Channel ${legacy}: Herald has no connector for network "friendster"`),
      );
      assert.equal(created.body.details[0].path, 'channelIds');
    });

    it("checks each bulk entry and MCP create against its channels' networks", async () => {
      const x = await provisioning(t, a, 'x');
      const bulk = await t.api('POST', '/v1/rest/posts/bulk', {
        token: a.apiKey,
        body: {
          posts: [
            { channelIds: [x], text: 'fits', saveAsDraft: true },
            { channelIds: [x], text: '日'.repeat(141), saveAsDraft: true },
          ],
        },
      });
      assert.equal(bulk.status, 200, JSON.stringify(bulk.body));
      assert.deepEqual(bulk.body.summary, { succeeded: 1, failed: 1 });
      const failed = bulk.body.results[1];
      assert.match(
        failed.error.message,
        /^posts\[1\]: The post does not fit its network: .*X allows 280 characters; this text has 282/,
      );
      assert.equal(failed.error.details[0].path, 'posts[1].text');

      const tool = await callTool(t, a.apiKey, 'create_text_post', {
        channelIds: [x],
        text: '日'.repeat(141),
        saveAsDraft: true,
      });
      assert.equal(tool.body.result.isError, true, JSON.stringify(tool.body));
      assert.match(tool.body.result.content[0].text, /X allows 280 characters; this text has 282/);
    });

    it("asks for a network's required channelOptions when an update sets them", async () => {
      const youtube = await provisioning(t, a, 'youtube');
      const created = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [youtube], text: 'A film', videoUrls: ['https://cdn.example/film.mp4'], saveAsDraft: true },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const id = created.body.data[0].id;
      const untitled = await t.api('PATCH', `/v1/rest/posts/${id}`, {
        token: a.apiKey,
        body: { channelOptions: { privacyStatus: 'unlisted' } },
      });
      assert.equal(untitled.status, 400, JSON.stringify(untitled.body));
      assert.match(untitled.body.message, /YouTube needs channelOptions.title \(the video title\)/);
      const titled = await t.api('PATCH', `/v1/rest/posts/${id}`, {
        token: a.apiKey,
        body: { channelOptions: { privacyStatus: 'unlisted', title: 'A film' } },
      });
      assert.equal(titled.status, 200, JSON.stringify(titled.body));
    });

    it(
      "checks files from Herald's media library against the network before the post is due: " +
        'format, aspect ratio, duration (REST, MCP, bulk, update)',
      async () => {
        const upload = async (
          fileName: string,
          contentType: string,
          bytes: Buffer,
        ): Promise<{ id: string; url: string }> => {
          const created = await callTool(t, a.apiKey, 'create_media_upload', {
            fileName,
            contentType,
            sizeBytes: bytes.length,
          });
          const target = created.body.result.structuredContent;
          assert.equal(
            (await fetch(target.uploadUrl, { method: 'PUT', headers: target.headers, body: new Uint8Array(bytes) }))
              .status,
            200,
          );
          const done = await callTool(t, a.apiKey, 'complete_media_upload', { uploadId: target.uploadId });
          assert.notEqual(done.body.result.isError, true, JSON.stringify(done.body));
          return done.body.result.structuredContent.data;
        };
        const instagram = await provisioning(t, a, 'instagram');
        const linkedin = await provisioning(t, a, 'linkedin');
        const png = await upload('square.png', 'image/png', TINY_PNG);
        const tall = await upload('tall.jpg', 'image/jpeg', jpegOfSize(300, 100));
        const square = await upload('square.jpg', 'image/jpeg', jpegOfSize(100, 100));
        const clip = await upload('clip.mp4', 'video/mp4', TINY_MP4);

        const asPng = await t.api('POST', '/v1/rest/posts', {
          token: a.apiKey,
          body: { channelIds: [instagram], text: 'A picture', imageUrls: [png.url], saveAsDraft: true },
        });
        assert.equal(asPng.status, 400, JSON.stringify(asPng.body));
        assert.match(
          asPng.body.message,
          new RegExp(`Channel ${instagram}: Instagram takes images as JPEG; imageUrls\\[0\\] is PNG`),
        );
        assert.equal(asPng.body.details[0].path, 'imageUrls[0]');
        const byId = await t.api('POST', '/v1/rest/posts', {
          token: a.apiKey,
          body: { channelIds: [instagram], text: 'Tall', mediaIds: [tall.id], saveAsDraft: true },
        });
        assert.equal(byId.status, 400, JSON.stringify(byId.body));
        assert.match(
          byId.body.message,
          /Instagram takes images from 0.8 to 1.91 \(width to height\); imageUrls\[0\] is 100 x 300\. Crop it\./,
        );
        const fits = await t.api('POST', '/v1/rest/posts', {
          token: a.apiKey,
          body: { channelIds: [instagram], text: 'Square', imageUrls: [square.url], saveAsDraft: true },
        });
        assert.equal(fits.status, 201, JSON.stringify(fits.body));
        const swapped = await t.api('PATCH', `/v1/rest/posts/${fits.body.data[0].id}`, {
          token: a.apiKey,
          body: { imageUrls: [tall.url] },
        });
        assert.equal(swapped.status, 400, JSON.stringify(swapped.body));
        assert.match(swapped.body.message, /100 x 300/);

        const short = await callTool(t, a.apiKey, 'create_image_post', {
          channelIds: [linkedin],
          text: 'A clip',
          mediaIds: [clip.id],
          saveAsDraft: true,
        });
        assert.equal(short.body.result.isError, true, JSON.stringify(short.body));
        assert.match(
          short.body.result.content[0].text,
          /LinkedIn takes videos of at least 3 s; videoUrls\[0\] lasts 2\.5 s/,
        );
        const bulk = await t.api('POST', '/v1/rest/posts/bulk', {
          token: a.apiKey,
          body: {
            posts: [
              { channelIds: [instagram], text: 'ok', imageUrls: [square.url], saveAsDraft: true },
              { channelIds: [linkedin], text: 'short', videoUrls: [clip.url], saveAsDraft: true },
            ],
          },
        });
        assert.deepEqual(bulk.body.summary, { succeeded: 1, failed: 1 });
        assert.equal(bulk.body.results[1].error.details[0].path, 'posts[1].videoUrls[0]');
        // A file Herald does not hold is seen only when the post goes out.
        const elsewhere = await t.api('POST', '/v1/rest/posts', {
          token: a.apiKey,
          body: {
            channelIds: [instagram],
            text: 'Elsewhere',
            imageUrls: ['https://cdn.example/any.png'],
            saveAsDraft: true,
          },
        });
        assert.equal(elsewhere.status, 201, JSON.stringify(elsewhere.body));
      },
    );

    it('shows the attempts on a read of the post', async () => {
      const created = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: a.channelIds, text: 'Counted' },
      });
      await testWorker(t).tick();
      const got = (await t.api('GET', `/v1/rest/posts/${created.body.data[0].id}`, { token: a.apiKey })).body.data;
      assert.equal(got.status, 'published');
      assert.equal(got.attempts.length, 1);
      assert.deepEqual(
        [got.attempts[0].number, got.attempts[0].outcome, got.attempts[0].error],
        [1, 'published', null],
      );
      assert.ok(Date.parse(got.attempts[0].finishedAt) >= Date.parse(got.attempts[0].startedAt));
      const listed = (await t.api('GET', '/v1/rest/posts', { token: a.apiKey })).body.data.find(
        (p: { id: string }) => p.id === got.id,
      );
      assert.deepEqual(listed.attempts, got.attempts);
    });
  });

  describe('the sandbox connector', () => {
    let t: TestHerald;
    let a: SeededAccount;
    beforeEach(async () => {
      t = await startTestHerald();
      a = await t.seedAccount({ channels: 1 });
    });
    afterEach(() => t.close());

    it('pages through recent posts newest first, and finds an attempt by its key', async () => {
      const sandbox = new SandboxNetwork(t.deps.repos.sandbox, t.url);
      const channel = connectorChannel(t.deps, (await t.deps.repos.channels.get(a.accountId, a.channelIds[0]))!);
      for (const text of ['one', 'two', 'three']) {
        await sandbox.publish({
          channel,
          postKey: { id: text, createdAt: 0 },
          text,
          imageUrls: [],
          videoUrls: [],
          channelOptions: null,
          attemptKey: `key-${text}`,
          recordHandle: async () => {},
        });
      }
      const first = await sandbox.recentPosts(channel, { cursor: null, limit: 2 });
      assert.deepEqual(
        first.posts.map((p) => [p.text, p.attemptKey]),
        [
          ['three', 'key-three'],
          ['two', 'key-two'],
        ],
      );
      assert.ok(first.nextCursor);
      const second = await sandbox.recentPosts(channel, { cursor: first.nextCursor, limit: 2 });
      assert.deepEqual(
        second.posts.map((p) => p.text),
        ['one'],
      );
      assert.equal(second.nextCursor, null);
      const found = await sandbox.findPublished({
        channel,
        postKey: { id: 'two', createdAt: 0 },
        attemptKey: 'key-two',
        text: 'two',
        attemptedAt: 0,
        handle: null,
      });
      assert.equal(found !== NOT_MADE && found?.networkPostId, first.posts[1].networkPostId);
      // The sandbox's posts are Herald's own rows: a key it has no post for made none, and never will.
      assert.equal(
        await sandbox.findPublished({
          channel,
          postKey: { id: 'two', createdAt: 0 },
          attemptKey: 'key-none',
          text: 'two',
          attemptedAt: 0,
          handle: null,
        }),
        NOT_MADE,
      );
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
        else if (req.url === '/watch')
          res
            .writeHead(200, { 'content-type': 'text/html' })
            .end('<!doctype html><html><body>video page</body></html>');
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
      const created = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: a.channelIds, text: 'With media', imageUrls },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      await testWorker(t, {}, undefined, heraldMediaChecker(t, allowHosts)).tick();
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
