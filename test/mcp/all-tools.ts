/**
 * One call of each of the 44 tools, each expected to succeed, for any MCP client: the same scenario runs
 * through the 1.x SDK client, the v2 client pinned to 2026-07-28 and the v2 client in auto mode.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { futureIso, type SeededAccount, type TestHerald } from '../support/herald.js';
import { TINY_PNG } from '../media/fixtures.js';
import { markPublished } from '../team/support.js';

export interface ToolAnswer {
  isError?: boolean;
  structuredContent?: unknown;
  content?: unknown;
}

export type CallTool = (name: string, args: Record<string, unknown>) => Promise<ToolAnswer>;

export const ORIGIN_HOST = '127.0.0.2';

/** A file origin for import_media_from_url on a host the test's OUTBOUND_ALLOW_HOSTS lets through. */
export async function startImageOrigin(): Promise<{ base: string; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.url === '/photo.png') res.writeHead(200, { 'content-type': 'image/png' }).end(TINY_PNG);
    else res.writeHead(404).end();
  });
  await new Promise<void>((resolve) => server.listen(0, ORIGIN_HOST, resolve));
  return {
    base: `http://${ORIGIN_HOST}:${(server.address() as AddressInfo).port}`,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

export interface Scenario {
  h: TestHerald;
  /** An account with two channels and every scope. */
  account: SeededAccount;
  call: CallTool;
  /** The same client's calls for an account whose workspace holds posts for approval. */
  held: SeededAccount;
  callHeld: CallTool;
  originBase: string;
  /** The tools the URL serves: each is called once at least, and nothing else. */
  served: readonly string[];
}

/** Runs the scenario; answers the names of the tools called. */
export async function exerciseEveryTool(s: Scenario): Promise<string[]> {
  const called = new Set<string>();
  const run = async (call: CallTool, name: string, args: Record<string, unknown>): Promise<any> => {
    assert.ok(s.served.includes(name), `${name} is served here`);
    const answer = await call(name, args);
    assert.notEqual(answer.isError, true, `${name}: ${JSON.stringify(answer.content)}`);
    assert.equal(typeof answer.structuredContent, 'object', `${name} answers structured content`);
    called.add(name);
    return answer.structuredContent;
  };
  const ok = (name: string, args: Record<string, unknown>) => run(s.call, name, args);
  const [c0, c1] = s.account.channelIds;

  assert.equal((await ok('get_workspaces', {})).data[0].id, s.account.workspaceId);
  assert.deepEqual((await ok('get_channels', {})).data.map((c: any) => c.id).sort(), [...s.account.channelIds].sort());
  assert.equal((await ok('get_channel', { channelId: c0 })).data.id, c0);
  assert.equal((await ok('get_filtered_channels', { network: 'sandbox' })).data.length, 2);
  assert.ok((await ok('location_search', { query: 'Berlin' })).data.length > 0);

  const [post] = (
    await ok('create_text_post', { text: 'v1', channelIds: [c0], isScheduled: true, dateTime: futureIso(300) })
  ).data;
  assert.equal((await ok('update_post', { postId: post.id, text: 'v2' })).data[0].text, 'v2');
  assert.deepEqual(
    (await ok('instagram_first_comment', { postId: post.id, text: 'first!' })).data[0].firstComment.text,
    'first!',
  );
  assert.equal(
    (
      await ok('create_image_post', {
        imageUrls: ['https://cdn.example.com/a.png'],
        channelIds: [c1],
        text: 'pic',
        saveAsDraft: true,
      })
    ).data[0].type,
    'image',
  );
  const bulk = await ok('bulk_schedule', {
    posts: [{ text: 'one', channelIds: [c1], isScheduled: true, dateTime: futureIso(60) }],
  });
  assert.equal(bulk.summary.succeeded, 1);
  assert.ok((await ok('get_paginated_posts', {})).data.length >= 3);
  assert.ok((await ok('get_posts_for_channels', { channelIds: [c0] })).data.some((p: any) => p.id === post.id));
  assert.ok((await ok('get_posts_with_assets', {})).data.some((p: any) => p.type === 'image'));
  assert.ok((await ok('get_scheduled_posts', {})).data.some((p: any) => p.id === post.id));

  const slots = await s.h.api('PUT', `/v1/rest/channels/${c1}/schedule`, {
    token: s.account.apiKey,
    body: { slots: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'].map((day) => ({ day, time: '09:00' })) },
  });
  assert.equal(slots.status, 200, JSON.stringify(slots.body));
  const q1 = (await ok('create_text_post', { text: 'q1', channelIds: [c1], addToQueue: true })).data[0];
  const q2 = (await ok('create_text_post', { text: 'q2', channelIds: [c1], addToQueue: true })).data[0];
  assert.deepEqual(
    (await ok('queue_reorder', { channelId: c1, postId: q2.id, position: 1 })).data.queued.map((q: any) => q.postId),
    [q2.id, q1.id],
  );
  assert.equal((await ok('queue_pause', { channelId: c1 })).data.queuePaused, true);
  assert.equal((await ok('queue_resume', { channelId: c1 })).data.queuePaused, false);
  assert.equal((await ok('queue_clear', { channelId: c1 })).dryRun, true);

  const label = (await ok('label_create', { name: 'launch', color: '#22aa55' })).data;
  assert.ok((await ok('label_list', {})).data.some((l: any) => l.id === label.id));
  await ok('label_apply', { postId: post.id, labelIds: [label.id] });
  await ok('label_remove', { postId: post.id, labelIds: [label.id] });
  assert.equal((await ok('bulk_label', { postIds: [post.id], labelIds: [label.id] })).summary.succeeded, 1);

  const source = (await ok('create_text_post', { text: 'Evergreen', channelIds: [c0] })).data[0];
  await markPublished(s.h, source.id, Date.now());
  assert.equal(
    (
      await ok('recycle_post', {
        postId: source.id,
        dateTime: futureIso(120),
        collection: { name: 'Evergreen', intervalDays: 14 },
      })
    ).data.recycledFromPostId,
    source.id,
  );
  assert.deepEqual(
    (await ok('list_collections', {})).data.map((c: any) => c.name),
    ['Evergreen'],
  );

  await ok('get_calendar_view_options', {});
  await ok('get_in_app_calendar_url', {});
  const calendar = (await ok('create_public_calendar_link', { name: 'Launch week', channelIds: [c0] })).data;
  assert.ok((await ok('get_shareable_calendars', {})).data.some((c: any) => c.id === calendar.id));
  assert.equal(
    (await ok('update_shareable_calendar', { calendarId: calendar.id, name: 'Renamed' })).data.name,
    'Renamed',
  );
  await ok('delete_shareable_calendar', { calendarId: calendar.id });

  await ok('generate_post', { prompt: 'Herald 1.0 is out' });
  await ok('suggest_hashtags', { text: 'Herald 1.0 is out' });
  await ok('rewrite', { text: 'Herald 1.0 is out', instruction: 'shorter' });
  if (s.served.includes('generate_image')) assert.ok((await ok('generate_image', { prompt: 'a lighthouse' })).data.id);

  const upload = await ok('create_media_upload', {
    fileName: 'photo.png',
    contentType: 'image/png',
    sizeBytes: TINY_PNG.length,
  });
  assert.equal((await fetch(upload.uploadUrl, { method: 'PUT', headers: upload.headers, body: TINY_PNG })).status, 200);
  assert.equal((await ok('complete_media_upload', { uploadId: upload.uploadId })).data.kind, 'image');
  assert.equal((await ok('import_media_from_url', { url: `${s.originBase}/photo.png` })).data.contentType, 'image/png');

  const held = (name: string, args: Record<string, unknown>) => run(s.callHeld, name, args);
  const pending = (
    await held('create_text_post', {
      text: 'held',
      channelIds: [s.held.channelIds[0], s.held.channelIds[1]],
      isScheduled: true,
      dateTime: futureIso(600),
    })
  ).data;
  assert.deepEqual(
    pending.map((p: any) => p.approvalStatus),
    ['PENDING', 'PENDING'],
  );
  assert.equal((await held('approval_list_pending', {})).data.length, 2);
  assert.equal(
    (await held('approval_assign', { postId: pending[0].id, reviewerUserId: s.held.userId })).data.reviewerUserId,
    s.held.userId,
  );
  assert.equal((await held('approval_approve', { postId: pending[0].id })).data.approvalStatus, 'APPROVED');
  assert.equal(
    (await held('approval_reject', { postId: pending[1].id, reason: 'not yet' })).data.approvalStatus,
    'REJECTED',
  );
  assert.equal((await held('bulk_delete', { postIds: [pending[1].id] })).dryRun, true);

  assert.deepEqual(await ok('delete_post', { postId: post.id }), { id: post.id, deleted: true });
  return [...called].sort();
}
