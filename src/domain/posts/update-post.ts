/**
 * Update rules (SPEC, PATCH /posts/{postId}):
 * - Live posts are read only: refused with an explanation, never a not-found.
 * - `channelIds` (array) retargets the post's group; a singular `channelId` is refused; `coverMediaId` is refused.
 * - `channelOptions` is applied here (unlike create).
 * - The network limits and media checks are those of the channels that get the edited content: the post's own
 *   (unless it leaves) and each channel added; the group's other posts keep their own content and are not judged by it.
 * - Only posts not yet published can change.
 * - Whether the post (and each copy for an added channel) is held for approval, or its decision voided, is
 *   approvals/approval-holds.ts's rule; a voided decision is said in the post's history.
 */
import { contentVersion, reviewOfChangedPost, reviewOfNewPost } from '../approvals/approval-holds.js';
import type { ReviewAfterChange } from '../approvals/approval-holds.js';
import { writablePost } from './writable-post.js';
import type { components } from '../../../generated/rest/openapi-types.js';
import type { PostRecord } from '../../db/repositories/posts.js';
import type { DomainDeps } from '../deps.js';
import { ConflictError, ValidationError } from '../errors.js';
import { knownMediaOf } from '../media/media-library.js';
import { requireReachableLibraryMedia } from '../media/public-base-url.js';
import { newId } from '../ids.js';
import type { Principal } from '../principal.js';
import { parseWireTime, toWireTime } from '../time.js';
import { nextQueueSlots, placingInQueue, rejectQueueConflicts } from '../queue/queue.js';
import { recordEditedPostEvents, recordNewPostEvents } from '../events/events.js';
import { recordPostEvents, type PostChange } from './post-history.js';
import {
  notFound,
  postType,
  rejectCoverMediaId,
  requireChannels,
  requireContent,
  requireNetworkLimits,
  resolveFirstComment,
} from './post-rules.js';
import { toPostView, type PostView } from './post-view.js';
import { rejectThreadWithFirstComment, resolveThread } from './thread-parts.js';

import { withDraftName } from './draft-name.js';

export type PostUpdate = components['schemas']['PostUpdate'];

const EDITABLE = new Set(['draft', 'scheduled', 'failed']);

export async function updatePost(
  deps: DomainDeps,
  principal: Principal,
  id: string,
  given: PostUpdate,
): Promise<PostView[]> {
  const input: PostUpdate = withDraftName(given);
  const post = await writablePost(deps, principal, id);
  rejectCoverMediaId(input);
  if (input.channelId !== undefined) {
    throw new ValidationError(
      'channelId is not accepted on update; send channelIds (an array) with the channels the post should be on.',
      [{ path: 'channelId', message: 'Use channelIds instead.' }],
    );
  }
  if (!EDITABLE.has(post.status)) {
    throw new ConflictError(
      'post_not_editable',
      `Post ${id} is ${post.status} and can no longer be changed; create a new post instead.`,
    );
  }

  const now = deps.now();
  const workspace = await deps.repos.accounts.getWorkspace(principal.accountId, post.workspaceId);
  rejectQueueConflicts(input);
  const timing = input.addToQueue
    ? await queueChanges(deps, principal, post, input, now)
    : { ...applyChanges(post, input, now), ...leavingQueue(input) };
  const groupId = post.groupId ?? newId();
  const plan = input.channelIds
    ? await planRetarget(deps, principal, { ...post, ...timing, groupId }, input.channelIds)
    : undefined;
  const review = reviewOfChangedPost({
    before: post,
    after: { ...post, ...timing, isDraft: (timing.status ?? post.status) === 'draft' },
    channelsChanged: plan !== undefined && plan.add.length + plan.remove.length > 0,
    approvalRequired: workspace?.approvalRequired ?? false,
  });
  // A resubmitted post no longer shows why it was rejected; its history keeps the reason.
  const resubmitted = review.voided === 'REJECTED' ? { rejectionReason: null } : {};
  const changes: Partial<PostRecord> = { ...timing, approvalStatus: review.approvalStatus, ...resubmitted };
  const stays = input.channelIds === undefined || input.channelIds.includes(post.channelId);
  const receiving = [...(stays ? [post.channelId] : []), ...(plan?.add ?? []).map((copy) => copy.channelId)];
  const targets = await deps.repos.channels.findMany(principal.accountId, receiving);
  const updated = { ...post, ...changes };
  rejectThreadWithFirstComment(updated, input.thread !== undefined ? 'thread' : 'firstComment');
  const threadMedia = updated.thread?.flatMap((part) => [...part.imageUrls, ...part.videoUrls]) ?? [];
  const urls = [...updated.imageUrls, ...updated.videoUrls, ...threadMedia];
  const knownMedia = await knownMediaOf(deps, principal.accountId, urls);
  requireNetworkLimits(targets, { ...updated, knownMedia }, { requireOptions: input.channelOptions !== undefined });
  if (!updated.isDraft) requireReachableLibraryMedia(deps.config.baseUrl, targets, updated);
  await placingInQueue(() =>
    deps.repos.inTransaction(async (repos) => {
      const saved = await repos.posts.updateUnpublished(principal.accountId, id, { ...changes, groupId });
      if (!saved)
        throw new ConflictError('post_not_editable', `Post ${id} started publishing and can no longer be changed.`);
      for (const removed of plan?.remove ?? []) await repos.posts.delete(principal.accountId, removed);
      await repos.posts.insertMany(plan?.add ?? []);
      const history = historyOfUpdate(input, post, updated, review, plan?.add ?? []);
      await recordPostEvents({ ...deps, repos }, principal.accountId, principal, history);
      const edited = await repos.posts.get(principal.accountId, id);
      if (edited) await recordEditedPostEvents(repos, now, post, edited);
      await recordNewPostEvents(
        repos,
        (plan?.add ?? []).map((post) => ({ at: now, post })),
      );
    }),
  );
  const group = await deps.repos.posts.listGroup(principal.accountId, groupId);
  return group.map(toPostView);
}

/** The update's entries in the post's history: what changed, the content version now, a voided decision, the copies. */
function historyOfUpdate(
  input: PostUpdate,
  before: PostRecord,
  after: PostRecord,
  review: ReviewAfterChange,
  copies: PostRecord[],
): PostChange[] {
  const version = contentVersion(after);
  const fields = Object.keys(input).filter((k) => (input as Record<string, unknown>)[k] !== undefined);
  return [
    { postId: after.id, kind: 'updated', details: { fields, dateTime: toWireTime(after.dateTime), version } },
    ...(review.voided
      ? [
          {
            postId: after.id,
            kind: 'decision_voided' as const,
            details: {
              decision: review.voided,
              decidedVersion: contentVersion(before),
              version,
              approvalStatus: review.approvalStatus,
            },
          },
        ]
      : []),
    ...copies.map((copy) => ({
      postId: copy.id,
      kind: 'created' as const,
      details: {
        copiedFrom: after.id,
        channelId: copy.channelId,
        approvalStatus: copy.approvalStatus,
        version: contentVersion(copy),
      },
    })),
  ];
}

function applyChanges(post: PostRecord, input: PostUpdate, now: number): Partial<PostRecord> {
  const text = input.text ?? post.text;
  const imageUrls = input.imageUrls ?? post.imageUrls;
  const videoUrls = input.videoUrls ?? post.videoUrls;
  requireContent(text, imageUrls, videoUrls);
  const firstComment = resolveFirstComment(input);
  const thread = resolveThread(input);
  const changes: Partial<PostRecord> = {
    text,
    imageUrls,
    videoUrls,
    type: postType(imageUrls, videoUrls),
    updatedAt: now,
    ...(firstComment !== undefined ? { firstComment } : {}),
    ...(thread !== undefined ? { thread } : {}),
    ...(input.channelOptions !== undefined ? { channelOptions: input.channelOptions } : {}),
  };
  const timing = input.saveAsDraft !== undefined || input.isScheduled !== undefined || input.dateTime !== undefined;
  if (!timing && post.status !== 'failed') return changes;

  const isDraft = input.saveAsDraft ?? post.isDraft;
  const requested = input.dateTime === undefined ? undefined : parseWireTime(input.dateTime, 'dateTime');
  if (isDraft) {
    const dateTime = requested ?? post.dateTime;
    return {
      ...changes,
      isDraft,
      status: 'draft',
      isScheduled: input.isScheduled ?? post.isScheduled,
      dateTime,
      timelineAt: dateTime ?? post.createdAt ?? now,
      lastError: null,
    };
  }
  const isScheduled = input.isScheduled ?? (requested !== undefined ? true : post.isScheduled);
  if (isScheduled) {
    const dateTime = requested ?? post.dateTime;
    if (dateTime === null || dateTime <= now) {
      throw new ValidationError('dateTime must be in the future when isScheduled is true', [
        { path: 'dateTime', message: 'Give a future ISO 8601 UTC time, or send isScheduled: false to publish now' },
      ]);
    }
    return {
      ...changes,
      isDraft: false,
      status: 'scheduled',
      isScheduled,
      dateTime,
      timelineAt: dateTime,
      lastError: null,
    };
  }
  if (requested !== undefined) {
    throw new ValidationError('dateTime is only used with isScheduled: true', [
      { path: 'dateTime', message: 'Send isScheduled: true with it, or leave dateTime out to publish now' },
    ]);
  }
  return {
    ...changes,
    isDraft: false,
    status: 'scheduled',
    isScheduled: false,
    dateTime: now,
    timelineAt: now,
    lastError: null,
  };
}

/** A post given a time of its own leaves the queue. */
function leavingQueue(input: PostUpdate): Partial<PostRecord> {
  return input.isScheduled !== undefined || input.dateTime !== undefined || input.saveAsDraft !== undefined
    ? { inQueue: false }
    : {};
}

/** `addToQueue` on update: the post takes its channel's next free slot. */
async function queueChanges(
  deps: DomainDeps,
  principal: Principal,
  post: PostRecord,
  input: PostUpdate,
  now: number,
): Promise<Partial<PostRecord>> {
  const channel = await deps.repos.channels.get(principal.accountId, post.channelId);
  const slot = channel ? (await nextQueueSlots(deps, [channel], now)).get(channel.id) : undefined;
  if (slot === undefined) throw notFound(post.id);
  return {
    ...applyChanges(post, { ...input, addToQueue: undefined }, now),
    isDraft: false,
    status: 'scheduled',
    isScheduled: true,
    inQueue: true,
    dateTime: slot,
    timelineAt: slot,
    lastError: null,
  };
}

/** Which posts of the group leave and which channels get a copy; read before the write transaction. */
async function planRetarget(deps: DomainDeps, principal: Principal, post: PostRecord, channelIds: string[]) {
  const channels = requireChannels(channelIds, await deps.repos.channels.findMany(principal.accountId, channelIds));
  const group = post.groupId ? await deps.repos.posts.listGroup(principal.accountId, post.groupId) : [post];
  const remove: string[] = [];
  for (const sibling of group) {
    if (channelIds.includes(sibling.channelId)) continue;
    if (!EDITABLE.has(sibling.status)) {
      throw new ConflictError(
        'post_not_editable',
        `The post on channel ${sibling.channelId} is ${sibling.status}; it cannot be removed from the group.`,
      );
    }
    remove.push(sibling.id);
  }
  const onChannel = new Set(group.map((p) => p.channelId));
  const now = deps.now();
  const workspaces = new Map((await deps.repos.accounts.listWorkspaces(principal.accountId)).map((w) => [w.id, w]));
  const add = channels
    .filter((c) => !onChannel.has(c.id))
    // A copy keeps the time but is not in the new channel's queue: that time is not one of its slots. It is a new
    // post to its workspace's reviewers, whatever was decided on the post it was copied from.
    .map(
      (channel): PostRecord => ({
        ...post,
        id: newId(),
        channelId: channel.id,
        workspaceId: channel.workspaceId,
        createdAt: now,
        updatedAt: now,
        inQueue: false,
        approvalStatus: reviewOfNewPost({
          isDraft: post.status === 'draft',
          approvalRequired: Boolean(workspaces.get(channel.workspaceId)?.approvalRequired),
        }),
        reviewerUserId: null,
        rejectionReason: null,
      }),
    );
  return { remove, add };
}
