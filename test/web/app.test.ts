import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { launchChromium } from '../support/chromium.js';
import { appReady, ensureWebBuilt } from '../support/app-browser.js';
import { TINY_PNG } from '../media/fixtures.js';
import * as provisioning from '../../src/domain/provisioning.js';
import { pinClock, testWorker } from '../publishing/support.js';
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

  it('signs in, composes a post for two channels with live counters, sees it published, and signs out for good', async () => {
    await signIn('wrong password here');
    assert.match(await page.textContent('[role=alert]') ?? '', /email or password is not right/);
    await signIn();
    assert.match(page.url(), /\/app$/);
    await appReady(page);
    assert.match(await page.textContent('main') ?? '', /No posts yet/);

    await page.goto(`${t.url}/app/compose`);
    await page.check(`input[value="${a.channelIds[0]}"]`);
    await page.fill('#text', 'Hello from the app');
    assert.equal(await page.textContent('.counter[data-network=sandbox]'), 'sandbox: 18 / 5000  ');
    await page.fill('#text', 'x'.repeat(5001));
    assert.equal(await page.getAttribute('.counter[data-network=sandbox]', 'class'), 'counter over', 'past the limit turns red');
    await page.fill('#text', 'Hello from the app');
    await page.check(`input[value="${a.channelIds[1]}"]`);
    await page.click('button[type=submit]');
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

  it('shows the server\'s refusal next to the field, and schedules in the person\'s time zone', async () => {
    pinClock(t, '2030-01-06T12:00:00Z');
    await signIn();
    await page.goto(`${t.url}/app/compose`);
    await page.fill('#text', 'No channel chosen');
    await page.click('button[type=submit]');
    assert.match(await page.textContent('fieldset') ?? '', /channel/i, 'the problem is shown with the channels');
    assert.equal(await page.inputValue('#text'), 'No channel chosen', 'what was written is kept');

    await page.check(`input[value="${a.channelIds[0]}"]`);
    await page.check('input[value=schedule]');
    await page.fill('input[name=dateTime]', '2030-01-07T09:30');
    await page.fill('input[name=timezone]', 'Europe/Berlin');
    await page.click('button[type=submit]');
    const id = page.url().split('/').pop()!;
    const post = (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
    assert.equal(post.dateTime, '2030-01-07T08:30:00.000Z', '09:30 in Berlin is 08:30 UTC');
  });

  it('composes for two channels with an uploaded image (progress, alt text) and a first comment; a refused file says why', async () => {
    const mastodon = await provisioning.addChannel(t.deps, { accountId: a.accountId, workspaceId: a.workspaceId, network: 'mastodon', handle: '@team@social.example' });
    await signIn();
    await page.goto(`${t.url}/app/compose`);
    await page.check(`input[value="${a.channelIds[0]}"]`);
    await page.check(`input[value="${mastodon.id}"]`);
    await page.fill('#text', 'Our new logo');
    await page.setInputFiles('#media-file', { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('not an image') });
    assert.match(await page.textContent('#media-list li.problem') ?? '', /notes\.txt: contentType text\/plain is not accepted/);
    await page.setInputFiles('#media-file', { name: 'logo.png', mimeType: 'image/png', buffer: TINY_PNG });
    await page.waitForSelector('#media-list li[data-media-id] img.thumb');
    await page.fill('#alt-0', 'A tiny square logo');
    await page.fill('#firstComment', 'Made by the design team');
    await page.check('input[name=when][value=draft]');
    const cards = page.locator('#previews article.preview');
    assert.equal(await cards.count(), 2, 'a preview per chosen channel');
    const onMastodon = page.locator(`#previews article[data-channel-id="${mastodon.id}"]`);
    assert.match(await onMastodon.textContent() ?? '', /@team@social\.example on Mastodon\s*Our new logo.*↳ Made by the design team/s);
    assert.equal(await onMastodon.locator('.preview-media img').count(), 1);
    await page.screenshot({ path: path.join(ARTIFACTS, 'app-compose-media.png'), fullPage: true });
    await page.fill('#text', 'x'.repeat(505));
    assert.equal(await onMastodon.locator('mark.cut').textContent(), 'xxxxx', 'the part past Mastodon\'s 500 is marked');
    assert.equal(await page.locator(`#previews article[data-channel-id="${a.channelIds[0]}"] mark.cut`).count(), 0, 'the sandbox takes it all');
    await page.fill('#text', 'Our new logo');
    await page.click('button[type=submit]:has-text("Save")');
    await page.waitForURL(/\/app\/posts\//);

    const posts = (await t.api('GET', '/v1/rest/posts?limit=10', { token: a.apiKey })).body.data.filter((p: { text: string }) => p.text === 'Our new logo');
    assert.equal(posts.length, 2, 'one post per channel');
    for (const post of posts) {
      assert.equal(post.imageUrls.length, 1);
      assert.match(post.imageUrls[0], new RegExp(`^${t.url}/media/`), 'served from Herald\'s own media URL');
      assert.equal(post.firstComment.text, 'Made by the design team');
      assert.deepEqual(post.channelOptions.altText, ['A tiny square logo'], 'every post of the group gets the options');
    }
    const served = await fetch(posts[0].imageUrls[0]);
    assert.equal(served.headers.get('content-type'), 'image/png');
    assert.deepEqual(Buffer.from(await served.arrayBuffer()), TINY_PNG);
  });

  it('asks the AI helpers from compose (naming the provider) and sets the options a network takes', async () => {
    const { id: mastodonId } = await provisioning.addChannel(t.deps, { accountId: a.accountId, workspaceId: a.workspaceId, network: 'mastodon', handle: '@me@social.example' });
    await signIn();
    await page.goto(`${t.url}/app/compose`);
    await page.fill('#text', 'We shipped the new calendar today and everyone on the team is very happy about it');
    await page.click('button[value=hashtags]');
    assert.match(await page.textContent('#assisted') ?? '', /Hashtags suggested by \S+/);
    assert.match(await page.inputValue('#text'), /#\w+/);
    await page.click('button[value="rewrite:mastodon"]');
    assert.match(await page.textContent('#assisted') ?? '', /Rewritten to fit mastodon \(\d+ of 500 characters\) by \S+/);

    await page.check(`input[value="${mastodonId}"]`);
    await page.selectOption('select[name="option.mastodon.visibility"]', 'unlisted');
    await page.fill('input[name="option.mastodon.spoilerText"]', 'calendar talk');
    await page.check('input[value=draft]');
    await page.click('button:has-text("Save")');
    const id = page.url().split('/').pop()!;
    const post = (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
    assert.equal(post.status, 'draft');
    assert.deepEqual(post.channelOptions, { visibility: 'unlisted', spoilerText: 'calendar talk' });
  });

  it('drafts the text and makes an image from a prompt, labels the posts, and adds them to the queue', async () => {
    const label = await t.api('POST', '/v1/rest/labels', { token: a.apiKey, body: { name: 'Spring', color: '#2e7d32' } });
    assert.equal(label.status, 201, JSON.stringify(label.body));
    await t.api('PUT', `/v1/rest/channels/${a.channelIds[0]}/schedule`, { token: a.apiKey, body: { slots: [{ day: 'mon', time: '09:00' }] } });
    const nextSlot = (await t.api('GET', `/v1/rest/channels/${a.channelIds[0]}/schedule`, { token: a.apiKey })).body.data.nextFreeSlots[0];
    await signIn();
    await page.goto(`${t.url}/app/compose`);
    await page.check(`input[value="${a.channelIds[0]}"]`);
    await page.click('button[value=draft]');
    assert.match(await page.textContent('[role=alert]') ?? '', /Describe what to write or draw first/, 'an empty prompt is explained beside it');
    await page.fill('#prompt', 'the launch of our spring menu');
    await page.click('button[value=draft]');
    assert.match(await page.textContent('#assisted') ?? '', /Drafted for sandbox \(\d+ of \d+ characters\) by \S+/);
    assert.notEqual(await page.inputValue('#text'), '');
    await page.click('button[value=image]');
    assert.match(await page.textContent('#assisted') ?? '', /Image made by \S+ and added to the media/);
    assert.equal(await page.locator('#media-list input[name=mediaIds]').count(), 1);
    await page.check(`input[name=labelIds][value="${label.body.data.id}"]`);
    await page.check('input[name=when][value=queue]');
    await page.click('button[type=submit]:has-text("Save")');
    await page.waitForURL(/\/app\/posts\//);
    const post = (await t.api('GET', `/v1/rest/posts/${page.url().split('/').pop()}`, { token: a.apiKey })).body.data;
    assert.equal(post.status, 'scheduled');
    assert.equal(post.dateTime, nextSlot, 'the channel\'s next free slot');
    assert.deepEqual(post.labels.map((l: { name: string }) => l.name), ['Spring']);
    assert.equal(post.imageUrls.length, 1);
  });

  it('writes once and gives one channel its own text, previewed and checked against that channel\'s network', async () => {
    const mastodon = await provisioning.addChannel(t.deps, { accountId: a.accountId, workspaceId: a.workspaceId, network: 'mastodon', handle: '@us@social.example' });
    await signIn();
    await page.goto(`${t.url}/app/compose`);
    await page.check(`input[value="${a.channelIds[0]}"]`);
    await page.check(`input[value="${mastodon.id}"]`);
    const long = 'Everything about our launch, at length. '.repeat(15);
    await page.fill('#text', long);
    await page.click('summary:has-text("A different text for one channel")');
    await page.fill(`#text-for-${mastodon.id}`, 'x'.repeat(501));
    const card = page.locator(`#previews article[data-channel-id="${mastodon.id}"]`);
    assert.equal(await card.locator('mark.cut').textContent(), 'x', 'the preview counts the channel\'s own text');
    await page.check('input[name=when][value=draft]');
    await page.click('button[type=submit]:has-text("Save")');
    assert.match(await page.locator(`#text-for-${mastodon.id} + p[role=alert]`).textContent() ?? '', new RegExp(`Channel ${mastodon.id}: .*500`), 'refused beside that channel\'s text');
    await page.fill(`#text-for-${mastodon.id}`, 'The launch, in short.');
    await page.click('button[type=submit]:has-text("Save")');
    await page.waitForURL(/\/app\/posts\//);
    const posts = (await t.api('GET', '/v1/rest/posts?limit=10', { token: a.apiKey })).body.data;
    assert.equal(posts.find((p: { channelId: string }) => p.channelId === mastodon.id).text, 'The launch, in short.');
    assert.equal(posts.find((p: { channelId: string }) => p.channelId === a.channelIds[0]).text, long);
  });
});
