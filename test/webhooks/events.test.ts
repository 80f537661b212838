/**
 * Events as GET /v1/rest/events shows them: each REST and MCP action that changes a post, an approval or a
 * queue writes its event (with the object as the REST API shows it), and so does the publishing worker;
 * paging, filters and accounts; and the rules of webhook endpoints over REST.
 */
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { postExternal } from '../../src/publishing/engine.js';
import { connectSdkClient } from '../mcp/support.js';
import { cannotTellNetworks, dieMidAttempt, pinClock, testWorker } from '../publishing/support.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { RECEIVER_HOST } from './receiver.js';

function futureIso(minutes: number): string {
  return new Date(Date.now() + minutes * 60_000).toISOString();
}

describe(`events (${TEST_DB})`, function () {
  this.timeout(60_000);
  let t: TestHerald;
  let a: SeededAccount;
  let mcp: Client;

  before(async () => {
    // The webhook receiver listens on loopback (RECEIVER_HOST), which the SSRF guard refuses unless it is listed.
    t = await startTestHerald({ outboundAllowHosts: [RECEIVER_HOST] });
    a = await t.seedAccount();
    mcp = await connectSdkClient(t, a.apiKey);
  });
  after(async () => {
    await mcp.close();
    await t.close();
  });

  async function eventsOf(postId: string, token = a.apiKey): Promise<any[]> {
    const listed = await t.api('GET', `/v1/rest/events?postId=${postId}&limit=100`, { token });
    assert.equal(listed.status, 200, JSON.stringify(listed.body));
    return listed.body.data;
  }

  const types = (events: any[]) => events.map((e) => e.type);

  it(
    'a scheduled post created over REST: ' + 'post.created then post.scheduled, carrying the post as REST shows it',
    async () => {
      const created = await t.api('POST', '/v1/rest/posts', {
        token: a.apiKey,
        body: { channelIds: [a.channelIds[0]], text: 'Later', isScheduled: true, dateTime: futureIso(60) },
      });
      const post = created.body.data[0];
      const events = await eventsOf(post.id);
      assert.deepEqual(types(events), ['post.created', 'post.scheduled']);
      for (const event of events) {
        assert.match(event.id, /^evt_/);
        assert.equal(event.accountId, a.accountId);
        assert.equal(event.workspaceId, a.workspaceId);
        assert.ok(!Number.isNaN(Date.parse(event.timestamp)));
        assert.deepEqual({ ...event.data.post, labels: post.labels }, post);
      }
      const moved = await t.api('PATCH', `/v1/rest/posts/${post.id}`, {
        token: a.apiKey,
        body: { dateTime: futureIso(120), isScheduled: true },
      });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      assert.deepEqual(types(await eventsOf(post.id)), ['post.created', 'post.scheduled', 'post.scheduled']);
      assert.equal((await t.api('DELETE', `/v1/rest/posts/${post.id}`, { token: a.apiKey })).status, 200);
      const deleted = (await eventsOf(post.id)).at(-1);
      assert.equal(deleted.type, 'post.deleted');
      assert.equal(deleted.data.post.id, post.id);
    },
  );

  it('a draft is created but not scheduled; an MCP-created post has the same events as a REST one', async () => {
    const draft = await t.api('POST', '/v1/rest/posts', {
      token: a.apiKey,
      body: { channelIds: [a.channelIds[0]], text: 'Draft', saveAsDraft: true },
    });
    assert.deepEqual(types(await eventsOf(draft.body.data[0].id)), ['post.created']);
    const result = await mcp.callTool({
      name: 'create_text_post',
      arguments: { text: 'From a model', channelIds: [a.channelIds[0]], isScheduled: true, dateTime: futureIso(30) },
    });
    assert.notEqual(result.isError, true, JSON.stringify(result.content));
    const postId = (result.structuredContent as any).data[0].id;
    assert.deepEqual(types(await eventsOf(postId)), ['post.created', 'post.scheduled']);
    assert.equal((await eventsOf(postId))[0].data.post.sourceType, 'mcp');
  });

  it('approvals: requested on a held post, assigned, approved over MCP, rejected over REST', async () => {
    const team = await t.seedAccount({ approvalRequired: true });
    const teamMcp = await connectSdkClient(t, team.apiKey);
    try {
      const create = async () =>
        (
          await t.api('POST', '/v1/rest/posts', {
            token: team.apiKey,
            body: { channelIds: [team.channelIds[0]], text: 'Held', isScheduled: true, dateTime: futureIso(60) },
          })
        ).body.data[0];
      const approved = await create();
      const rejected = await create();
      const assigned = await t.api('POST', `/v1/rest/posts/${approved.id}/assign`, {
        token: team.apiKey,
        body: { reviewerUserId: team.userId },
      });
      assert.equal(assigned.status, 200, JSON.stringify(assigned.body));
      const approval = await teamMcp.callTool({ name: 'approval_approve', arguments: { postId: approved.id } });
      assert.notEqual(approval.isError, true, JSON.stringify(approval.content));
      assert.equal(
        (
          await t.api('POST', `/v1/rest/posts/${rejected.id}/reject`, {
            token: team.apiKey,
            body: { reason: 'Off brand' },
          })
        ).status,
        200,
      );

      const approvedEvents = await eventsOf(approved.id, team.apiKey);
      assert.deepEqual(types(approvedEvents), [
        'post.created',
        'post.scheduled',
        'approval.requested',
        'approval.assigned',
        'approval.approved',
      ]);
      assert.equal(approvedEvents[2].data.post.approvalStatus, 'PENDING');
      assert.equal(approvedEvents[3].data.reviewerUserId, team.userId);
      assert.equal(approvedEvents[4].data.post.approvalStatus, 'APPROVED');
      const rejectedEvents = await eventsOf(rejected.id, team.apiKey);
      assert.deepEqual(types(rejectedEvents).slice(-1), ['approval.rejected']);
      assert.equal(rejectedEvents.at(-1).data.reason, 'Off brand');
      assert.equal((await eventsOf(approved.id)).length, 0, 'another account sees none of them');
    } finally {
      await teamMcp.close();
    }
  });

  it('queue pause and resume, over REST and MCP, carry the channel', async () => {
    const channelId = a.channelIds[1];
    assert.equal((await t.api('POST', `/v1/rest/channels/${channelId}/queue/pause`, { token: a.apiKey })).status, 200);
    const resumed = await mcp.callTool({ name: 'queue_resume', arguments: { channelId } });
    assert.notEqual(resumed.isError, true, JSON.stringify(resumed.content));
    const listed = await t.api('GET', '/v1/rest/events?types=queue.paused&types=queue.resumed', { token: a.basicKey });
    assert.deepEqual(types(listed.body.data), ['queue.paused', 'queue.resumed']);
    assert.equal(listed.body.data[0].data.channel.id, channelId);
    assert.equal(listed.body.data[0].data.channel.queuePaused, true);
    assert.equal(listed.body.data[1].data.channel.queuePaused, false);
  });

  it('the worker: published with the permalink, failed with the reason, first comments, live posts found', async () => {
    const b = await t.seedAccount();
    const worker = testWorker(t);
    const now = await t.api('POST', '/v1/rest/posts', {
      token: b.apiKey,
      body: { channelIds: [b.channelIds[0]], text: 'Now', firstComment: { text: 'First!' } },
    });
    await t.deps.repos.sandbox.setFailure(b.accountId, b.channelIds[1], 'permanent', 1);
    const doomed = await t.api('POST', '/v1/rest/posts', {
      token: b.apiKey,
      body: { channelIds: [b.channelIds[1]], text: 'Doomed' },
    });
    await worker.tick();
    await worker.tick();
    const published = await eventsOf(now.body.data[0].id, b.apiKey);
    assert.deepEqual(types(published), [
      'post.created',
      'post.scheduled',
      'post.published',
      'post.first_comment.published',
    ]);
    assert.equal(published[2].data.permalinkUrl, published[2].data.post.permalinkUrl);
    assert.ok(published[2].data.permalinkUrl);
    const failed = await eventsOf(doomed.body.data[0].id, b.apiKey);
    assert.equal(failed.at(-1).type, 'post.failed');
    assert.equal(failed.at(-1).data.reason, failed.at(-1).data.post.error);
    assert.ok(failed.at(-1).data.reason.length > 0);

    await postExternal(t.deps, { accountId: b.accountId, channelId: b.channelIds[0], text: 'Made outside Herald' });
    await worker.sync();
    const found = await t.api('GET', '/v1/rest/events?types=live_post.found', { token: b.apiKey });
    assert.equal(found.body.data.length, 1);
    assert.match(found.body.data[0].data.post.id, /^live_/);
    assert.equal(found.body.data[0].data.post.text, 'Made outside Herald');
  });

  it(
    'the worker: unconfirmed when an interrupted attempt cannot be found, ' + 'and a first comment that fails',
    async () => {
      const b = await t.seedAccount();
      const clock = pinClock(t, new Date().toISOString());
      const lost = await t.api('POST', '/v1/rest/posts', {
        token: b.apiKey,
        body: { channelIds: [b.channelIds[0]], text: 'Lost' },
      });
      const postId = lost.body.data[0].id;
      // A worker claimed the post, recorded its attempt, and died before the network call, on a network whose
      // lookup cannot tell whether it went out.
      await dieMidAttempt(t, clock);
      clock.advance(2_000);
      const worker = testWorker(t, {}, cannotTellNetworks(t));
      await worker.tick();
      const unconfirmed = await eventsOf(postId, b.apiKey);
      assert.equal(unconfirmed.at(-1).type, 'post.unconfirmed');
      assert.match(unconfirmed.at(-1).data.reason, /cannot confirm whether this post went out/);

      const commented = await t.api('POST', '/v1/rest/posts', {
        token: b.apiKey,
        body: {
          channelIds: [b.channelIds[1]],
          text: 'With a comment',
          firstComment: { text: 'Later', delayMinutes: 1 },
        },
      });
      await worker.tick();
      // The post vanished from the network before its comment was due: the comment cannot be made.
      await t.herald.db('sandbox_posts').where({ channel_id: b.channelIds[1] }).delete();
      clock.advance(2 * 60_000);
      await worker.tick();
      const events = await eventsOf(commented.body.data[0].id, b.apiKey);
      assert.equal(events.at(-1).type, 'post.first_comment.failed');
      assert.match(JSON.stringify(events.at(-1).data), /no post/);
    },
  );

  it('pages oldest first with a cursor a poller keeps, and filters by time', async () => {
    const c = await t.seedAccount();
    const { now, timers } = t.deps;
    const clock = pinClock(t, '2031-03-01T10:00:00Z');
    try {
      for (let i = 0; i < 5; i++) {
        await t.api('POST', '/v1/rest/posts', {
          token: c.apiKey,
          body: { channelIds: [c.channelIds[0]], text: `p${i}`, saveAsDraft: true },
        });
        clock.advance(60_000);
      }
      const first = await t.api('GET', '/v1/rest/events?limit=2', { token: c.apiKey });
      assert.equal(first.body.data.length, 2);
      assert.equal(first.body.paging.hasMore, true);
      const rest = await t.api(
        'GET',
        `/v1/rest/events?limit=10&cursor=${encodeURIComponent(first.body.paging.nextCursor)}`,
        { token: c.apiKey },
      );
      assert.equal(rest.status, 200, JSON.stringify(rest.body));
      assert.deepEqual(
        rest.body.data.map((e: any) => e.data.post.text),
        ['p2', 'p3', 'p4'],
      );
      assert.equal(rest.body.paging.hasMore, false);
      const later = await t.api('GET', `/v1/rest/events?cursor=${encodeURIComponent(rest.body.paging.nextCursor)}`, {
        token: c.apiKey,
      });
      assert.deepEqual(later.body.data, [], 'nothing new yet');
      await t.api('POST', '/v1/rest/posts', {
        token: c.apiKey,
        body: { channelIds: [c.channelIds[0]], text: 'p5', saveAsDraft: true },
      });
      const polled = await t.api('GET', `/v1/rest/events?cursor=${encodeURIComponent(later.body.paging.nextCursor)}`, {
        token: c.apiKey,
      });
      assert.equal(polled.status, 200, JSON.stringify(polled.body));
      assert.deepEqual(
        polled.body.data.map((e: any) => e.data.post.text),
        ['p5'],
        'the kept cursor answers only what is new',
      );
      const window = await t.api(
        'GET',
        `/v1/rest/events?since=${encodeURIComponent('2031-03-01T10:01:00Z')}` +
          `&until=${encodeURIComponent('2031-03-01T10:03:00Z')}`,
        { token: c.apiKey },
      );
      assert.equal(window.status, 200, JSON.stringify(window.body));
      assert.deepEqual(
        window.body.data.map((e: any) => e.data.post.text),
        ['p1', 'p2'],
      );
      const bad = await t.api('GET', '/v1/rest/events?cursor=nonsense', { token: c.apiKey });
      assert.equal(bad.status, 400);
      const badType = await t.api('GET', '/v1/rest/events?types=post.exploded', { token: c.apiKey });
      assert.equal(badType.status, 400);
    } finally {
      t.deps.now = now;
      t.deps.timers = timers;
    }
  });

  it(
    'webhook endpoints: manage_team only, URLs checked, ' + 'unknown ids not found, deleted with their deliveries',
    async () => {
      const body = { url: `http://${RECEIVER_HOST}:9/hook`, eventTypes: ['post.published'] };
      const forbidden = await t.api('POST', '/v1/rest/webhooks', { token: a.basicKey, body });
      assert.equal(forbidden.status, 403);
      assert.equal(forbidden.body.code, 'insufficient_scope');
      const notUrl = await t.api('POST', '/v1/rest/webhooks', {
        token: a.apiKey,
        body: { ...body, url: 'hooks.example.com' },
      });
      assert.equal(notUrl.status, 400);
      assert.match(notUrl.body.message, /absolute URL/);
      const ftp = await t.api('POST', '/v1/rest/webhooks', {
        token: a.apiKey,
        body: { ...body, url: 'ftp://example.com/x' },
      });
      assert.equal(ftp.status, 400);
      const privateAddress = await t.api('POST', '/v1/rest/webhooks', {
        token: a.apiKey,
        body: { ...body, url: 'http://169.254.169.254/latest' },
      });
      assert.equal(privateAddress.status, 422);
      assert.equal(privateAddress.body.code, 'url_not_allowed');
      const internalName = await t.api('POST', '/v1/rest/webhooks', {
        token: a.apiKey,
        body: { ...body, url: 'http://localhost:9/' },
      });
      assert.equal(internalName.status, 422);
      assert.equal(
        internalName.body.message,
        'http://localhost:9 is not an address Herald may fetch from; use a URL on the public internet.',
      );
      const noTypes = await t.api('POST', '/v1/rest/webhooks', { token: a.apiKey, body: { ...body, eventTypes: [] } });
      assert.equal(noTypes.status, 400);
      const unknownType = await t.api('POST', '/v1/rest/webhooks', {
        token: a.apiKey,
        body: { ...body, eventTypes: ['post.exploded'] },
      });
      assert.equal(unknownType.status, 400);

      const created = await t.api('POST', '/v1/rest/webhooks', { token: a.apiKey, body });
      assert.equal(created.status, 201);
      const id = created.body.data.id;
      const other = await t.seedAccount();
      assert.equal((await t.api('GET', `/v1/rest/webhooks/${id}`, { token: other.apiKey })).status, 404);
      const updated = await t.api('PATCH', `/v1/rest/webhooks/${id}`, {
        token: a.apiKey,
        body: { eventTypes: ['post.failed', 'post.published'], description: 'CRM' },
      });
      assert.deepEqual(updated.body.data.eventTypes, ['post.failed', 'post.published']);
      assert.equal(updated.body.data.description, 'CRM');
      await t.api('POST', `/v1/rest/webhooks/${id}/test`, { token: a.apiKey });
      assert.equal((await t.api('GET', `/v1/rest/webhooks/${id}/deliveries`, { token: a.apiKey })).body.data.length, 1);
      assert.equal((await t.api('DELETE', `/v1/rest/webhooks/${id}`, { token: a.apiKey })).status, 200);
      assert.equal((await t.api('GET', `/v1/rest/webhooks/${id}/deliveries`, { token: a.apiKey })).status, 404);
      const [row] = await t.herald
        .db('webhook_deliveries')
        .where({ endpoint_id: id })
        .count<{ n: number | string }[]>({ n: '*' });
      assert.equal(Number(row.n), 0);
    },
  );
});
