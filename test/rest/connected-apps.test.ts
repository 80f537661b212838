import assert from 'node:assert/strict';
import { authorizeUrl, FormUser, pkcePair, REDIRECT_URI, registerClient, tokenRequest } from '../oauth/support.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';

describe('REST /connected-apps: the OAuth clients a person authorized', function () {
  this.timeout(30_000);
  let t: TestHerald;
  let a: SeededAccount;

  beforeEach(async () => {
    t = await startTestHerald({ validateResponses: true });
    a = await t.seedAccount({ channels: 1 });
  });
  afterEach(() => t.close());

  /** Registers a client and plays the person through consent; the access token it got. */
  async function authorize(clientName: string, clientId?: string) {
    const id =
      clientId ??
      (await registerClient(t, { client_name: clientName, client_uri: 'https://client.example' })).client_id;
    const { verifier, challenge } = pkcePair();
    const redirect = await new FormUser(t.url).authorize(
      authorizeUrl(t, {
        response_type: 'code',
        client_id: id,
        redirect_uri: REDIRECT_URI,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        resource: t.url + '/mcp',
      }),
      a,
    );
    const tokens = await tokenRequest(t, {
      grant_type: 'authorization_code',
      code: redirect.searchParams.get('code')!,
      code_verifier: verifier,
      redirect_uri: REDIRECT_URI,
      client_id: id,
      resource: t.url + '/mcp',
    });
    assert.equal(tokens.status, 200, JSON.stringify(tokens.body));
    return {
      clientId: id,
      accessToken: tokens.body.access_token as string,
      refreshToken: tokens.body.refresh_token as string,
    };
  }

  it(
    'lists each authorized client once with its scopes, ' + 'and revoking it ends every token it holds at once',
    async () => {
      const first = await authorize('Claude');
      const again = await authorize('Claude', first.clientId);
      const other = await authorize('Another assistant');

      const listed = await t.api('GET', '/v1/rest/connected-apps', { token: a.apiKey });
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      assert.deepEqual(
        listed.body.data.map((app: { clientName: string }) => app.clientName),
        ['Claude', 'Another assistant'],
      );
      const claude = listed.body.data[0];
      assert.deepEqual(
        { ...claude, authorizedAt: typeof claude.authorizedAt, lastTokenAt: typeof claude.lastTokenAt },
        {
          clientId: first.clientId,
          clientName: 'Claude',
          clientUri: 'https://client.example',
          scopes: ['read_profile', 'manage_post'],
          authorizedAt: 'string',
          lastTokenAt: 'string',
        },
      );

      assert.equal((await t.api('GET', '/v1/rest/channels', { token: again.accessToken })).status, 200);
      const revoked = await t.api('DELETE', `/v1/rest/connected-apps/${encodeURIComponent(first.clientId)}`, {
        token: a.apiKey,
      });
      assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
      assert.deepEqual(revoked.body.data, { clientId: first.clientId, revokedAuthorizations: 2 });
      for (const token of [first.accessToken, again.accessToken])
        assert.equal((await t.api('GET', '/v1/rest/channels', { token })).status, 401);
      const refreshed = await tokenRequest(t, {
        grant_type: 'refresh_token',
        refresh_token: again.refreshToken,
        client_id: first.clientId,
      });
      assert.equal(refreshed.status, 400, 'its refresh token is revoked too');
      assert.equal(
        (await t.api('GET', '/v1/rest/channels', { token: other.accessToken })).status,
        200,
        'the other client keeps working',
      );
      assert.deepEqual(
        (await t.api('GET', '/v1/rest/connected-apps', { token: a.apiKey })).body.data.map(
          (app: { clientName: string }) => app.clientName,
        ),
        ['Another assistant'],
      );
    },
  );

  it(
    'shows a person only their own authorizations: ' + 'another member or account sees nothing and cannot revoke them',
    async () => {
      const app = await authorize('Claude');
      const other = await t.seedAccount({ channels: 0 });
      assert.deepEqual((await t.api('GET', '/v1/rest/connected-apps', { token: other.apiKey })).body.data, []);
      const refused = await t.api('DELETE', `/v1/rest/connected-apps/${encodeURIComponent(app.clientId)}`, {
        token: other.apiKey,
      });
      assert.equal(refused.status, 404);
      assert.match(refused.body.message, /GET \/connected-apps/);
      assert.equal((await t.api('GET', '/v1/rest/channels', { token: app.accessToken })).status, 200);
    },
  );
});
