import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { appReady, appSuite, screenshot, signInToApp } from '../support/app-browser.js';
import { TINY_PNG } from '../media/fixtures.js';
import { pinClock, testWorker } from '../publishing/support.js';
import type { SeededAccount, TestHerald } from '../support/herald.js';

const run = promisify(execFile);

/** A team's way through the web app, in a real headless Chromium against a real Herald on loopback. */
describe('the web app, end to end, as a team uses it', function () {
  this.timeout(120_000);
  let t: TestHerald;
  let a: SeededAccount;
  let page: Page;

  appSuite({ seed: { channels: 2 } }, (rig) => ({ t, a, page } = rig));

  async function signIn(password = a.password) {
    await page.goto(`${t.url}/`);
    assert.match(page.url(), /\/app\/sign-in$/, 'the root opens the app, which asks to sign in');
    await page.fill('#email', a.email);
    await page.fill('#password', password);
    await page.click('button[type=submit]');
  }

  it('signs in, composes a post for two channels, sees it published, and signs out for good', async () => {
    await signIn('wrong password here');
    assert.match((await page.textContent('[role=alert]')) ?? '', /email or password is not right/);
    await signIn();
    assert.match(page.url(), /\/app$/);
    await appReady(page);
    assert.match((await page.textContent('main')) ?? '', /No posts yet/);

    await page.click('nav >> text=Compose');
    await page.waitForURL(`${t.url}/app/compose`);
    await appReady(page);
    await page.check(`input[name=channelIds][value="${a.channelIds[0]}"]`);
    await page.check(`input[name=channelIds][value="${a.channelIds[1]}"]`);
    await page.fill('#text', 'Hello from the app');
    await page.click('form.composer button[type=submit]');
    await page.click('#saved li a');
    await page.waitForURL(/\/app\/posts\//);
    assert.match(page.url(), /\/app\/posts\//);
    await appReady(page);
    assert.match((await page.textContent('main')) ?? '', /scheduled/);
    await screenshot(page, 'app-post.png');

    await testWorker(t).tick();
    await page.reload();
    await appReady(page);
    assert.match((await page.textContent('.status')) ?? '', /published/);
    const permalink = await page.getAttribute('a[rel=noreferrer]', 'href');
    assert.ok(permalink?.startsWith(`${t.url}/sandbox/`));
    await page.click('nav >> text=Posts');
    await page.waitForURL(`${t.url}/app`);
    await appReady(page);
    assert.equal(await page.locator('table.posts tbody tr').count(), 2, 'one post per channel');

    const cookies = await page.context().cookies();
    await page.click('button:has-text("Sign out")');
    await page.waitForURL(/\/app\/sign-in$/);
    assert.match(page.url(), /\/app\/sign-in$/);
    // The old cookie is dead on the server, not just forgotten by this browser.
    const replay = await fetch(`${t.url}/app`, {
      redirect: 'manual',
      headers: { cookie: cookies.map((c) => `${c.name}=${c.value}`).join('; ') },
    });
    assert.equal(replay.status, 303);
  });

  it(
    'connects the sandbox, composes for two channels with an image and a first comment, schedules, moves it in ' +
      'the calendar, has a reviewer approve it, and sees it published; an API key works with curl until revoked',
    async () => {
      const clock = pinClock(t, '2030-01-06T12:00:00Z');
      a = await t.seedAccount({ channels: 0, approvalRequired: true });
      const reviewer = await t.api('POST', '/v1/rest/members', {
        token: a.apiKey,
        body: { email: 'rita@example.test', name: 'Rita Reviewer', role: 'reviewer' },
      });
      assert.equal(reviewer.status, 201, JSON.stringify(reviewer.body));

      await signInToApp(page, t.url, a.email, a.password);
      assert.match((await page.textContent('main')) ?? '', /No posts yet/);
      await page.click('nav >> text=Channels');
      await page.waitForURL(`${t.url}/app/channels`);
      await appReady(page);
      for (const handle of ['brand-news', 'brand-jobs']) {
        await page.fill('#connect-sandbox-handle', handle);
        await page.click('section[data-network="sandbox"] button[type=submit]');
        await page.waitForSelector(`tr[data-channel-id]:has-text("${handle}")`);
      }
      const channels = (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data as {
        id: string;
        handle: string;
      }[];
      assert.deepEqual(channels.map((c) => c.handle).sort(), ['brand-jobs', 'brand-news']);

      await page.click('nav >> text=Compose');
      await page.waitForURL(`${t.url}/app/compose`);
      await appReady(page);
      for (const c of channels) await page.check(`input[name=channelIds][value="${c.id}"]`);
      await page.fill('#text', 'Spring launch: our new logo');
      const transfer = await page.evaluateHandle((base64) => {
        const data = new DataTransfer();
        data.items.add(
          new File([Uint8Array.from(atob(base64), (ch) => ch.charCodeAt(0))], 'logo.png', { type: 'image/png' }),
        );
        return data;
      }, TINY_PNG.toString('base64'));
      await page.dispatchEvent('#media-drop', 'dragover', { dataTransfer: transfer });
      await page.dispatchEvent('#media-drop', 'drop', { dataTransfer: transfer });
      await page.waitForSelector('#media-list li[data-media-id] img.thumb');
      const mediaId = await page.getAttribute('#media-list li[data-media-id]', 'data-media-id');
      const altNote = (await page.textContent(`#alt-note-${mediaId}`)) ?? '';
      assert.match(altNote, /Sandbox takes no alt text/, 'said, not dropped unseen');
      await page.fill('#firstComment', 'Designed by our own team');
      await page.check('input[name=when][value=schedule]');
      await page.fill('#dateTime', '2030-01-08T09:30');
      await page.fill('#timezone', 'UTC');
      await screenshot(page, 'journey-compose.png', { fullPage: true });
      await page.click('form.composer button[type=submit]');
      await page.click('#saved li a');
      await page.waitForURL(/\/app\/posts\/[^/]+$/);
      await appReady(page);
      assert.match((await page.textContent('#post-status')) ?? '', /scheduled/);
      assert.match(
        (await page.textContent('main')) ?? '',
        /, waiting for approval on /,
        'the workspace holds new posts for a reviewer',
      );
      assert.match((await page.textContent('.first-comment')) ?? '', /Designed by our own team/);

      await page.goto(`${t.url}/app/calendar?view=month&date=2030-01-08&tz=UTC`);
      await appReady(page);
      const moved = (await t.api('GET', '/v1/rest/posts?limit=10', { token: a.apiKey })).body.data.find(
        (p: { channelId: string }) => p.channelId === channels[0].id,
      );
      assert.match((await page.textContent('td[data-day="2030-01-08"]')) ?? '', /09:30[\s\S]*Spring launch/);
      await page.dragAndDrop(`[data-post-id="${moved.id}"]`, 'td[data-day="2030-01-10"]');
      await page.waitForSelector('#undo');
      assert.equal(
        (await t.api('GET', `/v1/rest/posts/${moved.id}`, { token: a.apiKey })).body.data.dateTime,
        '2030-01-10T09:30:00.000Z',
        'another day, the same time',
      );
      await screenshot(page, 'journey-calendar.png', { fullPage: true });

      await page.click('button:has-text("Sign out")');
      await page.waitForURL(/\/app\/sign-in$/);
      await signInToApp(page, t.url, 'rita@example.test', reviewer.body.data.temporaryPassword);
      assert.equal(await page.locator('nav >> text=Channels').count(), 0, 'a reviewer does not manage the team');
      await page.click('nav >> text=Approvals');
      await page.waitForURL(`${t.url}/app/approvals`);
      await appReady(page);
      assert.equal(await page.locator('table.approvals tbody tr').count(), 2, 'both posts of the group wait');
      await page.check('text=Select every post');
      await page.click('text=Approve selected');
      await page.waitForSelector('text=approved');
      const group = (await t.api('GET', '/v1/rest/posts?limit=10', { token: a.apiKey })).body.data as {
        id: string;
        approvalStatus: string;
      }[];
      assert.deepEqual(
        group.map((p) => p.approvalStatus),
        ['APPROVED', 'APPROVED'],
      );

      clock.advance(Date.parse('2030-01-10T10:00:00Z') - clock.now());
      const worker = testWorker(t);
      await worker.tick();
      await worker.tick();
      // Four days on, every session has ended: the team signs in again.
      await page.goto(`${t.url}/app`);
      await page.waitForURL(/\/app\/sign-in$/);
      await signInToApp(page, t.url, a.email, a.password);
      await page.goto(`${t.url}/app/posts/${encodeURIComponent(moved.id)}`);
      await appReady(page);
      assert.match((await page.textContent('#post-status')) ?? '', /published/);
      const permalink = await page.getAttribute('a[rel=noreferrer]', 'href');
      assert.ok(permalink?.startsWith(`${t.url}/sandbox/`), String(permalink));
      const onNetwork = await (await fetch(permalink!)).text();
      assert.match(onNetwork, /Spring launch: our new logo/);
      assert.match(onNetwork, /Designed by our own team/, 'the first comment is under it');
      await screenshot(page, 'journey-published.png', { fullPage: true });

      await page.goto(`${t.url}/app/settings/api-keys`);
      await appReady(page);
      await page.fill('#key-name', 'the launch script');
      await page.click('#create-key button[type=submit]');
      await page.waitForSelector('#new-key');
      const key = (await page.textContent('#new-key')) ?? '';
      const curl = (token: string) =>
        run('curl', [
          '-s',
          '-w',
          '\n%{http_code}',
          '-H',
          `Authorization: Bearer ${token}`,
          `${t.url}/v1/rest/posts/${moved.id}`,
        ]);
      const [body, status] = (await curl(key)).stdout.split('\n');
      assert.equal(status, '200');
      assert.equal(JSON.parse(body).data.status, 'published');
      await page.click('button[aria-label="Revoke the launch script"]');
      await page.click('text=Yes, revoke');
      await page.waitForSelector('#api-keys >> text=revoked');
      assert.equal((await curl(key)).stdout.split('\n')[1], '401', 'revoked: refused at once');
    },
  );
});
