/**
 * Browser sessions of the consent pages: a copied sign-in cookie dies with sign-out, the CSRF token is
 * replaced at sign-in, and the session lives on the server (nothing in it can be forged).
 */
import assert from 'node:assert/strict';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { authorizeUrl, FormUser, pkcePair, REDIRECT_URI, registerClient } from './support.js';

function csrfOf(html: string): string {
  return /name="csrf_token" value="([^"]*)"/.exec(html)![1];
}

describe(`OAuth browser sessions (${TEST_DB})`, function () {
  this.timeout(60_000);
  let h: TestHerald;
  let account: SeededAccount;
  let authorize: string;

  before(async () => {
    h = await startTestHerald();
    account = await h.seedAccount();
    const client = await registerClient(h);
    authorize = authorizeUrl(h, {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      state: 's',
      resource: h.url + '/mcp',
    });
  });
  after(() => h?.close());

  it('ends the session at sign-out: the copied cookie shows the sign-in page again', async () => {
    const user = new FormUser(h.url);
    const signedIn = await user.signIn(await user.request(authorize), account.email, account.password);
    const stolen = (user as unknown as { cookies: Map<string, string> }).cookies.get('herald_web_sign_in')!;
    const consent = await user.request(signedIn.location!);
    assert.match(consent.html, /name="decision"/);

    const thief = new FormUser(h.url);
    (thief as unknown as { cookies: Map<string, string> }).cookies.set('herald_web_sign_in', stolen);
    assert.match((await thief.request(authorize)).html, /name="decision"/, 'the copied cookie works while signed in');

    const signedOut = await user.request('/oauth2/mcp/authorize/sign-out', {
      form: {
        csrf_token: csrfOf(consent.html),
        authorization_request: new URL(signedIn.location!, h.url).search.slice(1),
      },
    });
    assert.equal(signedOut.status, 303);
    const replayed = await thief.request(authorize);
    assert.match(replayed.html, /name="password"/, 'the copied cookie must not survive sign-out');
    assert.doesNotMatch(replayed.html, /name="decision"/);
  });

  it('keeps only a hash of the session token in the database', async () => {
    const user = new FormUser(h.url);
    await user.signIn(await user.request(authorize), account.email, account.password);
    const token = (user as unknown as { cookies: Map<string, string> }).cookies.get('herald_web_sign_in')!;
    const rows = await h.herald.db('browser_sessions').select('token_hash');
    assert.ok(rows.length > 0);
    assert.ok(rows.every((r: { token_hash: string }) => r.token_hash !== token && !r.token_hash.includes(token)));
  });

  it('replaces the CSRF token at sign-in, so one planted before it is refused after', async () => {
    const user = new FormUser(h.url);
    const page = await user.request(authorize);
    const before = csrfOf(page.html);
    const signedIn = await user.signIn(page, account.email, account.password);
    const consent = await user.request(signedIn.location!);
    const after = csrfOf(consent.html);
    assert.notEqual(after, before);
    const withOld = await user.request('/oauth2/mcp/authorize/decision', {
      form: {
        csrf_token: before,
        authorization_request: new URL(signedIn.location!, h.url).search.slice(1),
        decision: 'approve',
      },
    });
    assert.equal(withOld.status, 403);
  });

  it('refuses redirect URIs carrying userinfo at registration', async () => {
    const answer = await h.api('POST', '/oauth2/mcp/register', {
      body: { redirect_uris: ['https://user:pw@client.example/cb'] },
    });
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error, 'invalid_redirect_uri');
    assert.match(answer.body.error_description, /user name or password/);
  });
});
