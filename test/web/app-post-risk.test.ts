import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { appSuite, signInByForm } from '../support/app-browser.js';
import { testWorker } from '../publishing/support.js';
import { futureIso, type SeededAccount, type TestHerald } from '../support/herald.js';
import { serveMediaFiles } from '../support/media-files.js';
import { describeOnce } from '../support/databases.js';

/** A post the rehearsal before its time found at risk, as the app shows it, in a real headless Chromium. */
// The app in the browser; the REST calls it makes are tested on both databases (test/rest and beside it).
describeOnce('the web app: a post at risk', function () {
  this.timeout(90_000);
  let t: TestHerald;
  let a: SeededAccount;
  let page: Page;
  let site: Awaited<ReturnType<typeof serveMediaFiles>>;

  // The linked site is on loopback: the guard must let it through for the rehearsal to find its page gone.
  appSuite(
    {
      herald: { outboundAllowHosts: ['127.0.0.1'] },
      seed: { channels: 1 },
      page: { viewport: { width: 1280, height: 900 } },
    },
    (rig) => ({ t, a, page } = rig),
  );
  before(async () => {
    // A site where every page is gone (404).
    site = await serveMediaFiles({});
  });
  after(() => site?.close());

  it(
    "shows the warning with what to do on the post's page, " + 'a banner on every page, and a marker on the calendar',
    async () => {
      const link = `${site.origin}/launch-notes`;
      const res = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: {
          channelIds: [a.channelIds[0]],
          text: `Launch notes: ${link}`,
          isScheduled: true,
          dateTime: futureIso(20),
        },
      });
      assert.equal(res.status, 201, JSON.stringify(res.body));
      const postId = res.body.data[0].id;
      await testWorker(t).rehearse();

      await signInByForm(page, t.url, a, `/app/posts/${postId}`);
      const warning = page.locator('#post-risk');
      assert.match((await warning.textContent()) ?? '', /This post may not go out/);
      assert.match((await warning.textContent()) ?? '', new RegExp(`The link ${link} is gone \\(HTTP 404\\)\\.`));
      assert.match(
        (await warning.textContent()) ?? '',
        /What to do: Fix or remove the link before the post goes out\./,
      );

      const banner = page.locator('p.banner', { hasText: 'may not go out' });
      assert.match((await banner.textContent()) ?? '', /^A scheduled post may not go out: The link/);
      await page.getByRole('link', { name: 'Calendar', exact: true }).click();
      await page.waitForSelector('#week');
      const entry = page.locator(`li.entry:has([data-post-id="${postId}"])`);
      assert.match((await entry.textContent()) ?? '', /at risk/);
      assert.match((await entry.locator('.at-risk').getAttribute('title')) ?? '', /is gone \(HTTP 404\)/);

      await banner.getByRole('link', { name: 'See what to do' }).click();
      await page.waitForURL(`${t.url}/app/posts/${postId}`);
    },
  );
});
