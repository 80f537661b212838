import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';
import { appReady, appSuite, signInByForm, signInOverHttp } from '../support/app-browser.js';
import type { SeededAccount, TestHerald } from '../support/herald.js';
import { blankTab } from '../support/app-navigation.js';
import { authorizeUrl, pkcePair, REDIRECT_URI, registerClient } from '../oauth/support.js';
import { describeOnce } from '../support/databases.js';

/** The single-page app's frame: how it is served, how its calls to REST are signed in, and its own budget. */
// The app's page in the browser; sessions are tested on both databases in test/oauth and test/security, and the
// person's own budget in test/rest/app-budgets.test.ts.
describeOnce('the web app: serving the single-page app and its REST calls', function () {
  this.timeout(60_000);
  let t: TestHerald;
  let a: SeededAccount;
  let page: Page;
  const VIEWPORT = { width: 1280, height: 720 };

  // A Herald and account for each test, all on one tab, made blank with no cookies before each: a new context's
  // renderer costs about half a second of wall time on this machine.
  const app = appSuite({ seed: { channels: 2 }, page: false }, (rig) => ({ t, a } = rig));
  before(async () => {
    page = await app.newPage({ viewport: VIEWPORT });
  });
  beforeEach(async () => {
    await blankTab(page, VIEWPORT);
    await page.context().clearCookies();
  });

  /** A call from the app's page, as its SDK makes them: same origin, the session cookie, the CSRF header if given. */
  function fromPage(path: string, init: { method?: string; csrf?: 'page' | 'none' | 'wrong'; bearer?: string } = {}) {
    return page.evaluate(
      async ({ path, init }) => {
        const headers: Record<string, string> = {};
        const token = document.querySelector<HTMLMetaElement>('meta[name="herald-csrf-token"]')!.content;
        if (init.csrf !== 'none')
          headers['X-CSRF-Token'] = init.csrf === 'wrong' ? token.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')) : token;
        if (init.bearer) headers.Authorization = `Bearer ${init.bearer}`;
        const response = await fetch(path, { method: init.method ?? 'GET', headers });
        return { status: response.status, body: await response.json() };
      },
      { path, init },
    );
  }

  it(
    'sends a visitor without a session to sign in, ' +
      'and serves a signed-in person the app under a strict CSP with hashed, long-cached assets',
    async () => {
      const anonymous = await fetch(`${t.url}/app/calendar`, { redirect: 'manual' });
      assert.equal(anonymous.status, 303);
      assert.equal(anonymous.headers.get('location'), '/app/sign-in?next=%2Fapp%2Fcalendar');

      const root = await page.goto(`${t.url}/`);
      assert.match(page.url(), /\/app\/sign-in$/, 'the root opens the app, which asks to sign in first');
      assert.equal(root!.status(), 200);
      // Signed in by that page's form over HTTP (test 'goes back to the app's address…' fills it in the browser).
      await signInOverHttp(page, t.url, a);
      const served = await page.goto(`${t.url}/app`);
      const headers = served!.headers();
      assert.equal(headers['cache-control'], 'no-store');
      assert.match(headers['content-security-policy'], /script-src 'self';/);
      assert.doesNotMatch(headers['content-security-policy'], /unsafe-inline|unsafe-eval/);
      const html = await served!.text();
      assert.doesNotMatch(html, /<script>|<script [^>]*>[^<]/, 'no inline script: the CSP would refuse it');
      const script = /src="(\/app\/assets\/main-[A-Z0-9]+\.js)"/.exec(html)?.[1];
      const style = /href="(\/app\/assets\/main-[A-Z0-9]+\.css)"/.exec(html)?.[1];
      assert.ok(script && style, html);
      for (const asset of [script, style]) {
        const answer = await fetch(t.url + asset);
        assert.equal(answer.status, 200);
        assert.equal(answer.headers.get('cache-control'), 'public, max-age=31536000, immutable');
      }
      assert.equal(
        (await fetch(`${t.url}/app/assets/manifest.json`, { redirect: 'manual' })).status,
        404,
        "only the build's own files are served",
      );
      assert.equal((await fetch(`${t.url}/app/assets/..%2Fmanifest.json`, { redirect: 'manual' })).status, 404);
      await appReady(page);
      assert.match((await page.textContent('main')) ?? '', /No posts yet\. Write one/);
      assert.equal(await page.title(), 'Posts · Herald');
    },
  );

  it('lists the posts with their state and opens one; an address the app does not know says so', async () => {
    const created = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: {
        channelIds: a.channelIds,
        text: 'Two channels, one text',
        isScheduled: true,
        dateTime: new Date(Date.now() + 86_400_000).toISOString(),
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await signInByForm(page, t.url, a);
    assert.equal(await page.locator('table.posts tbody tr').count(), 2, 'one row per channel');
    assert.deepEqual(await page.locator('table.posts .status').allTextContents(), ['scheduled', 'scheduled']);
    await page.goto(`${t.url}/app/no-such-page`);
    await appReady(page);
    assert.equal(await page.textContent('main h1'), 'Not found');
  });

  it("signs the page's REST calls in with the session and its CSRF header, and refuses them without it", async () => {
    await signInByForm(page, t.url, a);
    const ok = await fromPage('/v1/rest/channels');
    assert.equal(ok.status, 200);
    assert.equal(ok.body.data.length, 2);
    const missing = await fromPage('/v1/rest/channels', { csrf: 'none' });
    assert.equal(missing.status, 403);
    assert.equal(missing.body.code, 'csrf_token_mismatch');
    assert.match(missing.body.message, /X-CSRF-Token/);
    assert.equal((await fromPage('/v1/rest/channels', { csrf: 'wrong' })).status, 403);

    const other = await t.seedAccount({ channels: 1 });
    const asKey = await fromPage('/v1/rest/channels', { csrf: 'none', bearer: other.apiKey });
    assert.equal(asKey.status, 200);
    assert.deepEqual(
      asKey.body.data.map((c: { id: string }) => c.id),
      other.channelIds,
      'a bearer token wins over the session in the same browser',
    );

    const token = (await page.context().cookies()).find((c) => c.name === 'herald_web_csrf')!.value;
    const cookie = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join('; ');
    await page.click('button:has-text("Sign out")');
    await page.waitForURL(/\/app\/sign-in$/);
    const after = await fetch(`${t.url}/v1/rest/channels`, { headers: { cookie, 'x-csrf-token': token } });
    assert.equal(after.status, 401, 'signing out ended the session for REST too');
    assert.match((await after.json()).message, /sign in again/);
  });

  it("ignores the pair a browser may still hold from when the app's cookies lived on /app", async () => {
    const host = new URL(t.url).hostname;
    await page.context().addCookies(
      ['herald_app_sign_in', 'herald_app_csrf'].map((name) => ({
        name,
        value: 'S'.repeat(43),
        domain: host,
        path: '/app',
      })),
    );
    await signInByForm(page, t.url, a);
    assert.equal((await fromPage('/v1/rest/channels')).status, 200);
  });

  it(
    "spends its own per-person budget, not the account's API budgets, " + 'and says how long to wait beyond it',
    async () => {
      await app.restartHerald(
        {
          appRequestsPerMinute: 12,
          rateLimits: { restReadsPerMinute: 2, restWritesPerMinute: 2, accountPerHour: 1000, mcpPerTokenPerMinute: 60 },
        },
        { channels: 1 },
      );
      await signInByForm(page, t.url, a);
      for (let i = 0; i < 3; i += 1)
        assert.equal((await fromPage('/v1/rest/channels')).status, 200, "past the account's 2 REST reads a minute");
      assert.equal(
        (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).status,
        200,
        "the account's REST reads are untouched by the app",
      );
      assert.equal((await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).status, 200);
      let refused = await fromPage('/v1/rest/channels');
      for (let i = 0; i < 12 && refused.status === 200; i += 1) refused = await fromPage('/v1/rest/channels');
      assert.equal(refused.status, 429);
      assert.match(refused.body.message, /web app budget of this person/);
    },
  );

  it(
    'shares one sign-in with the OAuth consent pages: ' +
      "signed in to the app, an MCP client's authorization goes straight to consent",
    async () => {
      const client = await registerClient(t, { client_name: 'Claude Desktop' });
      const url = authorizeUrl(t, {
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: REDIRECT_URI,
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
        state: 'st-1',
        resource: `${t.url}/mcp`,
        scope: 'read_profile manage_post',
      });
      await page.goto(url);
      assert.equal(await page.locator('#password').count(), 1, 'signed out: the authorization asks to sign in first');
      await signInOverHttp(page, t.url, a);
      await page.goto(url);
      assert.equal(await page.locator('#password').count(), 0, 'no second sign-in');
      assert.match((await page.textContent('body')) ?? '', /Claude Desktop/);
      assert.equal(
        (await page.locator('button:has-text("Approve"), button:has-text("Allow")').count()) > 0,
        true,
        'the consent page, with its decision',
      );
    },
  );

  it("goes back to the app's address asked for once signed in, and never to another site", async () => {
    await page.goto(`${t.url}/app/calendar?view=week&date=2030-01-08`);
    assert.match(page.url(), /\/app\/sign-in\?next=/);
    await page.fill('#email', a.email);
    await page.fill('#password', 'not the password');
    await page.click('button[type=submit]');
    assert.match((await page.textContent('[role=alert]')) ?? '', /email or password is not right/);
    await page.fill('#password', a.password);
    await page.click('button[type=submit]');
    await page.waitForURL(`${t.url}/app/calendar?view=week&date=2030-01-08`);
    await appReady(page);
    assert.equal(await page.textContent('main h1'), 'Calendar');

    await page.goto('about:blank');
    await page.context().clearCookies();
    for (const next of [
      '//evil.example/app',
      'https://evil.example/app',
      '/\\evil.example/app',
      '/v1/rest/channels',
      '/app/sign-out',
      'http://[',
    ]) {
      await page.goto(`${t.url}/app/sign-in?next=${encodeURIComponent(next)}`);
      await page.fill('#email', a.email);
      await page.fill('#password', a.password);
      await page.click('button[type=submit]');
      // Where the answer sends the browser is the point, not the app drawn there.
      await page.waitForURL(`${t.url}/app`, { waitUntil: 'commit' });
      // Off the app before its cookies go, or its calls (now refused) send it to sign in while the next address loads.
      await page.goto('about:blank');
      await page.context().clearCookies();
    }
  });
});
