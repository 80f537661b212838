import assert from 'node:assert/strict';
import * as provisioning from '../../src/domain/provisioning.js';
import { hashSecret } from '../../src/domain/secrets.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';

describe('REST /api-keys: members manage their keys', function () {
  this.timeout(30_000);
  let t: TestHerald;
  let a: SeededAccount;
  let memberKey: string;
  let memberId: string;

  beforeEach(async () => {
    t = await startTestHerald({ validateResponses: true });
    a = await t.seedAccount({ channels: 1 });
    const member = await provisioning.createUser(t.deps, {
      accountId: a.accountId,
      email: 'editor@example.test',
      name: 'Editor',
    });
    memberId = member.id;
    await provisioning.addMember(t.deps, {
      accountId: a.accountId,
      workspaceId: a.workspaceId,
      userId: memberId,
      role: 'editor',
    });
    memberKey = (
      await provisioning.createApiKey(t.deps, {
        accountId: a.accountId,
        userId: memberId,
        name: 'editor',
        scopes: provisioning.parseScopes([]),
      })
    ).key;
  });
  afterEach(() => t.close());

  it(
    'creates a key shown once, stored only as its hash, ' +
      'that works at once and stops within a second of revocation',
    async () => {
      const created = await t.api('POST', '/v1/rest/api-keys', {
        token: a.apiKey,
        body: { name: 'Zapier', scopes: ['manage_team'] },
      });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      const { key, id, ...shown } = created.body.data;
      assert.match(key, /^hk_/);
      assert.deepEqual(
        { ...shown, createdAt: typeof shown.createdAt },
        {
          name: 'Zapier',
          prefix: key.slice(0, 10),
          userId: a.userId,
          scopes: ['read_profile', 'manage_post', 'manage_team'],
          createdAt: 'string',
          lastUsedAt: null,
          revokedAt: null,
        },
      );
      const stored = await t.herald.db('api_keys').where({ id }).first();
      assert.equal(stored.key_hash, hashSecret(key));
      assert.ok(!JSON.stringify(stored).includes(key), 'the key itself is not stored');

      assert.equal((await t.api('GET', '/v1/rest/channels', { token: key })).status, 200);
      const listed = (await t.api('GET', '/v1/rest/api-keys', { token: a.apiKey })).body.data.find(
        (k: { id: string }) => k.id === id,
      );
      assert.ok(listed.lastUsedAt, 'its use is recorded');
      assert.equal(listed.key, undefined, 'a list never shows the key');

      const revoked = await t.api('DELETE', `/v1/rest/api-keys/${id}`, { token: a.apiKey });
      assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
      assert.ok(revoked.body.data.revokedAt);
      assert.equal((await t.api('GET', '/v1/rest/channels', { token: key })).status, 401);
      assert.equal(
        (await t.api('DELETE', `/v1/rest/api-keys/${id}`, { token: a.apiKey })).status,
        404,
        'revoking twice: not found',
      );
    },
  );

  it('a member without manage_team sees and revokes only their own keys, and cannot grant manage_team', async () => {
    const refused = await t.api('POST', '/v1/rest/api-keys', {
      token: memberKey,
      body: { name: 'escalate', scopes: ['manage_team'] },
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'insufficient_scope');
    assert.match(refused.body.message, /manage_team/);

    const own = await t.api('POST', '/v1/rest/api-keys', { token: memberKey, body: { name: 'mine' } });
    assert.equal(own.status, 201);
    assert.deepEqual(own.body.data.scopes, ['read_profile', 'manage_post']);
    const listed = (await t.api('GET', '/v1/rest/api-keys', { token: memberKey })).body.data;
    assert.ok(
      listed.length >= 2 && listed.every((k: { userId: string }) => k.userId === memberId),
      JSON.stringify(listed),
    );

    const ownersKeys = (await t.api('GET', '/v1/rest/api-keys', { token: a.apiKey })).body.data.filter(
      (k: { userId: string }) => k.userId === a.userId,
    );
    const notTheirs = await t.api('DELETE', `/v1/rest/api-keys/${ownersKeys[0].id}`, { token: memberKey });
    assert.equal(notTheirs.status, 404);
    assert.equal(
      (await t.api('GET', '/v1/rest/channels', { token: a.apiKey })).status,
      200,
      "the owner's key still works",
    );

    assert.equal((await t.api('DELETE', `/v1/rest/api-keys/${own.body.data.id}`, { token: memberKey })).status, 200);
    const everyKey = (await t.api('GET', '/v1/rest/api-keys', { token: a.apiKey })).body.data;
    assert.ok(
      everyKey.some((k: { userId: string }) => k.userId === memberId),
      "with manage_team, every member's keys are listed",
    );
  });

  it('refuses bad input with what to fix, and keys of another account are not found', async () => {
    const noName = await t.api('POST', '/v1/rest/api-keys', { token: a.apiKey, body: { scopes: [] } });
    assert.equal(noName.status, 400);
    assert.match(noName.body.message, /name/);
    const badScope = await t.api('POST', '/v1/rest/api-keys', {
      token: a.apiKey,
      body: { name: 'x', scopes: ['admin'] },
    });
    assert.equal(badScope.status, 400);
    assert.match(badScope.body.message, /scopes/);
    const other = await t.seedAccount({ channels: 0 });
    const theirs = (await t.api('GET', '/v1/rest/api-keys', { token: other.apiKey })).body.data[0];
    assert.equal((await t.api('DELETE', `/v1/rest/api-keys/${theirs.id}`, { token: a.apiKey })).status, 404);
    assert.equal((await t.api('GET', '/v1/rest/channels', { token: other.apiKey })).status, 200);
  });
});
