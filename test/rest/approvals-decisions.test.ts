import assert from 'node:assert/strict';
import * as provisioning from '../../src/domain/provisioning.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { connectSdkClient } from '../mcp/support.js';

describe('REST /approvals: the inbox by reviewer, and deciding many posts at once', function () {
  this.timeout(30_000);
  let t: TestHerald;
  let a: SeededAccount;

  beforeEach(async () => {
    t = await startTestHerald({ validateResponses: true });
    a = await t.seedAccount({ approvalRequired: true, channels: 1 });
  });
  afterEach(() => t.close());

  const api = (method: string, path: string, body?: unknown, token = a.apiKey) =>
    t.api(method, `/v1/rest${path}`, { token, body });
  async function held(text: string): Promise<string> {
    const res = await api(
      'POST',
      '/posts',
      { channelIds: [a.channelIds[0]], text, isScheduled: true, dateTime: '2030-01-01T10:00:00Z' },
      a.basicKey,
    );
    assert.equal(res.body.data[0].approvalStatus, 'PENDING');
    return res.body.data[0].id;
  }
  const inbox = async (query = '') =>
    (await api('GET', `/approvals${query}`)).body.data.map((p: { text: string }) => p.text);

  it('lists every held post, or only those assigned to the caller', async () => {
    const mine = await held('Mine');
    await held('Anyone');
    const other = await provisioning.createUser(t.deps, {
      accountId: a.accountId,
      email: 'rev@example.test',
      name: 'Rev',
    });
    await provisioning.addMember(t.deps, {
      accountId: a.accountId,
      workspaceId: a.workspaceId,
      userId: other.id,
      role: 'reviewer',
    });
    const theirs = await held('Theirs');
    assert.equal((await api('POST', `/posts/${mine}/assign`, { reviewerUserId: a.userId })).status, 200);
    assert.equal((await api('POST', `/posts/${theirs}/assign`, { reviewerUserId: other.id })).status, 200);

    assert.deepEqual((await inbox()).sort(), ['Anyone', 'Mine', 'Theirs']);
    assert.deepEqual(await inbox('?assignedTo=anyone'), await inbox());
    assert.deepEqual(await inbox('?assignedTo=me'), ['Mine']);
    const bad = await api('GET', '/approvals?assignedTo=nobody');
    assert.equal(bad.status, 400);
    assert.match(bad.body.message, /assignedTo/);
  });

  it('approves several posts, reporting one that is no longer waiting without stopping the others', async () => {
    const [one, two, done] = [await held('One'), await held('Two'), await held('Done')];
    assert.equal((await api('POST', `/posts/${done}/approve`)).status, 200);
    const res = await api('POST', '/approvals/decisions', {
      postIds: [one, done, two, 'no-such-post'],
      decision: 'approve',
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(
      res.body.results.map((r: { id: string; ok: boolean; error?: { code: string } }) => [r.id, r.ok, r.error?.code]),
      [
        [one, true, undefined],
        [done, false, 'not_pending'],
        [two, true, undefined],
        ['no-such-post', false, 'not_found'],
      ],
    );
    assert.deepEqual(res.body.summary, { succeeded: 2, failed: 2 });
    for (const id of [one, two]) assert.equal((await api('GET', `/posts/${id}`)).body.data.approvalStatus, 'APPROVED');
    assert.deepEqual(await inbox(), []);
  });

  it(
    'rejects several posts with one reason, ' + 'and refuses a rejection without one before touching any post',
    async () => {
      const [one, two] = [await held('One'), await held('Two')];
      const noReason = await api('POST', '/approvals/decisions', {
        postIds: [one, two],
        decision: 'reject',
        reason: '  ',
      });
      assert.equal(noReason.status, 400);
      assert.deepEqual(noReason.body.details, [{ path: 'reason', message: 'Give a reason.' }]);
      assert.deepEqual((await inbox()).sort(), ['One', 'Two'], 'nothing was decided');

      const res = await api('POST', '/approvals/decisions', {
        postIds: [one, two],
        decision: 'reject',
        reason: 'Wrong launch date',
      });
      assert.deepEqual(res.body.summary, { succeeded: 2, failed: 0 });
      const post = (await api('GET', `/posts/${two}`)).body.data;
      assert.equal(post.approvalStatus, 'REJECTED');
      assert.equal(post.rejectionReason, 'Wrong launch date');
      const history = (await api('GET', `/posts/${one}/history`)).body.data;
      assert.deepEqual(
        history.map((e: { kind: string }) => e.kind),
        ['created', 'rejected'],
      );
    },
  );

  it("needs manage_team, and keeps to the caller's account", async () => {
    const one = await held('One');
    const denied = await api('POST', '/approvals/decisions', { postIds: [one], decision: 'approve' }, a.basicKey);
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, 'insufficient_scope');
    const stranger = await t.seedAccount({ channels: 0 });
    const elsewhere = await api(
      'POST',
      '/approvals/decisions',
      { postIds: [one], decision: 'approve' },
      stranger.apiKey,
    );
    assert.equal(elsewhere.body.results[0].error.code, 'not_found');
    assert.deepEqual(await inbox(), ['One']);
    const tooMany = await api('POST', '/approvals/decisions', {
      postIds: Array.from({ length: 101 }, (_, i) => `p${i}`),
      decision: 'approve',
    });
    assert.equal(tooMany.status, 400);
  });

  it(
    'decides only on the version the reviewer read: ' + 'a post changed since is refused on REST, in bulk and over MCP',
    async () => {
      const id = await held('What the reviewer reads');
      const read = (await api('GET', `/posts/${id}`)).body.data.reviewVersion;
      assert.match(read, /^[0-9a-f]{12}$/);
      assert.deepEqual(
        (await api('GET', '/approvals')).body.data.map((p: { reviewVersion: string }) => p.reviewVersion),
        [read],
      );
      const edited = await api('PATCH', `/posts/${id}`, { text: 'What the author wrote afterwards' }, a.basicKey);
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      const now = edited.body.data[0]?.reviewVersion ?? (await api('GET', `/posts/${id}`)).body.data.reviewVersion;
      assert.notEqual(now, read, 'new text, new version');

      const stale = await api('POST', `/posts/${id}/approve`, { version: read });
      assert.equal(stale.status, 409);
      assert.equal(stale.body.code, 'changed_since_read');
      assert.match(stale.body.message, /changed after you read it/);
      assert.equal(
        (await api('POST', `/posts/${id}/reject`, { reason: 'No', version: read })).body.code,
        'changed_since_read',
      );
      const bulk = await api('POST', '/approvals/decisions', {
        postIds: [id],
        decision: 'approve',
        versions: { [id]: read },
      });
      assert.equal(bulk.body.results[0].error.code, 'changed_since_read');
      const client = await connectSdkClient(t, a.apiKey);
      try {
        const refused = await client.callTool({ name: 'approval_approve', arguments: { postId: id, version: read } });
        assert.equal(refused.isError, true);
        assert.match((refused.content as { text: string }[])[0].text, /changed after you read it/);
        assert.equal(
          (await api('GET', `/posts/${id}`)).body.data.approvalStatus,
          'PENDING',
          'nothing was decided unseen',
        );
        const decided = await client.callTool({ name: 'approval_approve', arguments: { postId: id, version: now } });
        assert.ok(!decided.isError, JSON.stringify(decided.content));
      } finally {
        await client.close();
      }
      const approved = (await api('GET', `/posts/${id}`)).body.data;
      assert.deepEqual([approved.approvalStatus, approved.reviewVersion], ['APPROVED', null]);
      const history = (await api('GET', `/posts/${id}/history`)).body.data;
      const approval = history.find((e: { kind: string }) => e.kind === 'approved');
      assert.equal(approval.details.version, now, 'the history names the version approved');
      assert.equal(
        (await api('POST', `/posts/${await held('Bad')}/approve`, { version: 'not-a-version' })).status,
        400,
      );
    },
  );
});
