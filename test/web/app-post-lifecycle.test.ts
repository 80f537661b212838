import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { TINY_PNG } from '../media/fixtures.js';
import { testWorker } from '../publishing/support.js';
import { appReady, appSuite, axeViolations, screenshot, signInOverHttp } from '../support/app-browser.js';
import { blankTab, openInApp } from '../support/app-navigation.js';
import { TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { describeOnce } from '../support/databases.js';

/**
 * A post's life in the web app, in a real headless Chromium against a real Herald: edited, rescheduled, deleted
 * and duplicated from its page; the composer's button naming what it does; every post a save made listed; the
 * post page following the post out without a reload.
 */
// The app in the browser; the REST calls it makes are tested on both databases (test/rest and beside it).
describeOnce(`the web app: a post's life (${TEST_DB})`, function () {
  this.timeout(90_000);
  let t: TestHerald;
  let a: SeededAccount;
  let page: Page;

  // One Herald and tab for the file; each test is a new person with two channels, signed in on the tab made blank.
  const VIEWPORT = { width: 1280, height: 900 };
  const app = appSuite(
    { fresh: 'once', seed: { channels: 2 }, page: { viewport: VIEWPORT } },
    (rig) => ({ t, a, page } = rig),
  );
  beforeEach(async () => {
    a = await t.seedAccount({ channels: 2 });
    page = app.page;
    await blankTab(page, VIEWPORT);
    await page.context().clearCookies();
    await signInOverHttp(page, t.url, a);
  });

  const post = async (id: string) => await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey });
  const auth = () => ({ token: a.apiKey });
  type Listed = { id: string; text: string; status: string; channelId: string };
  const allPosts = async (): Promise<Listed[]> => (await t.api('GET', '/v1/rest/posts?limit=50', auth())).body.data;
  const PAST = 'That time has already passed: pick a time in the future, or choose Publish now.';

  async function create(body: Record<string, unknown>): Promise<string> {
    const res = await t.api('POST', '/v1/rest/posts', { ...auth(), body: { channelIds: [a.channelIds[0]], ...body } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data[0].id;
  }

  /** The test's first page loaded in full, the others reached inside the app, as its links reach them. */
  const open = (url: string) => openInApp(page, t.url, url);

  const submit = () => page.locator('form.composer button[type=submit]');

  it(
    "edits a scheduled post's text and time, refusing a past time in people's words beside it, and reschedules it " +
      'from its page',
    async () => {
      const id = await create({ text: 'Launch day, with a tpyo', isScheduled: true, dateTime: '2030-01-07T09:00:00Z' });
      await open(`/app/posts/${id}`);
      await page.getByRole('link', { name: 'Edit', exact: true }).click();
      await page.waitForURL(`${t.url}/app/posts/${id}/edit`);
      await appReady(page);
      assert.equal(await page.inputValue('#text'), 'Launch day, with a tpyo', 'the form holds the post');
      assert.equal(await page.isChecked('input[name=when][value=schedule]'), true, 'at its time');
      await page.fill('#timezone', 'UTC');
      assert.equal(await submit().textContent(), 'Schedule');

      await page.fill('#text', 'Launch day, with no typo');
      await page.fill('#dateTime', '2020-01-01T10:00');
      await submit().click();
      await page.waitForSelector('#dateTime-problems .problem');
      assert.equal(await page.textContent('#dateTime-problems'), PAST);
      assert.equal(await page.locator('.composer > .problem').count(), 0, "not repeated above in the server's words");
      assert.equal((await post(id)).body.data.text, 'Launch day, with a tpyo', 'nothing changed');

      await page.fill('#dateTime', '2030-02-01T10:30');
      await submit().click();
      await page.waitForURL(`${t.url}/app/posts/${id}`);
      await appReady(page);
      assert.equal(await page.textContent('.post-text'), 'Launch day, with no typo', 'the change on the post page');
      assert.equal(await page.getAttribute('.post-summary time', 'datetime'), '2030-02-01T10:30:00.000Z');
      const edited = (await post(id)).body.data;
      assert.equal(edited.text, 'Launch day, with no typo');
      assert.equal(edited.dateTime, '2030-02-01T10:30:00.000Z');
      assert.equal(edited.status, 'scheduled');

      const zone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
      assert.ok(
        (await page.textContent('label[for=newTime]'))?.includes(`your time zone: ${zone}`),
        'the time zone is named',
      );
      await page.fill('#newTime', '2020-03-01T08:00');
      await page.getByRole('button', { name: 'Reschedule', exact: true }).click();
      await page.waitForSelector('#newTime-problems .problem');
      assert.equal(await page.textContent('#newTime-problems'), PAST);
      await page.fill('#newTime', '2030-03-01T08:00');
      await page.getByRole('button', { name: 'Reschedule', exact: true }).click();
      await page.waitForSelector('#done');
      assert.match((await page.textContent('#done')) ?? '', /^Rescheduled for /);
      const moved = (await post(id)).body.data.dateTime;
      const inBrowserZone = await page.evaluate(() => new Date('2030-03-01T08:00').toISOString());
      assert.equal(moved, inBrowserZone, "in the browser's zone");
      assert.equal(await page.getAttribute('.post-summary time', 'datetime'), moved);
      await screenshot(page, 'app-post-lifecycle.png', { fullPage: true });
    },
  );

  it('edits a draft with its picture, alt text and delayed first comment kept, and schedules it', async () => {
    const started = (
      await t.api('POST', '/v1/rest/media/uploads', {
        token: a.apiKey,
        body: { fileName: 'logo.png', contentType: 'image/png', sizeBytes: TINY_PNG.length },
      })
    ).body.data;
    await fetch(started.uploadUrl, { method: 'PUT', headers: started.headers, body: TINY_PNG });
    const completed = await t.api('POST', `/v1/rest/media/uploads/${started.uploadId}/complete`, { token: a.apiKey });
    const media = completed.body.data;
    const firstComment = { text: 'Details', delayMinutes: 5 };
    const id = await create({ text: 'With a picture', mediaIds: [media.id], saveAsDraft: true, firstComment });
    const altText = { channelOptions: { altText: ['A tiny logo'] } };
    const options = await t.api('PATCH', `/v1/rest/posts/${id}`, { token: a.apiKey, body: altText });
    assert.equal(options.status, 200, JSON.stringify(options.body));

    await open(`/app/posts/${id}/edit`);
    const picture = page.locator(`#media-list li[data-media-id="${media.id}"]`);
    assert.equal(await picture.count(), 1, 'its picture, from the library');
    assert.equal(await page.inputValue(`#alt-${media.id}`), 'A tiny logo');
    assert.equal(await page.inputValue('#firstComment'), 'Details');
    assert.equal(await page.isChecked('input[name=when][value=draft]'), true);
    assert.equal(await submit().textContent(), 'Save draft');
    await page.fill(`#alt-${media.id}`, 'The logo, tiny');
    await page.check('input[name=when][value=schedule]');
    await page.fill('#timezone', 'UTC');
    await page.fill('#dateTime', '2030-05-01T12:00');
    await submit().click();
    await page.waitForURL(`${t.url}/app/posts/${id}`);
    const edited = (await post(id)).body.data;
    assert.equal(edited.status, 'scheduled');
    assert.equal(edited.dateTime, '2030-05-01T12:00:00.000Z');
    assert.deepEqual(edited.imageUrls, [media.url]);
    assert.deepEqual(edited.channelOptions.altText, ['The logo, tiny']);
    assert.deepEqual(edited.firstComment, { text: 'Details', delayMinutes: 5 });
  });

  it('deletes a post after asking, in place, and it is gone from the list', async () => {
    const id = await create({ text: 'Never mind this one', isScheduled: true, dateTime: '2030-01-07T09:00:00.000Z' });
    await open('/app');
    assert.match((await page.textContent('main')) ?? '', /Never mind this one/);
    await page.click(`a[href="/app/posts/${id}"]`);
    await page.waitForURL(`${t.url}/app/posts/${id}`);
    await appReady(page);
    await page.getByRole('button', { name: 'Delete this post', exact: true }).click();
    assert.match((await page.textContent('.confirm')) ?? '', /Delete this post\? It will not go out\./);
    assert.equal((await post(id)).status, 200, 'nothing deleted before the confirmation');
    await page.getByRole('button', { name: 'Yes, delete it', exact: true }).click();
    await page.waitForURL(`${t.url}/app`);
    await appReady(page);
    assert.doesNotMatch((await page.textContent('main')) ?? '', /Never mind this one/);
    assert.equal((await post(id)).status, 404);
  });

  it('duplicates a post into the composer, prefilled, saving nothing until the person saves', async () => {
    const id = await create({ text: 'Worth saying twice', firstComment: { text: 'More below' } });
    await testWorker(t).tick();
    assert.equal((await post(id)).body.data.status, 'published');
    await open(`/app/posts/${id}`);
    const edit = page.getByRole('link', { name: 'Edit', exact: true });
    assert.equal(await edit.count(), 0, 'a published post is read only');
    assert.equal(await page.locator('#reschedule').count(), 0);
    await open(`/app/posts/${id}/edit`);
    assert.match(
      (await page.textContent('main')) ?? '',
      /This post is published: it can no longer be\s+changed\. Duplicate it/,
    );
    assert.equal(await page.locator('form.composer').count(), 0, 'no form to edit it with');
    await open(`/app/posts/${id}`);
    await page.getByRole('link', { name: 'Duplicate', exact: true }).click();
    await page.waitForURL(`${t.url}/app/compose?from=${id}`);
    await appReady(page);
    assert.equal(await page.inputValue('#text'), 'Worth saying twice');
    assert.equal(await page.inputValue('#firstComment'), 'More below');
    assert.equal(await page.isChecked(`input[name=channelIds][value="${a.channelIds[0]}"]`), true);
    assert.equal(await page.isChecked('input[name=when][value=draft]'), true, 'a copy starts as a draft');
    assert.equal((await allPosts()).length, 1, 'nothing saved yet');

    await page.check(`input[name=channelIds][value="${a.channelIds[1]}"]`);
    await submit().click();
    await page.waitForSelector('#saved');
    const posts = await allPosts();
    assert.equal(posts.length, 3, 'the original and a copy on each channel');
    const copies = posts.filter((p) => p.id !== id);
    assert.ok(copies.every((p) => p.text === 'Worth saying twice' && p.status === 'draft'));
    assert.equal((await post(id)).body.data.status, 'published', 'the original stays as it was');
  });

  it("names its action after the chosen option and will not save a text past a network's limit", async () => {
    await open('/app/compose');
    const labels: string[] = [];
    for (const when of ['now', 'schedule', 'queue', 'draft']) {
      await page.check(`input[name=when][value=${when}]`);
      labels.push((await submit().textContent()) ?? '');
    }
    assert.deepEqual(labels, ['Publish now', 'Schedule', 'Add to queue', 'Save draft']);
    await page.check('input[name=when][value=now]');
    await page.check(`input[name=channelIds][value="${a.channelIds[0]}"]`);
    await page.fill('#text', 'x'.repeat(5001));
    assert.equal(await submit().isDisabled(), true, 'past the limit');
    const blocked = (await page.textContent('#save-blocked')) ?? '';
    assert.match(blocked, /Shorten the text first: 1 too many characters for .* \(Sandbox takes 5000\)/);
    assert.equal(await submit().getAttribute('aria-describedby'), 'save-blocked', 'the reason is tied to the button');
    await page.fill('#text', 'x'.repeat(5000));
    assert.equal(await submit().isDisabled(), false);
    assert.equal(await page.textContent('#save-blocked'), '');
  });

  it("says in people's words, beside the choice, that a channel has no queue to add to", async () => {
    await open('/app/compose');
    await page.check(`input[name=channelIds][value="${a.channelIds[0]}"]`);
    await page.fill('#text', 'Whenever there is room');
    await page.check('input[name=when][value=queue]');
    await submit().click();
    await page.waitForSelector('#when-problems .problem');
    assert.equal(
      await page.textContent('#when-problems'),
      'A chosen channel has no queue yet: give it weekly posting times ' +
        'from the Channels page (its queue), or pick a time instead.',
    );
    assert.equal((await allPosts()).length, 0);
  });

  it('lists every post a save made, one per channel, with what happens and when, each linked to its page', async () => {
    type Named = { id: string; name: string; displayName: string | null };
    const channels: Named[] = (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data;
    await open('/app/compose');
    for (const id of a.channelIds) await page.check(`input[name=channelIds][value="${id}"]`);
    await page.fill('#text', 'Two channels, one save');
    await page.check('input[name=when][value=schedule]');
    await page.fill('#dateTime', '2030-01-08T09:30');
    await page.fill('#timezone', 'UTC');
    await submit().click();
    await page.waitForSelector('#saved');
    assert.equal(page.url(), `${t.url}/app/compose`, 'the composer says what it made rather than open one of them');
    assert.equal(await page.textContent('#saved-title'), '2 posts saved, one per channel');
    const saved = await allPosts();
    const items = page.locator('#saved li');
    assert.equal(await items.count(), 2);
    for (const p of saved) {
      const item = page.locator(`#saved li[data-post-id="${p.id}"]`);
      const channel = channels.find((c) => c.id === p.channelId)!;
      assert.equal(await item.locator('a').textContent(), channel.displayName ?? channel.name);
      assert.equal(await item.locator('a').getAttribute('href'), `/app/posts/${p.id}`);
      assert.match((await item.textContent()) ?? '', /: scheduled: it goes out on [^,]+, 2030, [^,]+, .+\./);
    }
    await screenshot(page, 'app-compose-saved.png');
    assert.deepEqual(await axeViolations(page), [], 'the list passes axe');
    await page.click(`#saved li[data-post-id="${saved[0].id}"] a`);
    await page.waitForURL(`${t.url}/app/posts/${saved[0].id}`);
    await appReady(page);
    assert.equal(await page.textContent('.post-text'), 'Two channels, one save');
  });

  it('shows a post published while its page is open as published, without a reload', async () => {
    const id = await create({ text: 'Out it goes' });
    // The page looks again every few seconds: its clock is moved on to that look rather than waited for, on a tab of
    // its own (signed in, as the context is), since a tab's installed clock stays for its later pages.
    page = await app.newTab();
    await page.clock.install();
    await open(`/app/posts/${id}`);
    assert.match((await page.textContent('#post-status')) ?? '', /scheduled/);
    await page.evaluate(() => {
      (window as unknown as { stayed: boolean }).stayed = true;
    });
    await testWorker(t).tick();
    assert.equal((await post(id)).body.data.status, 'published');
    await page.clock.runFor(4_000);
    const shown = () => /published/.test(document.getElementById('post-status')?.textContent ?? '');
    await page.waitForFunction(shown, undefined, { timeout: 15_000 });
    const stayed = await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed);
    assert.equal(stayed, true, 'the same page, not reloaded');
    await page.waitForSelector('main a[rel=noreferrer]');
    assert.equal(await page.getByRole('link', { name: 'Edit', exact: true }).count(), 0, 'published: read only now');
  });
});
