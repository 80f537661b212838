import assert from 'node:assert/strict';
import { authorizeUrl, pkcePair, REDIRECT_URI, registerClient } from '../oauth/support.js';
import { appReady, appSuite, axeViolations, screenshot, signInOverHttp, SIZES } from '../support/app-browser.js';
import { followInApp } from '../support/app-navigation.js';
import type { SeededAccount, TestHerald } from '../support/herald.js';
import { describeOnce } from '../support/databases.js';

/** The pages a person works in every day: on a phone none may scroll sideways. */
const MAIN_PAGES = [
  'posts',
  'calendar',
  'calendar-month',
  'calendar-all',
  'approvals',
  'channels',
  'queue',
  'webhooks',
  'api-keys',
  'members',
  'settings',
  'connected-apps',
  'insights',
  'calendar-list',
];

/**
 * Every page of the app checked by axe-core at desktop and phone sizes, with a screenshot of each in
 * test-artifacts/screenshots/ (those in docs/ come from there); on a phone, the main pages fit its width.
 */
// Layout, axe and screenshots: the same whatever the database.
describeOnce('the web app: accessibility of every page (axe-core)', function () {
  // Some 24 pages at each size, each walked by axe: long on a loaded machine.
  this.timeout(300_000);
  let t: TestHerald;
  let a: SeededAccount;
  let postId: string;
  let consent: string;

  // Both sizes walk every page as one person within a minute or so: more than the app's own budget of 300 requests a
  // minute for a person (test/rest/app-budgets.test.ts), whose retry after a refusal would leave a page loading.
  const app = appSuite(
    {
      fresh: 'once',
      herald: { appRequestsPerMinute: 3_000 },
      seed: { channels: 2, approvalRequired: true },
      page: false,
    },
    (rig) => {
      ({ t, a } = rig);
    },
  );
  before(async () => {
    // A channel's avatar and a post's image (Herald's own icon, which the page may load) for the calendar's thumbnails.
    const icon = `${t.url}/app/favicon.svg`;
    await t.herald.db('channels').where({ id: a.channelIds[0] }).update({ avatar_url: icon });
    const created = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: {
        channelIds: [a.channelIds[0]],
        text: 'Waiting for a yes',
        imageUrls: [icon],
        isScheduled: true,
        dateTime: new Date(Date.now() + 86_400_000).toISOString(),
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    postId = created.body.data[0].id;
    // The queue with slots and posts in it, and a channel to reconnect (its alarm and banner), as people see them.
    await t.api('PUT', `/v1/rest/channels/${a.channelIds[0]}/schedule`, {
      token: a.apiKey,
      body: {
        slots: [
          { day: 'mon', time: '09:00' },
          { day: 'thu', time: '14:30' },
        ],
      },
    });
    for (const text of ['Monday tips for the team', 'A longer post about the launch, queued second']) {
      const queued = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [a.channelIds[0]], text, addToQueue: true },
      });
      assert.equal(
        (await t.api('POST', `/v1/rest/posts/${queued.body.data[0].id}/approve`, { token: a.apiKey })).status,
        200,
      );
    }
    await t.deps.repos.channels.setStatus(a.channelIds[1], 'needs_reconnect', 'The access token is invalid');
    // An MCP client asking for access: the consent page a signed-in person answers.
    const { client_id: clientId } = await registerClient(t, { client_name: 'Claude' });
    consent = authorizeUrl(t, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      state: 'page-check',
    }).slice(t.url.length);
  });

  const pages = () => ({
    posts: '/app',
    compose: '/app/compose',
    calendar: '/app/calendar',
    'calendar-all': '/app/calendar/all',
    'calendar-month': '/app/calendar?view=month',
    'compose-at': '/app/compose?at=2030-01-08T09:00',
    'calendar-list': '/app/calendar?view=list',
    post: `/app/posts/${postId}`,
    'post-edit': `/app/posts/${postId}/edit`,
    'post-duplicate': `/app/compose?from=${postId}`,
    approvals: '/app/approvals',
    insights: '/app/insights',
    channels: '/app/channels',
    queue: `/app/channels/${a.channelIds[0]}/queue`,
    webhooks: '/app/settings/webhooks',
    'api-keys': '/app/settings/api-keys',
    members: '/app/settings/members',
    labels: '/app/settings/labels',
    settings: '/app/settings',
    'connected-apps': '/app/settings/connected-apps',
    'not-found': '/app/no-such-page',
    'oauth-consent': consent,
    'connect-refused': '/connect/mastodon/callback?state=long-gone&code=abc',
  });

  /**
   * Reached by a full load: the server's own pages, and an address the app does not know (its links never lead there;
   * a person types it or follows an old one). The others are followed inside the app, as its links are.
   */
  const LOADED = new Set(['not-found', 'oauth-consent', 'connect-refused']);

  for (const size of Object.keys(SIZES) as (keyof typeof SIZES)[]) {
    it(`has no serious or critical violations on any page, ${size}`, async () => {
      const found: string[] = [];
      const page = await app.newPage({ viewport: SIZES[size] });
      async function check(name: string, url: string, arrive: () => Promise<void>) {
        await arrive().catch((error) => assert.fail(`${name} (${url}) never became ready: ${error}`));
        for (const violation of await axeViolations(page)) found.push(`${name}: ${violation}`);
        if (size === 'phone' && MAIN_PAGES.includes(name)) {
          const overflow = await page.evaluate(() => {
            const root = document.documentElement;
            return root.scrollWidth - root.clientWidth;
          });
          if (overflow > 0) found.push(`${name}: ${overflow}px wider than the phone, so it scrolls sideways`);
        }
        await screenshot(page, `screenshots/${name}-${size}.png`, { fullPage: true });
      }
      const load = (url: string) => async () => {
        await page.goto(t.url + url);
        await appReady(page);
      };
      // Signed out first, then signed in by the form over HTTP: the app loaded once, on its first page.
      await check('sign-in', '/app/sign-in', load('/app/sign-in'));
      await signInOverHttp(page, t.url, a);
      const [first, ...rest] = Object.entries(pages());
      await check(...first, load(first[1]));
      for (const [name, url] of rest)
        await check(name, url, LOADED.has(name) ? load(url) : () => followInApp(page, url));
      assert.deepEqual(found, []);
    });
  }
});
