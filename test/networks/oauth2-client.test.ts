import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { NetworkError, type NetworkFailureKind } from '../../src/domain/networks/connector.js';
import { graphTokenRefusal } from '../../src/publishing/networks/meta-graph.js';
import { NetworkHttp } from '../../src/publishing/networks/network-http.js';
import { OAuth2Client, type OAuth2Network } from '../../src/publishing/networks/oauth2-client.js';
import { safeFetcher } from '../../src/net/safe-fetch.js';

/** The shared OAuth 2 client against a token endpoint on loopback that answers what each test scripts. */
describe("the connectors' OAuth 2 client", () => {
  const APP = { clientId: 'herald-app', clientSecret: 'app-secret-do-not-show' };
  const REAL = 'https://auth.example.com';
  let server: http.Server;
  let origin: string;
  let answer: { status: number; body: unknown; headers?: Record<string, string> };
  let seen: { method: string; url: string; headers: http.IncomingHttpHeaders; body: string }[];

  before(async () => {
    server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({
          method: req.method!,
          url: req.url!,
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
        });
        res
          .writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
          .end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  beforeEach(() => {
    seen = [];
    answer = { status: 200, body: {} };
  });

  const NOW = 1_800_000_000_000;

  function client(network: Partial<OAuth2Network> = {}, to = origin): OAuth2Client {
    const httpLayer = new NetworkHttp({
      fetcher: safeFetcher,
      overrides: { [REAL]: to },
      allowHosts: [],
      timeoutMs: 2_000,
      maxBytes: 1 << 20,
      library: { read: async () => undefined } as never,
    });
    return new OAuth2Client(
      httpLayer,
      {
        name: 'Example',
        tokenUrl: `${REAL}/oauth/token`,
        clientAuth: 'body',
        appSettings: 'EXAMPLE_CLIENT_ID and EXAMPLE_CLIENT_SECRET',
        ...network,
      },
      () => APP,
      () => NOW,
    );
  }

  async function refused(call: Promise<unknown>, kind: NetworkFailureKind, words: RegExp): Promise<NetworkError> {
    const error = await call.then(
      () => assert.fail('the token request succeeded'),
      (e: unknown) => e,
    );
    assert.ok(error instanceof NetworkError, String(error));
    assert.equal(error.kind, kind, error.message);
    assert.match(error.message, words);
    assert.ok(
      !error.message.includes(APP.clientSecret) && !error.message.includes('the-refresh-token'),
      'no secret in the message',
    );
    return error;
  }

  it('exchanges a code with its PKCE verifier, the app in the form body, and reads the whole answer', async () => {
    answer = {
      status: 200,
      body: {
        access_token: 'at',
        refresh_token: 'rt',
        expires_in: 7200,
        refresh_expires_in: 86400,
        scope: 'a,b c',
        open_id: 'u1',
      },
    };
    const grant = await client().exchangeCode({
      code: 'the-code',
      redirectUri: 'https://herald.test/cb',
      codeVerifier: 'verifier',
    });
    assert.deepEqual(grant, {
      accessToken: 'at',
      refreshToken: 'rt',
      expiresAt: NOW + 7_200_000,
      refreshExpiresAt: NOW + 86_400_000,
      scopes: ['a', 'b', 'c'],
      answer: answer.body,
    });
    assert.equal(seen[0].method, 'POST');
    assert.equal(seen[0].url, '/oauth/token');
    assert.match(String(seen[0].headers['content-type']), /^application\/x-www-form-urlencoded/);
    assert.deepEqual(Object.fromEntries(new URLSearchParams(seen[0].body)), {
      grant_type: 'authorization_code',
      code: 'the-code',
      redirect_uri: 'https://herald.test/cb',
      code_verifier: 'verifier',
      client_id: APP.clientId,
      client_secret: APP.clientSecret,
    });
  });

  it("sends the app as each network wants: Basic (and the id in the body), client_key, Meta's GET", async () => {
    answer = { status: 200, body: { access_token: 'at' } };
    await client({ clientAuth: 'basic', clientIdInBody: true }).refresh('the-refresh-token');
    assert.equal(
      seen[0].headers.authorization,
      `Basic ${Buffer.from(`${APP.clientId}:${APP.clientSecret}`).toString('base64')}`,
    );
    assert.deepEqual(Object.fromEntries(new URLSearchParams(seen[0].body)), {
      grant_type: 'refresh_token',
      refresh_token: 'the-refresh-token',
      client_id: APP.clientId,
    });

    await client({ clientIdField: 'client_key' }).refresh('the-refresh-token');
    assert.deepEqual(Object.fromEntries(new URLSearchParams(seen[1].body)), {
      grant_type: 'refresh_token',
      refresh_token: 'the-refresh-token',
      client_key: APP.clientId,
      client_secret: APP.clientSecret,
    });

    const grant = await client({ method: 'GET' }).grant(
      'exchange',
      { grant_type: 'long_lived', access_token: 'short' },
      { url: `${REAL}/access_token`, credentials: 'secret' },
    );
    assert.equal(seen[2].method, 'GET');
    assert.equal(seen[2].body, '');
    const url = new URL(seen[2].url, origin);
    assert.equal(url.pathname, '/access_token');
    assert.deepEqual(Object.fromEntries(url.searchParams), {
      grant_type: 'long_lived',
      access_token: 'short',
      client_secret: APP.clientSecret,
    });
    assert.deepEqual(
      [grant.refreshToken, grant.expiresAt, grant.scopes],
      [null, null, []],
      'what the network did not say stays unsaid',
    );
  });

  it('a refresh refused with invalid_grant or its equivalent needs a reconnect; a code, permanent', async () => {
    answer = { status: 400, body: { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' } };
    await refused(
      client({ reconnectHint: 'the person removed the app' }).refresh('the-refresh-token'),
      'reconnect_needed',
      new RegExp(
        /^Example refused to refresh the access token \(Token has been expired or revoked\.\); /.source +
          /reconnect the channel \(the/.source,
      ),
    );
    await refused(
      client().exchangeCode({ code: 'old', redirectUri: 'https://herald.test/cb' }),
      'permanent',
      /^Example did not grant a token \(Token has been expired/,
    );

    answer = {
      status: 400,
      body: { error: 'invalid_request', error_description: 'Value passed for the token was invalid.' },
    };
    await refused(
      client({ reconnectErrors: ['invalid_request'] }).refresh('the-refresh-token'),
      'reconnect_needed',
      /Value passed for the token was invalid/,
    );
    await refused(client().refresh('the-refresh-token'), 'permanent', /Value passed for the token was invalid/);
  });

  it("invalid_client and unauthorized_client are the operator's app: permanent, naming the settings", async () => {
    for (const error of ['invalid_client', 'unauthorized_client']) {
      answer = { status: 401, body: { error, error_description: 'Client authentication failed' } };
      await refused(
        client().refresh('the-refresh-token'),
        'permanent',
        /Client authentication failed.*the operator must check EXAMPLE_CLIENT_ID and EXAMPLE_CLIENT_SECRET/,
      );
      await refused(
        client().exchangeCode({ code: 'c', redirectUri: 'https://herald.test/cb' }),
        'permanent',
        /the operator must check EXAMPLE_CLIENT_ID/,
      );
    }
  });

  it('429 and 5xx retry later, at the time the network named', async () => {
    answer = { status: 429, body: { error: 'rate_limited' }, headers: { 'retry-after': '30' } };
    const limited = await refused(client().refresh('the-refresh-token'), 'retry_later', /rate_limited/);
    assert.equal(limited.retryAt, NOW + 30_000);
    answer = { status: 503, body: { error: 'temporarily_unavailable' } };
    await refused(client().refresh('the-refresh-token'), 'retry_later', /temporarily_unavailable/);
    await refused(
      client().exchangeCode({ code: 'c', redirectUri: 'https://herald.test/cb' }),
      'retry_later',
      /did not grant a token/,
    );
  });

  it('a token endpoint that cannot be reached retries later (a token request changes nothing one sees)', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await refused(
      client({}, `http://127.0.0.1:${port}`).refresh('the-refresh-token'),
      'retry_later',
      /could not be reached/,
    );
  });

  it("any other refusal is permanent, in the network's words; an answer without a token is one", async () => {
    answer = { status: 400, body: { error: 'invalid_scope', error_description: 'The scope is not allowed' } };
    await refused(
      client().refresh('the-refresh-token'),
      'permanent',
      /^Example refused to refresh the access token \(The scope is not allowed\)$/,
    );
    answer = { status: 200, body: { token_type: 'bearer' } };
    await refused(client().refresh('the-refresh-token'), 'permanent', /HTTP 200/);
  });

  it("reads a network's own error form through its hook: Meta's 190 is reconnect, throttling retries", async () => {
    const meta = { refusal: graphTokenRefusal('Threads'), method: 'GET' as const };
    answer = {
      status: 400,
      body: {
        error: {
          message: 'Error validating access token: Session has expired',
          type: 'OAuthException',
          code: 190,
          error_subcode: 463,
        },
      },
    };
    await refused(
      client(meta).grant('refresh', { grant_type: 'th_refresh_token', access_token: 'tok' }, { credentials: 'none' }),
      'reconnect_needed',
      /Session has expired/,
    );
    assert.ok(!seen.at(-1)!.url.includes('client_secret'), 'a refresh that needs no app sends none');
    answer = {
      status: 400,
      body: { error: { message: 'Application request limit reached', type: 'OAuthException', code: 4 } },
    };
    await refused(
      client(meta).grant('refresh', { grant_type: 'th_refresh_token', access_token: 'tok' }, { credentials: 'none' }),
      'retry_later',
      /request limit/,
    );
    answer = { status: 400, body: { error_type: 'OAuthException', code: 400, error_message: 'Invalid platform app' } };
    await refused(
      client(meta).exchangeCode({ code: 'c', redirectUri: 'https://herald.test/cb' }),
      'permanent',
      /Invalid platform app/,
    );
  });
});
