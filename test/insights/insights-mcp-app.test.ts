import assert from 'node:assert/strict';
import { RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import type { Page } from 'playwright-core';
import path from 'node:path';
import { appSuite, SCREENSHOTS } from '../support/app-browser.js';
import { TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { connectClient, startHost, type AppsClient, type ClientKind, type Host } from '../mcp/apps-support.js';
import { madeUpHistory } from './fixture.js';

const INSIGHTS_URI = 'ui://herald/insights';
const LINK = { ui: { resourceUri: INSIGHTS_URI }, 'ui/resourceUri': INSIGHTS_URI };

/**
 * The insights view of MCP Apps: offered only to clients that declare the extension, on both eras, with tools/list
 * still 44; in Chromium it shows the figures REST answers for the same period, read through the host.
 */
describe(`MCP App: the insights view (${TEST_DB})`, function () {
  this.timeout(180_000);
  let t: TestHerald;
  let a: SeededAccount;
  // The view is shown by a host page of the test's own, not the web app: no app to build.
  const app = appSuite({ fresh: 'once', seed: { channels: 2 }, page: false, webApp: false }, (rig) => ({ t, a } = rig));
  before(async () => {
    await madeUpHistory(t, a);
  });

  const rest = async (path: string) => {
    const res = await t.api('GET', `/v1/rest${path}`, { token: a.apiKey });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body.data;
  };

  for (const kind of ['v1', 'v2 2026-07-28'] as ClientKind[]) {
    it(`${kind} with Apps: the view is a resource, get_channel links it, insights name it, 44 tools`, async () => {
      const client = await connectClient(kind, t, a.apiKey, true);
      try {
        const tools = await client.listTools();
        assert.equal(tools.length, 44);
        assert.deepEqual(tools.find((tool) => tool.name === 'get_channel')?._meta, LINK);
        const resources = await client.listResources();
        const view = resources.find((r) => r.uri === INSIGHTS_URI);
        assert.deepEqual([view?.name, view?.mimeType], ['insights', RESOURCE_MIME_TYPE]);
        const insights = resources.filter((r) => r.uri.startsWith('herald://insights'));
        assert.ok(insights.length > 0);
        for (const resource of insights) assert.deepEqual(resource._meta, LINK, resource.uri);
        const read = await client.readResource(INSIGHTS_URI);
        assert.equal(read.contents[0].mimeType, RESOURCE_MIME_TYPE);
        assert.match(
          read.contents[0].text,
          /Content-Security-Policy" content="default-src 'none';[^"]*connect-src 'none'/,
        );
        assert.doesNotMatch(read.contents[0].text, /<script[^>]+src=|<link[^>]+href=|https?:\/\//);

        const channel = await client.callTool('get_channel', { channelId: a.channelIds[0] });
        assert.equal(channel.structuredContent.data.id, a.channelIds[0]);
        assert.equal(channel._meta?.['herald/postPreview'], undefined, 'a channel is no post to preview');
      } finally {
        await client.close();
      }
    });

    it(`${kind} without Apps: no view, no links, insights resources as before, 44 tools`, async () => {
      const client = await connectClient(kind, t, a.apiKey, false);
      try {
        const tools = await client.listTools();
        assert.equal(tools.length, 44);
        assert.ok(tools.every((tool) => tool._meta === undefined));
        const resources = await client.listResources();
        assert.ok(resources.every((r) => r.uri.startsWith('herald://insights') && r._meta === undefined));
        await assert.rejects(client.readResource(INSIGHTS_URI), /Resource not found/);
      } finally {
        await client.close();
      }
    });
  }

  describe('in Chromium', () => {
    let host: Host;
    let client: AppsClient;
    let page: Page;
    before(async () => {
      host = await startHost(app.browser);
      client = await connectClient('v2 2026-07-28', t, a.apiKey, true);
    });
    after(async () => {
      await client?.close();
      await host?.close();
    });
    beforeEach(async () => {
      host.requests.length = 0;
      host.reads.length = 0;
      page = await app.newPage();
    });

    const format = (n: number) => new Intl.NumberFormat('en-GB').format(n);
    const view = () => page.frameLocator('iframe');
    const shown = async () => {
      const frame = view();
      await frame.locator('[data-total=posts] .value').waitFor();
      const value = (name: string) => frame.locator(`[data-total=${name}] .value`).textContent();
      return {
        scope: await frame.locator('#scope').textContent(),
        posts: await value('posts'),
        engagement: await value('engagement'),
        reach: await value('reach'),
        change: await frame.locator('[data-total=posts] .change').textContent(),
        audience: await frame.locator('[data-role=audience]').allTextContents(),
        top: await frame.locator('ol li').evaluateAll((items) => items.map((li) => li.getAttribute('data-post-id'))),
        bestNotes: await frame.locator('[data-role=best-note]').allTextContents(),
      };
    };
    const expected = (report: any, best: any[]) => ({
      posts: format(report.totals.posts),
      engagement: format(report.totals.engagement),
      reach: format(report.totals.reach),
      change:
        report.change.posts === null
          ? 'nothing to compare with before'
          : `${report.change.posts > 0 ? '+' : ''}${report.change.posts}% on the period before`,
      audience: report.byChannel.map((c: any) => `${format(c.audienceStart)} → ${format(c.audienceEnd)}`),
      top: report.topPosts.slice(0, 5).map((p: any) => p.postId),
      bestNotes: best.map((b) => b.note),
    });

    it("shows the account's figures REST answers for the period, another period, and reaches nothing", async () => {
      const html = (await client.readResource(INSIGHTS_URI)).contents[0].text;
      await host.render(page, html, {}, null, client);
      const report = await rest('/insights?timezone=UTC');
      const best = await Promise.all(a.channelIds.map((id) => rest(`/channels/${id}/best-times`)));
      assert.ok(report.totals.posts > 0 && best.every((b) => b.windows.length === 0));
      const first = await shown();
      assert.equal(first.scope, `Every channel · ${report.period.from} to ${report.period.to} (UTC)`);
      assert.deepEqual({ ...first, scope: undefined }, { ...expected(report, best), scope: undefined });
      assert.ok(
        first.bestNotes.every((note) => /Herald suggests times once there are at least 10/.test(note)),
        'below the minimum sample, the rule says so and claims no window',
      );
      assert.equal(await view().locator('[data-role=window]').count(), 0);
      await page.locator('iframe').screenshot({ path: path.join(SCREENSHOTS, 'mcp-app-insights.png') });

      await view().locator('#period').selectOption('90');
      await view().locator('#scope').filter({ hasText: '2025-12-31 to 2026-03-30' }).waitFor();
      const longer = await rest('/insights?from=2025-12-31&to=2026-03-30&timezone=UTC');
      assert.equal(await view().locator('[data-total=posts] .value').textContent(), format(longer.totals.posts));
      assert.equal(
        await view().locator('[data-total=engagement] .value').textContent(),
        format(longer.totals.engagement),
      );
      assert.ok(host.reads.every((uri) => uri.startsWith('herald://insights')));
      assert.deepEqual(host.requests, [], 'the view reaches nothing but the host');
    });

    it("narrows to the channel get_channel answered, with that channel's figures REST answers", async () => {
      const html = (await client.readResource(INSIGHTS_URI)).contents[0].text;
      const args = { channelId: a.channelIds[1] };
      await host.render(page, html, args, await client.callTool('get_channel', args), client);
      const report = await rest(`/insights?channelIds=${a.channelIds[1]}&timezone=UTC`);
      await view().locator('#scope').filter({ hasText: report.byChannel[0].name }).waitFor();
      const best = [await rest(`/channels/${a.channelIds[1]}/best-times`)];
      const channel = await shown();
      assert.deepEqual({ ...channel, scope: undefined }, { ...expected(report, best), scope: undefined });
      assert.equal(await view().locator('tbody tr').count(), 1);
    });
  });
});
