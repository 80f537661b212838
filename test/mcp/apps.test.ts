/**
 * MCP Apps (io.modelcontextprotocol/ui): the views are offered only to clients that declare the extension, in
 * both eras, and render in headless Chromium inside a host built on the extension's own AppBridge.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import type { Browser, Page } from 'playwright-core';
import { capabilitiesOf } from '../../src/domain/networks/capabilities.js';
import { countText } from '../../src/domain/networks/text-length.js';
import * as provisioning from '../../src/domain/provisioning.js';
import { launchChromium } from '../support/chromium.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { connectClient, startHost, type AppsClient, type ClientKind, type Host } from './apps-support.js';
import { rpc } from './support.js';

const PREVIEW_URI = 'ui://herald/post-preview';
/** Shown in the screenshot: the machine's Chromium has no emoji or CJK fonts, so those stay in LAUNCH_TEXT only. */
const SHOWN_TEXT = 'Launch day! Herald 1.0 is out: https://example.com/releases/herald-1-0 — write once, schedule everywhere, and see each network\'s count before it goes out.';
const LAUNCH_TEXT = 'Launch day 🚀 Herald 1.0 is out: https://example.com/releases/herald-1-0 — write once, schedule everywhere, and see each network\'s count before it goes out. 日本語もOK 👨‍👩‍👧';

async function addChannels(h: TestHerald, account: SeededAccount, networks: string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const network of networks) {
    ids.push((await provisioning.addChannel(h.deps, { accountId: account.accountId, workspaceId: account.workspaceId, network, handle: `@herald.${network}`, name: `Herald on ${capabilitiesOf(network).displayName}`, timezone: 'UTC' })).id);
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
    it(`${kind} with Apps: tools link their view, the view is a resource, and results carry each post's count against its limit`, async () => {
      const client = await connectClient(kind, h, account.apiKey, true);
      try {
        if (kind === 'v1') assert.match(client.sessionId() ?? '', /^ui-/);
        const tools = await client.listTools();
        for (const name of ['create_text_post', 'create_image_post', 'update_post']) {
          const tool = tools.find((t) => t.name === name)!;
          assert.deepEqual(tool._meta, { ui: { resourceUri: PREVIEW_URI }, 'ui/resourceUri': PREVIEW_URI }, name);
        }
        assert.equal(tools.find((t) => t.name === 'get_channels')!._meta, undefined);

        const resources = await client.listResources();
        assert.ok(resources.some((r) => r.uri === PREVIEW_URI && r.mimeType === RESOURCE_MIME_TYPE && r.name === 'post-preview'));
        const read = await client.readResource(PREVIEW_URI);
        assert.equal(read.contents.length, 1);
        assert.equal(read.contents[0].mimeType, RESOURCE_MIME_TYPE);
        assert.match(read.contents[0].text, /^<!DOCTYPE html>/);
        assert.match(read.contents[0].text, /Content-Security-Policy" content="default-src 'none';[^"]*connect-src 'none'/);
        assert.doesNotMatch(read.contents[0].text, /<script[^>]+src=|<link[^>]+href=|https?:\/\//);

        const result = await client.callTool('create_text_post', { text: LAUNCH_TEXT, channelIds: channels, isScheduled: true, dateTime: '2031-03-04T09:30:00Z' });
        assert.equal(result.isError, undefined);
        const preview = result._meta['herald/postPreview'];
        assert.deepEqual(
          preview.map((p: any) => [p.network.name, p.length, p.limit, p.fits]),
          [['bluesky', countText('bluesky', LAUNCH_TEXT), 300, true], ['x', countText('x', LAUNCH_TEXT), 280, true]],
        );
        assert.deepEqual(preview.map((p: any) => p.postId), result.structuredContent.data.map((p: any) => p.id));
        assert.equal(preview[1].channel.handle, '@herald.x');

        const updated = await client.callTool('update_post', { postId: preview[0].postId, text: 'Shorter now' });
        assert.deepEqual(updated._meta['herald/postPreview'][0], { ...preview[0], length: 11 });
      } finally {
        await client.close();
      }
    });

    it(`${kind} without Apps: no links, no resources, and results exactly as before`, async () => {
      const client = await connectClient(kind, h, account.apiKey, false);
      try {
        assert.equal(client.sessionId(), undefined);
        const tools = await client.listTools();
        assert.ok(tools.every((t) => t._meta === undefined));
        // The v2 client asks only a server that declares resources; the 1.x client asks and is told there are none.
        if (kind === 'v1') await assert.rejects(client.listResources(), /Method not found/);
        else assert.deepEqual(await client.listResources(), []);
        const result = await client.callTool('create_text_post', { text: 'Plain', channelIds: channels, isScheduled: true, dateTime: '2031-03-04T09:30:00Z' });
        assert.equal(result._meta?.['herald/postPreview'], undefined);
        assert.deepEqual(JSON.parse(result.content[0].text), result.structuredContent);
      } finally {
        await client.close();
      }
    });
  }

  it('server/discover declares resources and the extension only to a client that declares it', async () => {
    const discover = async (capabilities: object) => {
      const res = await rpc(h, {
        token: account.apiKey,
        method: 'server/discover',
        params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': capabilities, 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' } } },
        headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'server/discover' },
      });
      assert.equal(res.status, 200);
      return res.body.result.capabilities;
    };
    assert.deepEqual(await discover({}), { tools: { listChanged: false }, extensions: {} });
    assert.deepEqual(await discover({ extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } } }), {
      tools: { listChanged: false },
      resources: {},
      extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: [RESOURCE_MIME_TYPE] } },
    });
    // A host that renders some other kind of view has no use for Herald's HTML ones.
    assert.deepEqual(await discover({ extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/uri-list'] } } }), { tools: { listChanged: false }, extensions: {} });

    const list = await rpc(h, {
      token: account.apiKey,
      method: 'resources/list',
      params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28', 'io.modelcontextprotocol/clientCapabilities': {}, 'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' } } },
      headers: { 'mcp-protocol-version': '2026-07-28', 'mcp-method': 'resources/list' },
    });
    assert.equal(list.status, 404);
    assert.equal(list.body.error.code, -32601);
  });

  it('resources/read of a view this server does not have is invalid params naming the URI', async () => {
    const client = await connectClient('v2 2026-07-28', h, account.apiKey, true);
    try {
      await assert.rejects(client.readResource('ui://herald/nope'), (error: any) => error.code === -32602 && /ui:\/\/herald\/nope/.test(error.message));
    } finally {
      await client.close();
    }
  });
});

describe(`MCP Apps views in Chromium (${TEST_DB})`, function () {
  this.timeout(60_000);
  let h: TestHerald;
  let account: SeededAccount;
  let channels: string[];
  let browser: Browser;
  let host: Host;
  let client: AppsClient;
  let page: Page;
  before(async () => {
    h = await startTestHerald();
    account = await h.seedAccount({ channels: 0 });
    channels = await addChannels(h, account, ['bluesky', 'x', 'linkedin']);
    browser = await launchChromium();
    host = await startHost(browser);
    client = await connectClient('v2 2026-07-28', h, account.apiKey, true);
  });
  after(async () => {
    await client?.close();
    await host?.close();
    await browser?.close();
    await h?.close();
  });
  beforeEach(async () => {
    host.requests.length = 0;
    page = await (await browser.newContext({ deviceScaleFactor: 2 })).newPage();
  });
  afterEach(() => page.context().close());

  const viewHtml = async (uri: string) => (await client.readResource(uri)).contents[0].text as string;

  it('the post preview shows each post as its network will, with its count against the limit, and reaches nothing', async () => {
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
    assert.deepEqual(cards.map((c) => [c.network, c.counter]), [
      ['bluesky', `${countText('bluesky', SHOWN_TEXT)} / 300`],
      ['x', `${countText('x', SHOWN_TEXT)} / 280`],
      ['linkedin', `${countText('linkedin', SHOWN_TEXT)} / 3000`],
    ]);
    assert.ok(cards.every((c) => c.text === SHOWN_TEXT && c.when === 'Scheduled · 4 Mar 2031, 09:30'));
    assert.equal(await view.locator('.badge.network').first().textContent(), 'Bluesky');
    // The host sized the frame to the view, which told it its height through the bridge.
    assert.ok((await page.locator('iframe').boundingBox())!.height > 300);
    assert.deepEqual(host.requests, []);

    fs.mkdirSync('docs', { recursive: true });
    await page.locator('iframe').screenshot({ path: 'docs/mcp-app-preview.png' });
  });

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

  it('a refused post shows the refusal', async () => {
    const args = { text: 'x'.repeat(400), channelIds: [channels[0]] };
    const result = await client.callTool('create_text_post', args);
    assert.equal(result.isError, true);
    await host.render(page, await viewHtml(PREVIEW_URI), args, result, client);
    const error = page.frameLocator('iframe').locator('[data-role=error]');
    await error.waitFor();
    assert.match((await error.textContent())!, /Bluesky allows 300 characters; this text has 400/);
  });
});
