/**
 * MCP Apps (io.modelcontextprotocol/ui): the views are offered only to clients that declare the extension, in
 * both eras, and render in headless Chromium inside a host built on the extension's own AppBridge.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import type { Page } from 'playwright-core';
import { capabilitiesOf } from '../../src/domain/networks/capabilities.js';
import { sealCredentials } from '../../src/domain/networks/credential-vault.js';
import { countText } from '../../src/domain/networks/text-length.js';
import * as provisioning from '../../src/domain/provisioning.js';
import { appSuite } from '../support/app-browser.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { connectClient, startHost, type AppsClient, type ClientKind, type Host } from './apps-support.js';
import { rpc } from './support.js';
import { describeOnce } from '../support/databases.js';

const PREVIEW_URI = 'ui://herald/post-preview';
const CALENDAR_URI = 'ui://herald/week-calendar';
const APPROVALS_URI = 'ui://herald/approval-queue';
const INSIGHTS_URI = 'ui://herald/insights';
const VIEW_OF: Record<string, string> = {
  create_text_post: PREVIEW_URI,
  create_image_post: PREVIEW_URI,
  update_post: PREVIEW_URI,
  get_paginated_posts: CALENDAR_URI,
  get_posts_for_channels: CALENDAR_URI,
  get_posts_with_assets: CALENDAR_URI,
  get_scheduled_posts: CALENDAR_URI,
  approval_list_pending: APPROVALS_URI,
  approval_approve: APPROVALS_URI,
  approval_reject: APPROVALS_URI,
  get_channel: INSIGHTS_URI,
};
/** Shown in the screenshot: the machine's Chromium has no emoji or CJK fonts, so those stay in LAUNCH_TEXT only. */
const SHOWN_TEXT =
  'Launch day! Herald 1.0 is out: https://example.com/releases/herald-1-0 — ' +
  "write once, schedule everywhere, and see each network's count before it goes out.";
const LAUNCH_TEXT =
  'Launch day 🚀 Herald 1.0 is out: https://example.com/releases/herald-1-0 — ' +
  "write once, schedule everywhere, and see each network's count before it goes out. 日本語もOK 👨‍👩‍👧";

async function addChannels(h: TestHerald, account: SeededAccount, networks: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const network of networks) {
    ids.push(
      (
        await provisioning.addChannel(h.deps, {
          accountId: account.accountId,
          workspaceId: account.workspaceId,
          network,
          handle: `@herald.${network}`,
          name: `Herald on ${capabilitiesOf(network).displayName}`,
          timezone: 'UTC',
        })
      ).id,
    );
  }
  return ids;
}

describe(`MCP Apps: which clients get the views (${TEST_DB})`, function () {
  this.timeout(30_000);
  let h: TestHerald;
  let account: SeededAccount;
  let channels: string[];
  before(async () => {
    h = await startTestHerald();
    account = await h.seedAccount({ channels: 0 });
    channels = await addChannels(h, account, ['bluesky', 'x']);
  });
  after(() => h.close());

  for (const kind of ['v1', 'v2 2026-07-28'] as ClientKind[]) {
    it(
      `${kind} with Apps: tools link their view, the view is a resource, ` +
        "and results carry each post's count against its limit",
      async () => {
        const client = await connectClient(kind, h, account.apiKey, true);
        try {
          if (kind === 'v1') assert.match(client.sessionId() ?? '', /^ui-/);
          const tools = await client.listTools();
          for (const tool of tools) {
            const uri = VIEW_OF[tool.name];
            assert.deepEqual(
              tool._meta,
              uri ? { ui: { resourceUri: uri }, 'ui/resourceUri': uri } : undefined,
              tool.name,
            );
          }

          const resources = (await client.listResources()).filter((r) => r.uri.startsWith('ui://'));
          assert.deepEqual(
            resources.map((r) => [r.uri, r.name, r.mimeType]),
            [
              [PREVIEW_URI, 'post-preview', RESOURCE_MIME_TYPE],
              [CALENDAR_URI, 'week-calendar', RESOURCE_MIME_TYPE],
              [APPROVALS_URI, 'approval-queue', RESOURCE_MIME_TYPE],
              [INSIGHTS_URI, 'insights', RESOURCE_MIME_TYPE],
            ],
          );
          for (const uri of [PREVIEW_URI, CALENDAR_URI, APPROVALS_URI, INSIGHTS_URI]) {
            const read = await client.readResource(uri);
            assert.equal(read.contents.length, 1);
            assert.equal(read.contents[0].uri, uri);
            assert.equal(read.contents[0].mimeType, RESOURCE_MIME_TYPE);
            assert.match(read.contents[0].text, /^<!DOCTYPE html>/);
            assert.match(
              read.contents[0].text,
              /Content-Security-Policy" content="default-src 'none';[^"]*connect-src 'none'/,
            );
            assert.doesNotMatch(read.contents[0].text, /<script[^>]+src=|<link[^>]+href=|https?:\/\//, uri);
          }

          const result = await client.callTool('create_text_post', {
            text: LAUNCH_TEXT,
            channelIds: channels,
            isScheduled: true,
            dateTime: '2031-03-04T09:30:00Z',
          });
          assert.equal(result.isError, undefined);
          const preview = result._meta['herald/postPreview'];
          assert.deepEqual(
            preview.map((p: any) => [p.network.name, p.length, p.limit, p.fits]),
            [
              ['bluesky', countText('bluesky', LAUNCH_TEXT), 300, true],
              ['x', countText('x', LAUNCH_TEXT), 280, true],
            ],
          );
          assert.deepEqual(
            preview.map((p: any) => p.postId),
            result.structuredContent.data.map((p: any) => p.id),
          );
          assert.equal(preview[1].channel.handle, '@herald.x');

          const updated = await client.callTool('update_post', { postId: preview[0].postId, text: 'Shorter now' });
          assert.deepEqual(updated._meta['herald/postPreview'][0], { ...preview[0], length: 11 });
        } finally {
          await client.close();
        }
      },
    );

    it(`${kind} without Apps: no links, no resources, and results exactly as before`, async () => {
      const client = await connectClient(kind, h, account.apiKey, false);
      try {
        assert.equal(client.sessionId(), undefined);
        const tools = await client.listTools();
        assert.ok(tools.every((t) => t._meta === undefined));
        // Every client reads the account's insights; only an Apps client gets the views too.
        const resources = await client.listResources();
        assert.ok(
          resources.length > 0 && resources.every((r) => r.uri.startsWith('herald://insights')),
          JSON.stringify(resources),
        );
        await assert.rejects(client.readResource(PREVIEW_URI), /Resource not found/);
        const result = await client.callTool('create_text_post', {
          text: 'Plain',
          channelIds: channels,
          isScheduled: true,
          dateTime: '2031-03-04T09:30:00Z',
        });
        assert.equal(result._meta?.['herald/postPreview'], undefined);
        assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
      } finally {
        await client.close();
      }
    });
  }

  it("counts against a channel's own limit where its connection raised it (Mastodon's default is 500)", async () => {
    const [mastodon] = await addChannels(h, account, ['mastodon']);
    await h.deps.repos.channels.saveConnection(account.accountId, mastodon, {
      handle: '@herald@social.example',
      displayName: 'Herald',
      avatarUrl: null,
      networkAccountId: '1',
      sealedCredentials: sealCredentials(h.deps, mastodon, { token: 'token' }),
      credentialsExpireAt: null,
      textLimit: 1000,
      connectedAt: 1,
    });
    const client = await connectClient('v2 2026-07-28', h, account.apiKey, true);
    try {
      const long = 'a'.repeat(700);
      const created = await client.callTool('create_text_post', {
        text: long,
        channelIds: [mastodon],
        saveAsDraft: true,
      });
      const [preview] = created._meta['herald/postPreview'];
      assert.deepEqual(
        [preview.network.name, preview.length, preview.limit, preview.fits, preview.channel.displayName],
        ['mastodon', 700, 1000, true, 'Herald'],
      );
    } finally {
      await client.close();
    }
  });

  it('server/discover declares the extension and its views only to a client that declares it', async () => {
    const discover = async (capabilities: object) => {
      const res = await rpc(h, {
        token: account.apiKey,
        method: 'server/discover',
        params: {
          _meta: {
            'io.modelcontextprotocol/protocolVersion': '2026-07-28',
            'io.modelcontextprotocol/clientCapabilities': capabilities,
            'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
          },
        },
        headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
      });
      assert.equal(res.status, 200);
      return res.body.result.capabilities;
    };
    assert.deepEqual(await discover({}), {
      tools: { listChanged: false },
      resources: {},
      extensions: { 'io.modelcontextprotocol/tasks': {} },
    });
    assert.deepEqual(
      await discover({ extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } } }),
      {
        tools: { listChanged: false },
        resources: {},
        extensions: {
          'io.modelcontextprotocol/tasks': {},
          'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] },
        },
      },
    );
    // A host that renders some other kind of view has no use for Herald's HTML ones.
    assert.deepEqual(
      await discover({ extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/uri-list'] } } }),
      { tools: { listChanged: false }, resources: {}, extensions: { 'io.modelcontextprotocol/tasks': {} } },
    );

    const list = await rpc(h, {
      token: account.apiKey,
      method: 'resources/list',
      params: {
        _meta: {
          'io.modelcontextprotocol/protocolVersion': '2026-07-28',
          'io.modelcontextprotocol/clientCapabilities': {},
          'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
        },
      },
      headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'resources/list' },
    });
    assert.equal(list.status, 200, 'the insights are resources for every client');
    assert.ok(
      list.body.result.resources.every((r: any) => !r.uri.startsWith('ui://')),
      'the views only for an Apps client',
    );
  });

  it('resources/read of a view this server does not have is invalid params naming the URI', async () => {
    const client = await connectClient('v2 2026-07-28', h, account.apiKey, true);
    try {
      await assert.rejects(
        client.readResource('ui://herald/nope'),
        (error: any) => error.code === -32602 && /ui:\/\/herald\/nope/.test(error.message),
      );
    } finally {
      await client.close();
    }
  });
});

// The views in the browser; the data they are given is tested on both databases above.
describeOnce(`MCP Apps views in Chromium (${TEST_DB})`, function () {
  this.timeout(60_000);
  let h: TestHerald;
  let account: SeededAccount;
  let channels: string[];
  let host: Host;
  let client: AppsClient;
  let page: Page;
  // The views are shown by a host page of the test's own, not the web app: no app to build.
  const app = appSuite(
    { fresh: 'once', seed: { channels: 0 }, page: false, webApp: false },
    (rig) => ({ t: h, a: account } = rig),
  );
  before(async () => {
    channels = await addChannels(h, account, ['bluesky', 'x', 'linkedin']);
    host = await startHost(app.browser);
    client = await connectClient('v2 2026-07-28', h, account.apiKey, true);
    // One tab for the file: each render loads the host page afresh, so a test sees only its own view.
    page = await app.newPage({ deviceScaleFactor: 2 });
  });
  after(async () => {
    await Promise.all(opened.map((c) => c.close()));
    await client?.close();
    await host?.close();
  });
  beforeEach(() => {
    host.requests.length = 0;
  });

  const viewHtml = async (uri: string) => (await client.readResource(uri)).contents[0].text as string;

  it(
    'the post preview shows each post as its network will, ' + 'with its count against the limit, and reaches nothing',
    async () => {
      const args = { text: SHOWN_TEXT, channelIds: channels, isScheduled: true, dateTime: '2031-03-04T09:30:00Z' };
      const result = await client.callTool('create_text_post', args);
      await host.render(page, await viewHtml(PREVIEW_URI), args, result, client);

      const view = page.frameLocator('iframe');
      await view.locator('article.post').nth(2).waitFor();
      const cards = await view.locator('article.post').evaluateAll((nodes) =>
        nodes.map((n) => ({
          network: n.getAttribute('data-network'),
          counter: n.querySelector('[data-role=counter]')!.textContent,
          text: n.querySelector('.text')!.textContent,
          when: n.querySelector('.when')!.textContent,
        })),
      );
      assert.deepEqual(
        cards.map((c) => [c.network, c.counter]),
        [
          ['bluesky', `${countText('bluesky', SHOWN_TEXT)} / 300`],
          ['x', `${countText('x', SHOWN_TEXT)} / 280`],
          ['linkedin', `${countText('linkedin', SHOWN_TEXT)} / 3000`],
        ],
      );
      assert.ok(cards.every((c) => c.text === SHOWN_TEXT && c.when === 'Scheduled · 4 Mar 2031, 09:30'));
      assert.equal(await view.locator('.badge.network').first().textContent(), 'Bluesky');
      // The host sized the frame to the view, which told it its height through the bridge.
      assert.ok((await page.locator('iframe').boundingBox())!.height > 300);
      assert.deepEqual(host.requests, []);

      fs.mkdirSync('docs', { recursive: true });
      await page.locator('iframe').screenshot({ path: 'docs/mcp-app-preview.png' });
    },
  );

  it('post text is shown as text, never as markup', async () => {
    const text = '<img src=x onerror="document.title=\'owned\'"><b>bold?</b>';
    const args = { text, channelIds: [channels[2]], saveAsDraft: true };
    const result = await client.callTool('create_text_post', args);
    await host.render(page, await viewHtml(PREVIEW_URI), args, result, client);
    const view = page.frameLocator('iframe');
    await view.locator('article.post .text').waitFor();
    assert.equal(await view.locator('article.post .text').textContent(), text);
    assert.equal(await view.locator('article.post img, article.post b').count(), 0);
    assert.equal(await view.locator('.when').textContent(), 'Draft');
  });

  it(
    'a post that no longer fits (its channel lost a raised limit) ' + 'shows its counter over the limit and why',
    async () => {
      const args = { text: 'Fits today', channelIds: [channels[0]], saveAsDraft: true };
      const result = await client.callTool('create_text_post', args);
      const problem =
        'Bluesky allows 300 characters; ' +
        'this text has 320 (counted as a person sees them: an emoji is one). Shorten it.';
      const [preview] = result._meta['herald/postPreview'];
      const stale = {
        ...result,
        _meta: {
          ...result._meta,
          'herald/postPreview': [{ ...preview, length: 320, fits: false, problems: [problem] }],
        },
      };
      await host.render(page, await viewHtml(PREVIEW_URI), args, stale, client);
      const card = page.frameLocator('iframe').locator('article.post');
      await card.locator('[data-role=problems]').waitFor();
      assert.equal(await card.locator('[data-role=counter]').textContent(), '320 / 300');
      assert.equal(await card.locator('[data-role=counter]').getAttribute('class'), 'counter danger');
      assert.equal(await card.locator('.meter').getAttribute('class'), 'meter over');
      assert.deepEqual(await card.locator('[data-role=problems] li').allTextContents(), [problem]);
    },
  );

  for (const uri of [PREVIEW_URI, CALENDAR_URI, APPROVALS_URI]) {
    it(`${uri} says so when the host cancels the call`, async () => {
      await host.render(page, await viewHtml(uri), {}, { cancelled: 'Stopped by the user' }, client);
      const cancelled = page.frameLocator('iframe').locator('[data-role=cancelled]');
      await cancelled.waitFor();
      assert.equal(await cancelled.textContent(), 'Cancelled: Stopped by the user');
    });
  }

  it('a refused post shows the refusal', async () => {
    const args = { text: 'x'.repeat(400), channelIds: [channels[0]] };
    const result = await client.callTool('create_text_post', args);
    assert.equal(result.isError, true);
    await host.render(page, await viewHtml(PREVIEW_URI), args, result, client);
    const error = page.frameLocator('iframe').locator('[data-role=error]');
    await error.waitFor();
    assert.match((await error.textContent())!, /Bluesky allows 300 characters; this text has 400/);
  });
  /**
   * A fresh account (its posts are the test's own) with a Bluesky, an X and a LinkedIn channel, and its Apps client.
   */
  async function freshAccount(options: { approvalRequired?: boolean } = {}) {
    const owner = await h.seedAccount({ channels: 0, ...options });
    const ids = await addChannels(h, owner, ['bluesky', 'x', 'linkedin']);
    const own = await connectClient('v2 2026-07-28', h, owner.apiKey, true);
    opened.push(own);
    return { ids, client: own };
  }
  const opened: AppsClient[] = [];

  it('the week calendar puts each post on its day in the host time zone, and pages through the weeks', async () => {
    const { ids, client: own } = await freshAccount();
    const at = async (channel: string, dateTime: string, text: string) =>
      (await own.callTool('create_text_post', { text, channelIds: [channel], isScheduled: true, dateTime }))
        .structuredContent.data[0].id as string;
    const tuesday = await at(ids[0], '2031-03-04T09:30:00Z', 'Launch day: Herald 1.0 is out');
    // 18:00 UTC on Thursday is 03:00 on Friday in Tokyo, where the host is.
    const lateThursday = await at(ids[1], '2031-03-06T18:00:00Z', 'Thread: what changed since 0.9');
    const nextWeek = await at(ids[2], '2031-03-12T08:00:00Z', 'A week on: what people built with Herald');
    const draft = (
      await own.callTool('create_text_post', {
        text: 'Someday: a post about the logo',
        channelIds: [ids[2]],
        saveAsDraft: true,
      })
    ).structuredContent.data[0].id;

    const result = await own.callTool('get_paginated_posts', {});
    await host.render(page, await viewHtml(CALENDAR_URI), {}, result, own, { timeZone: 'Asia/Tokyo' });
    const view = page.frameLocator('iframe');
    await view.locator('.day').nth(6).waitFor();
    const week = async () =>
      view
        .locator('.day')
        .evaluateAll((days) =>
          days.map((d) => [
            d.getAttribute('data-date'),
            [...d.querySelectorAll('.event')].map((e) => e.getAttribute('data-post-id')),
          ]),
        );
    assert.equal(await view.locator('#title').textContent(), 'Week of 3 Mar 2031');
    assert.deepEqual(await week(), [
      ['2031-03-03', []],
      ['2031-03-04', [tuesday]],
      ['2031-03-05', []],
      ['2031-03-06', []],
      ['2031-03-07', [lateThursday]],
      ['2031-03-08', []],
      ['2031-03-09', []],
    ]);
    assert.equal(await view.locator(`[data-post-id="${lateThursday}"] .time`).textContent(), '03:00');
    assert.equal(await view.locator(`[data-post-id="${lateThursday}"] .network`).textContent(), 'X');
    assert.equal(
      await view.locator(`[data-post-id="${lateThursday}"]`).getAttribute('title'),
      'Herald on X: Thread: what changed since 0.9',
    );
    assert.deepEqual(
      await view.locator('#undated .event').evaluateAll((e) => e.map((n) => n.getAttribute('data-post-id'))),
      [draft],
    );
    fs.mkdirSync('docs', { recursive: true });
    await page.locator('iframe').screenshot({ path: 'docs/mcp-app-calendar.png' });

    await view.locator('#next').click();
    assert.equal(await view.locator('#title').textContent(), 'Week of 10 Mar 2031');
    assert.deepEqual((await week())[2], ['2031-03-12', [nextWeek]]);
    await view.locator('#previous').click();
    await view.locator('#previous').click();
    assert.ok((await week()).every(([, events]) => (events as string[]).length === 0));
    assert.deepEqual(host.requests, []);
  });

  it('the approval queue approves and rejects through the host, which calls the approval tools', async () => {
    const { ids, client: own } = await freshAccount({ approvalRequired: true });
    const created = await own.callTool('create_text_post', {
      text: 'Our spring sale starts Monday: 20% off every plan.',
      channelIds: [ids[0], ids[2]],
      isScheduled: true,
      dateTime: '2031-04-07T08:00:00Z',
    });
    const [first, second] = created.structuredContent.data.map((p: any) => p.id as string);

    const result = await own.callTool('approval_list_pending', {});
    await host.render(page, await viewHtml(APPROVALS_URI), {}, result, own);
    const view = page.frameLocator('iframe');
    await view.locator('article.post').nth(1).waitFor();
    assert.equal(await view.locator('#summary').textContent(), '· 2 waiting');
    assert.deepEqual(await view.locator('[data-role=counter]').allTextContents(), ['50 / 300', '50 / 3000']);
    fs.mkdirSync('docs', { recursive: true });
    await page.locator('iframe').screenshot({ path: 'docs/mcp-app-approvals.png' });

    await view.locator(`[data-post-id="${first}"] button.approve`).click();
    await view.locator(`[data-post-id="${first}"][data-state=approved]`).waitFor();
    assert.equal(await view.locator(`[data-post-id="${first}"] [data-role=outcome]`).textContent(), 'Approved');

    const row = view.locator(`[data-post-id="${second}"]`);
    await row.locator('button.reject').click();
    await row.locator('button.confirm-reject').click();
    assert.equal(await row.locator('[data-role=outcome]').textContent(), 'Say why, for the author.');
    await row.locator('input').fill('Wait for legal to check the 20%.');
    await row.locator('button.confirm-reject').click();
    await view.locator(`[data-post-id="${second}"][data-state=rejected]`).waitFor();

    assert.deepEqual(host.calls, [
      { name: 'approval_approve', arguments: { postId: first } },
      { name: 'approval_reject', arguments: { postId: second, reason: 'Wait for legal to check the 20%.' } },
    ]);
    const posts = (await own.callTool('get_paginated_posts', {})).structuredContent.data;
    assert.deepEqual(Object.fromEntries(posts.map((p: any) => [p.id, p.approvalStatus])), {
      [first]: 'APPROVED',
      [second]: 'REJECTED',
    });
    assert.deepEqual((await own.callTool('approval_list_pending', {})).structuredContent.data, []);
  });

  it('a refusal from Herald shows on the row, and the buttons stay usable', async () => {
    const { ids, client: own } = await freshAccount({ approvalRequired: true });
    const created = await own.callTool('create_text_post', {
      text: 'Held post',
      channelIds: [ids[0]],
      isScheduled: true,
      dateTime: '2031-04-07T08:00:00Z',
    });
    const postId = created.structuredContent.data[0].id;
    const result = await own.callTool('approval_list_pending', {});
    await own.callTool('delete_post', { postId });
    await host.render(page, await viewHtml(APPROVALS_URI), {}, result, own);
    const row = page.frameLocator('iframe').locator(`[data-post-id="${postId}"]`);
    await row.locator('button.approve').click();
    await row.locator('[data-role=outcome].danger').waitFor();
    assert.match((await row.locator('[data-role=outcome]').textContent())!, new RegExp(`No post ${postId}`));
    assert.equal(await row.locator('button.approve').isEnabled(), true);
  });
});
