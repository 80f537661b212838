import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import * as provisioning from '../../src/domain/provisioning.js';
import { TINY_PNG } from '../media/fixtures.js';
import { appReady, appSuite, axeViolations, screenshot, signInOverHttp, SIZES } from '../support/app-browser.js';
import { blankTab, openInApp } from '../support/app-navigation.js';
import { TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';

/**
 * Editing a post in the web app, in a real headless Chromium against a real Herald: moving it to another channel and
 * adding channels (held to each network's limit as the composer holds a new post), the posts made with it left as
 * they are; the post page's preview on each channel, from the composer's own cards; and leaving the composer or the
 * edit page with unsaved text, by a link, the Back button or a reload, asks first.
 */
describe(`the web app: editing a post's channels, its previews, and leaving unsaved work (${TEST_DB})`, function () {
  this.timeout(90_000);
  let t: TestHerald;
  let a: SeededAccount;
  let bluesky: string;
  let page: Page;
  // One Herald and tab for the file; each test is a new person with two channels, the tab blank again for them.
  const VIEWPORT = { width: 1280, height: 900 };
  const app = appSuite(
    { fresh: 'once', seed: { channels: 2 }, page: { viewport: VIEWPORT } },
    (rig) => ({ t, a, page } = rig),
  );

  // Signed in once the Bluesky channel is there, as the page would be for a person who had connected it.
  beforeEach(async () => {
    a = await t.seedAccount({ channels: 2 });
    const { accountId, workspaceId } = a;
    bluesky = (await provisioning.addChannel(t.deps, { accountId, workspaceId, network: 'bluesky', handle: 'us.test' }))
      .id;
    page = app.page;
    await blankTab(page, VIEWPORT);
    await page.context().clearCookies();
    await signInOverHttp(page, t.url, a);
  });

  const auth = () => ({ token: a.apiKey });
  const post = async (id: string) => await t.api('GET', `/v1/rest/posts/${id}`, auth());
  type Listed = { id: string; text: string; status: string; channelId: string; dateTime: string };
  const allPosts = async (): Promise<Listed[]> => (await t.api('GET', '/v1/rest/posts?limit=50', auth())).body.data;
  const submit = () => page.locator('form.composer button[type=submit]');
  const box = (channelId: string) => page.locator(`input[name=channelIds][value="${channelId}"]`);

  async function create(body: Record<string, unknown>): Promise<Listed[]> {
    const res = await t.api('POST', '/v1/rest/posts', { ...auth(), body: { channelIds: [a.channelIds[0]], ...body } });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data;
  }

  /**
   * The edit page reached as a person reaches it: from the post's page, so Back goes there. The click waits for the
   * link alone; the edit page is the one whose data the test reads.
   */
  async function edit(id: string): Promise<void> {
    await page.goto(`${t.url}/app/posts/${id}`);
    await page.getByRole('link', { name: 'Edit', exact: true }).click();
    await page.waitForURL(`${t.url}/app/posts/${id}/edit`);
    await appReady(page);
  }

  /** The page as it is passes axe at desktop and phone sizes, fits the phone's width, and is kept as a screenshot. */
  async function clean(name: string) {
    for (const [size, viewport] of Object.entries(SIZES)) {
      await page.setViewportSize(viewport);
      assert.deepEqual(await axeViolations(page), [], `${name}, ${size}`);
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      assert.equal(overflow, 0, `${name} fits a ${size}'s width`);
      await screenshot(page, `${name}-${size}.png`, { fullPage: true });
    }
    await page.setViewportSize({ width: 1280, height: 900 });
  }

  /** Types as a person does (a click, then keys), so the page counts as used and the browser asks on leaving. */
  async function type(selector: string, text: string) {
    await page.click(selector);
    await page.keyboard.type(text);
  }

  it('moves a scheduled post to another channel and adds one, held to that network’s limit first', async () => {
    const long = 'A launch note that says a lot more than Bluesky takes in one post. '.repeat(5);
    const [original] = await create({ text: long, isScheduled: true, dateTime: '2030-01-07T09:00:00.000Z' });
    const label = (await t.api('POST', '/v1/rest/labels', { ...auth(), body: { name: 'Launch', color: '#22aa55' } }))
      .body.data;
    await t.api('POST', `/v1/rest/posts/${original.id}/labels`, { ...auth(), body: { labelIds: [label.id] } });
    await edit(original.id);
    assert.equal(await box(a.channelIds[0]).isChecked(), true, 'its channel ticked');
    assert.equal(await box(a.channelIds[1]).isChecked(), false);

    await box(bluesky).check();
    await page.waitForSelector('.counters .counter.over[data-network=bluesky]');
    assert.equal(await submit().isDisabled(), true, 'too long for Bluesky: no save');
    assert.match(
      (await page.textContent('#save-blocked')) ?? '',
      /too many characters for us\.test \(Bluesky takes 300\)/,
    );
    const card = page.locator(`#previews .preview[data-channel-id="${bluesky}"]`);
    assert.equal(await card.locator('mark.cut').count(), 1, "the Bluesky preview marks what is past Bluesky's limit");

    await page.fill('#text', 'Launch day, on two other channels');
    await box(a.channelIds[0]).uncheck();
    await box(a.channelIds[1]).check();
    assert.equal(await submit().isDisabled(), false);
    await submit().click();
    await page.waitForSelector('#saved');
    assert.equal(await page.textContent('#saved-title'), '2 posts saved, one per channel');

    assert.equal((await post(original.id)).status, 404, 'moved: no post left on the first channel');
    const posts = await allPosts();
    assert.deepEqual(posts.map((p) => p.channelId).sort(), [a.channelIds[1], bluesky].sort());
    for (const p of posts) {
      assert.equal(p.text, 'Launch day, on two other channels');
      assert.equal(p.status, 'scheduled');
      assert.equal(p.dateTime, '2030-01-07T09:00:00.000Z', 'at its time');
      const labelled = (await post(p.id)).body.data.labels.map((l: { id: string }) => l.id);
      assert.deepEqual(labelled, [label.id], 'with its label');
      const item = page.locator(`#saved li[data-post-id="${p.id}"] a`);
      assert.equal(await item.getAttribute('href'), `/app/posts/${p.id}`);
    }

    const first = await page.locator('#saved li').first().getAttribute('data-post-id');
    const back = page.getByRole('link', { name: 'Back to the post' });
    assert.equal(await back.getAttribute('href'), `/app/posts/${first}`, 'to a post that is there, not the moved one');
    await back.click();
    await page.waitForURL(`${t.url}/app/posts/${first}`);
    await appReady(page);
    assert.equal(await page.textContent('blockquote.post-text'), 'Launch day, on two other channels');
  });

  it('says plainly that the channel of a post was disconnected, and moves it to one ticked instead', async () => {
    const [draft] = await create({ text: 'Left behind', saveAsDraft: true });
    assert.equal((await t.api('DELETE', `/v1/rest/channels/${a.channelIds[0]}`, auth())).status, 200);
    await edit(draft.id);
    assert.match(
      (await page.textContent('#channel-gone')) ?? '',
      new RegExp(
        'Its channel, .+, was disconnected: tick another channel to move the post there, ' +
          'or reconnect it on the Channels page first\\.',
      ),
    );
    assert.equal(await box(a.channelIds[0]).count(), 0, 'no box for a disconnected channel');
    assert.equal(await page.locator('input[name=channelIds]:checked').count(), 0);

    await box(a.channelIds[1]).check();
    await submit().click();
    await page.waitForURL(/\/app\/posts\/[^/]+$/);
    await appReady(page);
    const moved = page.url().split('/').pop()!;
    const now = (await post(moved)).body.data;
    assert.deepEqual([now.channelId, now.text, now.status], [a.channelIds[1], 'Left behind', 'draft']);
  });

  it("keeps a queued post's place and gives the channel it adds that channel's next free slot", async () => {
    const slots = [[{ day: 'mon', time: '09:00' }], [{ day: 'thu', time: '14:30' }]];
    for (const [i, channelId] of a.channelIds.entries()) {
      const set = await t.api('PUT', `/v1/rest/channels/${channelId}/schedule`, {
        ...auth(),
        body: { slots: slots[i] },
      });
      assert.equal(set.status, 200, JSON.stringify(set.body));
    }
    const [queued] = await create({ text: 'In line', addToQueue: true });
    await edit(queued.id);
    assert.equal(await page.isChecked('input[name=when][value=queue]'), true);
    await box(a.channelIds[1]).check();
    assert.match(
      (await page.locator('label.choice', { has: page.locator('input[value=queue]') }).textContent()) ?? '',
      /Keep its place in the queue; a channel added gives it its next free slot/,
    );
    await submit().click();
    await page.waitForSelector('#saved');
    const posts = await allPosts();
    const kept = posts.find((p) => p.id === queued.id)!;
    const added = posts.find((p) => p.channelId === a.channelIds[1])!;
    assert.equal(kept.dateTime, queued.dateTime, 'the queued post keeps its slot');
    const copy = (await post(added.id)).body.data;
    assert.equal(copy.inQueue, true, "the copy is in its channel's queue");
    assert.equal(new Date(copy.dateTime).getUTCDay(), 4, "at its channel's Thursday slot");
  });

  it('leaves the posts made with it as they are: their channels stay ticked and their text their own', async () => {
    const made = await create({
      channelIds: [a.channelIds[0], a.channelIds[1]],
      text: 'Made together',
      saveAsDraft: true,
    });
    const mine = made.find((p) => p.channelId === a.channelIds[0])!;
    const sibling = made.find((p) => p.channelId === a.channelIds[1])!;
    await edit(mine.id);
    assert.equal(await box(a.channelIds[1]).isChecked(), true);
    assert.equal(await box(a.channelIds[1]).isDisabled(), true, 'the other post of its group is not this one to move');
    assert.match(
      (await page.locator('label.choice', { has: box(a.channelIds[1]) }).textContent()) ?? '',
      /already has its own post, made with this one/,
    );
    await clean('app-post-edit-channels');
    await page.fill('#text', 'Moved to Bluesky');
    await box(a.channelIds[0]).uncheck();
    await box(bluesky).check();
    await submit().click();
    await page.waitForURL(/\/app\/posts\/[^/]+$/);
    await appReady(page);
    const moved = page.url().split('/').pop()!;
    assert.notEqual(moved, mine.id);
    assert.equal((await post(moved)).body.data.channelId, bluesky, 'the page of the post on its new channel');
    assert.equal(await page.textContent('blockquote.post-text'), 'Moved to Bluesky');
    assert.equal((await post(sibling.id)).body.data.text, 'Made together', 'the other post keeps its text');
    assert.equal((await post(mine.id)).status, 404);
  });

  it(
    'previews the post on its channel and those made with it on theirs, ' + 'counted and shown as each network does',
    async () => {
      const started = (
        await t.api('POST', '/v1/rest/media/uploads', {
          ...auth(),
          body: { fileName: 'logo.png', contentType: 'image/png', sizeBytes: TINY_PNG.length },
        })
      ).body.data;
      await fetch(started.uploadUrl, { method: 'PUT', headers: started.headers, body: TINY_PNG });
      const media = (await t.api('POST', `/v1/rest/media/uploads/${started.uploadId}/complete`, auth())).body.data;
      // A family emoji is five code points (the sandbox counts those) but one character to Bluesky.
      const text = 'Launch 👩‍👩‍👧 day';
      const made = await create({
        channelIds: [a.channelIds[0], bluesky],
        text,
        mediaIds: [media.id],
        firstComment: { text: 'Details below' },
        isScheduled: true,
        dateTime: '2030-01-07T09:00:00.000Z',
      });
      const mine = made.find((p) => p.channelId === a.channelIds[0])!;
      const other = made.find((p) => p.channelId === bluesky)!;
      await app.open(`/app/posts/${mine.id}`, page);
      const cards = page.locator('#post-previews .preview');
      assert.equal(await cards.count(), 2, 'one per channel');
      assert.equal(await cards.nth(0).getAttribute('data-channel-id'), a.channelIds[0], 'this post first');
      const sandbox = page.locator(`#post-previews .preview[data-channel-id="${a.channelIds[0]}"]`);
      const onBluesky = page.locator(`#post-previews .preview[data-channel-id="${bluesky}"]`);
      assert.equal(await sandbox.locator('.counter').textContent(), 'Sandbox: 16 / 5000');
      assert.equal(await onBluesky.locator('.counter').textContent(), 'Bluesky: 12 / 300');
      assert.equal(await onBluesky.locator('.preview-text').textContent(), text);
      assert.equal(await onBluesky.locator('.preview-media img').getAttribute('src'), media.url, 'its picture');
      assert.equal(await onBluesky.locator('.preview-comment').textContent(), '↳ Details below');
      const link = page.getByRole('link', { name: 'Open the post on us.test', exact: true });
      assert.equal(await link.getAttribute('href'), `/app/posts/${other.id}`);
      await clean('app-post-previews');

      const [threaded] = await create({ text: 'Part one', thread: [{ text: 'Part two' }], saveAsDraft: true });
      await openInApp(page, t.url, `/app/posts/${threaded.id}`);
      assert.equal(await page.textContent('#previews-title'), 'Preview', 'a post made alone has one');
      const parts = page.locator('#post-previews .preview-thread .preview-part');
      assert.equal(await parts.count(), 1);
      assert.equal((await parts.textContent())?.trim(), '↳ Part two');
    },
  );

  it(
    'asks before the Back button leaves the edit page with unsaved text, ' + 'stays when told to, and on a reload',
    async () => {
      const [original] = await create({ text: 'As it was', saveAsDraft: true });
      await edit(original.id);
      await type('#text', ', and more');

      const refused = page.waitForEvent('dialog', { timeout: 5_000 });
      await page.evaluate(() => history.back());
      const asked = await refused;
      assert.equal(asked.type(), 'confirm');
      assert.equal(asked.message(), 'Leave without saving? Your changes are lost.');
      await asked.dismiss();
      await page.waitForFunction(() => location.pathname.endsWith('/edit'));
      await appReady(page);
      assert.equal(page.url(), `${t.url}/app/posts/${original.id}/edit`, 'dismissed: still editing');
      assert.equal(await page.inputValue('#text'), 'As it was, and more', 'with the text as typed');

      // A dismissed reload never loads, so its promise only ends at its timeout: the dialog is what is waited for.
      const onReload = page.waitForEvent('dialog', { timeout: 5_000 });
      void page.reload({ timeout: 5_000 }).catch(() => undefined);
      const reloadAsked = await onReload;
      assert.equal(reloadAsked.type(), 'beforeunload', "a reload asks the browser's way");
      await reloadAsked.dismiss();
      assert.equal(await page.inputValue('#text'), 'As it was, and more', 'stayed');

      const accepted = page.waitForEvent('dialog', { timeout: 5_000 });
      await page.evaluate(() => history.back());
      await (await accepted).accept();
      await page.waitForURL(`${t.url}/app/posts/${original.id}`);
      await appReady(page);
      assert.equal(await page.textContent('blockquote.post-text'), 'As it was', 'left without saving');
    },
  );

  it('asks before the Back button leaves the composer with unsaved text, and goes when told to', async () => {
    await page.goto(`${t.url}/app`);
    await page.click('nav >> text=Compose');
    await page.waitForURL(`${t.url}/app/compose`);
    await appReady(page);
    await type('#text', 'Half a thought');
    const asked = page.waitForEvent('dialog', { timeout: 5_000 });
    await page.evaluate(() => history.back());
    const dialog = await asked;
    assert.match(dialog.message(), /Leave the composer\? Nothing is posted yet/);
    await dialog.accept();
    await page.waitForURL(`${t.url}/app`);
    await appReady(page);
    assert.equal(await page.locator('form.composer').count(), 0, 'on the posts page');

    await page.evaluate(() => history.forward());
    await page.waitForURL(`${t.url}/app/compose`);
    await appReady(page);
    assert.equal(await page.inputValue('#text'), 'Half a thought', 'kept as the draft, and Forward is not asked');
  });
});
