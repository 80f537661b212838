/** RFC 9728 and RFC 8414 metadata, RFC 7591 registration, and no CORS on the server-side endpoints. */
import assert from 'node:assert/strict';
import { startTestHerald, type TestHerald } from '../support/herald.js';
import { REDIRECT_URI } from './support.js';

describe('OAuth metadata (RFC 9728, RFC 8414) and dynamic registration (RFC 7591)', () => {
  let h: TestHerald;
  before(async () => {
    h = await startTestHerald();
  });
  after(() => h.close());

  for (const path of ['/mcp', '/mcp/claude']) {
    it(`describes ${path} as a protected resource whose identifier is the exact MCP URL`, async () => {
      const { status, body } = await h.api('GET', `/.well-known/oauth-protected-resource${path}`);
      assert.equal(status, 200);
      assert.equal(body.resource, h.url + path);
      assert.deepEqual(body.authorization_servers, [h.url]);
      assert.deepEqual(body.scopes_supported, ['read_profile', 'manage_post', 'manage_team']);
      assert.deepEqual(body.bearer_methods_supported, ['header']);
    });
  }

  it('answers the root protected resource metadata URL, which older clients try, for /mcp', async () => {
    const { status, body } = await h.api('GET', '/.well-known/oauth-protected-resource');
    assert.equal(status, 200);
    assert.equal(body.resource, h.url + '/mcp');
  });

  it('publishes authorization server metadata with the issuer, endpoints and supported methods', async () => {
    const { status, body } = await h.api('GET', '/.well-known/oauth-authorization-server');
    assert.equal(status, 200);
    assert.equal(body.issuer, h.url);
    assert.equal(body.authorization_endpoint, h.url + '/oauth2/mcp/authorize');
    assert.equal(body.token_endpoint, h.url + '/oauth2/mcp/token');
    assert.equal(body.registration_endpoint, h.url + '/oauth2/mcp/register');
    assert.equal(body.revocation_endpoint, h.url + '/oauth2/mcp/revoke');
    assert.deepEqual(body.response_types_supported, ['code']);
    assert.deepEqual(body.grant_types_supported, ['authorization_code', 'refresh_token']);
    assert.deepEqual(body.code_challenge_methods_supported, ['S256']);
    assert.deepEqual([...body.token_endpoint_auth_methods_supported].sort(), [
      'client_secret_basic',
      'client_secret_post',
      'none',
    ]);
    assert.deepEqual([...body.revocation_endpoint_auth_methods_supported].sort(), [
      'client_secret_basic',
      'client_secret_post',
      'none',
    ]);
    assert.deepEqual(body.scopes_supported, ['read_profile', 'manage_post', 'manage_team']);
    assert.equal(body.authorization_response_iss_parameter_supported, true);
  });

  it('registers a public client by default: a client_id and no secret', async () => {
    const { status, headers, body } = await h.api('POST', '/oauth2/mcp/register', {
      body: { redirect_uris: [REDIRECT_URI], client_name: 'Claude' },
    });
    assert.equal(status, 201);
    assert.equal(headers.get('cache-control'), 'no-store');
    assert.match(body.client_id, /^hc_/);
    assert.equal(body.client_secret, undefined);
    assert.equal(body.token_endpoint_auth_method, 'none');
    assert.deepEqual(body.redirect_uris, [REDIRECT_URI]);
    assert.deepEqual(body.grant_types, ['authorization_code', 'refresh_token']);
    assert.equal(body.client_name, 'Claude');
  });

  it('gives a confidential client a secret once and stores only its hash', async () => {
    const { status, body } = await h.api('POST', '/oauth2/mcp/register', {
      body: {
        redirect_uris: ['https://automation.example/oauth/callback'],
        token_endpoint_auth_method: 'client_secret_basic',
      },
    });
    assert.equal(status, 201);
    assert.match(body.client_secret, /^hcs_/);
    assert.equal(body.client_secret_expires_at, 0);
    const row = await h.herald.db('oauth_clients').where({ id: body.client_id }).first();
    assert.notEqual(row.secret_hash, body.client_secret);
    assert.equal(JSON.stringify(row).includes(body.client_secret), false);
  });

  const invalid: [string, unknown, string][] = [
    ['no redirect_uris', { client_name: 'x' }, 'invalid_redirect_uri'],
    ['an empty redirect_uris', { redirect_uris: [] }, 'invalid_redirect_uri'],
    ['plain http to a public host', { redirect_uris: ['http://example.com/cb'] }, 'invalid_redirect_uri'],
    ['a custom scheme', { redirect_uris: ['myapp://cb'] }, 'invalid_redirect_uri'],
    ['a fragment', { redirect_uris: ['https://example.com/cb#x'] }, 'invalid_redirect_uri'],
    ['a relative URI', { redirect_uris: ['/cb'] }, 'invalid_redirect_uri'],
    [
      'an unknown auth method',
      { redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'private_key_jwt' },
      'invalid_client_metadata',
    ],
    ['the implicit grant', { redirect_uris: [REDIRECT_URI], grant_types: ['implicit'] }, 'invalid_client_metadata'],
    [
      'the token response type',
      { redirect_uris: [REDIRECT_URI], response_types: ['token'] },
      'invalid_client_metadata',
    ],
    ['a non-string client_name', { redirect_uris: [REDIRECT_URI], client_name: 7 }, 'invalid_client_metadata'],
    [
      'an unknown application_type',
      { redirect_uris: [REDIRECT_URI], application_type: 'browser' },
      'invalid_client_metadata',
    ],
    [
      'a native application redirecting to https',
      { redirect_uris: ['https://example.com/cb'], application_type: 'native' },
      'invalid_redirect_uri',
    ],
    [
      'a web application redirecting to loopback',
      { redirect_uris: ['http://127.0.0.1:9/cb'], application_type: 'web' },
      'invalid_redirect_uri',
    ],
    [
      'a javascript: client_uri',
      { redirect_uris: [REDIRECT_URI], client_uri: 'javascript:alert(document.cookie)' },
      'invalid_client_metadata',
    ],
    [
      'a data: logo_uri',
      { redirect_uris: [REDIRECT_URI], logo_uri: 'data:image/svg+xml,<svg onload=alert(1)>' },
      'invalid_client_metadata',
    ],
    [
      'a javascript: tos_uri',
      { redirect_uris: [REDIRECT_URI], tos_uri: 'JavaScript:alert(1)' },
      'invalid_client_metadata',
    ],
    [
      'an http policy_uri on a public host',
      { redirect_uris: [REDIRECT_URI], policy_uri: 'http://example.com/policy' },
      'invalid_client_metadata',
    ],
    ['a relative client_uri', { redirect_uris: [REDIRECT_URI], client_uri: '/home' }, 'invalid_client_metadata'],
  ];
  for (const [name, body, error] of invalid) {
    it(`refuses registration with ${name} (${error})`, async () => {
      const response = await h.api('POST', '/oauth2/mcp/register', { body });
      assert.equal(response.status, 400);
      assert.equal(response.body.error, error);
      assert.equal(typeof response.body.error_description, 'string');
    });
  }

  it('names the web address to fix, and keeps https ones (http on loopback) as registered', async () => {
    const refused = await h.api('POST', '/oauth2/mcp/register', {
      body: { redirect_uris: [REDIRECT_URI], client_uri: 'javascript:alert(1)' },
    });
    assert.equal(
      refused.body.error_description,
      'client_uri must use https, or http on a loopback address (127.0.0.1, [::1] or localhost).',
    );
    assert.equal(await h.herald.db('oauth_clients').where('metadata', 'like', '%javascript:%').first(), undefined);
    const uris = {
      client_uri: 'https://notes.example/',
      logo_uri: 'https://notes.example/logo.png',
      tos_uri: 'https://notes.example/terms#use',
      policy_uri: 'http://127.0.0.1:9/policy',
    };
    const accepted = await h.api('POST', '/oauth2/mcp/register', { body: { redirect_uris: [REDIRECT_URI], ...uris } });
    assert.equal(accepted.status, 201);
    assert.deepEqual(
      {
        client_uri: accepted.body.client_uri,
        logo_uri: accepted.body.logo_uri,
        tos_uri: accepted.body.tos_uri,
        policy_uri: accepted.body.policy_uri,
      },
      uris,
    );
  });

  it('accepts loopback http redirect URIs for native clients', async () => {
    for (const uri of ['http://127.0.0.1:9/cb', 'http://localhost/cb', 'http://[::1]:8080/cb']) {
      const response = await h.api('POST', '/oauth2/mcp/register', { body: { redirect_uris: [uri] } });
      assert.equal(response.status, 201, uri);
    }
  });

  it(
    'takes application_type (MCP 2026-07-28) and, ' + 'when an older client omits it, reads it from the redirect URIs',
    async () => {
      const register = async (body: Record<string, unknown>) =>
        (await h.api('POST', '/oauth2/mcp/register', { body })).body.application_type;
      assert.equal(await register({ redirect_uris: ['http://127.0.0.1:9/cb'], application_type: 'native' }), 'native');
      assert.equal(await register({ redirect_uris: ['https://app.example/cb'], application_type: 'web' }), 'web');
      assert.equal(await register({ redirect_uris: ['http://localhost:8/cb', 'http://[::1]:8/cb'] }), 'native');
      assert.equal(await register({ redirect_uris: ['https://app.example/cb', 'http://localhost:8/cb'] }), 'web');
      const refused = await h.api('POST', '/oauth2/mcp/register', {
        body: { redirect_uris: ['https://app.example/cb'], application_type: 'native' },
      });
      assert.match(refused.body.error_description, /native application redirects to http on a loopback host/);
    },
  );

  it('sends no CORS headers from register and token, even to a cross-origin preflight', async () => {
    for (const path of ['/oauth2/mcp/register', '/oauth2/mcp/token']) {
      const preflight = await fetch(h.url + path, {
        method: 'OPTIONS',
        headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' },
      });
      assert.equal(preflight.headers.get('access-control-allow-origin'), null, path);
      const post = await fetch(h.url + path, {
        method: 'POST',
        headers: { origin: 'https://evil.example', 'content-type': 'application/json' },
        body: '{}',
      });
      assert.equal(post.headers.get('access-control-allow-origin'), null, path);
    }
  });
});
