/**
 * A real browser (Debian chromium, headless, driven by playwright-core) goes through the pages with
 * JavaScript off: signs in, reads the consent page, approves or denies, and lands on the client's
 * redirect URI, served by a tiny local HTTP server. Screenshots go to test-artifacts/.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { appSuite, screenshot } from '../support/app-browser.js';
import type { SeededAccount, TestHerald } from '../support/herald.js';
import { authorizeUrl, pkcePair } from './support.js';

describe('the authorization pages in a headless Chromium', function () {
  this.timeout(60_000);
  let h: TestHerald;
  let account: SeededAccount;
  let callbackServer: http.Server;
  let redirectUri: string;
  let clientId: string;
  const callbacks: URL[] = [];
  const app = appSuite({ fresh: 'once', page: false, webApp: false }, (rig) => ({ t: h, a: account } = rig));

  before(async () => {
    callbackServer = http.createServer((req, res) => {
      callbacks.push(new URL(req.url!, redirectUri));
      res.setHeader('content-type', 'text/html');
      res.end('<!doctype html><title>Client callback</title><p>Back at the client.</p>');
    });
    await new Promise<void>((resolve) => callbackServer.listen(0, '127.0.0.1', resolve));
    redirectUri = `http://127.0.0.1:${(callbackServer.address() as AddressInfo).port}/callback`;
    const registered = await h.api('POST', '/oauth2/mcp/register', {
      body: { redirect_uris: [redirectUri], client_name: 'Claude' },
    });
    clientId = registered.body.client_id;
  });
  after(async () => {
    await new Promise((resolve) => callbackServer.close(resolve));
  });

  async function openAuthorization(state: string) {
    // A phone-sized viewport with JavaScript disabled: the pages must work and read there.
    const page = await app.newPage({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
    await page.goto(
      authorizeUrl(h, {
        response_type: 'code',
        client_id: clientId,
        redirect_uri: redirectUri,
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
        state,
        scope: 'read_profile manage_post',
        resource: h.url + '/mcp',
      }),
    );
    await screenshot(page, `oauth-sign-in-${state}.png`);
    await page.fill('input[name=email]', account.email);
    await page.fill('input[name=password]', account.password);
    await Promise.all([page.waitForURL('**/oauth2/mcp/authorize?**'), page.click('button[type=submit]')]);
    return page;
  }

  it('signs in, shows the consent page for the client and scopes, and lands on the redirect with a code', async () => {
    const page = await openAuthorization('approve-state');
    const heading = await page.textContent('h1');
    assert.match(heading ?? '', /Claude wants to use your Herald account/);
    const text = (await page.textContent('main')) ?? '';
    assert.match(text, /read_profile/);
    assert.match(text, /manage_post/);
    assert.match(text, /manage_team \(optional\)/);
    assert.match(text, new RegExp(new URL(redirectUri).host.replace(/\./g, '\\.')));
    assert.equal(await page.isChecked('input[name=manage_team]'), false);
    await screenshot(page, 'oauth-consent.png', { fullPage: true });

    await page.check('input[name=manage_team]');
    await Promise.all([page.waitForURL(`${redirectUri}?**`), page.click('button[value=approve]')]);
    const landed = new URL(page.url());
    assert.match(landed.searchParams.get('code') ?? '', /^hac_/);
    assert.equal(landed.searchParams.get('state'), 'approve-state');
    assert.equal(landed.searchParams.get('iss'), h.url);
    assert.ok(callbacks.some((url) => url.searchParams.get('code') === landed.searchParams.get('code')));
    await screenshot(page, 'oauth-approved-callback.png');
    const code = await h.herald.db('oauth_authorization_codes').orderBy('created_at', 'desc').first();
    assert.equal(code.scope, 'read_profile manage_post manage_team');
  });

  it('denies and lands on the redirect with access_denied', async () => {
    const page = await openAuthorization('deny-state');
    await Promise.all([page.waitForURL(`${redirectUri}?**`), page.click('button[value=deny]')]);
    const landed = new URL(page.url());
    assert.equal(landed.searchParams.get('error'), 'access_denied');
    assert.equal(landed.searchParams.get('state'), 'deny-state');
    assert.equal(landed.searchParams.get('code'), null);
    await screenshot(page, 'oauth-denied-callback.png');
  });
});
