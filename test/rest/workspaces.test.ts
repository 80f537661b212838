import assert from 'node:assert/strict';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';

describe('REST /workspaces/{workspaceId}: reading a workspace and its approval requirement', function () {
  this.timeout(30_000);
  let t: TestHerald;
  let a: SeededAccount;

  beforeEach(async () => {
    t = await startTestHerald({ validateResponses: true });
    a = await t.seedAccount({ channels: 1 });
  });
  afterEach(() => t.close());

  async function post(text: string) {
    const created = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: {
        channelIds: a.channelIds,
        text,
        isScheduled: true,
        dateTime: new Date(Date.now() + 86_400_000).toISOString(),
      },
    });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    return created.body.data[0] as { id: string; approvalStatus: string | null };
  }

  it(
    'requires approval for posts written from then on, ' + 'keeps held posts held when it is lifted, and reads it back',
    async () => {
      const before = await post('Written before the rule');
      assert.equal(before.approvalStatus, null);

      const required = await t.api('PATCH', `/v1/rest/workspaces/${a.workspaceId}`, {
        token: a.apiKey,
        body: { approvalRequired: true },
      });
      assert.equal(required.status, 200, JSON.stringify(required.body));
      assert.deepEqual(
        { id: required.body.data.id, approvalRequired: required.body.data.approvalRequired },
        { id: a.workspaceId, approvalRequired: true },
      );
      const read = await t.api('GET', `/v1/rest/workspaces/${a.workspaceId}`, { token: a.basicKey });
      assert.equal(read.status, 200);
      assert.deepEqual(read.body.data, required.body.data, 'anyone in the account reads it');
      assert.equal(
        (await t.api('GET', `/v1/rest/posts/${before.id}`, { token: a.apiKey })).body.data.approvalStatus,
        null,
        'not held after the fact',
      );
      const held = await post('Written under the rule');
      assert.equal(held.approvalStatus, 'PENDING');

      const lifted = await t.api('PATCH', `/v1/rest/workspaces/${a.workspaceId}`, {
        token: a.apiKey,
        body: { approvalRequired: false },
      });
      assert.equal(lifted.body.data.approvalRequired, false);
      assert.equal(
        (await t.api('GET', `/v1/rest/posts/${held.id}`, { token: a.apiKey })).body.data.approvalStatus,
        'PENDING',
        'a held post stays held',
      );
      assert.equal((await post('Written after the rule')).approvalStatus, null);
      const listed = (await t.api('GET', '/v1/rest/workspaces', { token: a.basicKey })).body.data;
      assert.deepEqual(
        listed.map((w: { approvalRequired: boolean }) => w.approvalRequired),
        [false],
      );
    },
  );

  it("needs manage_team to change it, refuses bad input, and does not reveal another account's workspace", async () => {
    const denied = await t.api('PATCH', `/v1/rest/workspaces/${a.workspaceId}`, {
      token: a.basicKey,
      body: { approvalRequired: true },
    });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, 'insufficient_scope');
    assert.equal(
      (await t.api('GET', `/v1/rest/workspaces/${a.workspaceId}`, { token: a.basicKey })).body.data.approvalRequired,
      false,
      'unchanged',
    );

    for (const body of [{}, { approvalRequired: 'yes' }, { approvalRequired: true, name: 'Renamed' }]) {
      const bad = await t.api('PATCH', `/v1/rest/workspaces/${a.workspaceId}`, { token: a.apiKey, body });
      assert.equal(bad.status, 400, JSON.stringify(body));
      assert.match(bad.body.message, /approvalRequired|name/);
    }

    const other = await t.seedAccount({ channels: 0 });
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { approvalRequired: true }],
    ] as const) {
      const foreign = await t.api(method, `/v1/rest/workspaces/${other.workspaceId}`, { token: a.apiKey, body });
      assert.equal(foreign.status, 404, method);
      assert.match(foreign.body.message, /GET \/workspaces lists them/);
    }
    assert.equal(
      (await t.api('GET', `/v1/rest/workspaces/${other.workspaceId}`, { token: other.apiKey })).body.data
        .approvalRequired,
      false,
    );
  });
});
