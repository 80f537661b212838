import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { appReady, appSuite, screenshot, signInByForm } from '../support/app-browser.js';
import { blankTab, openInApp } from '../support/app-navigation.js';
import { cannotTellNetworks, dieMidAttempt, pinClock, testWorker } from '../publishing/support.js';
import type { SeededAccount, TestHerald } from '../support/herald.js';
import { insertLivePost } from '../support/posts.js';
import { describeOnce } from '../support/databases.js';

/** The post page and the calendar of the web app, in a real headless Chromium against a real Herald. */
// The app in the browser; the REST calls it makes are tested on both databases (test/rest and beside it).
describeOnce("the web app: a post's page and the calendar", function () {
  this.timeout(90_000);
  let t: TestHerald;
  let a: SeededAccount;
  let page: Page;

  // One Herald and tab for the file; each test is a new person with two channels, on the tab made blank, and the
  // clock some tests pin is the real one again after them.
  const VIEWPORT = { width: 1280, height: 900 };
  const app = appSuite(
    { fresh: 'once', seed: { channels: 2 }, page: { viewport: VIEWPORT } },
    (rig) => ({ t, a, page } = rig),
  );
  let realClock: Pick<TestHerald['deps'], 'now' | 'timers'>;
  before(() => {
    realClock = { now: t.deps.now, timers: t.deps.timers };
  });
  beforeEach(async () => {
    a = await t.seedAccount({ channels: 2 });
    page = app.page;
    await blankTab(page, VIEWPORT);
    await page.context().clearCookies();
  });
  afterEach(() => {
    Object.assign(t.deps, realClock);
  });
  /** Signs the test's person in and opens `address` with its data. */
  const signInTo = (address: string) => signInByForm(page, t.url, a, address);

  const post = async (id: string) => (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
  const status = async () => (await page.textContent('#post-status')) ?? '';

  /** Another page of the app, reached inside it as its links reach it. */
  const open = (url: string) => openInApp(page, t.url, url);

  /** Clicks a button and waits for the page to say it was done (each action says so in its own words). */
  async function press(name: string): Promise<void> {
    const before = await page.evaluate(() => document.getElementById('done')?.textContent ?? null);
    await page.getByRole('button', { name, exact: true }).click();
    await page.waitForFunction((said) => {
      const done = document.getElementById('done');
      return done !== null && done.textContent !== said;
    }, before);
  }

  it(
    "shows a failing post's error and what to do, " + 'retries it from its page, and opens it from the calendar',
    async () => {
      await t.deps.repos.sandbox.setFailure(a.accountId, a.channelIds[0], 'permanent', 1);
      const res = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [a.channelIds[0]], text: 'Second time lucky' },
      });
      const postId = res.body.data[0].id;
      await testWorker(t).tick();
      const failed = await post(postId);
      assert.equal(failed.status, 'failed');
      await signInTo(`/app/posts/${postId}`);
      assert.match(await status(), /failed/);
      assert.equal(await page.textContent('#post-error'), failed.error, "the error in Herald's words");
      assert.match((await page.textContent('#next-step')) ?? '', /try again now/i, 'and what to do about it');
      assert.deepEqual(await page.locator('#attempts tbody td:nth-child(2)').allTextContents(), ['permanent']);
      await press('Try again now');
      assert.match(await status(), /scheduled/);
      await testWorker(t).tick();
      await page.reload();
      await appReady(page);
      assert.match(await status(), /published/);
      assert.deepEqual(await page.locator('#attempts tbody td:nth-child(2)').allTextContents(), [
        'permanent',
        'published',
      ]);
      const permalink = (await post(postId)).permalinkUrl;
      assert.equal(
        await page.getAttribute(`main a[href="${permalink}"]`, 'href'),
        permalink,
        'its address on the network',
      );

      await page.getByRole('link', { name: 'Calendar', exact: true }).click();
      await page.waitForSelector('#week');
      assert.match(
        (await page.textContent('#week')) ?? '',
        /published[\s\S]*Second time lucky/,
        'this week, with its state',
      );
      await page.getByRole('link', { name: 'Month', exact: true }).click();
      await page.waitForSelector('#month');
      assert.match((await page.textContent('#month')) ?? '', /Second time lucky/);
      await page.click(`[data-post-id="${postId}"]`);
      await page.waitForURL(`${t.url}/app/posts/${postId}`);
      await page.waitForSelector('#post-status');
      assert.match(await status(), /published/);
    },
  );

  it(
    'approves a held post from its page, with who did what in its history; ' + 'rejects another with its reason',
    async () => {
      a = await t.seedAccount({ approvalRequired: true, channels: 1 });
      const ids: string[] = [];
      for (const text of ['Needs a yes', 'Needs a no']) {
        ids.push(
          (await t.api('POST', '/v1/rest/posts', { token: a.apiKey, body: { channelIds: [a.channelIds[0]], text } }))
            .body.data[0].id,
        );
      }
      await signInTo(`/app/posts/${ids[0]}`);
      assert.match((await page.textContent('.post-summary')) ?? '', /, waiting for approval on /);
      await press('Approve');
      assert.match((await page.textContent('.post-summary')) ?? '', /, approved on /);
      assert.equal((await post(ids[0])).approvalStatus, 'APPROVED');
      const owner = await t.deps.repos.accounts.getUser(a.accountId, a.userId);
      const what = await page.locator('#history li .what').allTextContents();
      assert.equal(what.length, 2, what.join(' | '));
      assert.match(
        what[0],
        new RegExp(`^${owner!.name} created this through an integration, for .+, to wait for approval\\.$`),
      );
      assert.equal(
        what[1],
        `${owner!.name} approved this version, and as its time had passed it went out straight away.`,
        'who did what, by name, with what the step changed',
      );

      await open(`/app/posts/${ids[1]}`);
      await page.fill('#reason', 'Off brand');
      await press('Reject');
      assert.match((await page.textContent('main')) ?? '', /, rejected on [\s\S]*Rejected because: Off brand/);
      assert.equal((await post(ids[1])).rejectionReason, 'Off brand');

      // The app's calls carry the page's CSRF token: the session cookie alone does not reject a post.
      const cookies = await page.context().cookies();
      const forged = await fetch(`${t.url}/v1/rest/posts/${ids[0]}/reject`, {
        method: 'POST',
        headers: { cookie: cookies.map((c) => `${c.name}=${c.value}`).join('; '), 'content-type': 'application/json' },
        body: JSON.stringify({ reason: 'forged' }),
      });
      assert.equal(forged.status, 403);
      assert.equal((await forged.json()).code, 'csrf_token_mismatch');
      assert.equal((await post(ids[0])).approvalStatus, 'APPROVED');
    },
  );

  it('settles unconfirmed posts by hand: published with its address, or not published', async () => {
    const clock = pinClock(t, new Date().toISOString());
    const ids: string[] = [];
    for (const text of ['Went out', 'Did not']) {
      const res = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [a.channelIds[0]], text },
      });
      ids.push(res.body.data[0].id);
    }
    // Workers that died mid-call on a network whose lookup cannot tell whether they went out.
    await dieMidAttempt(t, clock);
    clock.advance(2_000);
    await testWorker(t, {}, cannotTellNetworks(t)).tick();
    await signInTo(`/app/posts/${ids[0]}`);
    assert.match(await status(), /unconfirmed/);
    assert.match((await page.textContent('#next-step')) ?? '', /Look for it on the network/);
    await page.fill('#permalinkUrl', 'ftp://social.example/@me/123');
    await page.getByRole('button', { name: 'Mark as published' }).click();
    await page.waitForSelector('#permalinkUrl-problems .problem');
    assert.match(
      (await page.textContent('#permalinkUrl-problems .problem')) ?? '',
      /address of the post/,
      'the refusal next to the field',
    );
    assert.match(await status(), /unconfirmed/);
    await page.fill('#permalinkUrl', 'https://social.example/@me/123');
    await press('Mark as published');
    assert.match(await status(), /published/);
    await open(`/app/posts/${ids[1]}`);
    await press('Mark as not published');
    assert.match(await status(), /failed/);
    const [went, didNot] = await Promise.all(ids.map(post));
    assert.equal(went.permalinkUrl, 'https://social.example/@me/123');
    assert.deepEqual(
      went.attempts.map((x: any) => x.outcome),
      ['reconciled'],
    );
    assert.match(didNot.error, /A person checked the network/);
    const events = (await t.api('GET', `/v1/rest/events?types=post.published&types=post.failed`, { token: a.apiKey }))
      .body.data;
    assert.deepEqual(
      events.map((e: any) => [e.type, e.data.post.id]),
      [
        ['post.published', ids[0]],
        ['post.failed', ids[1]],
      ],
    );
  });

  it(
    'moves a scheduled post to another day by dragging it in the month, ' +
      'keeping its time, and undoes it; to another hour in the week',
    async () => {
      pinClock(t, '2030-01-06T12:00:00Z');
      const res = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: {
          channelIds: [a.channelIds[0]],
          text: 'Tuesday talk',
          isScheduled: true,
          dateTime: '2030-01-08T08:30:00.000Z',
        },
      });
      const postId = res.body.data[0].id;
      await signInTo('/app/calendar?view=month&date=2030-01-08&tz=Europe/Berlin');
      assert.match(
        (await page.textContent('td[data-day="2030-01-08"]')) ?? '',
        /09:30[\s\S]*scheduled[\s\S]*Tuesday talk/,
        'shown at 09:30 Berlin time',
      );
      await page.dragAndDrop(`[data-post-id="${postId}"]`, 'td[data-day="2030-01-10"]');
      await page.waitForSelector('#undo');
      assert.match((await page.textContent('td[data-day="2030-01-10"]')) ?? '', /09:30[\s\S]*Tuesday talk/);
      assert.doesNotMatch((await page.textContent('td[data-day="2030-01-08"]')) ?? '', /Tuesday talk/);
      assert.equal((await post(postId)).dateTime, '2030-01-10T08:30:00.000Z', 'Thursday, same time of day');
      await page.click('#undo button');
      await page.waitForSelector('#undo', { state: 'detached' });
      assert.equal((await post(postId)).dateTime, '2030-01-08T08:30:00.000Z');
      assert.match((await page.textContent('td[data-day="2030-01-08"]')) ?? '', /Tuesday talk/);

      await page.getByRole('link', { name: 'Week', exact: true }).click();
      await page.waitForSelector('#week');
      assert.match(
        (await page.textContent('td[data-day="2030-01-08"][data-hour="9"]')) ?? '',
        /09:30[\s\S]*Tuesday talk/,
        'in the 09:00 row',
      );
      await page.dragAndDrop(`[data-post-id="${postId}"]`, 'td[data-day="2030-01-11"][data-hour="14"]');
      await page.waitForSelector('#undo');
      assert.equal(
        (await post(postId)).dateTime,
        '2030-01-11T13:30:00.000Z',
        'Friday 14:30 in Berlin: the hour dropped on, its minutes kept',
      );
      assert.match(
        (await page.textContent('td[data-day="2030-01-11"][data-hour="14"]')) ?? '',
        /14:30[\s\S]*Tuesday talk/,
      );
    },
  );

  it('moves a post to another day and time from the keyboard alone, and says why a time is refused', async () => {
    pinClock(t, '2030-01-06T12:00:00Z');
    const res = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: {
        channelIds: [a.channelIds[0]],
        text: 'Keyboard talk',
        isScheduled: true,
        dateTime: '2030-01-08T08:30:00.000Z',
      },
    });
    const postId = res.body.data[0].id;
    await signInTo('/app/calendar?date=2030-01-08&tz=Europe/Berlin');
    await page.getByRole('link', { name: /Keyboard talk/ }).focus();
    await page.keyboard.press('Tab');
    assert.equal(
      await page.evaluate(() => document.activeElement?.textContent),
      'Move',
      'the Move button follows the post',
    );
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => document.activeElement?.id === 'move-day');
    await page.fill('#move-day', '2030-01-01');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#move-dateTime-problems .problem');
    assert.match(
      (await page.textContent('#move-dateTime-problems .problem')) ?? '',
      /future/,
      'a past time refused beside the time',
    );
    await page.fill('#move-day', '2030-01-11');
    await page.focus('#move-time');
    await page.fill('#move-time', '14:00');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#undo');
    assert.equal((await post(postId)).dateTime, '2030-01-11T13:00:00.000Z', '14:00 in Berlin');
    assert.match(
      (await page.textContent('td[data-day="2030-01-11"][data-hour="14"]')) ?? '',
      /14:00[\s\S]*Keyboard talk/,
    );
    assert.equal(await page.locator('#move-form').count(), 0);
    assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Undo', 'the focus goes to Undo');
    await page.keyboard.press('Enter');
    await page.waitForSelector('#undo', { state: 'detached' });
    assert.equal((await post(postId)).dateTime, '2030-01-08T08:30:00.000Z', 'back where it was');
    await page.waitForFunction((id) => document.activeElement?.getAttribute('data-post-id') === id, postId);
    assert.match(
      (await page.textContent('td[data-day="2030-01-08"][data-hour="9"]')) ?? '',
      /09:30[\s\S]*Keyboard talk/,
      'the focus is on the post, back on its day',
    );
  });

  it(
    'tells states apart in month, week and list views, filters by channel, adds live posts in the all-content view, ' +
      'and shows weeks on a phone',
    async () => {
      const clock = pinClock(t, '2030-01-07T12:00:00Z');
      await t.deps.repos.sandbox.setFailure(a.accountId, a.channelIds[1], 'permanent', 1);
      const create = async (channel: number, body: Record<string, unknown>) =>
        (
          await t.api('POST', '/v1/rest/posts', {
            token: a.apiKey,
            body: { channelIds: [a.channelIds[channel]], ...body },
          })
        ).body.data[0].id as string;
      const scheduled = await create(0, { text: 'Planned', isScheduled: true, dateTime: '2030-01-08T08:30:00.000Z' });
      const draft = await create(0, {
        text: 'An idea',
        saveAsDraft: true,
        isScheduled: true,
        dateTime: '2030-01-09T10:00:00.000Z',
      });
      const failing = await create(1, { text: 'Broken', isScheduled: true, dateTime: '2030-01-07T12:01:00.000Z' });
      clock.advance(2 * 60_000);
      await testWorker(t).tick();
      const live = await insertLivePost(t.deps, a, Date.parse('2030-01-10T15:00:00Z'), { text: 'Made on the network' });

      await signInTo('/app/calendar?date=2030-01-08&tz=UTC');
      const entry = async (id: string) => page.locator('li.entry', { has: page.locator(`[data-post-id="${id}"]`) });
      for (const [id, state] of [
        [scheduled, 'scheduled'],
        [draft, 'draft'],
        [failing, 'failed'],
      ] as const) {
        const item = await entry(id);
        assert.equal(await item.getAttribute('class'), `entry ${state}`, 'a colour for each state');
        assert.match(
          (await item.locator('.state').textContent()) ?? '',
          new RegExp(`^. ${state}$`),
          'an icon and the word too',
        );
      }
      assert.equal(await page.locator(`[data-post-id="${live.id}"]`).count(), 0, 'no live posts in the team calendar');
      assert.equal(await page.getAttribute(`[data-post-id="${scheduled}"]`, 'draggable'), 'true');
      assert.equal(
        await page.getAttribute(`[data-post-id="${failing}"]`, 'draggable'),
        'false',
        'only scheduled posts move',
      );

      await page.getByText('Channels: all').click();
      await page.getByRole('checkbox').nth(1).check();
      await page.waitForURL(/channel=/);
      await page.waitForFunction(() => document.querySelectorAll('[data-post-id]').length === 1);
      assert.deepEqual(
        await page.locator('[data-post-id]').evaluateAll((links) => links.map((l) => l.getAttribute('data-post-id'))),
        [failing],
        'only the chosen channel',
      );
      await page.getByRole('link', { name: 'All channels' }).click();
      await page.waitForFunction(() => document.querySelectorAll('[data-post-id]').length === 3);

      await page.getByRole('link', { name: 'List', exact: true }).click();
      await page.waitForSelector('#list');
      assert.match((await page.textContent('#list')) ?? '', /Planned[\s\S]*An idea/);
      await page.getByRole('link', { name: 'All content, with live posts' }).click();
      await page.waitForURL(/\/app\/calendar\/all/);
      await page.waitForSelector(`[data-post-id="${live.id}"]`);
      assert.match(
        (await page.textContent('#list')) ?? '',
        /Planned[\s\S]*An idea[\s\S]*live[\s\S]*Made on the network/,
      );
      await screenshot(page, 'calendar-all-content-list-desktop.png', { fullPage: true });

      // The same person's calendar at a phone's size: the month asked for, mounted afresh at that width.
      await page.setViewportSize({ width: 390, height: 844 });
      await open('/app/calendar?view=month&date=2030-01-08&tz=UTC');
      assert.equal(await page.locator('#month').count(), 0, 'no month grid on a phone');
      assert.match((await page.textContent('#week')) ?? '', /Planned[\s\S]*An idea/, 'the week instead');
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.ok(overflow <= 0, `nothing wider than the phone (${overflow}px too wide)`);
    },
  );
});
