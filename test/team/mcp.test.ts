import { toolCatalogue } from '../../generated/mcp/catalogue.js';
import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import * as provisioning from '../../src/domain/provisioning.js';
import { recycleDueCollections } from '../../src/domain/recycling/recycling.js';
import { connectSdkClient } from '../mcp/support.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import { insertLivePost } from '../support/posts.js';
import { DAY, HOUR, markPublished, pinClock } from './support.js';

const TEAM_TOOLS = [
  'queue_pause',
  'queue_resume',
  'queue_clear',
  'queue_reorder',
  'label_list',
  'label_create',
  'label_apply',
  'label_remove',
  'bulk_label',
  'list_collections',
  'recycle_post',
  'approval_list_pending',
  'approval_approve',
  'approval_reject',
  'approval_assign',
  'bulk_delete',
];
// Read from each tool's x-herald-scope, so the tests follow the schemas rather than restating them.
const MANAGE_TEAM = toolCatalogue.filter((tool) => tool.scope === 'manage_team').map((tool) => tool.name);

describe('team: the 16 tools through the official MCP SDK client', () => {
  let t: TestHerald;
  let a: SeededAccount;
  let held: SeededAccount;
  let team: Client;
  let basic: Client;
  let heldTeam: Client;
  let clock: ReturnType<typeof pinClock>;
  let newYork: string;
  before(async () => {
    t = await startTestHerald();
    a = await t.seedAccount();
    held = await t.seedAccount({ approvalRequired: true });
    newYork = (
      await provisioning.addChannel(t.deps, {
        accountId: a.accountId,
        workspaceId: a.workspaceId,
        network: 'sandbox',
        handle: '@ny',
        timezone: 'America/New_York',
      })
    ).id;
    team = await connectSdkClient(t, a.apiKey);
    basic = await connectSdkClient(t, a.basicKey);
    heldTeam = await connectSdkClient(t, held.apiKey);
    clock = pinClock(t, '2027-01-01T00:00:00Z');
  });
  after(async () => {
    await Promise.all([team.close(), basic.close(), heldTeam.close()]);
    await t.close();
  });

  const ok = async (name: string, args: Record<string, unknown>, client = team): Promise<any> => {
    const result = await client.callTool({ name, arguments: args });
    assert.ok(!result.isError, `${name}: ${JSON.stringify(result.content)}`);
    return result.structuredContent;
  };
  const refused = async (name: string, args: Record<string, unknown>, client = team): Promise<string> => {
    const result = await client.callTool({ name, arguments: args });
    assert.equal(result.isError, true, `${name} should be refused`);
    return (result.content as { text: string }[])[0].text;
  };
  const setSlots = (account: SeededAccount, channelId: string, slots: string) =>
    t.api('PUT', `/v1/rest/channels/${channelId}/schedule`, {
      token: account.apiKey,
      body: { slots: slots.split(',').map((s) => ({ day: s.trim().split(' ')[0], time: s.trim().split(' ')[1] })) },
    });
  const queue = async (channelId: string, text: string) =>
    (await ok('create_text_post', { channelIds: [channelId], text, addToQueue: true })).data[0];

  it('lists the 16 team tools once they work', async () => {
    const names = (await team.listTools()).tools.map((tool) => tool.name);
    for (const name of TEAM_TOOLS) assert.ok(names.includes(name), `${name} is listed`);
  });

  it('queues across the March 2027 change in Europe/Berlin and the November one in America/New_York', async () => {
    const berlin = a.channelIds[0];
    await setSlots(a, berlin, 'sat 09:00,sun 02:30,mon 09:00');
    clock.set('2027-03-26T12:00:00Z');
    const spring = [await queue(berlin, 's1'), await queue(berlin, 's2'), await queue(berlin, 's3')];
    assert.deepEqual(
      spring.map((p) => p.dateTime),
      ['2027-03-27T08:00:00.000Z', '2027-03-28T01:30:00.000Z', '2027-03-29T07:00:00.000Z'],
    );
    const refusedBoth = await refused('create_text_post', {
      channelIds: [berlin],
      text: 'x',
      addToQueue: true,
      dateTime: '2027-04-01T00:00:00Z',
      isScheduled: true,
    });
    assert.match(refusedBoth, /addToQueue cannot be combined/);
    const cleared = await ok('queue_clear', { channelId: berlin, dryRun: false });
    assert.deepEqual(
      cleared.postIds,
      spring.map((p) => p.id),
    );

    await setSlots(a, newYork, 'sat 09:00,sun 01:30,mon 09:00');
    clock.set('2027-11-05T12:00:00Z');
    const autumn = [await queue(newYork, 'a1'), await queue(newYork, 'a2'), await queue(newYork, 'a3')];
    assert.deepEqual(
      autumn.map((p) => p.dateTime),
      ['2027-11-06T13:00:00.000Z', '2027-11-07T05:30:00.000Z', '2027-11-08T14:00:00.000Z'],
    );
    await ok('queue_clear', { channelId: newYork, dryRun: false });
  });

  it('reorders, pauses and resumes (catching up one slot at a time), and clears only after dryRun false', async () => {
    const berlin = a.channelIds[0];
    await setSlots(a, berlin, 'mon 09:00,tue 09:00,wed 09:00,thu 09:00,fri 09:00');
    clock.set('2027-01-04T06:00:00Z');
    const [p1, p2, p3] = [await queue(berlin, 'p1'), await queue(berlin, 'p2'), await queue(berlin, 'p3')];
    const reordered = await ok('queue_reorder', { channelId: berlin, postId: p3.id, position: 1 }, basic);
    assert.deepEqual(
      reordered.data.queued.map((q: any) => q.postId),
      [p3.id, p1.id, p2.id],
    );
    assert.deepEqual(
      reordered.data.queued.map((q: any) => q.dateTime),
      ['2027-01-04T08:00:00.000Z', '2027-01-05T08:00:00.000Z', '2027-01-06T08:00:00.000Z'],
    );

    const paused = await ok('queue_pause', { channelId: berlin }, basic);
    assert.equal(paused.data.queuePaused, true);
    assert.equal((await ok('get_channel', { channelId: berlin })).data.queuePaused, true);
    clock.set('2027-01-05T12:00:00Z'); // p3's and p1's slots passed while paused
    const resumed = await ok('queue_resume', { channelId: berlin }, basic);
    assert.equal(resumed.data.queuePaused, false);
    assert.deepEqual(resumed.data.queued, [
      { postId: p2.id, dateTime: '2027-01-06T08:00:00.000Z', text: p2.text },
      { postId: p3.id, dateTime: '2027-01-07T08:00:00.000Z', text: p3.text },
      { postId: p1.id, dateTime: '2027-01-08T08:00:00.000Z', text: p1.text },
    ]);
    const channel = (await ok('get_channel', { channelId: berlin })).data;
    assert.deepEqual(channel.schedule.length, 5);

    const report = await ok('queue_clear', { channelId: berlin }, basic);
    assert.deepEqual(report, { dryRun: true, postIds: [p2.id, p3.id, p1.id] });
    assert.equal(
      (await ok('queue_resume', { channelId: berlin })).data.queued.length,
      3,
      'the dry run removed nothing',
    );
    assert.deepEqual((await ok('queue_clear', { channelId: berlin, dryRun: false }, basic)).postIds, [
      p2.id,
      p3.id,
      p1.id,
    ]);
    assert.equal((await ok('queue_pause', { channelId: berlin })).data.queued.length, 0);
    await ok('queue_resume', { channelId: berlin });
  });

  it('creates, lists, applies and removes labels; bulk_label needs manage_team', async () => {
    clock.set('2027-02-01T00:00:00Z');
    const label = (await ok('label_create', { name: 'Launch', color: '#1DA1F2' }, basic)).data;
    assert.equal(label.color, '#1da1f2');
    assert.match(
      await refused('label_create', { name: 'launch', color: '#000000' }),
      /already has a label named "launch"/,
    );
    assert.deepEqual(
      (await ok('label_list', {}, basic)).data.map((l: any) => l.name),
      ['Launch'],
    );
    const post = (
      await ok('create_text_post', {
        channelIds: [a.channelIds[1]],
        text: 'labelled',
        isScheduled: true,
        dateTime: '2027-03-01T00:00:00Z',
      })
    ).data[0];
    const applied = (await ok('label_apply', { postId: post.id, labelIds: [label.id] }, basic)).data;
    assert.deepEqual(applied.labels, [{ id: label.id, name: 'Launch', color: '#1da1f2' }]);
    const removed = (await ok('label_remove', { postId: post.id, labelIds: [label.id] }, basic)).data;
    assert.deepEqual(removed.labels, []);

    await assert.rejects(
      basic.callTool({ name: 'bulk_label', arguments: { postIds: [post.id], labelIds: [label.id] } }),
      /insufficient_scope|403/,
    );
    const live = await insertLivePost(t.deps, a, clock.now() - DAY);
    const bulk = await ok('bulk_label', { postIds: [post.id, live.id], labelIds: [label.id] });
    assert.deepEqual(
      bulk.results.map((r: any) => [r.id, r.ok, r.error?.code]),
      [
        [post.id, true, undefined],
        [live.id, false, 'live_post_read_only'],
      ],
    );
    assert.deepEqual(
      (await t.api('GET', `/v1/rest/posts?labelIds=${label.id}`, { token: a.apiKey })).body.data.map((p: any) => p.id),
      [post.id],
    );
    assert.deepEqual(
      (await t.api('GET', `/v1/rest/posts/scheduled?labelIds=${label.id}`, { token: a.apiKey })).body.data.map(
        (p: any) => p.id,
      ),
      [post.id],
    );
    // The listing tools filter by label the same way; live posts
    // carry no labels, so no livePosts advice comes with a filter.
    const byLabel = await ok('get_paginated_posts', { labelIds: [label.id] }, basic);
    assert.deepEqual(
      byLabel.data.map((p: any) => p.id),
      [post.id],
    );
    assert.equal(byLabel.meta, undefined);
    assert.equal((await ok('get_paginated_posts', {}, basic)).meta?.livePostsAvailable, true);
    assert.deepEqual(
      (await ok('get_scheduled_posts', { labelIds: [label.id] }, basic)).data.map((p: any) => p.id),
      [post.id],
    );
    assert.deepEqual(
      (await ok('get_posts_for_channels', { channelIds: [a.channelIds[1]], labelIds: [label.id] }, basic)).data.map(
        (p: any) => p.id,
      ),
      [post.id],
    );
    assert.deepEqual(
      (await ok('get_posts_for_channels', { channelIds: [a.channelIds[0]], labelIds: [label.id] }, basic)).data,
      [],
    );
    assert.deepEqual(
      (await ok('get_posts_with_assets', { labelIds: [label.id] }, basic)).data,
      [],
      'the labelled post has no media',
    );
    assert.match(await refused('label_apply', { postId: live.id, labelIds: [label.id] }), /live post .* read only/);
  });

  it('recycles a published post into a collection that re-queues on an interval', async () => {
    const berlin = a.channelIds[0];
    clock.set('2027-05-03T06:00:00Z'); // Monday
    const source = (await ok('create_text_post', { channelIds: [berlin], text: 'Evergreen' })).data[0];
    await markPublished(t, source.id, clock.now());
    const recycled = await ok(
      'recycle_post',
      { postId: source.id, collection: { name: 'Evergreen', intervalDays: 14, endsAt: '2027-06-01T00:00:00Z' } },
      basic,
    );
    assert.equal(recycled.data.sourceType, 'recycle');
    assert.equal(recycled.data.recycledFromPostId, source.id);
    assert.equal(recycled.data.dateTime, '2027-05-03T07:00:00.000Z');
    assert.equal(recycled.collection.nextRunAt, '2027-05-17T06:00:00.000Z');
    const listed = (await ok('list_collections', {}, basic)).data;
    assert.deepEqual(
      listed.map((c: any) => [c.name, c.postIds]),
      [['Evergreen', [source.id]]],
    );
    clock.advance(14 * DAY);
    assert.equal(await recycleDueCollections(t.deps), 1);
    clock.advance(14 * DAY); // 31 May: the second run is still before endsAt
    assert.equal(await recycleDueCollections(t.deps), 1);
    clock.advance(14 * DAY);
    assert.equal(await recycleDueCollections(t.deps), 0);
    const live = await insertLivePost(t.deps, a, clock.now() - DAY);
    assert.match(await refused('recycle_post', { postId: live.id }), /read only/);
    await ok('queue_clear', { channelId: berlin, dryRun: false });
  });

  it('approves (a passed time publishes now), rejects and assigns held posts; lists pending', async () => {
    clock.set('2027-06-01T09:00:00Z');
    const create = async (dateTime: string) =>
      (
        await ok(
          'create_text_post',
          { channelIds: [held.channelIds[0]], text: dateTime, isScheduled: true, dateTime },
          heldTeam,
        )
      ).data[0];
    const overdue = await create('2027-06-01T10:00:00Z');
    const future = await create('2027-06-03T10:00:00Z');
    const doomed = await create('2027-06-04T10:00:00Z');
    assert.equal(overdue.approvalStatus, 'PENDING');
    const pending = (await ok('approval_list_pending', {}, heldTeam)).data.map((p: any) => p.id);
    assert.deepEqual(pending, [overdue.id, future.id, doomed.id]);
    assert.deepEqual((await ok('approval_list_pending', {})).data, [], 'another account sees none of them');

    clock.advance(2 * HOUR);
    const approved = (await ok('approval_approve', { postId: overdue.id }, heldTeam)).data;
    assert.deepEqual([approved.approvalStatus, approved.dateTime], ['APPROVED', '2027-06-01T11:00:00.000Z']);
    const kept = (await ok('approval_approve', { postId: future.id }, heldTeam)).data;
    assert.equal(kept.dateTime, '2027-06-03T10:00:00.000Z');
    const rejected = (await ok('approval_reject', { postId: doomed.id, reason: 'Off brand' }, heldTeam)).data;
    assert.deepEqual(
      [rejected.approvalStatus, rejected.rejectionReason, rejected.isPosted],
      ['REJECTED', 'Off brand', false],
    );
    assert.match(await refused('approval_approve', { postId: doomed.id }, heldTeam), /not waiting for approval/);
    const assigned = (await ok('approval_assign', { postId: doomed.id, reviewerUserId: held.userId }, heldTeam)).data;
    assert.equal(assigned.reviewerUserId, held.userId);
    assert.match(
      await refused('approval_assign', { postId: doomed.id, reviewerUserId: a.userId }, heldTeam),
      /not a member/,
    );
    const history = await t.api('GET', `/v1/rest/posts/${doomed.id}/history`, { token: held.apiKey });
    assert.deepEqual(
      history.body.data.map((e: any) => e.kind),
      ['created', 'rejected', 'assigned'],
    );
  });

  it('bulk_delete reports until dryRun false', async () => {
    const post = (await ok('create_text_post', { channelIds: [a.channelIds[1]], text: 'bye', saveAsDraft: true }))
      .data[0];
    const live = await insertLivePost(t.deps, a, clock.now() - DAY);
    const report = await ok('bulk_delete', { postIds: [post.id, live.id] });
    assert.equal(report.dryRun, true);
    assert.deepEqual(
      report.results.map((r: any) => [r.id, r.ok, r.error?.code]),
      [
        [post.id, true, undefined],
        [live.id, false, 'live_post_read_only'],
      ],
    );
    assert.equal((await t.api('GET', `/v1/rest/posts/${post.id}`, { token: a.apiKey })).status, 200);
    assert.equal((await ok('bulk_delete', { postIds: [post.id], dryRun: false })).summary.succeeded, 1);
    assert.equal((await t.api('GET', `/v1/rest/posts/${post.id}`, { token: a.apiKey })).status, 404);
  });

  it('refuses the six manage_team tools without that scope, naming it, and only those', async () => {
    const post = (await ok('create_text_post', { channelIds: [a.channelIds[1]], text: 'scoped', saveAsDraft: true }))
      .data[0];
    const args: Record<string, Record<string, unknown>> = {
      approval_list_pending: {},
      approval_approve: { postId: post.id },
      approval_reject: { postId: post.id, reason: 'x' },
      approval_assign: { postId: post.id, reviewerUserId: a.userId },
      bulk_delete: { postIds: [post.id] },
      bulk_label: { postIds: [post.id], labelIds: ['x'] },
    };
    assert.deepEqual(Object.keys(args).sort(), [...MANAGE_TEAM].sort(), 'SPEC names these six manage_team tools');
    for (const name of MANAGE_TEAM) {
      await assert.rejects(
        basic.callTool({ name, arguments: args[name] }),
        (error: Error) => /insufficient_scope/.test(error.message) && /manage_team/.test(error.message),
        name,
      );
    }
    assert.ok(Array.isArray((await ok('label_list', {}, basic)).data), 'other team tools work without manage_team');
    assert.ok(Array.isArray((await ok('list_collections', {}, basic)).data));
  });
});
