/**
 * A second, independent client library (oauth4webapi) runs the whole flow as a confidential client,
 * once with client_secret_basic and once with client_secret_post: discovery, registration, PKCE,
 * authorization with the iss check (RFC 9207), code exchange, refresh, revocation; and a wrong secret fails.
 */
import assert from 'node:assert/strict';
import * as oauth from 'oauth4webapi';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { FormUser, REDIRECT_URI } from './support.js';

const insecure = { [oauth.allowInsecureRequests]: true };

describe('oauth4webapi as a confidential client', () => {
  let h: TestHerald;
  let account: SeededAccount;
  before(async () => {
    h = await startTestHerald();
    account = await h.seedAccount();
  });
  after(() => h.close());

  async function discover(): Promise<oauth.AuthorizationServer> {
    const issuer = new URL(h.url);
    return oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...insecure }),
    );
  }

  for (const [method, authOf] of [
    ['client_secret_basic', oauth.ClientSecretBasic],
    ['client_secret_post', oauth.ClientSecretPost],
  ] as const) {
    it(`completes the flow with ${method}`, async () => {
      const as = await discover();
      assert.equal(as.issuer, h.url);
      const registered = await oauth.processDynamicClientRegistrationResponse(
        await oauth.dynamicClientRegistrationRequest(
          as,
          { redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: method, client_name: `Automation (${method})` },
          insecure,
        ),
      );
      const client: oauth.Client = { client_id: registered.client_id, token_endpoint_auth_method: method };
      const clientAuth = authOf(registered.client_secret as string);

      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const url = new URL(as.authorization_endpoint!);
      url.search = new URLSearchParams({
        client_id: client.client_id,
        redirect_uri: REDIRECT_URI,
        response_type: 'code',
        scope: 'read_profile manage_post',
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        state,
        resource: h.url + '/mcp',
      }).toString();
      const callback = await new FormUser(h.url).authorize(url.href, account);
      // validateAuthResponse checks state and, as the metadata advertises it, that iss is this issuer.
      const params = oauth.validateAuthResponse(as, client, callback, state);

      const tokenResponse = await oauth.authorizationCodeGrantRequest(
        as,
        client,
        clientAuth,
        params,
        REDIRECT_URI,
        verifier,
        {
          ...insecure,
          additionalParameters: { resource: h.url + '/mcp' },
        },
      );
      const tokens = await oauth.processAuthorizationCodeResponse(as, client, tokenResponse);
      assert.equal(tokens.token_type, 'bearer');
      assert.equal((await h.api('GET', '/v1/rest/profile', { token: tokens.access_token })).status, 200);

      const refreshed = await oauth.processRefreshTokenResponse(
        as,
        client,
        await oauth.refreshTokenGrantRequest(as, client, clientAuth, tokens.refresh_token!, insecure),
      );
      assert.notEqual(refreshed.refresh_token, tokens.refresh_token);
      assert.equal((await h.api('GET', '/v1/rest/profile', { token: refreshed.access_token })).status, 200);

      await oauth.processRevocationResponse(
        await oauth.revocationRequest(as, client, clientAuth, refreshed.refresh_token!, insecure),
      );
      assert.equal((await h.api('GET', '/v1/rest/profile', { token: refreshed.access_token })).status, 401);

      const wrongSecret = await oauth.refreshTokenGrantRequest(
        as,
        client,
        authOf('hcs_wrong-secret'),
        refreshed.refresh_token!,
        insecure,
      );
      // A failed Basic authentication is a 401 with a Basic challenge, which oauth4webapi reports as a challenge.
      await assert.rejects(oauth.processRefreshTokenResponse(as, client, wrongSecret), (error: unknown) => {
        if (method === 'client_secret_basic') {
          assert.ok(error instanceof oauth.WWWAuthenticateChallengeError);
          assert.equal(error.status, 401);
          assert.equal(error.cause[0].scheme, 'basic');
        } else {
          assert.ok(error instanceof oauth.ResponseBodyError);
          assert.equal(error.error, 'invalid_client');
        }
        return true;
      });
    });
  }

  it(
    'refuses a confidential client that sends no secret, ' + 'the wrong secret, or its secret by the other method',
    async () => {
      const as = await discover();
      const registered = await oauth.processDynamicClientRegistrationResponse(
        await oauth.dynamicClientRegistrationRequest(
          as,
          { redirect_uris: [REDIRECT_URI], token_endpoint_auth_method: 'client_secret_basic' },
          insecure,
        ),
      );
      const client: oauth.Client = { client_id: registered.client_id };
      const attempts: [string, oauth.ClientAuth, number][] = [
        ['no secret', oauth.None(), 400],
        ['a wrong secret by Basic', oauth.ClientSecretBasic('hcs_not-the-secret'), 401],
        [
          'the right secret by the unregistered method',
          oauth.ClientSecretPost(registered.client_secret as string),
          400,
        ],
      ];
      for (const [name, clientAuth, status] of attempts) {
        const response = await oauth.refreshTokenGrantRequest(as, client, clientAuth, 'hor_anything', insecure);
        assert.equal(response.status, status, name);
        assert.equal(((await response.json()) as { error: string }).error, 'invalid_client', name);
        if (status === 401) assert.match(response.headers.get('www-authenticate') ?? '', /^Basic/);
      }
    },
  );
});
