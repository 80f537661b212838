import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { loadConfig } from '../../src/config.js';
import { appSuite, axeViolations, screenshot, signInByForm } from '../support/app-browser.js';
import {
  googleBusinessOverrides,
  ORIGINS,
  startFakeGoogleBusiness,
  type FakeGoogleBusiness,
} from '../support/fake-google-business.js';
import { API_ORIGIN, startFakeReddit, WWW_ORIGIN, type FakeReddit } from '../support/fake-reddit.js';
import { TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';

/**
 * Reddit and Google Business Profile connected from the Channels page in a real Chromium: the person fills the
 * network's field, goes to the network's consent page (the fake's, standing in for the network's own address),
 * comes back to /connect/<network>/callback, and finds the channel listed. A refused subreddit is said beside its
 * field; Herald's warning about Google fetching media from an address it cannot reach comes before Google's page,
 * where the person may stop.
 */
describe(`the web app: connecting Reddit and Google Business Profile (${TEST_DB})`, function () {
  this.timeout(60_000);
  let page: Page;
  let t: TestHerald;
  let a: SeededAccount;
  // Each test restarts the Herald with its network's app and the fake's origins, known once the fake listens.
  const app = appSuite({ seed: { channels: 0 } }, (rig) => ({ t, a, page } = rig));

  /** The browser's visits to the network's real consent address go to its fake, as a redirect would. */
  async function consentAt(realOrigin: string, fakeUrl: string) {
    await page.route(`${realOrigin}/**`, (route) => {
      const asked = new URL(route.request().url());
      return route.fulfill({ status: 302, headers: { location: `${fakeUrl}${asked.pathname}${asked.search}` } });
    });
  }

  /** The Channels page, signed in by the form over HTTP: connecting is what is tested, not signing in. */
  const channelsPage = () => signInByForm(page, t.url, a, '/app/channels');

  const channels = async () => (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).body.data;

  it("connects a subreddit named in the form through Reddit's consent, and lists it after the round trip", async () => {
    const reddit: FakeReddit = await startFakeReddit({ redirectUri: 'set once Herald listens' });
    try {
      const defaults = loadConfig({}).networks;
      const redditApp = loadConfig({ REDDIT_CLIENT_ID: reddit.clientId, REDDIT_CLIENT_SECRET: reddit.clientSecret })
        .networks.apps.reddit;
      await app.restartHerald({
        networkOriginOverrides: { [WWW_ORIGIN]: reddit.url, [API_ORIGIN]: reddit.url },
        networks: { ...defaults, apps: { reddit: redditApp } },
        // The fake listens on loopback, which the SSRF guard refuses unless it is listed.
        outboundAllowHosts: ['127.0.0.1'],
      });
      reddit.redirectUri = `${t.url}/connect/reddit/callback`;
      await consentAt(WWW_ORIGIN, reddit.url);

      await channelsPage();
      const field = page.getByLabel('Subreddit', { exact: false });
      assert.equal(await field.getAttribute('id'), 'connect-reddit-subreddit', 'the field is named by its label');
      assert.equal(await field.getAttribute('required'), '', 'a subreddit must be named');
      assert.match(
        (await page.textContent('label[for="connect-reddit-subreddit"]')) ?? '',
        /^Subreddit The subreddit the channel posts to, e\.g\. r\/selfhosted/,
      );

      await field.fill('not a subreddit!');
      await page.click('section[data-network="reddit"] button:has-text("Connect at Reddit")');
      await page.waitForSelector('#connect-reddit-subreddit-problems .problem');
      assert.match(
        (await page.textContent('#connect-reddit-subreddit-problems')) ?? '',
        /"not a subreddit!" is not a subreddit name: give it as r\/name/,
        "Reddit's refusal beside the field it concerns",
      );
      assert.equal(await field.getAttribute('aria-invalid'), 'true');
      assert.equal(await field.getAttribute('aria-describedby'), 'connect-reddit-subreddit-problems');
      assert.equal(
        await page.locator('section[data-network="reddit"] [role=alert]').count(),
        1,
        'said once, beside the field, not again in the form',
      );
      assert.deepEqual(await axeViolations(page), []);
      assert.deepEqual(await channels(), [], 'nothing connected');

      await field.fill('r/selfhosted');
      await page.click('section[data-network="reddit"] button:has-text("Connect at Reddit")');
      await page.waitForURL(/\/connect\/reddit\/callback/);
      await app.open('/app/channels');
      const [channel] = await channels();
      assert.equal(channel.handle, 'r/selfhosted');
      assert.match(
        (await page.textContent(`tr[data-channel-id="${channel.id}"]`)) ?? '',
        /active[\s\S]*r\/selfhosted as u\/acme_team[\s\S]*Reddit · r\/selfhosted/,
      );
    } finally {
      await reddit.close();
    }
  });

  it("connects one Business Profile location named, or every one, through Google's consent", async () => {
    const google: FakeGoogleBusiness = await startFakeGoogleBusiness();
    try {
      const defaults = loadConfig({}).networks;
      await app.restartHerald({
        networkOriginOverrides: googleBusinessOverrides(google),
        networks: {
          ...defaults,
          apps: {
            google: {
              clientId: google.client.id,
              clientSecret: google.client.secret,
              youtubeDailyQuota: 10_000,
              youtubeDailyUploads: 100,
              youtubeChunkBytes: 256 * 1024,
            },
          },
        },
        // The fake Google listens on loopback, which the SSRF guard refuses unless it is listed.
        outboundAllowHosts: ['127.0.0.1'],
      });
      google.client.redirectUri = `${t.url}/connect/google_business/callback`;
      await consentAt(ORIGINS.accounts, google.urls.accounts);

      await channelsPage();
      const section = 'section[data-network="google_business"]';
      const field = page.locator('#connect-google_business-location');
      assert.equal(await field.getAttribute('required'), null, 'the location may be left out');
      assert.match(
        (await page.textContent('label[for="connect-google_business-location"]')) ?? '',
        /^Business location \(optional\) .*every location you manage is connected when left out/,
      );

      await field.fill('501');
      const connect = `${section} button:has-text("Connect at Google Business Profile")`;
      await page.click(connect);
      // Herald's address here is loopback, which Google cannot fetch media from: said before Google is asked.
      const warning = page.getByRole('group', { name: 'Before you go to Google Business Profile' });
      await warning.waitFor();
      assert.match(
        (await warning.textContent()) ?? '',
        /Google Business Profile fetches media from Herald's address, and this Herald is at http:\/\/127\.0\.0\.1:/,
      );
      assert.equal(page.url(), `${t.url}/app/channels`, 'still on the channels page');
      assert.equal(await page.evaluate(() => document.activeElement?.textContent), 'Go on to Google Business Profile');
      assert.deepEqual(await axeViolations(page), []);
      await screenshot(page, 'screenshots/channels-google-warning.png', { fullPage: true });

      await page.getByRole('button', { name: 'Stop here' }).click();
      assert.equal(await warning.count(), 0, 'stopped: the warning is gone');
      assert.equal(
        await page.evaluate(() => document.activeElement?.textContent),
        'Connect at Google Business Profile',
      );
      assert.equal(page.url(), `${t.url}/app/channels`, 'and Google was not asked');
      assert.equal(await field.inputValue(), '501', 'the location as typed');

      await page.click(connect);
      await page.getByRole('button', { name: 'Go on to Google Business Profile' }).click();
      await page.waitForURL(/\/connect\/google_business\/callback/);
      await app.open('/app/channels');
      const [springfield] = await channels();
      assert.equal(springfield.displayName, 'Corner Bakery, Springfield');
      assert.match(
        (await page.textContent(`tr[data-channel-id="${springfield.id}"]`)) ?? '',
        /active[\s\S]*Corner Bakery, Springfield[\s\S]*Google Business Profile · Corner Bakery/,
      );

      await page.click(connect);
      await page.getByRole('button', { name: 'Go on to Google Business Profile' }).click();
      await page.waitForURL(/\/connect\/google_business\/callback/);
      await app.open('/app/channels');
      const all = await channels();
      assert.deepEqual(all.map((c: { displayName: string }) => c.displayName).sort(), [
        'Corner Bakery Station, Shelbyville',
        'Corner Bakery, Springfield',
      ]);
      assert.equal(await page.locator('table.channels tbody tr').count(), 2, 'every location listed');
    } finally {
      await google.close();
    }
  });
});
