import assert from 'node:assert/strict';
import * as provisioning from '../../src/domain/provisioning.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';

describe('REST /members: people and their roles', function () {
  this.timeout(30_000);
  let t: TestHerald;
  let a: SeededAccount;

  beforeEach(async () => {
    t = await startTestHerald({ validateResponses: true });
    a = await t.seedAccount({ channels: 0 });
  });
  afterEach(() => t.close());

  /** A key acting as a new member with this role (manage_team as the role allows). */
  async function memberKey(email: string, role: 'admin' | 'editor') {
    const added = await t.api('POST', '/v1/rest/members', { token: a.apiKey, body: { email, name: email, role } });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    const scopes = provisioning.parseScopes(role === 'admin' ? ['manage_team'] : []);
    return {
      userId: added.body.data.userId,
      key: (
        await provisioning.createApiKey(t.deps, {
          accountId: a.accountId,
          userId: added.body.data.userId,
          name: role,
          scopes,
        })
      ).key,
    };
  }

  it('adds a person with a temporary password shown once that signs them in, and changes their role', async () => {
    const added = await t.api('POST', '/v1/rest/members', {
      token: a.apiKey,
      body: { email: 'Eddie@Example.test', name: 'Eddie', role: 'editor' },
    });
    assert.equal(added.status, 201, JSON.stringify(added.body));
    const { temporaryPassword, userId, ...member } = added.body.data;
    assert.deepEqual(member, {
      email: 'eddie@example.test',
      name: 'Eddie',
      memberships: [{ workspaceId: a.workspaceId, role: 'editor' }],
    });
    assert.ok(temporaryPassword.length >= 16);
    const stored = await t.herald.db('users').where({ id: userId }).first();
    assert.ok(!JSON.stringify(stored).includes(temporaryPassword), 'only its hash is kept');

    const page = await fetch(`${t.url}/app/sign-in`);
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(await page.text())![1];
    const cookie = page.headers
      .getSetCookie()
      .map((c) => c.split(';')[0])
      .join('; ');
    const signIn = await fetch(`${t.url}/app/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf_token: csrf, email: 'eddie@example.test', password: temporaryPassword }),
    });
    assert.equal(signIn.status, 303, 'the temporary password signs the person in');
    assert.equal(signIn.headers.get('location'), '/app');

    const changed = await t.api('PATCH', `/v1/rest/members/${userId}`, { token: a.apiKey, body: { role: 'reviewer' } });
    assert.equal(changed.status, 200, JSON.stringify(changed.body));
    assert.deepEqual(changed.body.data.memberships, [{ workspaceId: a.workspaceId, role: 'reviewer' }]);
    const listed = (await t.api('GET', '/v1/rest/members', { token: a.basicKey })).body.data;
    assert.deepEqual(
      listed.map((m: { email: string; memberships: { role: string }[] }) => [m.email, m.memberships[0].role]),
      [
        [a.email, 'owner'],
        ['eddie@example.test', 'reviewer'],
      ],
    );

    const again = await t.api('POST', '/v1/rest/members', {
      token: a.apiKey,
      body: { email: 'eddie@example.test', role: 'editor' },
    });
    assert.equal(again.status, 201);
    assert.equal(again.body.data.temporaryPassword, null, 'an existing member gets the role, no new password');
  });

  it('guards owners: only an owner makes one, the last owner stays, and manage_team is needed', async () => {
    const admin = await memberKey('admin@example.test', 'admin');
    const editor = await memberKey('editor@example.test', 'editor');
    const promote = await t.api('PATCH', `/v1/rest/members/${admin.userId}`, {
      token: admin.key,
      body: { role: 'owner' },
    });
    assert.equal(promote.status, 403);
    assert.match(promote.body.message, /Only an owner can make or unmake an owner/);
    const demoteOwner = await t.api('PATCH', `/v1/rest/members/${a.userId}`, {
      token: admin.key,
      body: { role: 'editor' },
    });
    assert.equal(demoteOwner.status, 403);
    const last = await t.api('PATCH', `/v1/rest/members/${a.userId}`, { token: a.apiKey, body: { role: 'admin' } });
    assert.equal(last.status, 409);
    assert.equal(last.body.code, 'last_owner');
    assert.equal(
      (await t.api('PATCH', `/v1/rest/members/${editor.userId}`, { token: admin.key, body: { role: 'reviewer' } }))
        .status,
      200,
      'an admin manages the others',
    );
    const noScope = await t.api('POST', '/v1/rest/members', {
      token: editor.key,
      body: { email: 'x@example.test', role: 'editor' },
    });
    assert.equal(noScope.status, 403);
    assert.equal(noScope.body.code, 'insufficient_scope');
  });

  it(
    'refuses bad input with what to fix: ' + "an unknown role, a bad email, another account's email or member",
    async () => {
      const badRole = await t.api('POST', '/v1/rest/members', {
        token: a.apiKey,
        body: { email: 'x@example.test', role: 'boss' },
      });
      assert.equal(badRole.status, 400);
      assert.match(badRole.body.message, /role/);
      const badEmail = await t.api('POST', '/v1/rest/members', {
        token: a.apiKey,
        body: { email: 'not an email', role: 'editor' },
      });
      assert.equal(badEmail.status, 400);
      assert.match(badEmail.body.message, /not an email address/);
      assert.deepEqual(
        badEmail.body.details?.map((d: { path: string }) => d.path),
        ['email'],
        'the problem names its field, for the form beside it',
      );
      const other = await t.seedAccount({ channels: 0 });
      const taken = await t.api('POST', '/v1/rest/members', {
        token: a.apiKey,
        body: { email: other.email, role: 'editor' },
      });
      assert.equal(taken.status, 409);
      assert.equal(taken.body.code, 'email_taken');
      assert.equal(
        (await t.api('PATCH', `/v1/rest/members/${other.userId}`, { token: a.apiKey, body: { role: 'editor' } }))
          .status,
        404,
      );
    },
  );

  it(
    'adds one person when the same email is sent several times at once: ' +
      'the others are told it is taken, none fails',
    async () => {
      const adds = await Promise.all(
        Array.from({ length: 6 }, () =>
          t.api('POST', '/v1/rest/members', { token: a.apiKey, body: { email: 'race@example.test', role: 'editor' } }),
        ),
      );
      const statuses = adds.map((r) => r.status);
      assert.ok(
        statuses.every((s) => s === 201 || s === 409),
        `only 201 or 409, got ${statuses.join(', ')}`,
      );
      assert.ok(statuses.includes(201));
      for (const refused of adds.filter((r) => r.status === 409)) assert.equal(refused.body.code, 'email_taken');
      assert.equal((await t.herald.db('users').where({ email: 'race@example.test' })).length, 1);
    },
  );
});
