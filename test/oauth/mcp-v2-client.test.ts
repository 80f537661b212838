/**
 * The v2 MCP client (@modelcontextprotocol/client) pinned to 2026-07-28, through Herald's OAuth server:
 * the 401 on /mcp, discovery, registration with application_type, PKCE, sign-in and consent, then the code
 * exchanged only after the client's RFC 9207 check of the `iss` Herald puts on the redirect; an `iss` from
 * elsewhere is refused by the client before the code is redeemed.
 */
import assert from 'node:assert/strict';
import {
  Client,
  IssuerMismatchError,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthTokens,
} from '@modelcontextprotocol/client';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { FormUser, REDIRECT_URI } from './support.js';

class FormSubmittingProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  discovery: OAuthDiscoveryState | undefined;
  callback: URL | undefined;

  constructor(
    private readonly user: FormUser,
    private readonly account: { email: string; password: string },
  ) {}

  get redirectUrl() {
    return REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP v2 test client',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      application_type: 'native',
    } as OAuthClientMetadata;
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
  // Lets the client bind the callback to the authorization server it discovered (SEP-2352).
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  async redirectToAuthorization(url: URL) {
    this.callback = await this.user.authorize(url.href, this.account, 'approve');
  }
}

describe(`the v2 MCP client's OAuth flow on 2026-07-28 (${TEST_DB})`, () => {
  let h: TestHerald;
  let account: SeededAccount;
  before(async () => {
    h = await startTestHerald();
    account = await h.seedAccount();
  });
  after(() => h.close());

  const connect = (provider: OAuthClientProvider) => {
    const transport = new StreamableHTTPClientTransport(new URL(h.url + '/mcp'), { authProvider: provider });
    const client = new Client(
      { name: 'herald-oauth-v2', version: '2.0.0' },
      { versionNegotiation: { mode: { pin: '2026-07-28' } } },
    );
    return { client, transport };
  };

  it("passes the client's iss check, redeems the code and calls tools with the token", async () => {
    const provider = new FormSubmittingProvider(new FormUser(h.url), account);
    const first = connect(provider);
    await assert.rejects(first.client.connect(first.transport), UnauthorizedError);
    const registered = await h.herald
      .db('oauth_clients')
      .where({ id: String(provider.client?.client_id) })
      .first();
    const metadata = typeof registered.metadata === 'string' ? JSON.parse(registered.metadata) : registered.metadata;
    assert.equal(metadata.application_type, 'native');
    const callback = provider.callback!;
    assert.equal(callback.searchParams.get('iss'), h.url);
    await first.transport.finishAuth(callback.searchParams);
    assert.match(provider.saved!.access_token, /^hoa_/);

    const { client, transport } = connect(provider);
    await client.connect(transport);
    assert.equal(client.getNegotiatedProtocolVersion(), '2026-07-28');
    const channels = await client.callTool({ name: 'get_channels', arguments: {} });
    assert.notEqual(channels.isError, true, JSON.stringify(channels.content));
    await client.close();
  });

  it('refuses, in the client, a callback whose iss is not Herald, and the code stays unredeemed', async () => {
    const provider = new FormSubmittingProvider(new FormUser(h.url), account);
    const first = connect(provider);
    await assert.rejects(first.client.connect(first.transport), UnauthorizedError);
    const forged = new URLSearchParams(provider.callback!.searchParams);
    forged.set('iss', 'https://attacker.example');
    await assert.rejects(first.transport.finishAuth(forged), IssuerMismatchError);
    assert.equal(provider.saved, undefined);
    await first.transport.finishAuth(provider.callback!.searchParams);
    assert.match(provider.saved!.access_token, /^hoa_/, 'the genuine callback still redeems the untouched code');
  });
});
