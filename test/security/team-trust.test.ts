/**
 * Issue 30, "Team trust": a credential never does more than its holder's role allows now, the consent page and
 * token endpoint never grant more than the role holds, and removing a member ends everything they hold.
 */
import assert from 'node:assert/strict';
import * as provisioning from '../../src/domain/provisioning.js';
import { authorizeUrl, FormUser, pkcePair, REDIRECT_URI, registerClient, tokenRequest } from '../oauth/support.js';
import { futureIso, startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { addPerson, appSession, oauthTokens } from './team-support.js';

describe('team trust: roles bound every credential', function () {
  this.timeout(60_000);
  let t: TestHerald;
  let a: SeededAccount;

  beforeEach(async () => {
    t = await startTestHerald({ validateResponses: true });
    a = await t.seedAccount({ channels: 1 });
  });
  afterEach(() => t.close());

  it(
    'offers manage_team on the consent page only to a role that holds it, ' + 'and a box ticked anyway grants nothing',
    async () => {
      const editor = await addPerson(t, a, 'editor', 'editor@example.test');
      const client = await registerClient(t, { client_name: 'Assistant' });
      const user = new FormUser(t.url);
      const url = authorizeUrl(t, {
        response_type: 'code',
        client_id: client.client_id,
        redirect_uri: REDIRECT_URI,
        code_challenge: pkcePair().challenge,
        code_challenge_method: 'S256',
        resource: t.url + '/mcp',
        scope: 'read_profile manage_post manage_team',
      });
      const signIn = await user.request(url);
      const consent = await user.request((await user.signIn(signIn, editor.email, editor.password)).location!);
      assert.equal(consent.status, 200);
      assert.doesNotMatch(consent.html, /name="manage_team"/, 'an editor is not offered manage_team');
      const owner = new FormUser(t.url);
      const ownerConsent = await owner.request(
        (await owner.signIn(await owner.request(url), a.email, a.password)).location!,
      );
      assert.match(ownerConsent.html, /name="manage_team"/, 'an owner is offered it');

      const tokens = await oauthTokens(t, editor, { manageTeam: true });
      assert.equal(tokens.scope, 'read_profile manage_post', 'the ticked box is ignored for an editor');
      const addAdmin = await t.api('POST', '/v1/rest/members', {
        token: tokens.accessToken,
        body: { email: 'x@example.test', role: 'admin' },
      });
      assert.equal(addAdmin.status, 403);
      assert.equal(addAdmin.body.code, 'insufficient_scope');
      const teamKey = await t.api('POST', '/v1/rest/api-keys', {
        token: tokens.accessToken,
        body: { name: 'k', scopes: ['manage_team'] },
      });
      assert.equal(teamKey.status, 403);

      const owners = await oauthTokens(t, a, { manageTeam: true });
      assert.equal(owners.scope, 'read_profile manage_post manage_team', 'an owner who ticks it gets it');
    },
  );

  it('shows a person in no workspace that they cannot connect applications, and issues no code', async () => {
    const loner = await provisioning.createUser(t.deps, {
      accountId: a.accountId,
      email: 'loner@example.test',
      name: 'Loner',
      password: 'a long password',
    });
    const client = await registerClient(t, { client_name: 'Assistant' });
    const user = new FormUser(t.url);
    const url = authorizeUrl(t, {
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: REDIRECT_URI,
      code_challenge: pkcePair().challenge,
      code_challenge_method: 'S256',
      resource: t.url + '/mcp',
    });
    const signedIn = await user.signIn(await user.request(url), loner.email, 'a long password');
    const consent = await user.request(signedIn.location!);
    assert.equal(consent.status, 403);
    assert.match(consent.html, /not a member of any workspace/);
    assert.doesNotMatch(consent.html, /name="decision"/);
  });

  it(
    'narrows a token to the role at exchange and refresh, ' + 'and refuses a refresh asking for more (invalid_scope)',
    async () => {
      const admin = await addPerson(t, a, 'admin', 'admin@example.test');
      const tokens = await oauthTokens(t, admin, { manageTeam: true });
      assert.equal(tokens.scope, 'read_profile manage_post manage_team');
      assert.equal(
        (await t.api('PATCH', `/v1/rest/members/${admin.userId}`, { token: a.apiKey, body: { role: 'editor' } }))
          .status,
        200,
      );

      const demoted = await t.api('POST', '/v1/rest/members', {
        token: tokens.accessToken,
        body: { email: 'x@example.test', role: 'admin' },
      });
      assert.equal(demoted.status, 403, 'the token issued before the demotion no longer manages the team');
      const asking = await tokenRequest(t, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refreshToken,
        client_id: tokens.clientId,
        scope: 'read_profile manage_post manage_team',
      });
      assert.equal(asking.status, 400);
      assert.equal(asking.body.error, 'invalid_scope');
      const refreshed = await tokenRequest(t, {
        grant_type: 'refresh_token',
        refresh_token: tokens.refreshToken,
        client_id: tokens.clientId,
      });
      assert.equal(
        refreshed.status,
        200,
        `asking for too much cost the client nothing: ${JSON.stringify(refreshed.body)}`,
      );
      assert.equal(refreshed.body.scope, 'read_profile manage_post', 'the refresh says what the role still holds');
    },
  );

  it(
    'refuses to make an API key with an OAuth token, ' + 'so revoking the connected app leaves nothing it made',
    async () => {
      const tokens = await oauthTokens(t, a, { manageTeam: true });
      const made = await t.api('POST', '/v1/rest/api-keys', {
        token: tokens.accessToken,
        body: { name: 'from the app' },
      });
      assert.equal(made.status, 403, JSON.stringify(made.body));
      assert.match(made.body.message, /OAuth access token cannot create API keys/);
      assert.equal(
        (await t.api('POST', '/v1/rest/api-keys', { token: a.apiKey, body: { name: 'with a key' } })).status,
        201,
        'an API key still makes keys',
      );
    },
  );

  it("takes manage_team from a demoted admin's key at once", async () => {
    const admin = await addPerson(t, a, 'admin', 'admin@example.test');
    const session = await appSession(t, admin);
    const minted = await session.call('POST', '/v1/rest/api-keys', { name: 'team', scopes: ['manage_team'] });
    assert.equal(minted.status, 201, JSON.stringify(minted.body));
    const key = minted.body.data.key as string;
    assert.equal((await t.api('GET', '/v1/rest/approvals', { token: key })).status, 200);
    assert.equal(
      (await t.api('PATCH', `/v1/rest/members/${admin.userId}`, { token: a.apiKey, body: { role: 'editor' } })).status,
      200,
    );
    const addAdmin = await t.api('POST', '/v1/rest/members', {
      token: key,
      body: { email: 'x@example.test', role: 'admin' },
    });
    assert.equal(addAdmin.status, 403, JSON.stringify(addAdmin.body));
    assert.equal(addAdmin.body.code, 'insufficient_scope');
    assert.equal(
      (await session.call('POST', '/v1/rest/members', { email: 'y@example.test', role: 'admin' })).status,
      403,
      'nor does their session',
    );
    assert.equal(
      (await t.api('GET', '/v1/rest/channels', { token: key })).status,
      200,
      'the key still reads and posts',
    );
  });

  it(
    'removes a member: every session, token and key of theirs ends, ' + 'they cannot sign in, their posts stay',
    async () => {
      const editor = await addPerson(t, a, 'editor', 'editor@example.test');
      const session = await appSession(t, editor);
      assert.ok(session.signedIn);
      const key = (
        await provisioning.createApiKey(t.deps, {
          accountId: a.accountId,
          userId: editor.userId,
          name: 'k',
          scopes: ['read_profile', 'manage_post'],
        })
      ).key;
      const tokens = await oauthTokens(t, editor);
      const post = await t.api('POST', '/v1/rest/posts', {
        token: key,
        body: { channelIds: [a.channelIds[0]], text: 'by the editor', isScheduled: true, dateTime: futureIso() },
      });
      assert.equal(post.status, 201, JSON.stringify(post.body));
      const postId = post.body.data[0].id;

      const removed = await t.api('DELETE', `/v1/rest/members/${editor.userId}`, { token: a.apiKey });
      assert.equal(removed.status, 200, JSON.stringify(removed.body));
      // Two sessions: the app's, and the one the consent pages signed in with.
      assert.deepEqual(removed.body.data, {
        userId: editor.userId,
        revokedApiKeys: 1,
        revokedAuthorizations: 1,
        endedSessions: 2,
      });
      assert.equal((await t.api('GET', '/v1/rest/channels', { token: key })).status, 401, 'the key');
      assert.equal(
        (await t.api('GET', '/v1/rest/channels', { token: tokens.accessToken })).status,
        401,
        'the access token',
      );
      assert.equal(
        (
          await tokenRequest(t, {
            grant_type: 'refresh_token',
            refresh_token: tokens.refreshToken,
            client_id: tokens.clientId,
          })
        ).status,
        400,
        'the refresh token',
      );
      assert.equal((await session.call('GET', '/v1/rest/channels')).status, 401, 'the app session');
      assert.equal((await appSession(t, editor)).signedIn, false, 'the password');
      const members = (await t.api('GET', '/v1/rest/members', { token: a.apiKey })).body.data.map(
        (m: { userId: string }) => m.userId,
      );
      assert.deepEqual(members, [a.userId]);
      assert.equal(
        (await t.api('GET', `/v1/rest/posts/${postId}`, { token: a.apiKey })).status,
        200,
        'their post stays',
      );

      const again = await t.api('POST', '/v1/rest/members', {
        token: a.apiKey,
        body: { email: editor.email, role: 'editor' },
      });
      assert.equal(again.status, 201);
      assert.equal(typeof again.body.data.temporaryPassword, 'string', 'added again, they get a new password');
      assert.equal(
        (await appSession(t, { email: editor.email, password: again.body.data.temporaryPassword })).signedIn,
        true,
      );
      assert.equal(
        (await t.api('GET', '/v1/rest/channels', { token: key })).status,
        401,
        'their old key stays revoked',
      );
    },
  );

  it('guards removal: manage_team, owners only by owners, never yourself, unknown people not found', async () => {
    const admin = await addPerson(t, a, 'admin', 'admin@example.test');
    const editor = await addPerson(t, a, 'editor', 'editor@example.test');
    const co = await addPerson(t, a, 'owner', 'co-owner@example.test');
    const adminSession = await appSession(t, admin);
    const editorSession = await appSession(t, editor);
    const byEditor = await editorSession.call('DELETE', `/v1/rest/members/${admin.userId}`);
    assert.equal(byEditor.status, 403);
    assert.equal(byEditor.body.code, 'insufficient_scope');
    const ownerByAdmin = await adminSession.call('DELETE', `/v1/rest/members/${co.userId}`);
    assert.equal(ownerByAdmin.status, 403);
    assert.match(ownerByAdmin.body.message, /Only an owner/);
    const self = await t.api('DELETE', `/v1/rest/members/${a.userId}`, { token: a.apiKey });
    assert.equal(self.status, 409);
    assert.equal(self.body.code, 'remove_self');
    assert.equal((await t.api('DELETE', '/v1/rest/members/nobody', { token: a.apiKey })).status, 404);
    const other = await t.seedAccount({ channels: 0 });
    assert.equal(
      (await t.api('DELETE', `/v1/rest/members/${other.userId}`, { token: a.apiKey })).status,
      404,
      "another account's person is not found",
    );
    assert.equal(
      (await adminSession.call('DELETE', `/v1/rest/members/${editor.userId}`)).status,
      200,
      'an admin removes an editor',
    );
    assert.equal(
      (await t.api('DELETE', `/v1/rest/members/${co.userId}`, { token: a.apiKey })).status,
      200,
      'an owner removes another owner',
    );
  });

  it("lets an owner see and revoke any member's connected app, and nobody else", async () => {
    const admin = await addPerson(t, a, 'admin', 'admin@example.test');
    const editor = await addPerson(t, a, 'editor', 'editor@example.test');
    const tokens = await oauthTokens(t, editor);
    const adminSession = await appSession(t, admin);
    assert.equal(
      (await adminSession.call('GET', `/v1/rest/members/${editor.userId}/connected-apps`)).status,
      403,
      'an admin is not an owner',
    );
    const listed = await t.api('GET', `/v1/rest/members/${editor.userId}/connected-apps`, { token: a.apiKey });
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    assert.deepEqual(
      listed.body.data.map((app: { clientId: string }) => app.clientId),
      [tokens.clientId],
    );
    assert.equal(
      (await adminSession.call('DELETE', `/v1/rest/members/${editor.userId}/connected-apps/${tokens.clientId}`)).status,
      403,
    );
    const revoked = await t.api('DELETE', `/v1/rest/members/${editor.userId}/connected-apps/${tokens.clientId}`, {
      token: a.apiKey,
    });
    assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
    assert.deepEqual(revoked.body.data, { clientId: tokens.clientId, revokedAuthorizations: 1 });
    assert.equal((await t.api('GET', '/v1/rest/channels', { token: tokens.accessToken })).status, 401);
    assert.equal(
      (
        await t.api('DELETE', `/v1/rest/members/${editor.userId}/connected-apps/${tokens.clientId}`, {
          token: a.apiKey,
        })
      ).status,
      404,
    );
  });
});
