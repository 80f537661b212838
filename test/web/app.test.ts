import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium.js';
import { appReady, ensureWebBuilt } from '../support/app-browser.js';
import { dieMidAttempt, pinClock, testWorker } from '../publishing/support.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';

const ARTIFACTS = path.resolve('test-artifacts');

/** The web app in a real headless Chromium, against a real Herald on loopback. */
describe('the web app in a headless Chromium', function () {
  this.timeout(60_000);
  let t: TestHerald;
  let a: SeededAccount;
  let browser: Browser;
  let page: Page;

  before(async () => {
    fs.mkdirSync(ARTIFACTS, { recursive: true });
    await ensureWebBuilt();
    browser = await launchChromium();
  });
  after(async () => browser?.close());
  beforeEach(async () => {
    t = await startTestHerald({ outboundAllowHosts: ['127.0.0.1'] });
    a = await t.seedAccount({ channels: 2 });
    page = await (await browser.newContext()).newPage();
  });
  afterEach(async () => {
    await page.context().close();
    await t.close();
  });

  async function signIn(password = a.password) {
    await page.goto(`${t.url}/`);
    assert.match(page.url(), /\/app\/sign-in$/, 'the root opens the app, which asks to sign in');
    await page.fill('#email', a.email);
    await page.fill('#password', password);
    await page.click('button[type=submit]');
  }

  it('signs in, composes a post for two channels, sees it published, and signs out for good', async () => {
    await signIn('wrong password here');
    assert.match(await page.textContent('[role=alert]') ?? '', /email or password is not right/);
    await signIn();
    assert.match(page.url(), /\/app$/);
    await appReady(page);
    assert.match(await page.textContent('main') ?? '', /No posts yet/);

    await page.goto(`${t.url}/app/compose`);
    await appReady(page);
    await page.check(`input[name=channelIds][value="${a.channelIds[0]}"]`);
    await page.check(`input[name=channelIds][value="${a.channelIds[1]}"]`);
    await page.fill('#text', 'Hello from the app');
    await page.click('button[type=submit]:has-text("Save")');
    await page.waitForURL(/\/app\/posts\//);
    assert.match(page.url(), /\/app\/posts\//);
    assert.match(await page.textContent('main') ?? '', /scheduled/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'app-post.png') });

    await testWorker(t).tick();
    await page.reload();
    assert.match(await page.textContent('.status') ?? '', /published/);
    const permalink = await page.getAttribute('a[rel=noreferrer]', 'href');
    assert.ok(permalink?.startsWith(`${t.url}/sandbox/`));
    await page.goto(`${t.url}/app`);
    await appReady(page);
    assert.equal(await page.locator('table.posts tbody tr').count(), 2, 'one post per channel');

    const cookies = await page.context().cookies();
    await page.click('button:has-text("Sign out")');
    await page.waitForURL(/\/app\/sign-in$/);
    assert.match(page.url(), /\/app\/sign-in$/);
    // The old cookie is dead on the server, not just forgotten by this browser.
    const replay = await fetch(`${t.url}/app`, { redirect: 'manual', headers: { cookie: cookies.map((c) => `${c.name}=${c.value}`).join('; ') } });
    assert.equal(replay.status, 303);
  });

  it('retries a failed post from its page, and opens the calendar with the posts', async () => {
    await t.deps.repos.sandbox.setFailure(a.accountId, a.channelIds[0], 'permanent', 1);
    const res = await t.api('POST', '/v1/rest/posts', { token: a.apiKey, body: { channelIds: [a.channelIds[0]], text: 'Second time lucky' } });
    const postId = res.body.data[0].id;
    await testWorker(t).tick();
    await signIn();
    await page.goto(`${t.url}/app/posts/${postId}`);
    assert.match(await page.textContent('.status') ?? '', /failed/);
    await page.click('text=Try again now');
    assert.match(await page.textContent('.status') ?? '', /scheduled/);
    await testWorker(t).tick();
    await page.reload();
    assert.match(await page.textContent('.status') ?? '', /published/);

    await page.goto(`${t.url}/app/calendar`);
    assert.match(await page.textContent('#week') ?? '', /Second time lucky/, 'this week, with its status');
    await page.click('text=Month and list views');
    assert.match(page.url(), /\/calendar\?t=/);
    assert.match(await page.textContent('body') ?? '', /Second time lucky/);
  });

  it('settles unconfirmed posts by hand: published with its address, or not published', async () => {
    const clock = pinClock(t, new Date().toISOString());
    const ids: string[] = [];
    for (const text of ['Went out', 'Did not']) {
      const res = await t.api('POST', '/v1/rest/posts', { token: a.apiKey, body: { channelIds: [a.channelIds[0]], text } });
      ids.push(res.body.data[0].id);
    }
    // Workers that died mid-call: the network shows nothing, so Herald cannot tell.
    await dieMidAttempt(t, clock);
    clock.advance(2_000);
    await testWorker(t).tick();
    await signIn();
    await page.goto(`${t.url}/app/posts/${ids[0]}`);
    assert.match(await page.textContent('.status') ?? '', /unconfirmed/);
    await page.fill('#permalinkUrl', 'https://social.example/@me/123');
    await page.click('text=Mark as published');
    assert.match(await page.textContent('.status') ?? '', /published/);
    await page.goto(`${t.url}/app/posts/${ids[1]}`);
    await page.click('text=Mark as not published');
    assert.match(await page.textContent('.status') ?? '', /failed/);
    const [went, didNot] = await Promise.all(ids.map(async (id) => (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data));
    assert.equal(went.permalinkUrl, 'https://social.example/@me/123');
    assert.deepEqual(went.attempts.map((x: any) => x.outcome), ['reconciled']);
    assert.match(didNot.error, /A person checked the network/);
    const events = (await t.api('GET', `/v1/rest/events?types=post.published&types=post.failed`, { token: a.apiKey })).body.data;
    assert.deepEqual(events.map((e: any) => [e.type, e.data.post.id]), [['post.published', ids[0]], ['post.failed', ids[1]]]);
  });

  it('moves a scheduled post to another day by dragging it in the week, keeping its time, and undoes it', async () => {
    pinClock(t, '2030-01-06T12:00:00Z');
    const res = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey, body: { channelIds: [a.channelIds[0]], text: 'Tuesday talk', isScheduled: true, dateTime: '2030-01-08T08:30:00.000Z' },
    });
    const postId = res.body.data[0].id;
    await signIn();
    await page.goto(`${t.url}/app/calendar?date=2030-01-08&tz=Europe/Berlin`);
    assert.match(await page.textContent('td[data-day="2030-01-08"]') ?? '', /09:30[\s\S]*Tuesday talk/, 'shown at 09:30 Berlin time');
    await page.dragAndDrop(`[data-post-id="${postId}"]`, 'td[data-day="2030-01-10"]');
    await page.waitForSelector('#undo');
    assert.match(await page.textContent('td[data-day="2030-01-10"]') ?? '', /09:30[\s\S]*Tuesday talk/);
    const moved = (await t.api('GET', `/v1/rest/posts/${postId}`, { token: a.apiKey })).body.data;
    assert.equal(moved.dateTime, '2030-01-10T08:30:00.000Z', 'Thursday, same time of day');
    await page.click('#undo button');
    assert.equal((await t.api('GET', `/v1/rest/posts/${postId}`, { token: a.apiKey })).body.data.dateTime, '2030-01-08T08:30:00.000Z');
    assert.equal(await page.locator('#undo').count(), 0);
  });
});
