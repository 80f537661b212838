import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { appReady, appSuite, axeViolations, screenshot, signInByForm, signInOverHttp } from '../support/app-browser.js';
import type { SeededAccount, TestHerald } from '../support/herald.js';
import { madeUpHistory, type History } from './fixture.js';
import { describeOnce } from '../support/databases.js';

const PERIOD = 'from=2026-03-01&to=2026-03-28';

/** The Insights page in Chromium: the numbers REST answers for the same period, axe clean, usable on a phone. */
// The page in the browser; the reports it shows are tested on both databases in insights-rest.test.ts.
describeOnce('the web app: Insights (Chromium)', function () {
  this.timeout(180_000);
  let t: TestHerald;
  let a: SeededAccount;
  let history: History;
  const app = appSuite({ fresh: 'once', seed: { channels: 2 }, page: false }, (rig) => ({ t, a } = rig));

  before(async () => {
    history = await madeUpHistory(t, a);
  });

  async function insightsPage(viewport: { width: number; height: number }, query = PERIOD): Promise<Page> {
    const page = await app.newPage({ viewport, timezoneId: 'UTC', locale: 'en-US' });
    // Signing in is not what these tests are about: the sign-in form's request, then the app's pages.
    if (viewport.width > 600) await signInByForm(page, t.url, a);
    else await signInOverHttp(page, t.url, a);
    if (viewport.width > 600) {
      await page.click('nav >> text=Insights');
      await page.waitForURL(`${t.url}/app/insights`);
    }
    await app.open(`/app/insights?${query}`, page);
    return page;
  }

  const rest = async (query: string) =>
    (await t.api('GET', `/v1/rest/insights?${query}&timezone=UTC`, { token: a.apiKey })).body.data;
  const format = (n: number) => new Intl.NumberFormat('en-US').format(n);

  it('shows the totals, change, top posts, labels, heat map and audience REST reports, axe clean', async () => {
    const report = await rest(PERIOD);
    const page = await insightsPage({ width: 1280, height: 900 });
    const total = (name: string) => page.textContent(`[data-total=${name}]`);
    assert.equal(await total('posts'), format(report.totals.posts));
    assert.equal(await total('engagement'), format(report.totals.engagement));
    assert.equal(await total('reach'), format(report.totals.reach));
    assert.match((await page.textContent('.totals')) ?? '', new RegExp(`up ${report.change.posts}%`));
    assert.equal(await page.locator('.top-posts li').count(), report.topPosts.length);
    assert.equal(
      await page.locator('.top-posts li a').first().getAttribute('href'),
      `/app/posts/${report.topPosts[0].postId}`,
    );
    const labelRow = await page.locator('[data-breakdown=labels] tbody tr').first().innerText();
    assert.match(
      labelRow,
      new RegExp(`Spring\\s+${report.byLabel[0].totals.posts}\\s+${format(report.byLabel[0].totals.engagement)}`),
    );
    for (const cell of report.byWeekdayHour) {
      assert.match(
        (await page.textContent(`[data-cell="${cell.weekday}:${cell.hour}"]`)) ?? '',
        new RegExp(`^${cell.posts} posts, ${cell.posts}${cell.engagement} engagement$`),
      );
    }
    assert.equal(await page.locator('.chart canvas').count(), 1, 'uPlot drew the audience chart');
    await page.click('summary:has-text("Audience as a table")');
    const rows = await page.locator('section[aria-labelledby=audience-heading] details tbody tr').allInnerTexts();
    assert.deepEqual(
      rows.length,
      report.audience.reduce((n: number, c: any) => n + c.points.length, 0),
      JSON.stringify([rows, report.audience]),
    );
    assert.equal(await page.locator('.best').count(), 2);
    assert.match((await page.textContent('.best')) ?? '', /Only \d+ published posts?/);
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, 'screenshots/insights-desktop.png', { fullPage: true });

    await page.click('text=Last 7 days');
    await appReady(page);
    assert.match(page.url(), /from=\d{4}-\d{2}-\d{2}$/);
  });

  it('narrows to a label, and fits a phone without scrolling sideways, axe clean', async () => {
    const page = await insightsPage({ width: 390, height: 844 }, `${PERIOD}&label=${history.labelId}`);
    const report = await rest(`${PERIOD}&labelIds=${history.labelId}`);
    assert.equal(await page.textContent('[data-total=posts]'), format(report.totals.posts));
    assert.equal(await page.inputValue('#insights-label'), history.labelId);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    assert.equal(overflow, 0, 'no sideways scrolling on a phone');
    assert.deepEqual(await axeViolations(page), []);
    await screenshot(page, 'screenshots/insights-phone.png', { fullPage: true });
  });

  it("shows a published post's own curve, with its readings as a table", async () => {
    const postId = history.posts[3].id;
    const curve = (await t.api('GET', `/v1/rest/posts/${postId}/insights`, { token: a.apiKey })).body.data;
    const page = await app.newPage({ viewport: { width: 1280, height: 900 }, timezoneId: 'UTC' });
    await signInOverHttp(page, t.url, a);
    await app.open(`/app/posts/${postId}`, page);
    await page.waitForSelector('#curve-title');
    assert.equal(await page.locator('section[aria-labelledby=curve-title] canvas').count(), 1);
    const rows = await page.$$eval('section[aria-labelledby=curve-title] details tbody tr', (trs) =>
      trs.map((tr) =>
        [...tr.querySelectorAll('td')]
          .slice(1)
          .map((td) => td.textContent)
          .join(' '),
      ),
    );
    assert.deepEqual(
      rows,
      curve.samples.map((s: any) => `${s.engagement} ${s.reach}`),
    );
    assert.deepEqual(await axeViolations(page), []);
  });

  it('offers suggested slots in the queue editor, saying why there are none yet', async () => {
    const best = (await t.api('GET', `/v1/rest/channels/${a.channelIds[0]}/best-times`, { token: a.apiKey })).body.data;
    const page = await app.newPage({ viewport: { width: 1280, height: 900 }, timezoneId: 'UTC' });
    await signInOverHttp(page, t.url, a);
    await app.open(`/app/channels/${a.channelIds[0]}/queue`, page);
    await page.waitForSelector('#suggested-title');
    assert.equal(await page.textContent('.suggested p'), best.note);
    assert.deepEqual(await axeViolations(page), []);
  });
});
