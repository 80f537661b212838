import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import * as provisioning from '../../src/domain/provisioning.js';
import { TINY_PNG } from '../media/fixtures.js';
import { pinClock } from '../publishing/support.js';
import { appReady, appSuite, axeViolations, screenshot, signInByForm } from '../support/app-browser.js';
import { TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { describeOnce } from '../support/databases.js';

const SIZES = { desktop: { width: 1280, height: 900 }, phone: { width: 390, height: 844 } } as const;

/** The composer of the single-page app in a real headless Chromium, against a real Herald and database. */
// The composer in the browser; the posts it saves are tested on both databases in test/rest, and the AI helpers'
// charge to the account's write budget in test/rest/app-budgets.test.ts.
describeOnce(`the web app: compose (${TEST_DB})`, function () {
  this.timeout(60_000);
  let t: TestHerald;
  let a: SeededAccount;
  let page: Page;

  // One Herald for the file; each test is a new person with two channels, on a tab of their own.
  const app = appSuite({ fresh: 'once', seed: { channels: 2 } }, (rig) => ({ t, a, page } = rig));
  let realClock: Pick<TestHerald['deps'], 'now' | 'timers'>;
  before(() => {
    realClock = { now: t.deps.now, timers: t.deps.timers };
  });
  beforeEach(async () => {
    a = await t.seedAccount({ channels: 2 });
    await app.page.context().clearCookies();
    page = await app.newTab();
  });
  afterEach(() => {
    Object.assign(t.deps, realClock);
  });

  const openComposer = () => signInByForm(page, t.url, a, '/app/compose');

  async function postsWithText(text: string) {
    return (await t.api('GET', '/v1/rest/posts?limit=20', { token: a.apiKey })).body.data.filter(
      (p: { text: string }) => p.text === text,
    );
  }

  /** The first of the posts the composer lists once it saved. */
  async function savedPostId(): Promise<string> {
    return (await page.getAttribute('#saved li[data-post-id]', 'data-post-id'))!;
  }

  function mastodon(handle = '@team@social.example') {
    return provisioning.addChannel(t.deps, {
      accountId: a.accountId,
      workspaceId: a.workspaceId,
      network: 'mastodon',
      handle,
    });
  }

  /** Drops a file on the drop zone as a person dragging it from their desktop does. */
  async function dropFile(name: string, mimeType: string, bytes: Buffer) {
    const transfer = await page.evaluateHandle(
      ({ name, mimeType, base64 }) => {
        const data = new DataTransfer();
        data.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name, { type: mimeType }));
        return data;
      },
      { name, mimeType, base64: bytes.toString('base64') },
    );
    await page.dispatchEvent('#media-drop', 'dragover', { dataTransfer: transfer });
    await page.dispatchEvent('#media-drop', 'drop', { dataTransfer: transfer });
  }

  /** Presses Tab until the element matching `selector` has the focus: it can be reached without a mouse. */
  async function tabTo(selector: string) {
    for (let i = 0; i < 150; i++) {
      await page.keyboard.press('Tab');
      if (await page.evaluate((s) => document.activeElement?.matches(s) ?? false, selector)) return;
    }
    assert.fail(`Tab never reached ${selector}`);
  }

  it("counts each chosen network's way, red past the limit, and publishes for two channels", async () => {
    const { id: mastodonId } = await mastodon();
    const { id: blueskyId } = await provisioning.addChannel(t.deps, {
      accountId: a.accountId,
      workspaceId: a.workspaceId,
      network: 'bluesky',
      handle: 'team.bsky.social',
    });
    await openComposer();
    await page.check(`input[name=channelIds][value="${a.channelIds[0]}"]`);
    await page.fill('#text', 'Hello from the app');
    assert.equal(await page.textContent('.counters .counter[data-network=sandbox]'), 'Sandbox: 18 / 5000');
    await page.fill('#text', 'x'.repeat(5001));
    assert.equal(
      await page.getAttribute('.counters .counter[data-network=sandbox]', 'class'),
      'counter over',
      'past the limit turns red',
    );
    assert.match((await page.textContent('.counters .counter[data-network=sandbox]')) ?? '', /1 too many/);
    await page.check(`input[name=channelIds][value="${mastodonId}"]`);
    await page.check(`input[name=channelIds][value="${blueskyId}"]`);
    await page.fill('#text', '👍🏽 family 👨‍👩‍👧');
    assert.equal(
      await page.textContent('.counters .counter[data-network=mastodon]'),
      'Mastodon: 15 / 500',
      'Mastodon counts code points',
    );
    assert.equal(
      await page.textContent('.counters .counter[data-network=bluesky]'),
      'Bluesky: 10 / 300',
      'Bluesky counts graphemes',
    );
    await page.uncheck(`input[name=channelIds][value="${mastodonId}"]`);
    await page.uncheck(`input[name=channelIds][value="${blueskyId}"]`);

    await page.fill('#text', 'Hello from the app');
    await page.check(`input[name=channelIds][value="${a.channelIds[0]}"]`);
    await page.check(`input[name=channelIds][value="${a.channelIds[1]}"]`);
    await page.click('form.composer button[type=submit]');
    const id = await savedPostId();
    const posts = await postsWithText('Hello from the app');
    assert.deepEqual(
      posts.map((p: { channelId: string }) => p.channelId).sort(),
      [...a.channelIds].sort(),
      'one post per channel',
    );
    assert.ok(
      posts.some((p: { id: string }) => p.id === id),
      'the composer lists them',
    );
    assert.ok(
      posts.every((p: { status: string }) => p.status === 'scheduled'),
      'published now: due at once, for the worker',
    );
  });

  it(
    'shows refusals next to their field, keeping what was written, ' +
      "and schedules in the person's time zone, shown in each channel's",
    async () => {
      pinClock(t, '2030-01-06T12:00:00Z');
      await openComposer();
      await page.fill('#text', 'No channel chosen');
      await page.click('form.composer button[type=submit]');
      assert.match((await page.textContent('#channel-problems .problem')) ?? '', /Choose at least one channel/);
      assert.equal(await page.inputValue('#text'), 'No channel chosen', 'what was written is kept');

      await page.check(`input[name=channelIds][value="${a.channelIds[0]}"]`);
      await page.check('input[name=when][value=schedule]');
      await page.fill('#dateTime', '2030-01-05T09:30');
      await page.fill('#timezone', 'Europe/Berlin');
      await page.click('form.composer button[type=submit]');
      assert.match(
        (await page.textContent('#dateTime-problems .problem')) ?? '',
        /has already passed/,
        "the server's refusal, beside the date",
      );
      assert.equal(await page.locator('#channel-problems .problem').count(), 0, 'the earlier problem is gone');

      await page.fill('#timezone', 'Mars/Olympus');
      await page.fill('#dateTime', '2030-01-07T09:30');
      await page.click('form.composer button[type=submit]');
      assert.match((await page.textContent('#timezone-problems .problem')) ?? '', /not a time zone/);

      await page.fill('#timezone', 'America/New_York');
      assert.match(
        (await page.textContent('.in-zones')) ?? '',
        /, Berlin time \(UTC\+01:00\)/,
        'the time where the channel posts, its zone in words',
      );
      assert.match((await page.textContent('.in-zones')) ?? '', /3:30/, '09:30 in New York is 15:30 in Berlin');
      await page.click('form.composer button[type=submit]');
      const id = await savedPostId();
      const post = (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
      assert.equal(post.dateTime, '2030-01-07T14:30:00.000Z', '09:30 in New York is 14:30 UTC');
    },
  );

  it(
    'uploads a dropped image with a progress bar, with alt text and a first comment, ' +
      'previewed per channel; a refused file says why',
    async () => {
      const { id: mastodonId } = await mastodon();
      await openComposer();
      await page.check(`input[name=channelIds][value="${a.channelIds[0]}"]`);
      await page.check(`input[name=channelIds][value="${mastodonId}"]`);
      await page.fill('#text', 'Our new logo');

      await dropFile('notes.txt', 'text/plain', Buffer.from('not an image'));
      assert.match(
        (await page.textContent('.uploads li.problem')) ?? '',
        /notes\.txt: contentType text\/plain is not accepted/,
      );

      // The completion is held back until the bar has been seen full, as it stays while Herald checks the file.
      let seenFull!: () => void;
      const full = new Promise<void>((resolve) => (seenFull = resolve));
      await page.route('**/v1/rest/media/uploads/*/complete', async (route) => {
        await full;
        await route.continue();
      });
      await dropFile('logo.png', 'image/png', TINY_PNG);
      const bar = page.locator('progress[aria-label="Uploading logo.png"]');
      await bar.waitFor();
      await page.waitForFunction(() => {
        const progress = document.querySelector<HTMLProgressElement>('progress[aria-label="Uploading logo.png"]');
        return progress !== null && progress.value === progress.max;
      });
      assert.equal(Number(await bar.getAttribute('max')), TINY_PNG.length, "the bar counts the file's bytes");
      seenFull();
      await page.waitForSelector('#media-list li[data-media-id] img.thumb');
      assert.equal(await bar.count(), 0, 'the bar goes once the file is in');
      const mediaId = await page.getAttribute('#media-list li[data-media-id]', 'data-media-id');
      await page.fill(`#alt-${mediaId}`, 'A tiny square logo');
      await page.fill('#firstComment', 'Made by the design team');
      await page.check('input[name=when][value=draft]');

      const cards = page.locator('#previews article.preview');
      assert.equal(await cards.count(), 2, 'a preview per chosen channel');
      const onMastodon = page.locator(`#previews article[data-channel-id="${mastodonId}"]`);
      assert.match(
        (await onMastodon.textContent()) ?? '',
        /@team@social\.example on Mastodon\s*Our new logo.*↳ Made by the design team/s,
      );
      assert.equal(await onMastodon.locator('.preview-media img').getAttribute('alt'), 'A tiny square logo');
      await screenshot(page, 'app-compose-media.png', { fullPage: true });
      await page.fill('#text', 'x'.repeat(505));
      assert.equal(
        await onMastodon.locator('mark.cut').textContent(),
        'xxxxx',
        "the part past Mastodon's 500 is marked",
      );
      assert.match(
        (await onMastodon.locator('.preview-problems').textContent()) ?? '',
        /Mastodon allows 500 characters; this text has 505/,
        "the write's own words",
      );
      assert.equal(
        await page.locator(`#previews article[data-channel-id="${a.channelIds[0]}"] mark.cut`).count(),
        0,
        'the sandbox takes it all',
      );
      await page.fill('#text', 'Our new logo');
      await page.click('form.composer button[type=submit]');
      await savedPostId();

      const posts = await postsWithText('Our new logo');
      assert.equal(posts.length, 2, 'one post per channel');
      for (const post of posts) {
        assert.equal(post.status, 'draft');
        assert.equal(post.imageUrls.length, 1);
        assert.match(
          post.imageUrls[0],
          new RegExp(`^${t.url}/media/${mediaId}/`),
          "served from Herald's own media URL",
        );
        assert.equal(post.firstComment.text, 'Made by the design team');
        assert.deepEqual(
          post.channelOptions.altText,
          ['A tiny square logo'],
          'every post of the group gets the options',
        );
      }
      const served = await fetch(posts[0].imageUrls[0]);
      assert.equal(served.headers.get('content-type'), 'image/png');
      assert.deepEqual(Buffer.from(await served.arrayBuffer()), TINY_PNG);
    },
  );

  it('picks files from the media library in a dialog, newest first, and says what to do when it is empty', async () => {
    await openComposer();
    await page.click('#open-library');
    assert.match(
      (await page.textContent('dialog.library .empty')) ?? '',
      /The library is empty\. Close this, then drop a file/,
    );
    await page.click('dialog.library button:has-text("Close")');
    assert.equal(await page.locator('dialog.library[open]').count(), 0);

    const uploaded: string[] = [];
    for (const name of ['first.png', 'second.png']) {
      const started = (
        await t.api('POST', '/v1/rest/media/uploads', {
          token: a.apiKey,
          body: { fileName: name, contentType: 'image/png', sizeBytes: TINY_PNG.length },
        })
      ).body.data;
      await fetch(started.uploadUrl, { method: 'PUT', headers: started.headers, body: TINY_PNG });
      uploaded.push(
        (await t.api('POST', `/v1/rest/media/uploads/${started.uploadId}/complete`, { token: a.apiKey })).body.data.id,
      );
    }
    await page.click('#open-library');
    await page.waitForSelector('dialog.library input[name=library]');
    assert.deepEqual(
      await page
        .locator('dialog.library input[name=library]')
        .evaluateAll((boxes) => boxes.map((b) => (b as HTMLInputElement).value)),
      [uploaded[1], uploaded[0]],
      'newest first',
    );
    await page.check(`dialog.library input[value="${uploaded[0]}"]`);
    await page.click('dialog.library button:has-text("Add 1 to the post")');
    assert.equal(await page.locator('dialog.library[open]').count(), 0);
    assert.equal(await page.getAttribute('#media-list li', 'data-media-id'), uploaded[0]);

    await page.check(`input[name=channelIds][value="${a.channelIds[0]}"]`);
    await page.fill('#text', 'From the library');
    await page.check('input[name=when][value=draft]');
    await page.click('form.composer button[type=submit]');
    await savedPostId();
    const [post] = await postsWithText('From the library');
    assert.deepEqual(post.imageUrls, [`${t.url}/media/${uploaded[0]}/first.png`]);
  });

  it('asks the AI helpers, naming the provider, and sets the options a network takes', async () => {
    const { id: mastodonId } = await mastodon('@me@social.example');
    await openComposer();
    await page.click('button[value=hashtags]');
    assert.match(
      (await page.textContent('#text-problems .problem')) ?? '',
      /Write some text first/,
      'explained beside the text',
    );
    await page.fill('#text', 'We shipped the new calendar today and everyone on the team is very happy about it');
    await page.click('button[value=hashtags]');
    await page.waitForSelector('#assisted:has-text("Hashtags suggested by")');
    assert.match((await page.textContent('#assisted')) ?? '', /Hashtags suggested by herald-offline\./);
    assert.match(await page.inputValue('#text'), /\n\n#\w+/);

    await page.check(`input[name=channelIds][value="${mastodonId}"]`);
    await page.fill('#text', 'We shipped the new calendar today. '.repeat(20));
    await page.click('button[value="rewrite:mastodon"]');
    await page.waitForSelector('#assisted:has-text("Rewritten")');
    assert.match(
      (await page.textContent('#assisted')) ?? '',
      /Rewritten to fit Mastodon \(\d+ of 500 characters\) by herald-offline\./,
    );
    assert.equal(
      await page.getAttribute('.counters .counter[data-network=mastodon]', 'class'),
      'counter',
      'it fits now',
    );

    await page.selectOption('select[name="option.mastodon.visibility"]', 'unlisted');
    await page.fill('input[name="option.mastodon.spoilerText"]', 'calendar talk');
    await page.check('input[name=when][value=draft]');
    await page.click('form.composer button[type=submit]');
    const id = await savedPostId();
    const post = (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
    assert.equal(post.status, 'draft');
    assert.deepEqual(post.channelOptions, { visibility: 'unlisted', spoilerText: 'calendar talk' });
  });

  it(
    "charges the AI helpers to the account's write budget, " +
      'as API integrations are, and says so beside the text once it is spent',
    async () => {
      // One change a minute for this test: the budget is read from the settings at each request.
      const generous = t.deps.config.rateLimits;
      t.deps.config.rateLimits = { ...generous, restWritesPerMinute: 1 };
      try {
        await openComposer();
        await page.fill('#text', 'We shipped the new calendar today');
        await page.click('button[value=hashtags]');
        await page.waitForSelector('#assisted:has-text("Hashtags suggested by")');
        assert.equal(
          (await t.api('POST', '/v1/rest/ai/hashtags', { token: a.apiKey, body: { text: 'x' } })).status,
          429,
          "the app's AI call spent the account's write budget",
        );
        await page.click('button[value=hashtags]');
        assert.match(
          (await page.textContent('#text-problems .problem')) ?? '',
          /changes for this minute are used up \(integrations and the AI helpers share them\)/,
        );
        await page.check(`input[name=channelIds][value="${a.channelIds[0]}"]`);
        await page.check('input[name=when][value=draft]');
        await page.click('form.composer button[type=submit]');
        const id = await savedPostId();
        const post = (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
        assert.match(
          post.text,
          /^We shipped the new calendar today\n\n#/,
          "saving is the person's own budget, not an AI request",
        );
      } finally {
        t.deps.config.rateLimits = generous;
      }
    },
  );

  it('drafts the text and makes an image from a prompt, labels the posts, and adds them to the queue', async () => {
    const label = await t.api('POST', '/v1/rest/labels', {
      token: a.apiKey,
      body: { name: 'Spring', color: '#2e7d32' },
    });
    assert.equal(label.status, 201, JSON.stringify(label.body));
    await t.api('PUT', `/v1/rest/channels/${a.channelIds[0]}/schedule`, {
      token: a.apiKey,
      body: { slots: [{ day: 'mon', time: '09:00' }] },
    });
    const nextSlot = (await t.api('GET', `/v1/rest/channels/${a.channelIds[0]}/schedule`, { token: a.apiKey })).body
      .data.nextFreeSlots[0];
    await openComposer();
    await page.check(`input[name=channelIds][value="${a.channelIds[0]}"]`);
    await page.click('button[value=draft]');
    assert.match(
      (await page.textContent('#prompt-problems .problem')) ?? '',
      /Describe what to write or draw first/,
      'an empty prompt is explained beside it',
    );
    await page.fill('#prompt', 'the launch of our spring menu');
    await page.click('button[value=draft]');
    await page.waitForSelector('#assisted:has-text("Drafted")');
    assert.match(
      (await page.textContent('#assisted')) ?? '',
      /Drafted for Sandbox \(\d+ of 5000 characters\) by herald-offline\./,
    );
    assert.notEqual(await page.inputValue('#text'), '');
    await page.click('button[value=image]');
    await page.waitForSelector('#assisted:has-text("Image made")');
    assert.match((await page.textContent('#assisted')) ?? '', /Image made by herald-offline and added to the media/);
    assert.equal(await page.locator('#media-list li[data-media-id]').count(), 1);
    await page.check(`input[name=labelIds][value="${label.body.data.id}"]`);
    await page.check('input[name=when][value=queue]');
    await page.click('form.composer button[type=submit]');
    const id = await savedPostId();
    const post = (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
    assert.equal(post.status, 'scheduled');
    assert.equal(post.dateTime, nextSlot, "the channel's next free slot");
    assert.deepEqual(
      post.labels.map((l: { name: string }) => l.name),
      ['Spring'],
    );
    assert.equal(post.imageUrls.length, 1);
  });

  it("writes once and gives one channel its own text, previewed, held back past that network's limit", async () => {
    const { id: mastodonId } = await mastodon('@us@social.example');
    await openComposer();
    await page.check(`input[name=channelIds][value="${a.channelIds[0]}"]`);
    await page.check(`input[name=channelIds][value="${mastodonId}"]`);
    const long = 'Everything about our launch, at length. '.repeat(15);
    await page.fill('#text', long);
    await page.click('summary:has-text("A different text for one channel")');
    await page.fill(`#text-for-${mastodonId}`, 'x'.repeat(501));
    const card = page.locator(`#previews article[data-channel-id="${mastodonId}"]`);
    assert.equal(await card.locator('mark.cut').textContent(), 'x', "the preview counts the channel's own text");
    await page.check('input[name=when][value=draft]');
    assert.equal(await page.isDisabled('form.composer button[type=submit]'), true, "not saved past Mastodon's limit");
    const blocked = (await page.textContent('#save-blocked')) ?? '';
    assert.match(blocked, /1 too many characters for .*Mastodon takes 500/, 'the reason beside the button');
    await page.fill(`#text-for-${mastodonId}`, 'The launch, in short.');
    await page.click('form.composer button[type=submit]');
    await savedPostId();
    const posts = (await t.api('GET', '/v1/rest/posts?limit=10', { token: a.apiKey })).body.data;
    assert.equal(posts.length, 2, 'the refused save left nothing behind');
    assert.equal(posts.find((p: { channelId: string }) => p.channelId === mastodonId).text, 'The launch, in short.');
    assert.equal(posts.find((p: { channelId: string }) => p.channelId === a.channelIds[0]).text, long);
  });

  it('composes with the keyboard alone: channels, text, a file, the library, alt text, when, and save', async () => {
    const started = (
      await t.api('POST', '/v1/rest/media/uploads', {
        token: a.apiKey,
        body: { fileName: 'kept.png', contentType: 'image/png', sizeBytes: TINY_PNG.length },
      })
    ).body.data;
    await fetch(started.uploadUrl, { method: 'PUT', headers: started.headers, body: TINY_PNG });
    const kept = (await t.api('POST', `/v1/rest/media/uploads/${started.uploadId}/complete`, { token: a.apiKey })).body
      .data;
    // Mastodon takes alt text (the sandbox takes none, so it offers no field for it).
    const { id: mastodonId } = await mastodon();
    await signInByForm(page, t.url, a);
    await tabTo('nav a[href="/app/compose"]');
    await page.keyboard.press('Enter');
    await page.waitForURL(`${t.url}/app/compose`);
    await appReady(page);

    await tabTo(`input[name=channelIds][value="${a.channelIds[1]}"]`);
    await page.keyboard.press('Space');
    await tabTo(`input[name=channelIds][value="${mastodonId}"]`);
    await page.keyboard.press('Space');
    await tabTo('#text');
    await page.keyboard.type('Typed without a mouse');
    // Listening well before the key press: Chromium only hands the chooser to the test once interception is on.
    const chooserOpened = page.waitForEvent('filechooser');
    await tabTo('#media-file');
    assert.equal(
      await page.evaluate(() => getComputedStyle(document.querySelector('label[for=media-file]')!).outlineStyle),
      'solid',
      'the hidden file input shows its focus on its label',
    );
    await page.keyboard.press('Space');
    const chooser = await chooserOpened;
    await chooser.setFiles({ name: 'keys.png', mimeType: 'image/png', buffer: TINY_PNG });
    await page.waitForSelector('#media-list li[data-media-id]');
    await tabTo('#open-library');
    await page.keyboard.press('Enter');
    await page.waitForSelector(`dialog.library input[value="${kept.id}"]`);
    await tabTo(`dialog.library input[value="${kept.id}"]`);
    await page.keyboard.press('Space');
    await tabTo('dialog.library button[type=submit]');
    await page.keyboard.press('Enter');
    await page.waitForSelector(`#media-list li[data-media-id="${kept.id}"]`);
    await tabTo(`#alt-${kept.id}`);
    await page.keyboard.type('The kept picture');
    await tabTo('input[name=when][value=now]');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.isChecked('input[name=when][value=schedule]'), true);
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    assert.equal(await page.isChecked('input[name=when][value=draft]'), true);
    await tabTo('button[type=submit].primary');
    await page.keyboard.press('Enter');
    await savedPostId();

    const posts = await postsWithText('Typed without a mouse');
    assert.deepEqual(posts.map((p: { channelId: string }) => p.channelId).sort(), [a.channelIds[1], mastodonId].sort());
    for (const post of posts) {
      assert.equal(post.status, 'draft');
      assert.equal(post.imageUrls.length, 2);
      assert.equal(post.imageUrls[1], kept.url);
      assert.deepEqual(post.channelOptions.altText, ['', 'The kept picture']);
    }
  });
  for (const size of Object.keys(SIZES) as (keyof typeof SIZES)[]) {
    it(
      'has no serious or critical axe violations with every part in use, ' + `and its library dialog open, ${size}`,
      async () => {
        await page.setViewportSize(SIZES[size]);
        const { id: mastodonId } = await mastodon();
        await openComposer();
        await page.check(`input[name=channelIds][value="${a.channelIds[0]}"]`);
        await page.check(`input[name=channelIds][value="${mastodonId}"]`);
        await page.fill('#text', 'Spring is here. '.repeat(35));
        await page.setInputFiles('#media-file', { name: 'logo.png', mimeType: 'image/png', buffer: TINY_PNG });
        await page.waitForSelector('#media-list li[data-media-id]');
        await page.fill('#firstComment', 'More in the thread');
        await page.check('input[name=when][value=schedule]');
        await page.fill('#dateTime', '2031-03-01T09:00');
        await page.waitForSelector('#save-blocked:not(:empty)');
        const found: string[] = [];
        const check = async (name: string) => {
          for (const violation of await axeViolations(page)) found.push(`${name}: ${violation}`);
        };
        await check('filled');
        await page.click('#open-library');
        await page.waitForSelector('dialog.library input[name=library]');
        await check('library');
        assert.deepEqual(found, []);
      },
    );
  }
});
