import assert from 'node:assert/strict';
import type { Dialog, Page } from 'playwright-core';
import * as provisioning from '../../src/domain/provisioning.js';
import { TINY_PNG } from '../media/fixtures.js';
import { appReady, appSuite, signInByForm } from '../support/app-browser.js';
import { TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { describeOnce } from '../support/databases.js';

/**
 * The composer keeps what a person wrote: through a reload, a visit to another page and a session that ended, and
 * asks before they leave it; it fits one network's own version; its hashtags, alt text and time zones follow what
 * the chosen networks and the browser are; a channel connected from the app takes the browser's zone; the post
 * page shows the media saved.
 */
// The app in the browser; the REST calls it makes are tested on both databases (test/rest and beside it).
describeOnce(`the web app: the composer's drafts, versions and zones (${TEST_DB})`, function () {
  this.timeout(60_000);
  let t: TestHerald;
  let a: SeededAccount;
  let page: Page;
  // One Herald for the file; each test is a new person with two channels, on a tab of a Berlin browser with nothing
  // kept in it yet (the drafts a browser keeps are what these tests look at), or in a browser of another zone.
  const viewport = { width: 1280, height: 900 };
  const app = appSuite(
    { fresh: 'once', seed: { channels: 2 }, page: { timezoneId: 'Europe/Berlin', viewport } },
    (rig) => ({ t, a } = rig),
  );
  beforeEach(async () => {
    a = await t.seedAccount({ channels: 2 });
  });

  /** A browser whose zone is `timezoneId`, signed in, on `address`. */
  async function signedIn(timezoneId = 'Europe/Berlin', address = '/app') {
    if (timezoneId === 'Europe/Berlin') {
      await app.page.context().clearCookies();
      page = await app.newTab();
      const devtools = await page.context().newCDPSession(page);
      await devtools.send('Storage.clearDataForOrigin', { origin: t.url, storageTypes: 'local_storage' });
      await devtools.detach();
    } else page = await app.newPage({ timezoneId, viewport });
    await signInByForm(page, t.url, a, address);
  }

  const openComposer = (timezoneId?: string) => signedIn(timezoneId, '/app/compose');

  const submit = () => page.click('form.composer button[type=submit]');
  const keptDrafts = () =>
    page.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('herald.compose-draft')));

  async function channel(network: string, handle: string): Promise<string> {
    const { accountId, workspaceId } = a;
    return (await provisioning.addChannel(t.deps, { accountId, workspaceId, network, handle })).id;
  }

  /** Types as a person does (a click, then keys), so the page counts as used and the browser asks on leaving. */
  async function type(selector: string, text: string) {
    await page.click(selector);
    await page.keyboard.type(text);
  }

  it('keeps the draft through a reload and a visit to another page, and forgets it once saved', async () => {
    await openComposer();
    await page.check(`input[name=channelIds][value="${a.channelIds[0]}"]`);
    await type('#text', 'A draft that survives');
    await page.fill('#firstComment', 'And its comment');
    await page.check('input[name=when][value=schedule]');
    await page.fill('#dateTime', '2031-01-02T10:00');
    await page.fill('#timezone', 'America/New_York');

    await page.reload();
    await appReady(page);
    assert.equal(await page.inputValue('#text'), 'A draft that survives', 'the text is back after a reload');
    assert.equal(await page.isChecked(`input[name=channelIds][value="${a.channelIds[0]}"]`), true);
    assert.equal(await page.inputValue('#firstComment'), 'And its comment');
    assert.equal(await page.isChecked('input[name=when][value=schedule]'), true);
    assert.equal(await page.inputValue('#dateTime'), '2031-01-02T10:00');
    assert.equal(await page.inputValue('#timezone'), 'America/New_York');

    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('nav >> text=Posts');
    await page.waitForURL(`${t.url}/app`);
    await page.waitForSelector('h1:text-is("Posts")');
    await page.click('nav >> text=Compose');
    await page.waitForURL(`${t.url}/app/compose`);
    await appReady(page);
    assert.equal(await page.inputValue('#text'), 'A draft that survives', 'and after a visit to another page');

    await submit();
    await page.waitForSelector('#saved');
    assert.deepEqual(await keptDrafts(), [], 'saved: nothing kept');
    const [post] = (await t.api('GET', '/v1/rest/posts?limit=5', { token: a.apiKey })).body.data;
    assert.equal(post.dateTime, '2031-01-02T15:00:00.000Z', '10:00 in New York');
    await page.click('button:has-text("Write another post")');
    assert.equal(await page.inputValue('#text'), '');
    await page.reload();
    await appReady(page);
    assert.equal(await page.inputValue('#text'), '', 'the saved text does not come back');
  });

  it('keeps the draft when the composer is opened for a time from the calendar, scheduling it then', async () => {
    await openComposer();
    await type('#text', 'Written first, timed later');
    await page.goto(`${t.url}/app/compose?at=2031-03-04T09:00&tz=America/New_York`);
    await appReady(page);
    assert.equal(await page.inputValue('#text'), 'Written first, timed later');
    assert.equal(await page.isChecked('input[name=when][value=schedule]'), true);
    assert.equal(await page.inputValue('#dateTime'), '2031-03-04T09:00');
    assert.equal(await page.inputValue('#timezone'), 'America/New_York');
  });

  it('asks before leaving with unsaved text, stays when told to, and discards the draft when asked', async () => {
    await openComposer();
    await type('#text', 'Not ready yet');
    let asked: Dialog | undefined;
    page.once('dialog', (dialog) => {
      asked = dialog;
      void dialog.dismiss();
    });
    await page.click('nav >> text=Posts');
    await page.waitForFunction(() => true);
    assert.equal(asked?.type(), 'confirm');
    assert.match(asked?.message() ?? '', /Leave the composer\? Nothing is posted yet/);
    assert.equal(page.url(), `${t.url}/app/compose`, 'dismissed: still in the composer');
    assert.equal(await page.inputValue('#text'), 'Not ready yet');

    let onReload: string | undefined;
    page.once('dialog', (dialog) => {
      onReload = dialog.type();
      void dialog.accept();
    });
    await page.reload();
    await appReady(page);
    assert.equal(onReload, 'beforeunload', "a reload asks the browser's way");

    await page.getByRole('button', { name: 'Discard draft', exact: true }).click();
    await page.getByRole('button', { name: 'Yes, discard it', exact: true }).click();
    assert.equal(await page.inputValue('#text'), '');
    assert.deepEqual(await keptDrafts(), []);
    let askedAgain = false;
    page.on('dialog', (dialog) => {
      askedAgain = true;
      void dialog.accept();
    });
    await page.click('nav >> text=Posts');
    await page.waitForURL(`${t.url}/app`);
    assert.equal(askedAgain, false, 'nothing unsaved: no question');
  });

  it(
    'keeps the draft when the session ended in another tab, ' + 'and brings it back once the person signs in again',
    async () => {
      await openComposer();
      await page.check(`input[name=channelIds][value="${a.channelIds[1]}"]`);
      await type('#text', 'Written before the session ended');
      const other = await page.context().newPage();
      await other.goto(`${t.url}/app`);
      await other.click('button:has-text("Sign out")');
      await other.waitForURL(/\/app\/sign-in/);
      await other.close();

      await page.reload();
      await page.waitForURL(/\/app\/sign-in/);
      assert.deepEqual(await keptDrafts(), [`herald.compose-draft.${a.userId}`], "kept under the person's own id");
      const kept = await page.evaluate((key) => localStorage.getItem(key) ?? '', `herald.compose-draft.${a.userId}`);
      assert.doesNotMatch(kept, /csrf|token|password/i, 'nothing secret in it');
      await page.fill('#email', a.email);
      await page.fill('#password', a.password);
      await page.click('button[type=submit]');
      await page.waitForURL(`${t.url}/app/compose`);
      await appReady(page);
      assert.equal(await page.inputValue('#text'), 'Written before the session ended');
      assert.equal(await page.isChecked(`input[name=channelIds][value="${a.channelIds[1]}"]`), true);
    },
  );

  it("fits one network's own version and leaves the text of the others as it was", async () => {
    const blueskyId = await channel('bluesky', 'team.bsky.social');
    await openComposer();
    await page.check(`input[name=channelIds][value="${a.channelIds[0]}"]`);
    await page.check(`input[name=channelIds][value="${blueskyId}"]`);
    const long = 'We shipped the new calendar today. '.repeat(12).trim();
    await page.fill('#text', long);
    assert.equal(await page.getAttribute('.counters .counter[data-network=bluesky]', 'class'), 'counter over');
    await page.click('button[value="rewrite:bluesky"]');
    await page.waitForSelector('#assisted:has-text("Rewritten")');
    const said = (await page.textContent('#assisted')) ?? '';
    assert.match(said, /It is Bluesky's own version: the other channels keep the text above\./);
    assert.equal(await page.inputValue('#text'), long, 'the text for the other channels is unchanged');
    const fitted = await page.inputValue(`#text-for-${blueskyId}`);
    assert.ok(fitted !== '' && [...fitted].length <= 300, `Bluesky's version fits: ${fitted.length}`);
    const counter = await page.getAttribute('.counters .counter[data-network=bluesky]', 'class');
    assert.equal(counter, 'counter', "its count is its own version's");
    assert.equal(await page.inputValue(`#text-for-${a.channelIds[0]}`), '', 'the sandbox has no version of its own');
    await page.check('input[name=when][value=draft]');
    await submit();
    await page.waitForSelector('#saved');
    type Saved = { channelId: string; text: string };
    const posts = (await t.api('GET', '/v1/rest/posts?limit=5', { token: a.apiKey })).body.data as Saved[];
    assert.equal(posts.find((p) => p.channelId === blueskyId)?.text, fitted);
    assert.equal(posts.find((p) => p.channelId === a.channelIds[0])?.text, long);
  });

  it('suggests only hashtags the text does not have yet', async () => {
    await openComposer();
    await page.fill('#text', 'We shipped the new calendar today and everyone on the team is very happy about it');
    await page.click('button[value=hashtags]');
    await page.waitForSelector('#assisted:has-text("Hashtags suggested by")');
    const tagged = await page.inputValue('#text');
    const tags = tagged.match(/#\w+/g) ?? [];
    assert.ok(tags.length > 0, tagged);
    await page.click('button[value=hashtags]');
    await page.waitForSelector('#assisted:has-text("already in the text")');
    assert.equal(await page.inputValue('#text'), tagged, 'none added twice');
    const lower = tagged.toLowerCase();
    assert.deepEqual(new Set(lower.match(/#\w+/g)).size, tags.length, 'no tag repeats, whatever its case');
  });

  it('offers alt text only where a chosen network takes it, and says where one takes none', async () => {
    const mastodonId = await channel('mastodon', '@team@social.example');
    await openComposer();
    await page.check(`input[name=channelIds][value="${a.channelIds[0]}"]`);
    await page.setInputFiles('#media-file', { name: 'logo.png', mimeType: 'image/png', buffer: TINY_PNG });
    await page.waitForSelector('#media-list li[data-media-id]');
    const mediaId = await page.getAttribute('#media-list li[data-media-id]', 'data-media-id');
    assert.equal(await page.locator(`#alt-${mediaId}`).count(), 0, 'the sandbox takes no alt text: no field');
    assert.equal(
      await page.textContent(`#alt-note-${mediaId}`),
      'Sandbox takes no alt text, so there is none to write: the image goes there without a description.',
    );

    await page.check(`input[name=channelIds][value="${mastodonId}"]`);
    await page.fill(`#alt-${mediaId}`, 'A tiny square logo');
    const note = await page.textContent(`#alt-note-${mediaId}`);
    assert.equal(note, 'Sandbox takes no alt text: the image goes there without it.');
    const describedBy = await page.getAttribute(`#alt-${mediaId}`, 'aria-describedby');
    assert.equal(describedBy, `alt-note-${mediaId}`, 'said beside the field');
    await page.uncheck(`input[name=channelIds][value="${a.channelIds[0]}"]`);
    assert.equal(await page.locator(`#alt-note-${mediaId}`).count(), 0, 'Mastodon takes it: nothing to say');
  });

  it("picks the time zone from a searchable list, the browser's own first, named in people's words", async () => {
    await openComposer('Asia/Tokyo');
    await page.check(`input[name=channelIds][value="${a.channelIds[0]}"]`);
    await page.fill('#text', "In Berlin's morning");
    await page.check('input[name=when][value=schedule]');
    assert.equal(await page.inputValue('#timezone'), 'Asia/Tokyo', "the browser's zone to start with");
    assert.equal(await page.textContent('#timezone-words'), 'Tokyo time (UTC+09:00)');
    await page.fill('#timezone', '');
    const zones = () =>
      page.locator('#timezone-matches button').evaluateAll((b) => b.map((x) => x.getAttribute('data-zone')));
    assert.equal((await zones())[0], 'Asia/Tokyo', "the browser's zone first");
    await page.fill('#timezone', 'berl');
    assert.deepEqual(await zones(), ['Europe/Berlin'], 'filtered by what is typed');
    await page.fill('#timezone', 'central european');
    assert.ok((await zones()).includes('Europe/Berlin'), 'found by its name in words too');
    await page.fill('#timezone', 'berl');
    const berlin = (await page.textContent('#timezone-matches button')) ?? '';
    assert.match(berlin, /^Berlin time \(UTC\+0[12]:00\) Central European (Standard |Summer )?Time/);
    assert.ok(!berlin.includes('Europe/Berlin'), 'named in words, not by its IANA name');
    await page.click('#timezone-matches button[data-zone="Europe/Berlin"]');
    assert.equal(await page.inputValue('#timezone'), 'Europe/Berlin');
    assert.equal(await page.locator('#timezone-matches').count(), 0, 'picked: the list goes');
    await page.fill('#dateTime', '2031-01-02T09:00');
    await submit();
    await page.waitForSelector('#saved');
    const [post] = (await t.api('GET', '/v1/rest/posts?limit=5', { token: a.apiKey })).body.data;
    assert.equal(post.dateTime, '2031-01-02T08:00:00.000Z', '09:00 read in Berlin, not in Tokyo');
  });

  it(
    "gives a channel connected from the app the browser's time zone, " + 'and one connected again keeps its own',
    async () => {
      await signedIn('America/New_York', '/app/channels');
      await page.fill('#connect-sandbox-handle', 'our-brand');
      await page.click('section[data-network="sandbox"] button[type=submit]');
      await page.waitForSelector('text=Connected our-brand.');
      type Listed = { id: string; handle: string; timezone: string };
      const find = async () =>
        ((await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data as Listed[]).find(
          (c) => c.handle === 'our-brand',
        )!;
      const made = await find();
      assert.equal(made.timezone, 'America/New_York');
      assert.match((await page.textContent('.said')) ?? '', /Its times are in New York time \(UTC-0[45]:00\)\./);

      const tokyo = { token: a.apiKey, body: { timezone: 'Asia/Tokyo' } };
      const moved = await t.api('PATCH', `/v1/rest/channels/${made.id}`, tokyo);
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      await page.reload();
      await appReady(page);
      await page.fill('#connect-sandbox-handle', 'our-brand');
      await page.click('section[data-network="sandbox"] button[type=submit]');
      await page.waitForSelector('text=Its times are in Tokyo time (UTC+09:00).');
      assert.equal((await find()).timezone, 'Asia/Tokyo', 'the same channel keeps the zone it was given');
    },
  );

  it("shows the saved post's image with its alt text on the post's page", async () => {
    const mastodonId = await channel('mastodon', '@team@social.example');
    await openComposer();
    await page.check(`input[name=channelIds][value="${mastodonId}"]`);
    await page.fill('#text', 'Our new logo');
    await page.setInputFiles('#media-file', { name: 'logo.png', mimeType: 'image/png', buffer: TINY_PNG });
    await page.waitForSelector('#media-list li[data-media-id]');
    const mediaId = await page.getAttribute('#media-list li[data-media-id]', 'data-media-id');
    await page.fill(`#alt-${mediaId}`, 'A tiny square logo');
    await page.check('input[name=when][value=draft]');
    await submit();
    await page.click('#saved li a');
    await page.waitForURL(/\/app\/posts\/[^/]+$/);
    await appReady(page);
    const id = page.url().split('/').pop()!;
    const post = (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
    const image = page.locator('#post-media img');
    assert.equal(await image.getAttribute('src'), post.imageUrls[0]);
    assert.equal(await image.getAttribute('alt'), 'A tiny square logo');
    const loaded = () => (document.querySelector<HTMLImageElement>('#post-media img')?.naturalWidth ?? 0) > 0;
    await page.waitForFunction(loaded);
    assert.match((await page.textContent('#post-media')) ?? '', /Alt text: A tiny square logo/);
  });
});
