import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { appSuite, screenshot, signInByForm, SIZES } from '../support/app-browser.js';
import { axeViolationsByStyle } from '../support/axe-by-style.js';
import type { TestHerald } from '../support/herald.js';
import { describeOnce } from '../support/databases.js';

/** The API reference at /docs: Redoc over Herald's own OpenAPI description, loaded from Herald alone. */
// Redoc's page over the OpenAPI file: the same whatever the database.
describeOnce('the API reference at /docs', function () {
  // axe walks Redoc's whole page, every operation of the API (color-contrast once per look): long on a loaded machine.
  this.timeout(300_000);
  let t: TestHerald;
  const app = appSuite({ fresh: 'once', page: false }, (rig) => {
    t = rig.t;
  });

  /**
   * /docs rendered once for the tests that read it (Redoc draws the whole API, seconds of the browser's work), with
   * what it loaded and the errors it threw; each test sets the size it reads it at (Redoc answers a width with its
   * stylesheet's media queries alone, so the phone's page is the one a phone would load).
   */
  let docs: { page: Page; loaded: string[]; errors: string[] };
  before(async () => {
    const page = await app.newPage({ viewport: SIZES.desktop });
    const loaded: string[] = [];
    page.on('requestfinished', (request) => loaded.push(request.url()));
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${t.url}/docs`);
    await page.getByRole('heading', { name: 'Herald REST API' }).waitFor();
    await page.waitForLoadState('networkidle');
    docs = { page, loaded, errors };
  });

  /** The shared page at `size`, laid out again for it. */
  async function docsAt(size: keyof typeof SIZES): Promise<Page> {
    await docs.page.setViewportSize(SIZES[size]);
    await docs.page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    return docs.page;
  }

  it('shows every route of the API, to anyone, from Herald alone, under its own CSP; axe finds nothing', async () => {
    const served = await fetch(`${t.url}/docs`);
    assert.equal(served.status, 200);
    const csp = served.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/, 'no inline or outside script');
    assert.match(csp, /connect-src 'self'(;|$)/);

    const { loaded, errors } = docs;
    const page = await docsAt('desktop');
    await page.getByRole('heading', { name: 'Create a post on one or more channels.' }).waitFor();
    assert.deepEqual(errors, []);
    const elsewhere = loaded.filter(
      (url) => !url.startsWith(`${t.url}/`) && !url.startsWith('data:') && !url.startsWith('blob:'),
    );
    assert.deepEqual(elsewhere, [], 'nothing is loaded from outside Herald');
    assert.ok(loaded.includes(`${t.url}/v1/rest/openapi.json`), 'the description is read from Herald');

    assert.deepEqual(await axeViolationsByStyle(page, { every: true }), []);
  });

  it('reads on a phone: the page fits 390 px, screenshots at both sizes, and axe finds nothing serious', async () => {
    for (const size of Object.keys(SIZES) as (keyof typeof SIZES)[]) {
      const page = await docsAt(size);
      await screenshot(page, `screenshots/api-reference-${size}.png`);
      if (size === 'phone') {
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `the page is ${overflow} px wider than the phone`);
        assert.deepEqual(await axeViolationsByStyle(page), []);
      }
    }
  });

  it('is linked from the API keys page of the app', async () => {
    const page = await app.newPage();
    await signInByForm(page, t.url, app.a, '/app/settings/api-keys');
    await page.getByRole('link', { name: 'API reference' }).click();
    await page.waitForURL(`${t.url}/docs`, { waitUntil: 'domcontentloaded' });
    // The page the link reached is the one the tests above read drawn; it is closed before Redoc draws it again.
    assert.equal(await page.title(), 'Herald REST API reference');
    await page.close();
  });
});
