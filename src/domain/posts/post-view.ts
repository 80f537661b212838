import type { components } from '../../../generated/rest/openapi-types.js';
import type { PostRecord } from '../../db/repositories/posts.js';
import type { PublishAttemptRecord } from '../../db/repositories/publish-attempts.js';
import { contentVersion } from '../approvals/approval-holds.js';
import { toWireTime } from '../time.js';
import { threadView } from './thread-parts.js';

export type PostView = components['schemas']['Post'];

/**
 * The one wire shape of a post, for REST and MCP alike. Live posts carry every field, null where the
 * service never set it, plus `metrics`; scheduled posts never carry `metrics` (SPEC, Post rules).
 */
export function toPostView(post: PostRecord): PostView {
  return viewOf(post, undefined);
}

/** A read of a post: the view plus its publish attempts (writes leave them out rather than claim there were none). */
export function toPostReadView(post: PostRecord, attempts: readonly PublishAttemptRecord[]): PostView {
  return viewOf(post, attempts);
}

// Attempts are added to the view in place: copying a view of thirty fields to add them cost as much as making it.
function viewOf(post: PostRecord, attempts: readonly PublishAttemptRecord[] | undefined): PostView {
  if (post.isLive) {
    return {
      id: post.id,
      groupId: null,
      channelId: post.channelId,
      text: post.text,
      dateTime: toWireTime(post.dateTime),
      isScheduled: null,
      isDraft: null,
      isPosted: true,
      isLivePost: true,
      status: null,
      approvalStatus: null,
      type: null,
      sourceType: null,
      permalinkUrl: post.permalinkUrl,
      imageUrls: post.imageUrls,
      videoUrls: [],
      firstComment: null,
      thread: null,
      channelOptions: null,
      error: null,
      createdAt: toWireTime(post.createdAt),
      updatedAt: toWireTime(post.updatedAt),
      publishedAt: toWireTime(post.publishedAt ?? post.dateTime),
      metrics: post.metrics,
      labels: [],
      inQueue: null,
      recycledFromPostId: null,
      reviewerUserId: null,
      rejectionReason: null,
      reviewVersion: null,
      risk: null,
      attempts: null,
    };
  }
  const view: PostView = {
    id: post.id,
    groupId: post.groupId,
    channelId: post.channelId,
    text: post.text,
    dateTime: toWireTime(post.dateTime),
    isScheduled: post.isScheduled,
    isDraft: post.isDraft,
    isPosted: post.status === 'published',
    isLivePost: false,
    status: post.status,
    approvalStatus: post.approvalStatus,
    type: post.type,
    sourceType: post.sourceType,
    permalinkUrl: post.permalinkUrl,
    imageUrls: post.imageUrls,
    videoUrls: post.videoUrls,
    firstComment: post.firstComment,
    thread: threadView(post.thread),
    channelOptions: post.channelOptions,
    error: post.lastError,
    createdAt: toWireTime(post.createdAt),
    updatedAt: toWireTime(post.updatedAt),
    publishedAt: toWireTime(post.publishedAt),
    labels: post.labels ?? [],
    inQueue: post.inQueue ?? false,
    recycledFromPostId: post.recycledFromPostId ?? null,
    reviewerUserId: post.reviewerUserId ?? null,
    rejectionReason: post.rejectionReason ?? null,
    // Hashed only where a reviewer can decide: list pages of other posts pay nothing for it.
    reviewVersion: post.approvalStatus === 'PENDING' ? contentVersion(post) : null,
    risk: riskView(post),
  };
  if (attempts) view.attempts = attempts.map(toAttemptView);
  return view;
}

/** A rehearsal's finding (posts/preflight.ts) matters only while the post has yet to go out. */
export function riskView(post: PostRecord): PostView['risk'] {
  if (!post.risk || (post.status !== 'scheduled' && post.status !== 'publishing')) return null;
  return { reason: post.risk.reason, advice: post.risk.advice, checkedAt: toWireTime(post.risk.checkedAt)! };
}

function toAttemptView(attempt: PublishAttemptRecord): NonNullable<PostView['attempts']>[number] {
  return {
    number: attempt.number,
    startedAt: toWireTime(attempt.startedAt)!,
    finishedAt: toWireTime(attempt.finishedAt),
    outcome: attempt.outcome,
    error: attempt.outcome === 'published' ? null : attempt.detail,
  };
}
