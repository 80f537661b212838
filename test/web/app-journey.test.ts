import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium.js';
import { appReady, ensureWebBuilt } from '../support/app-browser.js';
import { testWorker } from '../publishing/support.js';
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
    await appReady(page);
    assert.match(await page.textContent('main') ?? '', /scheduled/);
    await page.screenshot({ path: path.join(ARTIFACTS, 'app-post.png') });

    await testWorker(t).tick();
    await page.reload();
    await appReady(page);
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
});
