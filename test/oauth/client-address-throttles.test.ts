/**
 * Anonymous OAuth endpoints under abuse: budgets per client address (registration, wrong sign-in passwords
 * across emails), and housekeeping dropping registrations nobody authorized.
 */
import assert from 'node:assert/strict';
import { startTestHerald, type TestHerald } from '../support/herald.js';
import { purgeExpired } from '../../src/domain/housekeeping.js';
import { authorizeUrl, FormUser, pkcePair, REDIRECT_URI, registerClient, tokenRequest } from './support.js';

const register = (h: TestHerald, headers: Record<string, string> = {}) =>
  h.api('POST', '/oauth2/mcp/register', { body: { redirect_uris: [REDIRECT_URI], client_name: 'Flood' }, headers });

describe('OAuth: budgets per client address', () => {
  describe('without a trusted proxy', () => {
    let h: TestHerald;
    before(async () => {
      h = await startTestHerald({ oauthThrottles: { registrationsPerHour: 2, failedSignInsPerWindow: 3 } });
    });
    after(() => h.close());

    it(
      'refuses registrations beyond the hourly budget with 429, ' + 'Retry-After and a body saying what to do',
      async () => {
        assert.equal((await register(h)).status, 201);
        // A forged X-Forwarded-For changes nothing: no proxy is trusted.
        assert.equal((await register(h, { 'x-forwarded-for': '203.0.113.9' })).status, 201);
        const refused = await register(h, { 'x-forwarded-for': '203.0.113.10' });
        assert.equal(refused.status, 429);
        assert.equal(refused.body.error, 'too_many_requests');
        assert.match(refused.body.error_description, /at most 2 an hour.*Reuse the client_id/);
        const retryAfter = Number(refused.headers.get('retry-after'));
        assert.ok(retryAfter >= 1 && retryAfter <= 3600, `Retry-After ${retryAfter}`);
        assert.equal(refused.headers.get('cache-control'), 'no-store');
        assert.equal(
          await h.herald
            .db('oauth_clients')
            .count({ n: '*' })
            .first()
            .then((r) => Number(r!.n)),
          2,
          'nothing was stored',
        );
      },
    );

    it(
      'stops checking passwords from an address after its ' + 'budget of wrong ones across emails, even the right one',
      async () => {
        const clientId = (await h.herald.db('oauth_clients').first('id'))!.id as string;
        const { challenge } = pkcePair();
        const params = authorizeUrl(h, {
          response_type: 'code',
          client_id: clientId,
          redirect_uri: REDIRECT_URI,
          code_challenge: challenge,
          code_challenge_method: 'S256',
          state: 's',
          resource: h.url + '/mcp',
        });
        const user = new FormUser(h.url);
        const page = await user.request(params);
        const owners = [await h.seedAccount(), await h.seedAccount(), await h.seedAccount(), await h.seedAccount()];
        for (const owner of owners.slice(0, 3))
          assert.equal((await user.signIn(page, owner.email, 'wrong')).status, 401);
        const locked = await user.signIn(page, owners[3].email, owners[3].password);
        assert.equal(locked.status, 429);
        assert.match(locked.html, /Too many wrong passwords from this network/);
        assert.equal(locked.location, null);
      },
    );
  });

  describe('behind a trusted proxy (TRUST_PROXY)', () => {
    let h: TestHerald;
    before(async () => {
      h = await startTestHerald({
        trustProxy: 'loopback',
        oauthThrottles: { registrationsPerHour: 1, failedSignInsPerWindow: 3 },
      });
    });
    after(() => h.close());

    it('counts each forwarded client address on its own', async () => {
      assert.equal((await register(h, { 'x-forwarded-for': '203.0.113.1' })).status, 201);
      assert.equal((await register(h, { 'x-forwarded-for': '203.0.113.1' })).status, 429);
      assert.equal((await register(h, { 'x-forwarded-for': '203.0.113.2' })).status, 201);
      // The proxy's own requests (no forwarded address) are the loopback address's budget.
      await registerClient(h);
      await assert.rejects(registerClient(h), /registration failed: 429/);
    });
  });

  describe('housekeeping of registrations', () => {
    let h: TestHerald;
    before(async () => {
      h = await startTestHerald();
    });
    after(() => h.close());

    it(
      'drops clients nobody authorized within a day of registering, ' + 'and keeps authorized ones and new ones',
      async () => {
        const account = await h.seedAccount();
        const abandoned = await registerClient(h, { client_name: 'Abandoned' });
        const used = await registerClient(h, { client_name: 'Used' });
        const { verifier, challenge } = pkcePair();
        const redirect = await new FormUser(h.url).authorize(
          authorizeUrl(h, {
            response_type: 'code',
            client_id: used.client_id,
            redirect_uri: REDIRECT_URI,
            code_challenge: challenge,
            code_challenge_method: 'S256',
            resource: h.url + '/mcp',
          }),
          account,
        );
        const exchanged = await tokenRequest(h, {
          grant_type: 'authorization_code',
          code: redirect.searchParams.get('code')!,
          code_verifier: verifier,
          redirect_uri: REDIRECT_URI,
          client_id: used.client_id,
          resource: h.url + '/mcp',
        });
        assert.equal(exchanged.status, 200);

        assert.equal((await purgeExpired(h.deps)).oauthClients, 0, 'a fresh registration has a day to be used');
        const fresh = await registerClient(h, { client_name: 'Fresh' });
        const nextDay = { ...h.deps, now: () => Date.now() + 25 * 3_600_000 };
        await h.herald
          .db('oauth_clients')
          .where({ id: fresh.client_id })
          .update({ created_at: Date.now() + 2 * 3_600_000 });
        assert.equal((await purgeExpired(nextDay)).oauthClients, 1);
        const left = (await h.herald.db('oauth_clients').select('id')).map((row) => row.id).sort();
        assert.deepEqual(left, [used.client_id, fresh.client_id].sort());
        assert.ok(!left.includes(abandoned.client_id));
      },
    );
  });
});
