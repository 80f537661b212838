/**
 * The official MCP TypeScript SDK's own OAuth flow (`auth()` with an OAuthClientProvider) against the
 * real server: protected resource discovery, authorization server discovery, dynamic registration,
 * PKCE, sign-in and consent (submitted as forms by the provider), code exchange and refresh.
 */
import assert from 'node:assert/strict';
import { auth, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { FormUser, REDIRECT_URI } from './support.js';

/** An in-memory provider whose "browser" is a FormUser that signs in and approves. */
class FormSubmittingProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  callback: URL | undefined;
  readonly state = () => 'sdk-state-1';

  constructor(private readonly user: FormUser, private readonly account: { email: string; password: string }) {}

  get redirectUrl() {
    return REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return { client_name: 'MCP SDK test client', redirect_uris: [REDIRECT_URI], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  async redirectToAuthorization(url: URL) {
    this.callback = await this.user.authorize(url.href, this.account, 'approve', { manageTeam: true });
  }
}

describe('the MCP SDK client OAuth flow', () => {
  let h: TestHerald;
  let account: SeededAccount;
  before(async () => {
    h = await startTestHerald();
    account = await h.seedAccount();
  });
  after(() => h.close());

  it('discovers, registers, authorizes with PKCE, exchanges the code, uses the token and refreshes it', async () => {
    const provider = new FormSubmittingProvider(new FormUser(h.url), account);
    const serverUrl = h.url + '/mcp';

    assert.equal(await auth(provider, { serverUrl }), 'REDIRECT');
    assert.match(String(provider.client?.client_id), /^hc_/);
    const callback = provider.callback!;
    assert.equal(callback.searchParams.get('state'), 'sdk-state-1');
    assert.equal(callback.searchParams.get('iss'), h.url);

    assert.equal(await auth(provider, { serverUrl, authorizationCode: callback.searchParams.get('code')! }), 'AUTHORIZED');
    const first = provider.saved!;
    assert.equal(first.scope, 'read_profile manage_post manage_team');
    const profile = await h.api('GET', '/v1/rest/profile', { token: first.access_token });
    assert.equal(profile.status, 200);
    assert.equal(profile.body.user.email, account.email);

    // With a refresh token stored, auth() refreshes instead of sending the user through the pages again.
    assert.equal(await auth(provider, { serverUrl }), 'AUTHORIZED');
    const second = provider.saved!;
    assert.notEqual(second.access_token, first.access_token);
    assert.notEqual(second.refresh_token, first.refresh_token);
    assert.equal((await h.api('GET', '/v1/rest/profile', { token: second.access_token })).status, 200);
  });
});
