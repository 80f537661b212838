import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { appSuite, signInByForm } from '../support/app-browser.js';
import type { SeededAccount, TestHerald } from '../support/herald.js';
import { describeOnce } from '../support/databases.js';

/** The posts list in a real Chromium on a real Herald: several posts labelled, moved and deleted at once. */
// The app in the browser; the REST calls it makes are tested on both databases (test/rest and beside it).
describeOnce('the web app: posts selected together', function () {
  this.timeout(60_000);
  let t: TestHerald;
  let a: SeededAccount;
  let page: Page;

  appSuite({ seed: { channels: 1 }, page: { timezoneId: 'Europe/Berlin' } }, (rig) => ({ t, a, page } = rig));

  const rest = (method: string, path: string, body?: unknown) =>
    t.api(method, `/v1/rest${path}`, { token: a.apiKey, body });
  async function scheduled(text: string): Promise<string> {
    const res = await rest('POST', '/posts', {
      channelIds: [a.channelIds[0]],
      text,
      isScheduled: true,
      dateTime: '2031-01-05T10:00:00Z',
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data[0].id;
  }
  async function select(...texts: string[]) {
    for (const text of texts) await page.getByLabel(`Select “${text}”`).check();
  }
  const results = async () => (await page.locator('#bulk-results li').allInnerTexts()).sort();

  it("labels, moves and deletes the selected posts, saying what happened to each in people's words", async () => {
    const [one, two, three] = [await scheduled('One'), await scheduled('Two'), await scheduled('Three')];
    const label = await rest('POST', '/labels', { name: 'Evergreen', color: '#22aa55' });
    assert.equal(label.status, 201, JSON.stringify(label.body));
    await signInByForm(page, t.url, a, '/app');
    assert.equal(await page.locator('.bulk-actions').count(), 0, 'no actions until a post is chosen');

    await select('One', 'Two');
    assert.match((await page.textContent('#bulk-title')) ?? '', /With the 2 selected posts/);
    await page.selectOption('#bulk-label', { label: 'Evergreen' });
    await page.click('text=Add the label');
    await page.waitForSelector('#bulk-results li');
    assert.deepEqual(await results(), ['One: labelled Evergreen', 'Two: labelled Evergreen']);
    for (const id of [one, two]) {
      assert.deepEqual(
        (await rest('GET', `/posts/${id}`)).body.data.labels.map((l: { name: string }) => l.name),
        ['Evergreen'],
      );
    }
    assert.deepEqual((await rest('GET', `/posts/${three}`)).body.data.labels, []);

    await select('One', 'Three');
    await page.fill('#bulk-move', '2031-03-04T10:00');
    await page.click('button:text-is("Move")');
    await page.waitForFunction(() => /moved to/.test(document.querySelector('#bulk-results')?.textContent ?? ''));
    assert.deepEqual(
      (await results()).map((r) => r.replace(/moved to .*/, 'moved')),
      ['One: moved', 'Three: moved'],
    );
    for (const id of [one, three])
      assert.equal((await rest('GET', `/posts/${id}`)).body.data.dateTime, '2031-03-04T09:00:00.000Z');

    await select('Two');
    await page.fill('#bulk-move', '2020-03-04T10:00');
    await page.click('button:text-is("Move")');
    await page.waitForFunction(() => /already passed/.test(document.querySelector('#bulk-results')?.textContent ?? ''));
    assert.deepEqual(await results(), [
      'Two: That time has already passed: pick a time in the future, or choose Publish now.',
    ]);
    assert.equal(
      (await rest('GET', `/posts/${two}`)).body.data.dateTime,
      '2031-01-05T10:00:00.000Z',
      'refused, so unchanged',
    );

    await select('Two', 'Three');
    await page.click('button[aria-label="Delete the selected posts"]');
    assert.match((await page.textContent('.bulk-actions')) ?? '', /Delete these 2 posts\? They will not go out\./);
    await page.click('text=Yes, delete');
    await page.waitForFunction(() => /deleted/.test(document.querySelector('#bulk-results')?.textContent ?? ''));
    assert.deepEqual(await results(), ['Three: deleted', 'Two: deleted']);
    for (const id of [two, three]) assert.equal((await rest('GET', `/posts/${id}`)).status, 404);
    assert.equal((await rest('GET', `/posts/${one}`)).status, 200);
    assert.deepEqual(
      await page
        .locator('table.posts tbody tr')
        .allInnerTexts()
        .then((rows) => rows.map((r) => /One/.test(r))),
      [true],
    );
  });
});
