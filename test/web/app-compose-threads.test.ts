import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import * as provisioning from '../../src/domain/provisioning.js';
import { testWorker } from '../publishing/support.js';
import { appReady, appSuite, signInByForm } from '../support/app-browser.js';
import { TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { describeOnce } from '../support/databases.js';

/** The composer's thread (issue 33) in a real headless Chromium, against a real Herald and database. */
// The app in the browser; the REST calls it makes are tested on both databases (test/rest and beside it).
describeOnce(`the web app: a thread in the composer (${TEST_DB})`, function () {
  this.timeout(60_000);
  let t: TestHerald;
  let a: SeededAccount;
  let page: Page;

  appSuite({ seed: { channels: 1 } }, (rig) => ({ t, a, page } = rig));

  it(
    'adds parts, each with its own box and counter, previews the chain, ' +
      'says which network takes none, and the post page links each part once out',
    async () => {
      const { id: linkedin } = await provisioning.addChannel(t.deps, {
        accountId: a.accountId,
        workspaceId: a.workspaceId,
        network: 'linkedin',
        handle: 'Our page',
      });
      await signInByForm(page, t.url, a, '/app/compose');
      await page.check(`input[name=channelIds][value="${a.channelIds[0]}"]`);
      await page.fill('#text', 'A thread from the app');
      await page.click('#add-part');
      await page.fill('#thread-0', 'The second part');
      assert.equal(await page.textContent('#thread-0-counters .counter[data-network=sandbox]'), 'Sandbox: 15 / 5000');
      await page.click('#add-part');
      await page.fill('#thread-1', 'x'.repeat(5001));
      assert.match((await page.textContent('#thread-1-counters .counter[data-network=sandbox]')) ?? '', /1 too many/);
      assert.match((await page.textContent('#save-blocked')) ?? '', /1 too many characters in part 3 for Sandbox/);
      assert.equal(
        await page.isDisabled('form.composer button[type=submit]'),
        true,
        'held back while a part is too long',
      );
      await page.fill('#thread-1', 'The end');
      const chain = await page.locator('.preview[data-channel-id] .preview-thread li').allTextContents();
      assert.deepEqual(
        chain.map((s) => s.trim()),
        ['↳ The second part', '↳ The end'],
        'the preview shows the chain of replies',
      );

      await page.check(`input[name=channelIds][value="${linkedin}"]`);
      assert.match(
        (await page.textContent('#thread-title ~ p')) ?? '',
        /LinkedIn does not take threads: untick those channels, or remove the parts/,
      );
      await page.click('form.composer button[type=submit]');
      await page.waitForSelector('#thread-problems .problem');
      assert.match((await page.textContent('#thread-problems')) ?? '', /LinkedIn does not take threads/);
      await page.uncheck(`input[name=channelIds][value="${linkedin}"]`);

      await page.click('form.composer button[type=submit]');
      await page.waitForSelector('#saved li[data-post-id]');
      const id = (await page.getAttribute('#saved li[data-post-id]', 'data-post-id'))!;
      const saved = (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
      assert.deepEqual(
        saved.thread.map((p: { text: string }) => p.text),
        ['The second part', 'The end'],
      );

      await testWorker(t).tick();
      await page.goto(`${t.url}/app/posts/${id}`);
      await appReady(page);
      const published = (await t.api('GET', `/v1/rest/posts/${id}`, { token: a.apiKey })).body.data;
      const links = await page
        .locator('.post-thread li a')
        .evaluateAll((as) => as.map((el) => (el as HTMLAnchorElement).href));
      assert.deepEqual(
        links,
        published.thread.map((p: { permalinkUrl: string }) => p.permalinkUrl),
      );
      assert.equal(links.length, 2);
    },
  );
});
