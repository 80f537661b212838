import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { fieldLabel, inPeoplesWords, problemInPeoplesWords } from '../../web/src/ui/problems.js';
import type { ApiError } from '../../web/src/api.js';
import { appReady, appSuite, signInByForm } from '../support/app-browser.js';
import { openInApp } from '../support/app-navigation.js';
import { TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { describeOnce } from '../support/databases.js';

/** What a person reads must not be the API's: its field names, request flags, validator phrases, ISO times or ids. */
const ISO_TIME = /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;
const HERALD_ID = /\b[0-9a-hjkmnp-tv-z]{26}\b/i;
const API_WORDS = [
  'isScheduled',
  'dateTime',
  'channelIds',
  'approvalStatus',
  'sourceType',
  'POST /',
  'must NOT',
  'BCP 47',
  'IANA',
  'appPassword',
];

/** A time zone by its IANA name ("Europe/Berlin"), which people do not say. */
const IANA_ZONE = /\b(Africa|America|Antarctica|Asia|Atlantic|Australia|Europe|Indian|Pacific|Etc)\/[A-Z]/;
/** A network by Herald's name for it ("bluesky", "linkedin") rather than as it spells itself. */
const NETWORK_IDS = new RegExp(
  String.raw`(^|[\s(])(sandbox|bluesky|mastodon|linkedin|facebook|instagram|youtube|tiktok|` +
    String.raw`pinterest|wordpress|nostr|telegram|discord|slack)\b`,
);

function assertPeoplesWords(text: string, where: string): void {
  assert.doesNotMatch(text, ISO_TIME, `no ISO timestamp on ${where}`);
  assert.doesNotMatch(text, IANA_ZONE, `no IANA time zone name on ${where}`);
  assert.doesNotMatch(text, NETWORK_IDS, `networks as they spell themselves on ${where}`);
  assert.doesNotMatch(text, HERALD_ID, `no id on ${where}`);
  for (const word of API_WORDS) assert.ok(!text.includes(word), `"${word}" is not shown on ${where}:\n${text}`);
}

/**
 * The app in people's words, in a real Chromium on a real Herald: every page walked with data on it; a post's
 * history told as sentences; the server's refusals said as people say them, beside the field they concern.
 */
// The app's words in the browser: the same whatever the database.
describeOnce(`the web app: people's words everywhere (${TEST_DB})`, function () {
  this.timeout(120_000);
  let t: TestHerald;
  let a: SeededAccount;
  let page: Page;
  let approvedId: string;
  let heldId: string;
  let ownerName: string;

  appSuite(
    {
      fresh: 'once',
      seed: { approvalRequired: true, channels: 2 },
      page: { viewport: { width: 1280, height: 900 } },
    },
    (rig) => ({ t, a, page } = rig),
  );
  const rest = (method: string, path: string, body?: unknown) =>
    t.api(method, `/v1/rest${path}`, { token: a.apiKey, body });
  /** Each page reached as the app's links reach it, the app loaded once (in full only for a page shown again). */
  const open = (path: string) => openInApp(page, t.url, path);
  /** A post written in the app: the signed-in page's own session and CSRF token, as the composer sends it. */
  async function writeInApp(text: string): Promise<string> {
    const answer = await page.evaluate(
      async (body) => {
        const token = document.querySelector<HTMLMetaElement>('meta[name="herald-csrf-token"]')!.content;
        const res = await fetch('/v1/rest/posts', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-csrf-token': token },
          body: JSON.stringify(body),
        });
        return { status: res.status, body: await res.json() };
      },
      { channelIds: [a.channelIds[0]], text, isScheduled: true, dateTime: '2030-01-07T09:00:00Z' },
    );
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    return answer.body.data[0].id;
  }

  before(async () => {
    // Signed in by the form over HTTP: signing in is not what these tests are about.
    await signInByForm(page, t.url, a);
    ownerName = (await t.deps.repos.accounts.getUser(a.accountId, a.userId))!.name;

    approvedId = await writeInApp('Written and approved in the app');
    const held = {
      channelIds: [a.channelIds[1]],
      text: 'Waiting for a yes',
      isScheduled: true,
      dateTime: '2030-01-08T10:00:00Z',
    };
    heldId = (await rest('POST', '/posts', held)).body.data[0].id;
    const label = await rest('POST', '/labels', { name: 'Evergreen', color: '#22aa55' });
    assert.equal(label.status, 201, JSON.stringify(label.body));
    assert.equal((await rest('POST', `/posts/${heldId}/labels`, { labelIds: [label.body.data.id] })).status, 200);
    const slots = [{ day: 'mon', time: '09:00' }];
    assert.equal((await rest('PUT', `/channels/${a.channelIds[0]}/schedule`, { slots })).status, 200);
    const queued = { channelIds: [a.channelIds[0]], text: 'In the queue', addToQueue: true };
    assert.equal((await rest('POST', '/posts', queued)).status, 201);
  });
  it(
    "records a post written in the app as the app's, and tells its history as sentences: created in the app, " +
      'approved',
    async () => {
      assert.equal((await rest('GET', `/posts/${approvedId}`)).body.data.sourceType, 'app');
      await open(`/app/posts/${approvedId}`);
      await page.getByRole('button', { name: 'Approve', exact: true }).click();
      await page.waitForSelector('#done');
      await appReady(page);
      const history = await page.locator('#history li .what').allTextContents();
      const medium = { dateStyle: 'medium', timeStyle: 'short' } as const;
      const at = await page.evaluate(
        (style) => new Intl.DateTimeFormat(undefined, style).format(new Date('2030-01-07T09:00:00Z')),
        medium,
      );
      assert.deepEqual(history, [
        `${ownerName} created this in the app, for ${at}, to wait for approval.`,
        `${ownerName} approved this version.`,
      ]);
      assert.match((await page.textContent('.post-summary')) ?? '', /scheduled, approved on /);

      await open(`/app/posts/${heldId}`);
      const held = await page.locator('#history li .what').allTextContents();
      const integration = new RegExp(
        `^${ownerName} created this through an integration, for .+, ` + 'to wait for approval\\.$',
      );
      assert.match(held[0], integration);
      assert.equal(held[1], `${ownerName} added the label “Evergreen”.`);
      assert.match((await page.textContent('.post-summary')) ?? '', /waiting for approval/);

      const changed = await rest('PATCH', `/posts/${approvedId}`, { text: 'Written, approved, then changed' });
      assert.equal(changed.status, 200, JSON.stringify(changed.body));
      // Back from the other post's page, as a link would bring it: the page reads the changed post afresh.
      await open(`/app/posts/${approvedId}`);
      assert.deepEqual(
        (await page.locator('#history li .what').allTextContents()).slice(1),
        [
          `${ownerName} approved an earlier version.`,
          `${ownerName} changed the text, which sent it back for approval.`,
        ],
        'a change and the decision it undid, in one sentence',
      );
    },
  );

  it('shows no API words, ISO times or ids on any page, with data on each', async () => {
    const pages = [
      '/app',
      `/app/posts/${approvedId}`,
      `/app/posts/${heldId}`,
      '/app/approvals',
      '/app/channels',
      `/app/channels/${a.channelIds[0]}/queue`,
      '/app/calendar',
      '/app/calendar/all',
      '/app/settings',
      '/app/settings/members',
      '/app/settings/labels',
      '/app/settings/api-keys',
      '/app/settings/connected-apps',
      '/app/settings/webhooks',
    ];
    for (const path of pages) {
      await open(path);
      assertPeoplesWords(await page.innerText('body'), path);
    }
    await open('/app/channels');
    const bluesky = page.locator('section[data-network="bluesky"]');
    const labelled = /Handle[\s\S]*App password[\s\S]*Server \(optional\)/;
    assert.match(await bluesky.innerText(), labelled, "the form's labels in words");
    await open('/app/approvals');
    assert.match(await page.innerText('main'), /Waiting for a yes/, 'the held post is listed');
    await open('/app/settings/labels');
    assert.match(await page.innerText('#labels'), /Evergreen/);
  });

  it("makes a label in the app, and says what is wrong with it in people's words beside its field", async () => {
    await open('/app/settings/labels');
    await page.click('#add-label button[type=submit]');
    await page.waitForSelector('#label-name-problems .problem');
    assert.equal(await page.textContent('#label-name-problems'), 'Fill in the name.');
    assert.equal(await page.locator('#add-label > .problem').count(), 0, "not repeated above in the server's words");
    assertPeoplesWords(await page.innerText('body'), 'the refused label');

    await page.fill('#label-name', 'Product launch');
    await page.click('#add-label button[type=submit]');
    await page.waitForSelector('#label-added');
    assert.match(await page.innerText('#labels'), /Product launch/);
    const labels = (await rest('GET', '/labels')).body.data.map((l: { name: string }) => l.name);
    assert.ok(labels.includes('Product launch'), labels.join());
  });

  it("says a channel's time zone problem in people's words beside it", async () => {
    await open('/app/channels');
    const zone = `#zone-${a.channelIds[0]}`;
    await page.fill(zone, 'Mars/Olympus');
    await page.click(`tr[data-channel-id="${a.channelIds[0]}"] form.zone button[type=submit]`);
    await page.waitForSelector(`${zone}-problems .problem`);
    const words = /^Choose a time zone from the list: type its city, such as Berlin/;
    assert.match((await page.textContent(`${zone}-problems`)) ?? '', words);
    assertPeoplesWords(await page.innerText('body'), 'the refused time zone');
  });

  it('names networks as they spell themselves in the banner, the calendar and the approvals', async () => {
    await t.deps.repos.channels.setStatus(a.channelIds[0], 'needs_reconnect', 'The access token is invalid');
    try {
      await open('/app/calendar');
      assert.match((await page.textContent('.banner')) ?? '', /^The Sandbox channel /);
      assert.match((await page.textContent('.channel-filter')) ?? '', /\(Sandbox\)/);
      assertPeoplesWords(await page.innerText('body'), 'the calendar with a banner');
      await open('/app/approvals');
      assert.match((await page.textContent('main')) ?? '', /\(Sandbox\)/);
      assertPeoplesWords(await page.innerText('body'), 'the approvals with a banner');
    } finally {
      await t.deps.repos.channels.setStatus(a.channelIds[0], 'active', null);
    }
  });

  it(
    "reads the server's own refusals in people's words: " + "the validator's, a network's limit, by code and field",
    async () => {
      type Refusal = { body: { code: string; message: string; details?: { path: string; message: string }[] } };
      const asRead = (res: Refusal) =>
        ({ code: res.body.code, message: res.body.message, details: res.body.details ?? [] }) as unknown as ApiError;
      const none = await rest('POST', '/posts', { channelIds: [], text: 'Nowhere' });
      assert.match(JSON.stringify(none.body), /must NOT have fewer than 1 items/, 'what the server says');
      assert.equal(problemInPeoplesWords(asRead(none)), 'Choose at least one channel.');

      const long = await rest('POST', '/posts', { channelIds: [a.channelIds[0]], text: 'x'.repeat(5012) });
      assert.equal(long.status, 400);
      const limit = 'Sandbox allows 5000 characters; this text has 5012. Shorten it.';
      assert.equal(problemInPeoplesWords(asRead(long)), limit);
      assert.equal(inPeoplesWords('invalid_request', 'text', long.body.details[0].message), limit, 'beside the text');

      const missing = await rest('POST', '/labels', { name: 'No colour' });
      assert.equal(problemInPeoplesWords(asRead(missing)), 'Fill in the colour.');
      const busy =
        'Rate limit exceeded for the account hourly budget. Wait 12 seconds before retrying, and lengthen ' +
        'the delay if it happens again.';
      assert.equal(
        inPeoplesWords('rate_limited', undefined, busy),
        "That was a lot at once: the account's requests for this hour are used up. Wait 12 seconds, then try again.",
      );
      assert.equal(fieldLabel('appPassword'), 'App password');
    },
  );
});
