import assert from 'node:assert/strict';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import * as provisioning from '../../src/domain/provisioning.js';
import { recycleDueCollections } from '../../src/domain/recycling/recycling.js';
import { connectSdkClient } from '../mcp/support.js';
import { pinClock, testWorker } from '../publishing/support.js';
import { startTestHerald, type SeededAccount, type TestHerald } from '../support/herald.js';
import type { ManualClock } from '../support/manual-clock.js';
import { DAY, HOUR, markPublished } from './support.js';

/** The rule of src/domain/approvals/approval-holds.ts, walked through every path that can leave a post waiting. */
describe('team: review holds every post meant to go out in a workspace that requires approval', () => {
  let t: TestHerald;
  let a: SeededAccount;
  let clock: ManualClock;
  let reviewer: { userId: string; key: string };
  let mcp: Client | undefined;
  beforeEach(async () => {
    t = await startTestHerald();
    clock = pinClock(t, '2030-01-07T06:00:00Z'); // a Monday
    a = await t.seedAccount({ channels: 2 });
    const user = await provisioning.createUser(t.deps, {
      accountId: a.accountId,
      email: `rev-${Date.now()}@example.test`,
      name: 'Rev',
    });
    await provisioning.addMember(t.deps, {
      accountId: a.accountId,
      workspaceId: a.workspaceId,
      userId: user.id,
      role: 'admin',
    });
    reviewer = {
      userId: user.id,
      key: await t.createKey({ ...a, userId: user.id }, ['read_profile', 'manage_post', 'manage_team']),
    };
  });
  afterEach(async () => {
    await mcp?.close();
    mcp = undefined;
    await t.close();
  });

  const api = async (method: string, path: string, body?: unknown, token = a.basicKey) => {
    const res = await t.api(method, `/v1/rest${path}`, { token, body });
    assert.ok(res.status < 300, `${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body;
  };
  const create = async (body: Record<string, unknown>) =>
    (await api('POST', '/posts', { channelIds: [a.channelIds[0]], ...body })).data[0];
  const get = async (id: string) => (await api('GET', `/posts/${id}`)).data;
  const history = async (id: string) => (await api('GET', `/posts/${id}/history`)).data;
  const requireApproval = () => api('PATCH', `/workspaces/${a.workspaceId}`, { approvalRequired: true }, a.apiKey);
  const approve = (id: string) => api('POST', `/posts/${id}/approve`, undefined, reviewer.key);
  const tool = async (name: string, args: Record<string, unknown>) => {
    mcp ??= await connectSdkClient(t, a.apiKey);
    const result = await mcp.callTool({ name, arguments: args });
    assert.ok(!result.isError, `${name}: ${JSON.stringify(result.content)}`);
    return result.structuredContent as any;
  };
  /** The web app's own calls: the person's session cookie and the app's CSRF token. */
  const appCreate = async (body: Record<string, unknown>) => {
    const page = await fetch(`${t.url}/app/sign-in`);
    const csrf = /name="csrf_token" value="([^"]+)"/.exec(await page.text())![1];
    const jar = page.headers.getSetCookie().map((c) => c.split(';')[0]);
    const signIn = await fetch(`${t.url}/app/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: jar.join('; '), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ csrf_token: csrf, email: a.email, password: a.password }),
    });
    assert.equal(signIn.status, 303);
    const cookie = [...jar, ...signIn.headers.getSetCookie().map((c) => c.split(';')[0])].join('; ');
    const res = await t.api('POST', '/v1/rest/posts', {
      headers: { cookie, 'x-csrf-token': csrf },
      body: { channelIds: [a.channelIds[0]], ...body },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    return res.body.data[0];
  };
  /** Runs the worker long after every post's time; answers how many posts it claimed. */
  const publishEverythingDue = async (until = '2030-03-01T00:00:00Z') => {
    clock.advance(Math.max(0, Date.parse(until) - clock.now()));
    const worker = testWorker(t);
    let claimed = 0;
    for (let i = 0; i < 5; i++) claimed += (await worker.tick()).claimed;
    return claimed;
  };

  it('holds a post from every path that leaves one waiting, and the worker publishes none', async () => {
    await api(
      'PUT',
      `/channels/${a.channelIds[0]}/schedule`,
      { slots: ['mon', 'tue', 'wed', 'thu', 'fri'].map((day) => ({ day, time: '09:00' })) },
      a.apiKey,
    );
    const open = await provisioning.createWorkspace(t.deps, { accountId: a.accountId, name: 'Open' });
    await provisioning.addMember(t.deps, {
      accountId: a.accountId,
      workspaceId: open.id,
      userId: a.userId,
      role: 'owner',
    });
    const openChannel = (
      await provisioning.addChannel(t.deps, {
        accountId: a.accountId,
        workspaceId: open.id,
        network: 'sandbox',
        handle: '@open',
        timezone: 'UTC',
      })
    ).id;

    // Written before the workspace required approval: waiting, or able to wait again, with no review.
    await t.deps.repos.sandbox.setFailure(a.accountId, a.channelIds[0], 'permanent', 1);
    const failed = await create({ text: 'Failed before review was required' });
    await testWorker(t).tick();
    assert.equal((await get(failed.id)).status, 'failed');
    const later = () => ({ isScheduled: true, dateTime: new Date(clock.now() + DAY).toISOString() });
    const edited = await create({ text: 'Edited over REST', ...later() });
    const editedOverMcp = await create({ text: 'Edited over MCP', ...later() });
    const moved = await create({ text: 'Moved on the calendar', ...later() });
    const draft = await create({ text: 'A draft', saveAsDraft: true });
    const draftToQueue = await create({ text: 'A draft for the queue', saveAsDraft: true });
    const drafted = await create({
      channelIds: [a.channelIds[1]],
      text: 'Drafted when its channel was disconnected',
      ...later(),
    });
    // As disconnecting a channel leaves its waiting posts (posts.draftWaitingOnChannel).
    await t.herald.db('posts').where({ id: drafted.id }).update({ status: 'draft' });
    const onOpen = await create({ channelIds: [openChannel], text: 'Goes out in the open workspace', ...later() });
    const evergreen = await create({ text: 'Evergreen', ...later() });
    await markPublished(t, evergreen.id, clock.now());
    await requireApproval();

    const held: Record<string, string> = {
      'REST create': (await create({ text: 'Now' })).id,
      'legacy POST /post': (await api('POST', '/post', { channelIds: [a.channelIds[0]], text: 'Legacy' })).data[0].id,
      'REST create into the queue': (await create({ text: 'Queued', addToQueue: true })).id,
      'REST bulk create': (
        await api('POST', '/posts/bulk', { posts: [{ channelIds: [a.channelIds[0]], text: 'Bulk' }] })
      ).results[0].data[0].id,
      'the app': (await appCreate({ text: 'From the app' })).id,
      'MCP create_text_post': (await tool('create_text_post', { channelIds: [a.channelIds[0]], text: 'MCP text' }))
        .data[0].id,
      'MCP create_image_post': (
        await tool('create_image_post', {
          channelIds: [a.channelIds[0]],
          text: 'MCP image',
          imageUrls: ['https://cdn.example/a.png'],
        })
      ).data[0].id,
      'MCP bulk_schedule': (
        await tool('bulk_schedule', { posts: [{ channelIds: [a.channelIds[0]], text: 'MCP bulk' }] })
      ).results[0].data[0].id,
      'REST update': (await api('PATCH', `/posts/${edited.id}`, { text: 'Edited over REST, now reviewed?' })).data[0]
        .id,
      'MCP update_post': (
        await tool('update_post', { postId: editedOverMcp.id, text: 'Edited over MCP, now reviewed?' })
      ).data[0].id,
      'a draft scheduled': (await api('PATCH', `/posts/${draft.id}`, { saveAsDraft: false, isScheduled: false }))
        .data[0].id,
      'a draft into the queue': (await api('PATCH', `/posts/${draftToQueue.id}`, { addToQueue: true })).data[0].id,
      "a disconnected channel's post restored": (await api('PATCH', `/posts/${drafted.id}`, { isScheduled: false }))
        .data[0].id,
      'retry of a failed post': (await api('POST', `/posts/${failed.id}/retry`)).data.id,
      'calendar move': (
        await api('POST', `/posts/${moved.id}/move`, { dateTime: new Date(clock.now() + 2 * DAY).toISOString() })
      ).data.id,
      'a channel added to a group': (
        await api('PATCH', `/posts/${onOpen.id}`, { channelIds: [openChannel, a.channelIds[1]] })
      ).data.find((p: any) => p.channelId === a.channelIds[1]).id,
      'REST recycle': (
        await api('POST', `/posts/${evergreen.id}/recycle`, { collection: { name: 'Evergreen', intervalDays: 1 } })
      ).data.id,
      'MCP recycle_post': (await tool('recycle_post', { postId: evergreen.id })).data.id,
    };
    clock.advance(DAY + HOUR);
    assert.equal(await recycleDueCollections(t.deps), 1);
    const recycled = (await history(evergreen.id))
      .filter((e: any) => e.kind === 'recycled')
      .map((e: any) => e.details.copy);
    held["the collection's periodic re-queue"] = recycled.at(-1);

    const notHeld: string[] = [];
    for (const [path, id] of Object.entries(held)) if ((await get(id)).approvalStatus !== 'PENDING') notHeld.push(path);
    assert.deepEqual(notHeld, []);
    assert.equal(await publishEverythingDue(), 1, 'only the post of the workspace without approval goes out');
    assert.equal((await get(onOpen.id)).status, 'published');
    for (const [path, id] of Object.entries(held)) {
      const post = await get(id);
      assert.deepEqual([post.status, post.approvalStatus, post.isPosted], ['scheduled', 'PENDING', false], path);
    }
  });

  it('an approved post edited waits to be approved again, then publishes its new text', async () => {
    await requireApproval();
    const post = await create({ text: 'The reviewed text', isScheduled: true, dateTime: '2030-01-07T08:00:00Z' });
    await approve(post.id);
    const edited = (await api('PATCH', `/posts/${post.id}`, { text: 'The text nobody reviewed' })).data[0];
    assert.equal(edited.approvalStatus, 'PENDING');
    assert.ok(
      (await api('GET', '/approvals', undefined, reviewer.key)).data.some((p: any) => p.id === post.id),
      'it is in the inbox again',
    );
    assert.equal(await publishEverythingDue('2030-01-07T09:00:00Z'), 0);
    assert.equal((await get(post.id)).status, 'scheduled');

    await approve(post.id);
    assert.equal(await publishEverythingDue('2030-01-07T09:01:00Z'), 1);
    const published = await get(post.id);
    assert.equal(published.status, 'published');
    const page = await (await fetch(published.permalinkUrl)).text();
    assert.match(page, /The text nobody reviewed/);
    assert.doesNotMatch(page, /The reviewed text/);

    const events = await history(post.id);
    assert.deepEqual(
      events.map((e: any) => e.kind),
      ['created', 'approved', 'updated', 'decision_voided', 'approved'],
    );
    const [created, first, update, voided, second] = events;
    assert.match(created.details.version, /^[0-9a-f]{12}$/);
    assert.deepEqual(
      [first.actorUserId, first.details.reviewerUserId, first.details.version],
      [reviewer.userId, reviewer.userId, created.details.version],
    );
    assert.notEqual(update.details.version, created.details.version);
    assert.deepEqual(voided.details, {
      decision: 'APPROVED',
      decidedVersion: created.details.version,
      version: update.details.version,
      approvalStatus: 'PENDING',
    });
    assert.equal(voided.actorUserId, a.userId, 'the editor voided it');
    assert.deepEqual([second.actorUserId, second.details.version], [reviewer.userId, update.details.version]);
  });

  it('every change of what is published voids an approval: media, first comment, channels', async () => {
    await requireApproval();
    const changes: Record<string, Record<string, unknown>> = {
      media: { imageUrls: ['https://cdn.example/b.png'] },
      'first comment': { firstComment: { text: 'More in the thread', delayMinutes: 0 } },
      'a channel added': { channelIds: [a.channelIds[0], a.channelIds[1]] },
      'a channel removed': { channelIds: [a.channelIds[0]] },
    };
    for (const [what, change] of Object.entries(changes)) {
      const channelIds = what === 'a channel removed' ? a.channelIds : [a.channelIds[0]];
      const posts = (
        await api('POST', '/posts', {
          channelIds,
          text: `Before ${what}`,
          isScheduled: true,
          dateTime: '2030-01-08T08:00:00Z',
        })
      ).data;
      const post = posts.find((p: any) => p.channelId === a.channelIds[0]);
      for (const p of posts) await approve(p.id);
      const after = (await api('PATCH', `/posts/${post.id}`, change)).data;
      assert.deepEqual(
        after.map((p: any) => p.approvalStatus),
        after.map(() => 'PENDING'),
        what,
      );
    }
    assert.equal(await publishEverythingDue(), 0);
  });

  it('a change of time alone keeps the approval, on update and on the calendar', async () => {
    await requireApproval();
    const post = await create({ text: 'Reviewed once', isScheduled: true, dateTime: '2030-01-07T08:00:00Z' });
    await approve(post.id);
    const later = (await api('PATCH', `/posts/${post.id}`, { dateTime: '2030-01-07T10:00:00Z' })).data[0];
    assert.equal(later.approvalStatus, 'APPROVED');
    const sameText = (await api('PATCH', `/posts/${post.id}`, { text: 'Reviewed once' })).data[0];
    assert.equal(sameText.approvalStatus, 'APPROVED', 'sending the same text changes nothing reviewed');
    const moved = (await api('POST', `/posts/${post.id}/move`, { dateTime: '2030-01-07T11:00:00Z' })).data;
    assert.equal(moved.approvalStatus, 'APPROVED');
    const events = await history(post.id);
    assert.ok(!events.some((e: any) => e.kind === 'decision_voided'));
    assert.match(events[0].details.version, /^[0-9a-f]{12}$/);
    assert.ok(
      events
        .filter((e: any) => e.kind === 'updated')
        .every((e: any) => e.details.version === events[0].details.version),
    );
    assert.equal(await publishEverythingDue('2030-01-07T10:30:00Z'), 0, 'not before its new time');
    assert.equal(await publishEverythingDue('2030-01-07T11:00:00Z'), 1);
  });

  it('a rejected post edited is resubmitted for review; moved alone it stays rejected', async () => {
    await requireApproval();
    const post = await create({ text: 'Wrong date', isScheduled: true, dateTime: '2030-01-07T08:00:00Z' });
    await api('POST', `/posts/${post.id}/reject`, { reason: 'Say the right date' }, reviewer.key);
    const moved = (await api('PATCH', `/posts/${post.id}`, { dateTime: '2030-01-07T09:00:00Z' })).data[0];
    assert.deepEqual([moved.approvalStatus, moved.rejectionReason], ['REJECTED', 'Say the right date']);
    const fixed = (await api('PATCH', `/posts/${post.id}`, { text: 'Right date' })).data[0];
    assert.deepEqual([fixed.approvalStatus, fixed.rejectionReason], ['PENDING', null]);
    const voided = (await history(post.id)).find((e: any) => e.kind === 'decision_voided');
    assert.equal(voided.details.decision, 'REJECTED');
    assert.equal(await publishEverythingDue(), 0);
  });

  it('a decision is on what the reviewer read: a post changed since is not decided', async () => {
    await requireApproval();
    const post = await create({ text: 'First', isScheduled: true, dateTime: '2030-01-08T08:00:00Z' });
    const read = await t.deps.repos.posts.get(a.accountId, post.id);
    clock.advance(1_000);
    await api('PATCH', `/posts/${post.id}`, { text: 'Second' });
    assert.equal(await t.deps.repos.teamPosts.approve(a.accountId, post.id, read!.updatedAt, clock.now()), false);
    assert.equal(await t.deps.repos.teamPosts.reject(a.accountId, post.id, read!.updatedAt, 'no', clock.now()), false);
    assert.equal((await get(post.id)).approvalStatus, 'PENDING');
  });
});
