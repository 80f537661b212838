import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { appReady, appSuite, axeViolations, screenshot, signInByForm } from '../support/app-browser.js';
import type { SeededAccount, TestHerald } from '../support/herald.js';
import { describeOnce } from '../support/databases.js';

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

/** Today's date in a time zone, as the calendar names its days (YYYY-MM-DD). */
function todayIn(timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    new Date(),
  );
}

/**
 * What the app is like to live in, in a real headless Chromium against a real Herald: the calendar's today, its
 * thumbnails and its empty days that open the composer; the phone's navigation; the addresses and MCP client
 * configurations on the API keys page; the icon in the browser's tab.
 */
// How the calendar, the phone bar, the API keys page and the icon look: the same whatever the database.
describeOnce('the web app: calendar, phone navigation, API keys and icon', function () {
  this.timeout(90_000);
  let t: TestHerald;
  let a: SeededAccount;
  let page: Page;
  // One Herald, account and browser for the file; each test on a tab of its own (the app's bundle loads once).
  const app = appSuite(
    { fresh: 'once', seed: { channels: 2 }, page: { viewport: DESKTOP } },
    (rig) => ({ t, a } = rig),
  );

  /** A tab of its own at this size, signed in by the form, showing `address` (the posts by default). */
  async function signedIn(viewport: { width: number; height: number }, address = '/app'): Promise<Page> {
    await app.page.context().clearCookies();
    page = await app.newTab();
    await page.setViewportSize(viewport);
    await signInByForm(page, t.url, a, address);
    return page;
  }

  const open = (address: string) => app.open(address, page);

  it('marks today, shows avatars and first images, and opens the composer from an empty day or hour', async () => {
    const zone = 'Europe/Berlin';
    const today = todayIn(zone);
    const icon = `${t.url}/app/favicon.svg`;
    await t.herald.db('channels').where({ id: a.channelIds[0] }).update({ avatar_url: icon });
    const soon = new Date(Date.now() + 5 * 60_000).toISOString();
    const created = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: {
        channelIds: [a.channelIds[0]],
        text: 'With a picture of the launch',
        isScheduled: true,
        dateTime: soon,
        imageUrls: [icon],
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const postId = created.body.data[0].id;
    await signedIn(DESKTOP, `/app/calendar?view=month&tz=${zone}`);
    assert.deepEqual(
      await page
        .locator('#month [aria-current="date"]')
        .evaluateAll((cells) => cells.map((c) => c.getAttribute('data-day'))),
      [today],
    );
    assert.match((await page.textContent('#month [aria-current="date"]')) ?? '', /today/, 'said, not only coloured');
    const marked = await page
      .locator('#month td[aria-current="date"]')
      .evaluate((cell) => getComputedStyle(cell).backgroundColor);
    const plain = await page
      .locator('#month td[data-day]:not([aria-current])')
      .first()
      .evaluate((cell) => getComputedStyle(cell).backgroundColor);
    assert.notEqual(marked, plain, 'today looks different');
    const entry = page.locator('li.entry', { has: page.locator(`[data-post-id="${postId}"]`) });
    assert.equal(await entry.locator('img.avatar').getAttribute('src'), icon, "the channel's avatar");
    assert.equal(await entry.locator('img.thumb').getAttribute('src'), icon, "the post's first image");
    assert.equal(
      await entry.locator('img.thumb').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0),
      true,
      'and it loads',
    );
    const link = entry.locator('a');
    assert.deepEqual(
      await link.evaluate((a) => [getComputedStyle(a).whiteSpace, a.getBoundingClientRect().height < 30]),
      ['nowrap', true],
      'one line',
    );
    assert.equal(await entry.locator('.text').evaluate((t) => getComputedStyle(t).textOverflow), 'ellipsis');

    // An empty day of the month: the composer, scheduling on that day in the calendar's zone.
    const empty = await page
      .locator('#month td[data-day]')
      .evaluateAll((cells) => cells.filter((c) => !c.querySelector('.entry')).map((c) => c.getAttribute('data-day')!));
    const day = empty[empty.length - 1];
    await page.click(`#month td[data-day="${day}"]`, { position: { x: 60, y: 60 } });
    await page.waitForURL(/\/app\/compose\?/);
    await appReady(page);
    assert.equal(new URL(page.url()).searchParams.get('at'), `${day}T09:00`);
    assert.equal(await page.isChecked('input[name=when][value=schedule]'), true, 'scheduling chosen');
    assert.equal(await page.inputValue('#dateTime'), `${day}T09:00`);
    assert.equal(await page.inputValue('#timezone'), zone);

    // An empty hour of the week: that day and hour.
    await open(`/app/calendar?view=week&tz=${zone}`);
    assert.deepEqual(
      await page.locator('#week th[aria-current="date"]').evaluateAll((cells) => cells.map((c) => c.textContent)),
      [expectedHead(today)],
    );
    assert.equal((await page.locator(`#week td.today[data-day="${today}"]`).count()) > 0, true, 'its column tinted');
    const hour = await page
      .locator(`#week td[data-day="${today}"]`)
      .evaluateAll((cells) => cells.find((c) => !c.querySelector('.entry'))!.getAttribute('data-hour')!);
    await page.click(`#week td[data-day="${today}"][data-hour="${hour}"]`);
    await page.waitForURL(/\/app\/compose\?/);
    await appReady(page);
    assert.equal(await page.inputValue('#dateTime'), `${today}T${hour.padStart(2, '0')}:00`);
    // An address with a time that is not one is a plain composer, not one prefilled half-right.
    await open('/app/compose?at=tomorrow%20morning');
    assert.equal(await page.isChecked('input[name=when][value=now]'), true);

    // Clicking a post still opens the post.
    await open(`/app/calendar?view=month&tz=${zone}`);
    await page.click(`[data-post-id="${postId}"]`);
    await page.waitForURL(`${t.url}/app/posts/${postId}`);
  });

  it(
    "reaches the calendar's days and hours from the keyboard, " + 'each named, and opens the composer for one',
    async () => {
      const zone = 'Europe/Berlin';
      const today = todayIn(zone);
      await signedIn(DESKTOP, `/app/calendar?view=month&tz=${zone}`);
      const focused = () =>
        page.evaluate(() => ({
          slot: document.activeElement?.getAttribute('data-slot') ?? null,
          name: document.activeElement?.textContent ?? '',
        }));
      /** Presses Tab until a New post button has the focus: the grid can be reached without a mouse. */
      async function tabToGrid() {
        for (let i = 0; i < 80; i++) {
          await page.keyboard.press('Tab');
          if ((await focused()).slot) return focused();
        }
        assert.fail('no day or hour of the calendar takes the focus from the keyboard');
      }
      const longDay = (day: string) =>
        page.evaluate(
          (d) =>
            new Intl.DateTimeFormat(undefined, {
              weekday: 'long',
              day: 'numeric',
              month: 'long',
              timeZone: 'UTC',
            }).format(new Date(`${d}T00:00:00Z`)),
          day,
        );
      const shifted = (day: string, by: number) =>
        new Date(Date.parse(`${day}T00:00:00Z`) + by * 86_400_000).toISOString().slice(0, 10);

      assert.equal(await page.locator('#month button.new-here[tabindex="0"]').count(), 1, 'one stop in the Tab order');
      const first = await tabToGrid();
      assert.equal(first.slot, today, "today's first");
      await page.getByRole('button', { name: `New post on ${await longDay(today)}`, exact: true }).waitFor();
      // Across and down the month: a day, then a week.
      const back = today.endsWith('-01') ? 1 : -1;
      await page.keyboard.press(back === 1 ? 'ArrowRight' : 'ArrowLeft');
      assert.equal((await focused()).slot, shifted(today, back));
      // Down a week, or up one where the month's grid ends.
      const down = (await page.locator(`button[data-slot="${shifted(today, back + 7)}"]`).count()) === 1;
      await page.keyboard.press(down ? 'ArrowDown' : 'ArrowUp');
      const chosen = shifted(today, back + (down ? 7 : -7));
      assert.equal((await focused()).slot, chosen);
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/app\/compose\?/);
      await appReady(page);
      assert.equal(await page.inputValue('#dateTime'), `${chosen}T09:00`);
      assert.equal(await page.inputValue('#timezone'), zone);

      await open(`/app/calendar?view=week&tz=${zone}`);
      assert.equal((await tabToGrid()).slot, `${today}T9`, "today's working morning first");
      await page.getByRole('button', { name: `New post on ${await longDay(today)} at 09:00`, exact: true }).waitFor();
      await page.keyboard.press('ArrowDown');
      assert.equal((await focused()).slot, `${today}T10`);
      assert.equal(
        await page.locator('button.new-here:focus').evaluate((b) => getComputedStyle(b).opacity),
        '1',
        'seen where the focus is',
      );
      await screenshot(page, 'screenshots/calendar-week-keyboard-desktop.png');
      await page.keyboard.press('Space');
      await page.waitForURL(/\/app\/compose\?/);
      await appReady(page);
      assert.equal(await page.inputValue('#dateTime'), `${today}T10:00`);

      for (const view of ['month', 'week']) {
        await open(`/app/calendar?view=${view}&tz=${zone}`);
        await tabToGrid();
        assert.deepEqual(await axeViolations(page), [], `axe on the ${view}`);
      }
    },
  );

  it("on a phone: a slim bar whose menu opens and closes (Escape, a page), and the calendar's week fits", async () => {
    await signedIn(PHONE);
    const bar = await page.locator('header.top').boundingBox();
    assert.ok(bar && bar.height <= 64, `the bar is ${bar?.height}px high`);
    const toggle = page.getByRole('button', { name: 'Menu' });
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    assert.equal(
      await page.getByRole('link', { name: 'Calendar', exact: true }).isVisible(),
      false,
      'the links wait in the menu',
    );
    await toggle.click();
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    for (const name of ['Posts', 'Compose', 'Calendar', 'Channels', 'Settings']) {
      assert.equal(await page.getByRole('link', { name, exact: true }).isVisible(), true, `${name} in the menu`);
    }
    assert.equal(await page.getByRole('button', { name: 'Sign out' }).isVisible(), true);
    await screenshot(page, 'screenshots/menu-open-phone.png');
    await page.keyboard.press('Escape');
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    assert.equal(await page.getByRole('link', { name: 'Calendar', exact: true }).isVisible(), false);
    assert.equal(
      await page.evaluate(() => document.activeElement?.getAttribute('aria-controls')),
      'main-menu',
      'the focus back on the button',
    );

    await toggle.click();
    await page.getByRole('link', { name: 'Calendar', exact: true }).click();
    await page.waitForURL(/\/app\/calendar/);
    await appReady(page);
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false', 'closed on arriving');
    assert.equal(await page.locator('#week').count(), 1, 'a phone shows the week, not a list');
    await open('/app/calendar?view=month');
    assert.equal(await page.locator('#month').count(), 0, 'no month on a phone');
    assert.equal(await page.locator('#week').count(), 1);
    assert.equal(await page.locator('#week [aria-current="date"]').count(), 1, 'today marked');
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    assert.ok(overflow <= 0, `the week fits the phone (${overflow}px too wide)`);
  });

  it('shows the REST and MCP addresses with Copy, and four MCP client configurations with the new key', async () => {
    await signedIn(DESKTOP, '/app/settings/api-keys');
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
    assert.equal(await page.textContent('#rest-url'), `${t.url}/v1/rest`);
    assert.equal(await page.textContent('#mcp-url'), `${t.url}/mcp`);
    await page.click('#copy-mcp-url');
    await page.waitForFunction(() => document.getElementById('copy-mcp-url')?.textContent === 'Copied');
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), `${t.url}/mcp`);

    const configs = async () => ({
      desktop: JSON.parse((await page.textContent('#config-claude-desktop')) ?? ''),
      code: (await page.textContent('#config-claude-code')) ?? '',
      vscode: JSON.parse((await page.textContent('#config-vscode')) ?? ''),
      cursor: JSON.parse((await page.textContent('#config-cursor')) ?? ''),
    });
    const expect = (c: Awaited<ReturnType<typeof configs>>, key: string) => {
      const mcp = `${t.url}/mcp`;
      assert.deepEqual(c.desktop.mcpServers.herald, {
        command: 'npx',
        args: ['-y', 'mcp-remote', mcp, '--transport', 'http-only', '--header', 'Authorization:${HERALD_AUTH}'],
        env: { HERALD_AUTH: `Bearer ${key}` },
      });
      assert.equal(c.code, `claude mcp add --transport http herald ${mcp} --header "Authorization: Bearer ${key}"`);
      assert.deepEqual(c.vscode, {
        servers: { herald: { type: 'http', url: mcp, headers: { Authorization: `Bearer ${key}` } } },
      });
      assert.deepEqual(c.cursor, { mcpServers: { herald: { url: mcp, headers: { Authorization: `Bearer ${key}` } } } });
    };
    expect(await configs(), '<your API key>');

    await page.fill('#key-name', 'Claude');
    await page.click('#create-key button[type=submit]');
    await page.waitForSelector('#new-key');
    const key = (await page.textContent('#new-key')) ?? '';
    assert.match(key, /\S{20,}/);
    expect(await configs(), key);
    await page.click('#copy-config-vscode');
    await page.waitForFunction(() => document.getElementById('copy-config-vscode')?.textContent === 'Copied');
    assert.equal(
      JSON.parse(await page.evaluate(() => navigator.clipboard.readText())).servers.herald.headers.Authorization,
      `Bearer ${key}`,
    );

    // The key from the configuration works at the MCP address it names.
    const mcp = await fetch(`${t.url}/mcp`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${key}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } },
      }),
    });
    assert.equal(mcp.status, 200, await mcp.text());
  });

  it("has an icon: linked from the app's page and the sign-in page, served as SVG, and at /favicon.ico", async () => {
    await signedIn(DESKTOP);
    const href = await page.getAttribute('head link[rel="icon"]', 'href');
    assert.equal(href, '/app/favicon.svg');
    for (const path of [href!, '/favicon.ico']) {
      const res = await fetch(`${t.url}${path}`);
      assert.equal(res.status, 200, path);
      assert.match(res.headers.get('content-type') ?? '', /^image\/svg\+xml/);
      assert.match(await res.text(), /^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    }
    // Nobody signed in: a tab of the same browser once its cookies are gone.
    await page.context().clearCookies();
    const anonymous = await app.newTab();
    await anonymous.goto(`${t.url}/app/sign-in`);
    assert.equal(anonymous.url(), `${t.url}/app/sign-in`, 'the sign-in page itself, not the app');
    assert.equal(await anonymous.getAttribute('head link[rel="icon"]', 'href'), '/app/favicon.svg');
  });
});

/** A week column's head as the desktop shows it: its visually hidden long name, then the short one. */
function expectedHead(day: string): string {
  const at = new Date(`${day}T00:00:00Z`);
  const long = new Intl.DateTimeFormat('en-US', {
    weekday: 'long',
    day: 'numeric',
    month: 'long',
    timeZone: 'UTC',
  }).format(at);
  const short = new Intl.DateTimeFormat('en-US', {
    weekday: 'short',
    day: 'numeric',
    month: 'short',
    timeZone: 'UTC',
  }).format(at);
  return `${long}, today${short}`;
}
