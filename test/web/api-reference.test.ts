import assert from 'node:assert/strict';
import { AxeBuilder } from '@axe-core/playwright';
import type { Browser } from 'playwright-core';
import { openAppBrowser, signInToApp } from '../support/app-browser.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { describeOnce } from '../support/databases.js';

/** The API reference at /docs: Redoc over Herald's own OpenAPI description, loaded from Herald alone. */
// Redoc's page over the OpenAPI file: the same whatever the database.
describeOnce('the API reference at /docs', function () {
  // axe walks Redoc's whole page, every operation of the API: long on a loaded machine.
  this.timeout(180_000);
  let t: TestHerald;
  let a: SeededAccount;
  let browser: Browser;
  before(async () => {
    browser = await openAppBrowser();
    t = await startTestHerald();
    a = await t.seedAccount();
  });
  after(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows every route of the API, to anyone, from Herald alone, under its own CSP, and axe finds nothing', async () => {
    const served = await fetch(`${t.url}/docs`);
    assert.equal(served.status, 200);
    const csp = served.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /script-src 'self'(;|$)/, 'no inline or outside script');
    assert.match(csp, /connect-src 'self'(;|$)/);

    const page = await (await browser.newContext({ viewport: { width: 1280, height: 800 } })).newPage();
    const loaded: string[] = [];
    page.on('requestfinished', (request) => loaded.push(request.url()));
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${t.url}/docs`);
    await page.getByRole('heading', { name: 'Create a post on one or more channels.' }).waitFor();
    await page.getByRole('heading', { name: 'Herald REST API' }).waitFor();
    await page.waitForLoadState('networkidle');
    assert.deepEqual(errors, []);
    const elsewhere = loaded.filter(
      (url) => !url.startsWith(`${t.url}/`) && !url.startsWith('data:') && !url.startsWith('blob:'),
    );
    assert.deepEqual(elsewhere, [], 'nothing is loaded from outside Herald');
    assert.ok(loaded.includes(`${t.url}/v1/rest/openapi.json`), 'the description is read from Herald');

    const results = await new AxeBuilder({ page }).analyze();
    assert.deepEqual(
      results.violations.map(
        (v) =>
          `${v.id}: ${v.nodes
            .slice(0, 3)
            .map((n) => n.html)
            .join(' | ')}`,
      ),
      [],
    );
  });

  it('is linked from the API keys page of the app', async () => {
    const page = await (await browser.newContext()).newPage();
    await signInToApp(page, t.url, a.email, a.password);
    await page.goto(`${t.url}/app/settings/api-keys`);
    await page.getByRole('link', { name: 'API reference' }).click();
    await page.waitForURL(`${t.url}/docs`);
    await page.getByRole('heading', { name: 'Herald REST API' }).waitFor();
  });
});
