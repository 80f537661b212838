/**
 * The token endpoint and the tokens it issues (OAuth 2.1 sections 4.1.3 and 4.3, RFC 7636, RFC 8707,
 * RFC 7009, RFC 9700 refresh token rotation), and access tokens used as bearer credentials on REST.
 */
import assert from 'node:assert/strict';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { hashSecret } from '../../src/domain/secrets.js';
import { callTool, rpc } from '../mcp/support.js';
import { authorizeUrl, FormUser, pkcePair, REDIRECT_URI, registerClient, tokenRequest } from './support.js';

describe('OAuth token endpoint and access tokens', () => {
  let h: TestHerald;
  let account: SeededAccount;
  let clientId: string;

  before(async () => {
    h = await startTestHerald();
    account = await h.seedAccount();
    clientId = (await registerClient(h)).client_id;
  });
  after(() => h.close());

  /** Runs the browser part for a public client and returns the code and the verifier that goes with it. */
  async function obtainCode(
    options: { manageTeam?: boolean; resource?: string; client?: string; scope?: string } = {},
  ) {
    const { verifier, challenge } = pkcePair();
    const redirect = await new FormUser(h.url).authorize(
      authorizeUrl(h, {
        response_type: 'code',
        client_id: options.client ?? clientId,
        redirect_uri: REDIRECT_URI,
        code_challenge: challenge,
        code_challenge_method: 'S256',
        resource: options.resource ?? h.url + '/mcp',
        scope: options.scope,
      }),
      account,
      'approve',
      { manageTeam: options.manageTeam },
    );
    return { code: redirect.searchParams.get('code')!, verifier };
  }

  function exchange(code: string, verifier: string, extra: Record<string, string> = {}) {
    return tokenRequest(h, {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
      resource: h.url + '/mcp',
      ...extra,
    });
  }

  async function tokens(options: { manageTeam?: boolean } = {}) {
    const { code, verifier } = await obtainCode(options);
    const answer = await exchange(code, verifier);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body as {
      access_token: string;
      refresh_token: string;
      scope: string;
      expires_in: number;
      token_type: string;
    };
  }

  it(
    'exchanges a code for opaque, expiring Bearer tokens with the granted scopes, ' +
      'never cached, stored only hashed',
    async () => {
      const { code, verifier } = await obtainCode();
      const answer = await exchange(code, verifier);
      assert.equal(answer.status, 200);
      assert.equal(answer.headers.get('cache-control'), 'no-store');
      assert.equal(answer.body.token_type, 'Bearer');
      assert.match(answer.body.access_token, /^hoa_[A-Za-z0-9_-]{43}$/);
      assert.match(answer.body.refresh_token, /^hor_[A-Za-z0-9_-]{43}$/);
      assert.equal(answer.body.scope, 'read_profile manage_post');
      assert.ok(answer.body.expires_in > 3000 && answer.body.expires_in <= 3600);
      const stored = JSON.stringify(await h.herald.db('oauth_tokens').select());
      assert.equal(stored.includes(answer.body.access_token), false);
      assert.equal(stored.includes(answer.body.refresh_token), false);
      assert.equal(JSON.stringify(await h.herald.db('oauth_authorization_codes').select()).includes(code), false);
    },
  );

  it('lets an access token call REST exactly like an API key', async () => {
    const { access_token } = await tokens();
    const profile = await h.api('GET', '/v1/rest/profile', { token: access_token });
    assert.equal(profile.status, 200);
    assert.equal(profile.body.user.email, account.email);
    assert.deepEqual(profile.body.scopes, ['read_profile', 'manage_post']);
    const posts = await h.api('GET', '/v1/rest/posts', { token: access_token });
    assert.equal(posts.status, 200);
    assert.ok(posts.headers.get('ratelimit-limit'));
  });

  it('refuses a wrong PKCE verifier, and the code is spent by the attempt', async () => {
    const { code, verifier } = await obtainCode();
    const wrong = await exchange(code, pkcePair().verifier);
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.error, 'invalid_grant');
    const retry = await exchange(code, verifier);
    assert.equal(retry.status, 400);
    assert.equal(retry.body.error, 'invalid_grant');
  });

  it('refuses an exchange without a verifier', async () => {
    const { code } = await obtainCode();
    const answer = await tokenRequest(h, {
      grant_type: 'authorization_code',
      code,
      redirect_uri: REDIRECT_URI,
      client_id: clientId,
    });
    assert.equal(answer.status, 400);
  });

  it('refuses a reused code and revokes the tokens issued from it', async () => {
    const { code, verifier } = await obtainCode();
    const first = await exchange(code, verifier);
    assert.equal(first.status, 200);
    assert.equal((await h.api('GET', '/v1/rest/profile', { token: first.body.access_token })).status, 200);
    const second = await exchange(code, verifier);
    assert.equal(second.status, 400);
    assert.equal(second.body.error, 'invalid_grant');
    assert.equal((await h.api('GET', '/v1/rest/profile', { token: first.body.access_token })).status, 401);
    assert.equal(
      (
        await tokenRequest(h, {
          grant_type: 'refresh_token',
          refresh_token: first.body.refresh_token,
          client_id: clientId,
        })
      ).status,
      400,
    );
  });

  it('refuses an expired code', async () => {
    const { code, verifier } = await obtainCode();
    await h.herald
      .db('oauth_authorization_codes')
      .whereNull('used_at')
      .update({ expires_at: Date.now() - 1000 });
    const answer = await exchange(code, verifier);
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error, 'invalid_grant');
    assert.match(answer.body.error_description, /expired/);
  });

  it('refuses a redirect_uri different from the one the code was issued for', async () => {
    const { code, verifier } = await obtainCode();
    const answer = await exchange(code, verifier, { redirect_uri: 'http://127.0.0.1:53682/other' });
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error, 'invalid_request');
  });

  it('refuses a code presented by another client', async () => {
    const other = await registerClient(h);
    const { code, verifier } = await obtainCode();
    const answer = await exchange(code, verifier, { client_id: other.client_id });
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error, 'invalid_grant');
  });

  it('refuses a token request for a resource other than the one the code is bound to (invalid_target)', async () => {
    const { code, verifier } = await obtainCode();
    const answer = await exchange(code, verifier, { resource: h.url + '/mcp/claude' });
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error, 'invalid_target');
  });

  it('rotates the refresh token on every use; replaying an old one revokes the whole family', async () => {
    const first = await tokens();
    const second = await tokenRequest(h, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_id: clientId,
    });
    assert.equal(second.status, 200);
    assert.equal(second.headers.get('cache-control'), 'no-store');
    assert.notEqual(second.body.refresh_token, first.refresh_token);
    assert.equal(second.body.scope, 'read_profile manage_post');
    assert.equal((await h.api('GET', '/v1/rest/profile', { token: second.body.access_token })).status, 200);

    const replay = await tokenRequest(h, {
      grant_type: 'refresh_token',
      refresh_token: first.refresh_token,
      client_id: clientId,
    });
    assert.equal(replay.status, 400);
    assert.equal(replay.body.error, 'invalid_grant');
    assert.equal((await h.api('GET', '/v1/rest/profile', { token: second.body.access_token })).status, 401);
    assert.equal((await h.api('GET', '/v1/rest/profile', { token: first.access_token })).status, 401);
    const afterReplay = await tokenRequest(h, {
      grant_type: 'refresh_token',
      refresh_token: second.body.refresh_token,
      client_id: clientId,
    });
    assert.equal(afterReplay.status, 400);
  });

  it(
    'keeps one token id (the family) across refreshes, ' + 'so the per-token MCP limit follows the authorization',
    async () => {
      const first = await tokens();
      const second = await tokenRequest(h, {
        grant_type: 'refresh_token',
        refresh_token: first.refresh_token,
        client_id: clientId,
      });
      const { resolveOAuthAccessToken } = await import('../../src/domain/oauth/access-token-resolver.js');
      const a = await resolveOAuthAccessToken(h.deps, first.access_token);
      const b = await resolveOAuthAccessToken(h.deps, second.body.access_token);
      assert.equal(a?.tokenKind, 'oauth');
      assert.equal(a?.tokenId, b?.tokenId);
      assert.equal(a?.accountId, account.accountId);
    },
  );

  it('refuses an expired access token with 401', async () => {
    const { access_token } = await tokens();
    await h.herald
      .db('oauth_tokens')
      .where({ kind: 'access' })
      .update({ expires_at: Date.now() - 1000 });
    const answer = await h.api('GET', '/v1/rest/profile', { token: access_token });
    assert.equal(answer.status, 401);
    assert.match(answer.body.message, /expired/);
  });

  it('refuses a token issued for another resource with 401', async () => {
    const { access_token } = await tokens();
    await h.herald.db('oauth_token_families').update({ resource: 'https://other.example/mcp' });
    const answer = await h.api('GET', '/v1/rest/profile', { token: access_token });
    assert.equal(answer.status, 401);
    assert.match(answer.body.message, /issued for https:\/\/other\.example\/mcp/);
  });

  it(
    'answers 403 insufficient_scope when a token without manage_team calls a manage_team route, ' +
      'and allows it with manage_team',
    async () => {
      const basic = await tokens();
      const denied = await h.api('POST', '/v1/rest/posts/bulk-delete', {
        token: basic.access_token,
        body: { postIds: ['01hx0000000000000000000100'], dryRun: true },
      });
      assert.equal(denied.status, 403);
      assert.equal(denied.body.code, 'insufficient_scope');
      assert.match(denied.body.message, /manage_team/);

      const team = await tokens({ manageTeam: true });
      assert.equal(team.scope, 'read_profile manage_post manage_team');
      const allowed = await h.api('POST', '/v1/rest/posts/bulk-delete', {
        token: team.access_token,
        body: { postIds: ['01hx0000000000000000000100'], dryRun: true },
      });
      assert.equal(allowed.status, 200);
    },
  );

  it(
    'on /mcp: ' +
      'a token without manage_team gets 403 insufficient_scope from a manage_team tool, and other tools work',
    async () => {
      const basic = await tokens();
      const denied = await callTool(h, basic.access_token, 'bulk_delete', { postIds: ['01hx0000000000000000000100'] });
      assert.equal(denied.status, 403);
      assert.match(denied.headers.get('www-authenticate') ?? '', /error="insufficient_scope"/);
      assert.match(denied.headers.get('www-authenticate') ?? '', /scope="manage_team"/);
      assert.match(JSON.stringify(denied.body), /manage_team/);
      const channels = await callTool(h, basic.access_token, 'get_channels', {});
      assert.equal(channels.status, 200);
      assert.notEqual(channels.body.result.isError, true);

      const team = await tokens({ manageTeam: true });
      const allowed = await callTool(h, team.access_token, 'bulk_delete', { postIds: ['01hx0000000000000000000100'] });
      assert.equal(allowed.status, 200);
      assert.equal(allowed.body.error, undefined);
    },
  );

  it('on /mcp: revoked, expired and foreign-resource tokens are 401 invalid_token', async () => {
    const revoked = await tokens();
    await fetch(h.url + '/oauth2/mcp/revoke', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: revoked.refresh_token, client_id: clientId }),
    });
    const expired = await tokens();
    await h.herald
      .db('oauth_tokens')
      .where({ token_hash: hashSecret(expired.access_token) })
      .update({ expires_at: Date.now() - 1 });
    const foreign = await tokens();
    const row = await h.herald
      .db('oauth_tokens')
      .where({ token_hash: hashSecret(foreign.access_token) })
      .first();
    await h.herald
      .db('oauth_token_families')
      .where({ id: row.family_id })
      .update({ resource: 'https://other.example/mcp' });
    for (const token of [revoked.access_token, expired.access_token, foreign.access_token]) {
      const answer = await rpc(h, { token, method: 'tools/list' });
      assert.equal(answer.status, 401);
      assert.match(answer.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
    }
  });

  it('accepts a token only at the MCP URL it was issued for, and on REST only one issued for /mcp', async () => {
    const claudeGrant = await obtainCode({ resource: h.url + '/mcp/claude' });
    const claude = await exchange(claudeGrant.code, claudeGrant.verifier, { resource: h.url + '/mcp/claude' });
    assert.equal(claude.status, 200, JSON.stringify(claude.body));
    const main = await tokens();

    const listed = await rpc(h, { token: claude.body.access_token, method: 'tools/list', path: '/mcp/claude' });
    assert.equal(listed.status, 200);
    assert.ok(listed.body.result.tools.length > 0);
    assert.equal(
      listed.body.result.tools.some((tool: { name: string }) => tool.name === 'generate_image'),
      false,
    );
    for (const [token, path] of [
      [claude.body.access_token, '/mcp'],
      [main.access_token, '/mcp/claude'],
    ]) {
      const refused = await rpc(h, { token, method: 'tools/list', path });
      assert.equal(refused.status, 401, path);
      assert.match(refused.headers.get('www-authenticate') ?? '', /error="invalid_token"/);
      assert.match(refused.headers.get('www-authenticate') ?? '', new RegExp(`oauth-protected-resource${path}"`));
      assert.match(JSON.stringify(refused.body), /accepted there only/);
    }
    const image = await callTool(h, claude.body.access_token, 'generate_image', { prompt: 'a lighthouse' });
    assert.equal(image.status, 401);

    const rest = await h.api('GET', '/v1/rest/profile', { token: claude.body.access_token });
    assert.equal(rest.status, 401);
    assert.match(rest.body.message, /issued for .*\/mcp\/claude and is accepted there only.*resource=.*\/mcp\.$/);
    assert.equal((await h.api('GET', '/v1/rest/profile', { token: main.access_token })).status, 200);
    assert.equal((await rpc(h, { token: main.access_token, method: 'tools/list' })).status, 200);
  });

  it('ignores scope values it does not know, and says in the token response what it granted', async () => {
    const { code, verifier } = await obtainCode({ scope: 'openid read_profile offline_access manage_post' });
    const answer = await exchange(code, verifier);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.scope, 'read_profile manage_post');
  });

  it('lets housekeeping purge expired codes and tokens, and keeps live ones', async () => {
    const { access_token } = await tokens();
    await obtainCode();
    const { purgeExpired } = await import('../../src/domain/housekeeping.js');
    const muchLater = { ...h.deps, now: () => Date.now() + 2 * 3_600_000 };
    const purged = await purgeExpired(muchLater);
    assert.ok(purged.oauthGrants >= 2, `purged ${purged.oauthGrants}`);
    assert.equal(
      await h.herald.db('oauth_authorization_codes').where('expires_at', '<', muchLater.now()).first(),
      undefined,
    );
    assert.equal(
      await h.herald.db('oauth_tokens').where({ kind: 'access' }).where('expires_at', '<', muchLater.now()).first(),
      undefined,
    );
    assert.ok(await h.herald.db('oauth_tokens').where({ kind: 'refresh' }).first());
    assert.equal((await h.api('GET', '/v1/rest/profile', { token: access_token })).status, 401);
  });

  describe('revocation (RFC 7009)', () => {
    it('revokes an access token: it stops working at once', async () => {
      const { access_token, refresh_token } = await tokens();
      const revoke = await fetch(h.url + '/oauth2/mcp/revoke', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: access_token, token_type_hint: 'access_token', client_id: clientId }),
      });
      assert.equal(revoke.status, 200);
      assert.equal((await h.api('GET', '/v1/rest/profile', { token: access_token })).status, 401);
      assert.equal(
        (await tokenRequest(h, { grant_type: 'refresh_token', refresh_token, client_id: clientId })).status,
        200,
      );
    });

    it('revokes a refresh token together with its access tokens', async () => {
      const { access_token, refresh_token } = await tokens();
      const revoke = await fetch(h.url + '/oauth2/mcp/revoke', {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ token: refresh_token, client_id: clientId }),
      });
      assert.equal(revoke.status, 200);
      assert.equal((await h.api('GET', '/v1/rest/profile', { token: access_token })).status, 401);
      assert.equal(
        (await tokenRequest(h, { grant_type: 'refresh_token', refresh_token, client_id: clientId })).status,
        400,
      );
    });

    it('ignores tokens of other clients and unknown tokens with the same 200', async () => {
      const { access_token } = await tokens();
      const other = await registerClient(h);
      for (const token of [access_token, 'hoa_unknown']) {
        const revoke = await fetch(h.url + '/oauth2/mcp/revoke', {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token, client_id: other.client_id }),
        });
        assert.equal(revoke.status, 200);
      }
      assert.equal((await h.api('GET', '/v1/rest/profile', { token: access_token })).status, 200);
    });
  });
});
