/**
 * The authorization endpoint (OAuth 2.1 section 4.1, RFC 7636, RFC 8707, RFC 9207): what is shown as a
 * page, what goes back to the client, and the sign-in and consent forms.
 */
import assert from 'node:assert/strict';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { authorizeUrl, FormUser, pkcePair, REDIRECT_URI, registerClient } from './support.js';

describe('OAuth authorization endpoint', () => {
  let h: TestHerald;
  let account: SeededAccount;
  let clientId: string;
  const { challenge } = pkcePair();
  const params = (overrides: Record<string, string | undefined> = {}) =>
    authorizeUrl(h, {
      response_type: 'code',
      client_id: clientId,
      redirect_uri: REDIRECT_URI,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      state: 'st-123',
      resource: h.url + '/mcp',
      scope: 'read_profile manage_post manage_team',
      ...overrides,
    });

  before(async () => {
    h = await startTestHerald();
    account = await h.seedAccount();
    clientId = (await registerClient(h, { client_name: 'Claude <script>alert(1)</script>' })).client_id;
  });
  after(() => h.close());

  it('shows a sign-in page with a CSRF token and a strict CSP, naming the client HTML-escaped', async () => {
    const page = await new FormUser(h.url).request(params());
    assert.equal(page.status, 200);
    assert.match(page.html, /name="password"/);
    assert.match(page.html, /name="csrf_token" value="[A-Za-z0-9_-]{43}"/);
    assert.match(page.html, /Claude &lt;script&gt;alert\(1\)&lt;\/script&gt;/);
    assert.doesNotMatch(page.html, /<script/i);
    const csp = page.headers.get('content-security-policy') ?? '';
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    assert.equal(page.headers.get('cache-control'), 'no-store');
    const cookies = page.headers.getSetCookie().join('\n');
    assert.match(cookies, /herald_web_csrf=.*HttpOnly/i);
    assert.match(cookies, /SameSite=Lax/i);
  });

  it('refuses a wrong password with the sign-in page again, and no sign-in cookie', async () => {
    const user = new FormUser(h.url);
    const page = await user.request(params());
    const answer = await user.signIn(page, account.email, 'not the password');
    assert.equal(answer.status, 401);
    assert.match(answer.html, /do not match/);
    assert.equal(
      answer.headers.getSetCookie().some((c) => c.startsWith('herald_web_sign_in=')),
      false,
    );
  });

  it('stops checking passwords for an email after ten wrong ones, even the right one', async () => {
    const victim = await h.seedAccount();
    const user = new FormUser(h.url);
    const page = await user.request(params());
    for (let i = 0; i < 10; i++) assert.equal((await user.signIn(page, victim.email, `wrong ${i}`)).status, 401);
    const locked = await user.signIn(page, victim.email, victim.password);
    assert.equal(locked.status, 429);
    assert.match(locked.html, /Too many wrong passwords/);
    assert.equal(locked.location, null);
  });

  it('refuses a form whose CSRF token does not match the cookie', async () => {
    const user = new FormUser(h.url);
    const page = await user.request(params());
    const forged = page.html.replace(
      /name="csrf_token" value="[^"]*"/,
      'name="csrf_token" value="forged-token-forged-token-forged-token-abc"',
    );
    const answer = await user.signIn({ ...page, html: forged }, account.email, account.password);
    assert.equal(answer.status, 403);
    assert.equal(answer.location, null);
  });

  it(
    'signs in, shows the consent page with the client, ' +
      'its redirect host and the scopes, and redirects with code, state and iss',
    async () => {
      const user = new FormUser(h.url);
      const signInPage = await user.request(params());
      const signedIn = await user.signIn(signInPage, account.email, account.password);
      assert.equal(signedIn.status, 303);
      const consent = await user.request(signedIn.location!);
      assert.equal(consent.status, 200);
      assert.match(consent.html, /Claude &lt;script&gt;/);
      assert.match(consent.html, /127\.0\.0\.1:53682/);
      assert.match(consent.html, /read_profile/);
      assert.match(consent.html, /manage_post/);
      assert.match(consent.html, /name="manage_team" type="checkbox" value="yes" checked/);
      assert.match(
        consent.headers.get('content-security-policy') ?? '',
        /form-action 'self' http:\/\/127\.0\.0\.1:53682/,
      );
      const decided = await user.decide(consent, 'approve');
      assert.equal(decided.status, 303);
      const redirect = new URL(decided.location!);
      assert.equal(redirect.origin + redirect.pathname, REDIRECT_URI);
      assert.match(redirect.searchParams.get('code')!, /^hac_/);
      assert.equal(redirect.searchParams.get('state'), 'st-123');
      assert.equal(redirect.searchParams.get('iss'), h.url);
    },
  );

  it('lets the user sign out from the consent page and sign in as someone else', async () => {
    const other = await h.seedAccount();
    const user = new FormUser(h.url);
    const signedIn = await user.signIn(await user.request(params()), account.email, account.password);
    const consent = await user.request(signedIn.location!);
    assert.match(consent.html, new RegExp(account.email.replace(/[.]/g, '\\.')));
    const signedOut = await user.request('/oauth2/mcp/authorize/sign-out', {
      form: {
        csrf_token: /name="csrf_token" value="([^"]*)"/.exec(consent.html)![1],
        authorization_request: new URL(signedIn.location!, h.url).search.slice(1),
      },
    });
    assert.equal(signedOut.status, 303);
    const signInAgain = await user.request(signedOut.location!);
    assert.match(signInAgain.html, /name="password"/);
    const asOther = await user.signIn(signInAgain, other.email, other.password);
    const otherConsent = await user.request(asOther.location!);
    assert.match(otherConsent.html, new RegExp(other.email.replace(/[.]/g, '\\.')));
  });

  it('leaves manage_team unticked when the client did not ask for it', async () => {
    const user = new FormUser(h.url);
    const signedIn = await user.signIn(
      await user.request(params({ scope: 'read_profile manage_post' })),
      account.email,
      account.password,
    );
    const consent = await user.request(signedIn.location!);
    assert.match(consent.html, /name="manage_team" type="checkbox" value="yes">/);
  });

  it('sends access_denied (with state and iss) when the user denies', async () => {
    const redirect = await new FormUser(h.url).authorize(params(), account, 'deny');
    assert.equal(redirect.searchParams.get('error'), 'access_denied');
    assert.equal(redirect.searchParams.get('state'), 'st-123');
    assert.equal(redirect.searchParams.get('iss'), h.url);
    assert.equal(redirect.searchParams.get('code'), null);
  });

  const pageErrors: [string, Record<string, string | undefined>][] = [
    ['an unknown client', { client_id: 'hc_unknown' }],
    ['a redirect_uri the client did not register', { redirect_uri: 'http://127.0.0.1:53682/other' }],
    ['a redirect_uri differing only by a trailing slash', { redirect_uri: REDIRECT_URI + '/' }],
    ['no client_id', { client_id: undefined }],
  ];
  for (const [name, overrides] of pageErrors) {
    it(`shows an error page, and never redirects, for ${name}`, async () => {
      const page = await new FormUser(h.url).request(params(overrides));
      assert.equal(page.status, 400);
      assert.equal(page.location, null);
      assert.match(page.html, /cannot continue/);
    });
  }

  const redirectErrors: [string, Record<string, string | undefined>, string][] = [
    ['a missing PKCE challenge', { code_challenge: undefined, code_challenge_method: undefined }, 'invalid_request'],
    ['a plain PKCE challenge', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['a challenge without a method', { code_challenge_method: undefined }, 'invalid_request'],
    ['response_type=token', { response_type: 'token' }, 'unsupported_response_type'],
    ['a resource that is not this MCP server', { resource: 'https://other.example/mcp' }, 'invalid_target'],
  ];
  for (const [name, overrides, error] of redirectErrors) {
    it(`redirects back with ${error} for ${name}`, async () => {
      const page = await new FormUser(h.url).request(params(overrides));
      assert.equal(page.status, 303);
      const redirect = new URL(page.location!);
      assert.equal(redirect.origin + redirect.pathname, REDIRECT_URI);
      assert.equal(redirect.searchParams.get('error'), error);
      assert.equal(redirect.searchParams.get('state'), 'st-123');
      assert.equal(redirect.searchParams.get('iss'), h.url);
    });
  }

  it('accepts the /mcp/claude URL as resource', async () => {
    const redirect = await new FormUser(h.url).authorize(params({ resource: h.url + '/mcp/claude' }), account);
    assert.match(redirect.searchParams.get('code')!, /^hac_/);
  });
});
