import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { pinClock, testWorker } from '../publishing/support.js';
import { appSuite, signInByForm } from '../support/app-browser.js';
import { TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
// Monday 5 January 2026, 00:00 in Berlin (UTC+1), the seeded channels' zone.
const MONDAY = Date.parse('2026-01-04T23:00:00Z');
// Wednesday 18 February 2026, 11:00 in Berlin: "now", for Herald and the browser alike.
const NOW = '2026-02-18T10:00:00Z';

function at(week: number, weekday: number, hour: number): number {
  return MONDAY + week * 7 * DAY + weekday * DAY + hour * HOUR + 10 * 60_000;
}

/**
 * The composer's "good times this week" in Chromium: the windows the best-times rule finds for the ticked channels,
 * at their next start, one click from the post's time; nothing offered for a channel below the minimum sample.
 */
describe(`the web app: good times this week in the composer (${TEST_DB})`, function () {
  this.timeout(120_000);
  let t: TestHerald;
  let a: SeededAccount;
  let page: Page;
  const app = appSuite({ fresh: 'once', seed: { channels: 2 }, page: false }, (rig) => ({ t, a } = rig));

  before(async () => {
    // Six weeks of the first channel's posts: Mondays at 08:xx did five times as well per impression as
    // Wednesdays at 17:xx. The second channel has published nothing.
    const clock = pinClock(t, '2026-01-05T06:00:00Z');
    const worker = testWorker(t);
    for (let week = 0; week < 6; week++) {
      for (const [weekday, hour, likes] of [
        [0, 8, 50],
        [2, 17, 10],
      ]) {
        clock.advance(at(week, weekday, hour) - clock.now());
        const res = await t.api('POST', '/v1/rest/posts', {
          token: a.apiKey,
          body: { channelIds: [a.channelIds[0]], text: `Week ${week}, day ${weekday}` },
        });
        assert.equal(res.status, 201, JSON.stringify(res.body));
        await worker.tick();
        const counters = { likes, comments: 0, shares: 0, impressions: 1000 };
        await t.deps.repos.livePosts.setMetrics([{ postId: res.body.data[0].id, metrics: counters }], clock.now());
      }
    }
    clock.advance(Date.parse(NOW) - clock.now());
  });
  beforeEach(async () => {
    page = await app.newPage({ timezoneId: 'UTC', locale: 'en-GB' });
    await page.context().clock.setFixedTime(new Date(NOW));
    await signInByForm(page, t.url, a, '/app/compose');
  });

  it("offers the channel's best window at its next start, and a click schedules the post then", async () => {
    const rest = (await t.api('GET', `/v1/rest/channels/${a.channelIds[0]}/best-times`, { token: a.apiKey })).body.data;
    assert.deepEqual(
      rest.windows.map((w: any) => [w.weekday, w.hour, w.posts]),
      [[0, 8, 6]],
    );
    assert.equal(await page.locator('.good-times').count(), 0, 'nothing before a channel is ticked');

    await page.check(`input[name=channelIds][value="${a.channelIds[0]}"]`);
    const offered = page.locator('.good-times button[data-good-time]');
    await offered.first().waitFor();
    // The next Monday at 08:00 in Berlin after Wednesday the 18th: the 23rd, 07:00 UTC.
    assert.deepEqual(await offered.evaluateAll((b) => b.map((n) => n.getAttribute('data-good-time'))), [
      '2026-02-23T07:00:00.000Z',
    ]);
    assert.ok(((await page.textContent('.good-times li')) ?? '').includes(rest.windows[0].note));

    await offered.first().click();
    assert.equal(await page.isChecked('input[name=when][value=schedule]'), true);
    assert.equal(await page.inputValue('#dateTime'), '2026-02-23T07:00', "in the composer's zone (UTC here)");
    await page.fill('#text', 'At a good time');
    await page.click('form.composer button[type=submit]');
    await page.locator('#saved li[data-post-id]').waitFor();
    const saved = (await t.api('GET', '/v1/rest/posts?limit=50', { token: a.apiKey })).body.data.find(
      (p: any) => p.text === 'At a good time',
    );
    assert.equal(saved.dateTime, '2026-02-23T07:00:00.000Z');
  });

  it("claims nothing for a channel below the minimum sample, saying why in the rule's words", async () => {
    await page.check(`input[name=channelIds][value="${a.channelIds[1]}"]`);
    const note = page.locator(`[data-no-good-times="${a.channelIds[1]}"]`);
    await note.waitFor();
    const rest = (await t.api('GET', `/v1/rest/channels/${a.channelIds[1]}/best-times`, { token: a.apiKey })).body.data;
    assert.deepEqual(rest.windows, []);
    assert.ok(((await note.textContent()) ?? '').endsWith(rest.note));
    assert.equal(await page.locator('.good-times button').count(), 0);

    await page.check(`input[name=channelIds][value="${a.channelIds[0]}"]`);
    await page.locator('.good-times button[data-good-time]').first().waitFor();
    assert.equal(await page.locator('.good-times button').count(), 1, "the other channel's window only");
  });
});
