import assert from 'node:assert/strict';
import * as provisioning from '../../src/domain/provisioning.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { insertLivePost } from '../support/posts.js';
import { HOUR, pinClock } from './support.js';

describe('team: approvals over REST', () => {
  let t: TestHerald;
  let a: SeededAccount;
  let clock: ReturnType<typeof pinClock>;
  before(async () => {
    t = await startTestHerald();
    a = await t.seedAccount({ approvalRequired: true });
    clock = pinClock(t, '2030-01-01T09:00:00Z');
  });
  after(() => t.close());

  const api = (method: string, path: string, body?: unknown, token = a.apiKey) =>
    t.api(method, `/v1/rest${path}`, { token, body });
  const held = async (at: string) => {
    const res = await api(
      'POST',
      '/posts',
      { channelIds: [a.channelIds[0]], text: `at ${at}`, isScheduled: true, dateTime: at },
      a.basicKey,
    );
    assert.equal(res.body.data[0].approvalStatus, 'PENDING');
    return res.body.data[0];
  };

  it('lists held posts only with manage_team', async () => {
    const p = await held('2030-01-01T10:00:00Z');
    const denied = await api('GET', '/approvals', undefined, a.basicKey);
    assert.equal(denied.status, 403);
    assert.equal(denied.body.code, 'insufficient_scope');
    assert.match(denied.body.message, /manage_team/);
    const list = await api('GET', '/approvals');
    assert.ok(list.body.data.some((x: any) => x.id === p.id));
    const other = await t.seedAccount();
    assert.deepEqual((await api('GET', '/approvals', undefined, other.apiKey)).body.data, []);
  });

  it('approve publishes now when the time has passed, and keeps a future time', async () => {
    const overdue = await held('2030-01-01T10:00:00Z');
    const future = await held('2030-01-02T10:00:00Z');
    clock.advance(2 * HOUR); // 11:00, overdue's 10:00 passed while held
    assert.equal((await api('POST', `/posts/${overdue.id}/approve`, undefined, a.basicKey)).status, 403);
    const approved = await api('POST', `/posts/${overdue.id}/approve`);
    assert.equal(approved.status, 200, JSON.stringify(approved.body));
    assert.equal(approved.body.data.approvalStatus, 'APPROVED');
    assert.equal(approved.body.data.dateTime, '2030-01-01T11:00:00.000Z');
    assert.equal(approved.body.data.status, 'scheduled');
    const kept = await api('POST', `/posts/${future.id}/approve`);
    assert.equal(kept.body.data.dateTime, '2030-01-02T10:00:00.000Z');
    const again = await api('POST', `/posts/${future.id}/approve`);
    assert.equal(again.status, 409);
    assert.equal(again.body.code, 'not_pending');
    const history = await api('GET', `/posts/${overdue.id}/history`);
    assert.deepEqual(
      history.body.data.map((e: any) => e.kind),
      ['created', 'approved'],
    );
    assert.equal(history.body.data[1].details.publishesNow, true);
  });

  it('reject records the reason and keeps the post unpublished', async () => {
    const p = await held('2030-01-03T10:00:00Z');
    assert.equal((await api('POST', `/posts/${p.id}/reject`, { reason: 'no' }, a.basicKey)).status, 403);
    const rejected = await api('POST', `/posts/${p.id}/reject`, { reason: 'Wrong launch date' });
    assert.equal(rejected.status, 200);
    assert.equal(rejected.body.data.approvalStatus, 'REJECTED');
    assert.equal(rejected.body.data.rejectionReason, 'Wrong launch date');
    assert.equal(rejected.body.data.isPosted, false);
    assert.equal((await api('POST', `/posts/${p.id}/approve`)).status, 409);
    const pending = await api('GET', '/approvals');
    assert.ok(!pending.body.data.some((x: any) => x.id === p.id));
  });

  it('assign names a reviewer who must be a workspace member', async () => {
    const p = await held('2030-01-04T10:00:00Z');
    const reviewer = await provisioning.createUser(t.deps, {
      accountId: a.accountId,
      email: `rev-${Date.now()}@example.test`,
      name: 'Rev',
    });
    const notMember = await api('POST', `/posts/${p.id}/assign`, { reviewerUserId: reviewer.id });
    assert.equal(notMember.status, 400);
    assert.match(notMember.body.message, /not a member of the post's workspace/);
    await provisioning.addMember(t.deps, {
      accountId: a.accountId,
      workspaceId: a.workspaceId,
      userId: reviewer.id,
      role: 'reviewer',
    });
    assert.equal((await api('POST', `/posts/${p.id}/assign`, { reviewerUserId: reviewer.id }, a.basicKey)).status, 403);
    const assigned = await api('POST', `/posts/${p.id}/assign`, { reviewerUserId: reviewer.id });
    assert.equal(assigned.status, 200);
    assert.equal(assigned.body.data.reviewerUserId, reviewer.id);
    const history = await api('GET', `/posts/${p.id}/history`);
    assert.deepEqual(history.body.data.at(-1), {
      at: '2030-01-01T11:00:00.000Z',
      actorUserId: a.userId,
      kind: 'assigned',
      details: { reviewerUserId: reviewer.id },
    });
  });

  it('refuses approval actions on live posts', async () => {
    const live = await insertLivePost(t.deps, a, clock.now() - HOUR);
    for (const [path, body] of [
      ['approve', undefined],
      ['reject', { reason: 'x' }],
      ['assign', { reviewerUserId: a.userId }],
    ] as const) {
      const res = await api('POST', `/posts/${live.id}/${path}`, body);
      assert.equal(res.status, 409, path);
      assert.equal(res.body.code, 'live_post_read_only');
    }
  });

  it('bulk-delete reports with dryRun and needs manage_team', async () => {
    const p = await held('2030-01-05T10:00:00Z');
    assert.equal((await api('POST', '/posts/bulk-delete', { postIds: [p.id], dryRun: true }, a.basicKey)).status, 403);
    const dry = await api('POST', '/posts/bulk-delete', { postIds: [p.id], dryRun: true });
    assert.equal(dry.body.summary.succeeded, 1);
    assert.equal((await api('GET', `/posts/${p.id}`)).status, 200);
    const done = await api('POST', '/posts/bulk-delete', { postIds: [p.id], dryRun: false });
    assert.equal(done.body.summary.succeeded, 1);
    assert.equal((await api('GET', `/posts/${p.id}`)).status, 404);
    const history = await api('GET', `/posts/${p.id}/history`);
    assert.deepEqual(
      history.body.data.map((e: any) => e.kind),
      ['created', 'deleted'],
      'a deleted post keeps its history',
    );
  });
});
