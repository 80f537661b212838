/**
 * The calendar links are public: whatever arrives in their query string must get a page or a 4xx,
 * quickly, and never take the process down (a month view of 9999-99-01 once looped until it ran out
 * of memory). Fuzzed with a fixed seed; FUZZ_SEED replays a failure.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { callTool } from '../mcp/support.js';

const SEED = Number(process.env.FUZZ_SEED ?? 20261122);
const FUZZ_RUNS = 300;
const STACK_FRAME = /\n\s+at | {4}at |node_modules|\/src\//;

/** Runs a property with the fixed seed; a failure names the seed to replay it with (FUZZ_SEED=...). */
async function fuzz(property: fc.IAsyncProperty<any>, numRuns: number): Promise<void> {
  try {
    await fc.assert(property, { seed: SEED, numRuns, endOnFailure: true });
  } catch (error) {
    throw new Error(`Fuzzing failed with FUZZ_SEED=${SEED}: ${(error as Error).message}`);
  }
}

async function get(url: string): Promise<{ status: number; body: string; contentType: string }> {
  const response = await fetch(url, { signal: AbortSignal.timeout(10_000) });
  return {
    status: response.status,
    body: await response.text(),
    contentType: response.headers.get('content-type') ?? '',
  };
}

describe(`calendar parameters (${TEST_DB})`, function () {
  this.timeout(120_000);
  let h: TestHerald;
  let account: SeededAccount;
  let publicUrl: string;
  let inAppUrl: string;

  before(async () => {
    h = await startTestHerald();
    account = await h.seedAccount();
    const link = await callTool(h, account.basicKey, 'create_public_calendar_link', {
      name: 'Fuzzed',
      channelIds: account.channelIds,
    });
    publicUrl = link.body.result.structuredContent.data.url;
    const inApp = await callTool(h, account.basicKey, 'get_in_app_calendar_url', {});
    inAppUrl = inApp.body.result.structuredContent.url;
  });
  after(() => h?.close());

  for (const which of ['public link', 'in-app link'] as const) {
    const url = () => new URL(which === 'public link' ? publicUrl : inAppUrl);

    it(`answers 400 at once to a date that does not exist, in month view (${which})`, async () => {
      for (const date of [
        '9999-99-01',
        '2026-02-30',
        '2026-13-01',
        '2026-00-10',
        '1899-01-01',
        '99999-01-01',
        '2026-1-1',
      ]) {
        const target = url();
        target.searchParams.set('view', 'month');
        target.searchParams.set('date', date);
        const answer = await get(target.toString());
        assert.equal(answer.status, 400, `${date}: ${answer.body}`);
        assert.match(answer.contentType, /^text\/html/);
        assert.match(answer.body, /YYYY-MM-DD/);
        assert.doesNotMatch(answer.body, STACK_FRAME);
      }
    });

    it(`answers 400 to an unknown view and shows every real one (${which})`, async () => {
      const target = url();
      target.searchParams.set('view', 'year');
      const refused = await get(target.toString());
      assert.equal(refused.status, 400);
      assert.match(refused.body, /view must be one of month, week, list/);
      for (const view of ['month', 'week', 'list']) {
        target.searchParams.set('view', view);
        target.searchParams.set('date', '2100-12-31');
        assert.equal((await get(target.toString())).status, 200, view);
      }
    });
  }

  describe('fuzzed query parameters', () => {
    const encoded = (text: fc.Arbitrary<string>) => text.map(encodeURIComponent);
    /**
     * Dates of the right shape or nearly: overflowing months and days,
     * years at the edges of the range, of four digits and of Date.
     */
    const dateLike = fc
      .tuple(
        fc.oneof(
          fc.integer({ min: 1999, max: 2101 }),
          fc.constantFrom(9999, 9998, 1000, 0, 275760, 2 ** 53, -1),
          fc.integer({ min: -99999, max: 999999 }),
        ),
        fc.integer({ min: -5, max: 120 }),
        fc.integer({ min: -5, max: 120 }),
        fc.boolean(),
      )
      .map(([y, m, d, pad]) =>
        encodeURIComponent(
          pad
            ? `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`
            : `${y}-${m}-${d}`,
        ),
      );
    /**
     * Values for any parameter, as they go on the wire: garbage, overflowing and huge dates, unicode,
     * percent-encoded junk (bytes that are no UTF-8, broken escapes), and real ones.
     */
    const value = fc.oneof(
      { arbitrary: encoded(fc.string({ maxLength: 24 })), weight: 2 },
      { arbitrary: encoded(fc.string({ unit: 'grapheme', maxLength: 12 })), weight: 2 },
      { arbitrary: dateLike, weight: 4 },
      {
        arbitrary: fc
          .uint8Array({ minLength: 1, maxLength: 12 })
          .map((bytes) => [...bytes].map((b) => `%${b.toString(16).padStart(2, '0')}`).join('')),
        weight: 2,
      },
      {
        arbitrary: fc.constantFrom(
          '%',
          '%zz',
          '%C0%AE',
          '%00',
          '..%2F..%2Fetc%2Fpasswd',
          '%E2%80%AE',
          '2026%2D02%2D01',
        ),
        weight: 1,
      },
      {
        arbitrary: fc.constantFrom(
          'month',
          'week',
          'list',
          'MONTH',
          '2000-01-01',
          '2100-12-31',
          '2028-02-29',
          '2100-02-29',
          '9999-99-01',
          '',
        ),
        weight: 3,
      },
      { arbitrary: encoded(fc.string({ minLength: 500, maxLength: 3000 })), weight: 1 },
    );
    /**
     * Mostly one view, one date and nothing else, so that a bad date meets the layout code rather than an earlier 400.
     */
    const view = fc.oneof(
      { arbitrary: fc.constantFrom('month', 'week', 'list'), weight: 3 },
      { arbitrary: value, weight: 1 },
    );
    const realDay = fc
      .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-12-31T00:00:00Z'), noInvalidDate: true })
      .map((d) => d.toISOString().slice(0, 10));
    const date = fc.oneof(
      { arbitrary: dateLike, weight: 3 },
      { arbitrary: realDay, weight: 2 },
      { arbitrary: value, weight: 1 },
    );
    const key = fc.oneof(
      { arbitrary: fc.constantFrom('view', 'date', 't'), weight: 2 },
      {
        arbitrary: fc.constantFrom(
          'date[]',
          'view[x]',
          'date%5B0%5D',
          'utm_source',
          '__proto__',
          'constructor',
          '%',
          '%FF',
        ),
        weight: 2,
      },
      { arbitrary: encoded(fc.string({ maxLength: 8 })), weight: 1 },
    );
    const others = fc.oneof(
      { arbitrary: fc.constant([]), weight: 2 },
      { arbitrary: fc.array(fc.tuple(key, value), { minLength: 1, maxLength: 3 }), weight: 1 },
    );
    const query = fc
      .record({
        view: fc.option(view, { nil: undefined, freq: 4 }),
        date: fc.option(date, { nil: undefined, freq: 6 }),
        others,
      })
      .map(({ view, date, others }) => [
        ...(view === undefined ? [] : [['view', view]]),
        ...(date === undefined ? [] : [['date', date]]),
        ...others,
      ]);

    for (const which of ['public page', 'in-app page', 'iCalendar feed'] as const) {
      it(`answers ${which} parameters with 200 or a 4xx, never a 5xx, a stack or a path`, async () => {
        const base = new URL(
          which === 'public page' ? publicUrl : which === 'in-app page' ? inAppUrl : `${publicUrl}.ics`,
        );
        await fuzz(
          fc.asyncProperty(query, async (pairs) => {
            const search = [base.search.slice(1), ...pairs.map(([k, v]) => `${k}=${v}`)].filter(Boolean).join('&');
            const answer = await get(`${base.origin}${base.pathname}?${search}`);
            assert.ok(
              answer.status === 200 || (answer.status >= 400 && answer.status < 500),
              `${answer.status} for ?${search}: ${answer.body.slice(0, 300)}`,
            );
            assert.doesNotMatch(answer.body, STACK_FRAME, `?${search}`);
            assert.ok(
              !answer.body.includes(process.cwd()) && !answer.body.includes(h.config.dataDir),
              `a path in the answer to ?${search}`,
            );
          }),
          FUZZ_RUNS,
        );
        assert.equal((await get(`${h.url}/healthz`)).status, 200);
      });
    }
  });

  it("answers the feed's bad parameters and unknown links with a plain-text 4xx a calendar app can show", async () => {
    for (const query of [
      'date=9999-99-01&view=month',
      'date=2026-02-30',
      'view=year',
      'date=2026-01-01&date=2026-01-02',
    ]) {
      const answer = await get(`${publicUrl}.ics?${query}`);
      assert.equal(answer.status, 400, `${query}: ${answer.body}`);
      assert.match(answer.contentType, /^text\/plain/);
      assert.match(answer.body, /YYYY-MM-DD|view must be one of/);
      assert.doesNotMatch(answer.body, STACK_FRAME);
    }
    const good = await get(`${publicUrl}.ics?view=week&date=2030-06-15`);
    assert.equal(good.status, 200);
    assert.match(good.contentType, /^text\/calendar/);
    const unknown = await get(`${h.url}/calendars/hcal_${'A'.repeat(43)}.ics`);
    assert.equal(unknown.status, 404);
    assert.match(unknown.contentType, /^text\/plain/);
  });

  it("keeps a view's from and to inside the calendar range, on creation and on update", async () => {
    for (const [field, value] of [
      ['from', '9999-12-31T00:00:00Z'],
      ['from', '2101-01-01T00:00:00Z'],
      ['to', '1999-12-31T12:00:00Z'],
    ] as const) {
      const created = await callTool(h, account.basicKey, 'create_public_calendar_link', {
        name: 'Far',
        channelIds: account.channelIds,
        [field]: value,
      });
      assert.equal(created.body.result.isError, true, `${field}=${value}`);
      assert.match(
        created.body.result.content[0].text,
        new RegExp(`${field} must fall between 2000-01-01 and 2100-12-31`),
      );
    }
    const created = await callTool(h, account.basicKey, 'create_public_calendar_link', {
      name: 'Near',
      channelIds: account.channelIds,
    });
    const updated = await callTool(h, account.basicKey, 'update_shareable_calendar', {
      calendarId: created.body.result.structuredContent.data.id,
      from: '2150-01-01T00:00:00Z',
    });
    assert.equal(updated.body.result.isError, true);
    assert.match(updated.body.result.content[0].text, /from must fall between/);
  });

  it('offers no link to a period outside the calendar range', async () => {
    const page = async (query: string) => (await get(`${publicUrl}?${query}`)).body;
    assert.doesNotMatch(await page('view=month&date=2100-12-15'), /rel="next"/);
    assert.match(await page('view=month&date=2100-12-15'), /rel="prev"/);
    assert.doesNotMatch(await page('view=week&date=2000-01-01'), /rel="prev"/);
    assert.doesNotMatch(await page('view=list&date=2100-12-31'), /rel="next"/);
    assert.match(await page('view=list&date=2100-12-31'), /rel="prev"/);
  });

  it('refuses a date outside the calendar range when asking for an in-app link', async () => {
    const answer = await callTool(h, account.basicKey, 'get_in_app_calendar_url', { date: '9999-12-31' });
    assert.equal(answer.body.result.isError, true);
    assert.match(answer.body.result.content[0].text, /real calendar date/);
  });
});
