/**
 * The official MCP TypeScript SDK's own OAuth flow against the real server: its transport meets the
 * 401 on /mcp, follows `resource_metadata` (RFC 9728), discovers the authorization server, registers
 * dynamically, sends the user to authorize with PKCE (the provider submits sign-in and consent as
 * forms), exchanges the code (`finishAuth`), then lists and calls tools with the token, and `auth()`
 * refreshes it.
 */
import assert from 'node:assert/strict';
import {
  auth,
  extractWWWAuthenticateParams,
  UnauthorizedError,
  type OAuthClientProvider,
} from '@modelcontextprotocol/sdk/client/auth.js';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from '@modelcontextprotocol/sdk/shared/auth.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { connectSdkClient } from '../mcp/support.js';
import { FormUser, REDIRECT_URI } from './support.js';

/** An in-memory provider whose "browser" is a FormUser that signs in and approves. */
class FormSubmittingProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  callback: URL | undefined;
  readonly state = () => 'sdk-state-1';

  constructor(
    private readonly user: FormUser,
    private readonly account: { email: string; password: string },
    private readonly manageTeam: boolean,
  ) {}

  get redirectUrl() {
    return REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'MCP SDK test client',
      redirect_uris: [REDIRECT_URI],
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
    };
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
    this.callback = await this.user.authorize(url.href, this.account, 'approve', { manageTeam: this.manageTeam });
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

  /** The tool names an API key sees on the same URL: an OAuth token must see exactly these. */
  async function toolNamesWithApiKey(path: string): Promise<string[]> {
    const client = await connectSdkClient(h, account.apiKey, path);
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    await client.close();
    return names;
  }

  function sdkClient(provider: OAuthClientProvider, path = '/mcp') {
    const transport = new StreamableHTTPClientTransport(new URL(h.url + path), { authProvider: provider });
    return { client: new Client({ name: 'herald-oauth-test', version: '1.0.0' }), transport };
  }

  it('points an unauthenticated /mcp call at the protected resource metadata', async () => {
    const response = await fetch(h.url + '/mcp', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    assert.equal(response.status, 401);
    assert.equal(
      extractWWWAuthenticateParams(response).resourceMetadataUrl?.href,
      h.url + '/.well-known/oauth-protected-resource/mcp',
    );
  });

  it(
    'connects through the 401, registration, PKCE, ' + 'sign-in and consent, then lists and calls tools, and refreshes',
    async () => {
      const provider = new FormSubmittingProvider(new FormUser(h.url), account, true);
      const first = sdkClient(provider);
      // The transport hits the 401, runs auth() from its resource_metadata and "redirects" the user.
      await assert.rejects(first.client.connect(first.transport), UnauthorizedError);
      assert.match(String(provider.client?.client_id), /^hc_/);
      const callback = provider.callback!;
      assert.equal(callback.searchParams.get('state'), 'sdk-state-1');
      assert.equal(callback.searchParams.get('iss'), h.url);
      await first.transport.finishAuth(callback.searchParams.get('code')!);
      const tokens = provider.saved!;
      assert.match(tokens.access_token, /^hoa_/);
      assert.equal(tokens.scope, 'read_profile manage_post manage_team');

      const { client, transport } = sdkClient(provider);
      await client.connect(transport);
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((t) => t.name).sort(), await toolNamesWithApiKey('/mcp'));
      assert.ok(tools.some((t) => t.name === 'get_channels'));
      const channels = await client.callTool({ name: 'get_channels', arguments: {} });
      assert.notEqual(channels.isError, true, JSON.stringify(channels.content));
      assert.deepEqual(
        (channels.structuredContent as { data: { id: string }[] }).data.map((c) => c.id).sort(),
        [...account.channelIds].sort(),
      );
      const created = await client.callTool({
        name: 'create_text_post',
        arguments: { text: 'via OAuth', channelIds: [account.channelIds[0]], saveAsDraft: true },
      });
      assert.notEqual(created.isError, true, JSON.stringify(created.content));
      const team = await client.callTool({ name: 'approval_list_pending', arguments: {} });
      assert.notEqual(team.isError, true, JSON.stringify(team.content));
      await client.close();

      // With a refresh token stored, auth() refreshes instead of sending the user through the pages again.
      assert.equal(await auth(provider, { serverUrl: h.url + '/mcp' }), 'AUTHORIZED');
      const refreshed = provider.saved!;
      assert.notEqual(refreshed.access_token, tokens.access_token);
      assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
      const again = sdkClient(provider);
      await again.client.connect(again.transport);
      assert.ok((await again.client.listTools()).tools.some((t) => t.name === 'create_text_post'));
      await again.client.close();
    },
  );

  it('connects to /mcp/claude with a token bound to that resource', async () => {
    const provider = new FormSubmittingProvider(new FormUser(h.url), account, false);
    const first = sdkClient(provider, '/mcp/claude');
    await assert.rejects(first.client.connect(first.transport), UnauthorizedError);
    await first.transport.finishAuth(provider.callback!.searchParams.get('code')!);
    const family = await h.herald.db('oauth_token_families').orderBy('created_at', 'desc').first();
    assert.equal(family.resource, h.url + '/mcp/claude');
    const { client, transport } = sdkClient(provider, '/mcp/claude');
    await client.connect(transport);
    const names = (await client.listTools()).tools.map((t) => t.name).sort();
    assert.deepEqual(names, await toolNamesWithApiKey('/mcp/claude'));
    assert.equal(names.includes('generate_image'), false);
    await client.close();
  });
});
