/**
 * Calendars through the official MCP SDK client, and what their links serve: the public page in a headless
 * Chromium (screenshots in test-artifacts/), the iCalendar feed through node-ical, and the in-app calendar.
 */
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import ical from 'node-ical';
import { appSuite, screenshot } from '../support/app-browser.js';
import { TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { insertLivePost } from '../support/posts.js';
import { connectSdkClient } from '../mcp/support.js';

function ok(result: Awaited<ReturnType<Client['callTool']>>): any {
  assert.notEqual(result.isError, true, JSON.stringify(result.content));
  return result.structuredContent;
}

function failure(result: Awaited<ReturnType<Client['callTool']>>): string {
  assert.equal(result.isError, true, `expected a tool error, got ${JSON.stringify(result.structuredContent)}`);
  return (result.content as { text: string }[])[0].text;
}

/** YYYY-MM-DD of an instant in Europe/Berlin (the seeded channels' timezone). */
function berlinDate(at: number): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone: 'Europe/Berlin',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(at);
}

describe(`calendars through the MCP SDK client, in Chromium and as iCalendar (${TEST_DB})`, function () {
  this.timeout(90_000);
  let h: TestHerald;
  let account: SeededAccount;
  let other: SeededAccount;
  let client: Client;
  // The public calendar is the server's own page, read with JavaScript off: no app to build.
  const app = appSuite({ fresh: 'once', page: false, webApp: false }, (rig) => ({ t: h, a: account } = rig));
  // Ten o'clock UTC, forty days out: every post below falls on the same Berlin day, month and week.
  const day = Math.floor(Date.now() / 86_400_000 + 40) * 86_400_000 + 10 * 3_600_000;
  const date = berlinDate(day);
  const secrets: string[] = [];

  async function post(client: Client, channelId: string, text: string, at: number, draft = false) {
    const args = draft
      ? { text, channelIds: [channelId], saveAsDraft: true, dateTime: new Date(at).toISOString() }
      : { text, channelIds: [channelId], isScheduled: true, dateTime: new Date(at).toISOString() };
    const created = ok(await client.callTool({ name: 'create_text_post', arguments: args }));
    secrets.push(created.data[0].id, created.data[0].groupId);
  }

  before(async () => {
    other = await h.seedAccount();
    client = await connectSdkClient(h, account.basicKey);
    await post(client, account.channelIds[0], 'Alpha launch post', day);
    await post(client, account.channelIds[1], 'Bravo on the second channel', day + 3_600_000);
    await post(client, account.channelIds[0], 'Charlie draft', day + 2 * 3_600_000, true);
    const live = await insertLivePost(h.deps, account, day + 3 * 3_600_000, {
      text: 'Delta posted in the network app',
    });
    secrets.push(live.id, account.accountId, account.userId, account.workspaceId, ...account.channelIds);
    const otherClient = await connectSdkClient(h, other.basicKey);
    ok(
      await otherClient.callTool({
        name: 'create_text_post',
        arguments: {
          text: 'Zulu from another account',
          channelIds: other.channelIds,
          isScheduled: true,
          dateTime: new Date(day).toISOString(),
        },
      }),
    );
    await otherClient.close();
  });
  after(async () => {
    await client?.close();
  });

  async function pageText(
    url: string,
    shot?: string,
    viewport = { width: 1280, height: 900 },
  ): Promise<{ status: number; text: string; html: string; scripts: number }> {
    const page = await app.newPage({ javaScriptEnabled: false, viewport });
    const response = await page.goto(url);
    const text = await page.locator('body').innerText();
    const html = await page.content();
    const scripts = await page.locator('script').count();
    if (shot) await screenshot(page, shot, { fullPage: true });
    return { status: response!.status(), text, html, scripts };
  }

  it('describes the view options', async () => {
    const options = ok(await client.callTool({ name: 'get_calendar_view_options', arguments: {} }));
    assert.deepEqual(options.views, ['month', 'week', 'list']);
    assert.ok(options.filters.includes('channelIds') && options.filters.includes('includeLivePosts'));
  });

  it(
    'serves a public link showing only the view’s channels and states, ' +
      'in month and week views, leaking nothing private',
    async () => {
      const created = ok(
        await client.callTool({
          name: 'create_public_calendar_link',
          arguments: { name: 'Launch plan', channelIds: [account.channelIds[0]] },
        }),
      ).data;
      assert.match(created.url, new RegExp(`^${h.url}/calendars/hcal_[A-Za-z0-9_-]{40,}$`));
      assert.equal(created.icsUrl, `${created.url}.ics`);

      const month = await pageText(`${created.url}?view=month&date=${date}`, 'calendar-public-month.png');
      assert.equal(month.status, 200);
      assert.match(month.text, /Launch plan/);
      assert.match(month.text, /Alpha launch post/);
      for (const hidden of ['Bravo', 'Charlie', 'Delta', 'Zulu'])
        assert.doesNotMatch(month.text, new RegExp(hidden), `${hidden} is outside the view`);
      assert.equal(month.scripts, 0);
      for (const secret of [...secrets, created.id])
        assert.ok(!month.html.includes(secret), `the page does not contain ${secret}`);

      const week = await pageText(`${created.url}?view=week&date=${date}`, 'calendar-public-week-phone.png', {
        width: 390,
        height: 844,
      });
      assert.match(week.text, /Alpha launch post/);
      const response = await fetch(created.url);
      assert.match(response.headers.get('content-security-policy')!, /default-src 'none'/);
      assert.doesNotMatch(response.headers.get('content-security-policy')!, /script-src/);

      const listed = ok(await client.callTool({ name: 'get_shareable_calendars', arguments: {} })).data;
      assert.equal(listed.length, 1);
      assert.equal(listed[0].url, null, 'the link is stored hashed and shown only once');
      assert.ok(!JSON.stringify(listed).includes(created.url.split('/').pop()));
    },
  );

  it('serves an iCalendar feed a calendar app can subscribe to', async () => {
    const created = ok(
      await client.callTool({
        name: 'create_public_calendar_link',
        arguments: { name: 'Feed', channelIds: account.channelIds, includeDrafts: true },
      }),
    ).data;
    const response = await fetch(created.icsUrl);
    assert.equal(response.status, 200);
    assert.match(response.headers.get('content-type')!, /^text\/calendar/);
    const body = await response.text();
    const events = Object.values(ical.sync.parseICS(body)).filter((item) => item?.type === 'VEVENT') as ical.VEvent[];
    const summaries = events.map((e) => String(e.summary)).sort();
    assert.equal(events.length, 3);
    assert.ok(summaries.some((s) => s.includes('Alpha launch post')));
    assert.ok(summaries.some((s) => s.includes('Bravo on the second channel')));
    assert.ok(summaries.some((s) => s.includes('(draft): Charlie draft')));
    const alpha = events.find((e) => String(e.summary).includes('Alpha'))!;
    assert.equal(alpha.start.getTime(), day);
    for (const secret of secrets) assert.ok(!body.includes(secret), `the feed does not contain ${secret}`);
  });

  it('updates what the link shows, keeps the link, and 404s it at once when deleted', async () => {
    const created = ok(
      await client.callTool({
        name: 'create_public_calendar_link',
        arguments: { name: 'Changing', channelIds: [account.channelIds[0]] },
      }),
    ).data;
    const before = await pageText(`${created.url}?view=list&date=${date}`);
    assert.doesNotMatch(before.text, /Bravo|Charlie/);

    const updated = ok(
      await client.callTool({
        name: 'update_shareable_calendar',
        arguments: {
          calendarId: created.id,
          channelIds: account.channelIds,
          includeDrafts: true,
          includeLivePosts: true,
        },
      }),
    ).data;
    assert.equal(updated.includeDrafts, true);
    const after = await pageText(`${created.url}?view=list&date=${date}`, 'calendar-public-list-updated.png');
    for (const shown of ['Alpha', 'Bravo', 'Charlie', 'Delta']) assert.match(after.text, new RegExp(shown));
    assert.doesNotMatch(after.text, /Zulu/);

    ok(
      await client.callTool({
        name: 'update_shareable_calendar',
        arguments: { calendarId: created.id, showText: false },
      }),
    );
    const timesOnly = await pageText(`${created.url}?view=list&date=${date}`);
    assert.doesNotMatch(timesOnly.text, /Alpha|Bravo/);
    assert.match(timesOnly.text, /@chan0/);

    const deleted = ok(
      await client.callTool({ name: 'delete_shareable_calendar', arguments: { calendarId: created.id } }),
    );
    assert.deepEqual(deleted, { id: created.id, deleted: true });
    assert.equal((await fetch(created.url)).status, 404);
    assert.equal((await fetch(created.icsUrl)).status, 404);
    assert.match(
      failure(
        await client.callTool({ name: 'update_shareable_calendar', arguments: { calendarId: created.id, name: 'x' } }),
      ),
      /No shareable calendar/,
    );
  });

  it('refuses channels of another account and unknown links', async () => {
    assert.match(
      failure(
        await client.callTool({
          name: 'create_public_calendar_link',
          arguments: { name: 'x', channelIds: [other.channelIds[0]] },
        }),
      ),
      /No channel/,
    );
    assert.equal((await fetch(`${h.url}/calendars/hcal_${'A'.repeat(43)}`)).status, 404);
    assert.equal((await fetch(`${h.url}/calendars/whatever.ics`)).status, 404);
  });

  it('opens the in-app calendar for the signed-in user, with the all-content view when live posts are on', async () => {
    const plain = ok(await client.callTool({ name: 'get_in_app_calendar_url', arguments: { view: 'week', date } }));
    assert.match(plain.url, new RegExp(`^${h.url}/calendar\\?t=`));
    const scheduled = await pageText(plain.url);
    assert.match(scheduled.text, /Alpha launch post/);
    assert.match(scheduled.text, /Bravo on the second channel/);
    assert.doesNotMatch(scheduled.text, /Delta|Charlie|Zulu/);

    const all = ok(
      await client.callTool({
        name: 'get_in_app_calendar_url',
        arguments: { view: 'month', date, includeLivePosts: true },
      }),
    );
    const allContent = await pageText(all.url, 'calendar-in-app-all-content.png');
    assert.match(allContent.text, /Delta posted in the network app/);
    assert.match(allContent.text, /live/);

    const forged = all.url.replace(/.$/, (c: string) => (c === 'A' ? 'B' : 'A'));
    assert.equal((await fetch(forged)).status, 404);
  });
});
