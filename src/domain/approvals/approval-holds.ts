/**
 * When the approval workflow holds a post: one rule for every write that can leave a post waiting to be published,
 * and for the engine that claims due posts. Rules kept here:
 * - a post written to wait for publishing in a workspace that requires approval is held as PENDING, unless it
 *   carries a decision on exactly the content it will publish;
 * - what a reviewer decides on is the post's content: its text (per channel, each post has its own), media, first
 *   comment, channel options (alt text among them), the parts of its thread and the channels of its group.
 *   `contentVersion` names that content, and history records it with every write and every approval, so it says
 *   which version who approved;
 * - a change of content voids a decision (APPROVED or REJECTED) in such a workspace: the post is PENDING again
 *   (an edited rejected post is resubmitted), or, while a draft, waits until it leaves the drafts;
 * - a change of publishing time alone keeps the decision: the reviewed content is what goes out;
 * - a draft is not held until it leaves the drafts; without the requirement a post keeps whatever it has;
 * - a post publishes only when it needs no approval (null) or was APPROVED (PENDING and REJECTED wait).
 *
 * The paths that write posts meant to go out, each through `reviewOfNewPost` or `reviewOfChangedPost`:
 * create (REST POST /posts and legacy POST /post, MCP create_text_post and create_image_post, the app),
 * bulk create (POST /posts/bulk, MCP bulk_schedule): posts/create-posts.ts;
 * update (PATCH /posts/{id}, MCP update_post and instagram_first_comment, the app's editor) including `channelIds`
 * adding channels (each new copy a new post), `addToQueue`, a draft leaving the drafts, and through it retrying a
 * failed post (posts/retry-post.ts) and moving one on the calendar (calendars/team-calendar.ts):
 * posts/update-post.ts; recycling (recycle_post, POST /posts/{id}/recycle, and the periodic re-queue of
 * collections): recycling/recycling.ts. Queue pause, resume and reorder only move times, so they keep decisions.
 * Herald has no duplicate operation.
 */
import crypto from 'node:crypto';
import type { ApprovalStatus, PostRecord } from '../../db/repositories/posts.js';

/** What a reviewer decides on. */
type ReviewedContent = Pick<
  PostRecord,
  'channelId' | 'text' | 'imageUrls' | 'videoUrls' | 'firstComment' | 'channelOptions' | 'thread'
>;

/** A short fingerprint of a post's reviewed content: equal exactly when the same thing would be published. */
export function contentVersion(post: ReviewedContent): string {
  const content: unknown[] = [
    post.channelId,
    post.text,
    post.imageUrls,
    post.videoUrls,
    post.firstComment,
    post.channelOptions,
  ];
  // Only a post with parts names them, so the versions of posts written before threads existed stay as they were.
  if (post.thread?.length) {
    content.push(post.thread.map(({ text, imageUrls, videoUrls }) => ({ text, imageUrls, videoUrls })));
  }
  return crypto.createHash('sha256').update(JSON.stringify(content, sortedKeys)).digest('hex').slice(0, 12);
}

function sortedKeys(_key: string, value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** A new post (created, bulk, recycled, or a copy for a channel added to a group): held where required. */
export function reviewOfNewPost(post: { isDraft: boolean; approvalRequired: boolean }): ApprovalStatus | null {
  return !post.isDraft && post.approvalRequired ? 'PENDING' : null;
}

export interface ReviewAfterChange {
  approvalStatus: ApprovalStatus | null;
  /** The decision this change voided, to be said in the post's history. */
  voided?: 'APPROVED' | 'REJECTED';
}

/**
 * A post about to be written over: `before` as stored, `after` as it will be; `channelsChanged` when the write
 * adds or removes channels of its group.
 */
export function reviewOfChangedPost(change: {
  before: ReviewedContent & { approvalStatus: ApprovalStatus | null };
  after: ReviewedContent & { isDraft: boolean };
  channelsChanged: boolean;
  approvalRequired: boolean;
}): ReviewAfterChange {
  const { before, after, approvalRequired } = change;
  if (!approvalRequired) return { approvalStatus: before.approvalStatus };
  const contentChanged = change.channelsChanged || contentVersion(before) !== contentVersion(after);
  const decided =
    before.approvalStatus === 'APPROVED' || before.approvalStatus === 'REJECTED' ? before.approvalStatus : undefined;
  if (decided && !contentChanged) return { approvalStatus: decided };
  const voided = decided ? { voided: decided } : {};
  if (after.isDraft) return { approvalStatus: before.approvalStatus === 'PENDING' ? 'PENDING' : null, ...voided };
  return { approvalStatus: 'PENDING', ...voided };
}

/** Decisions that release a post to the engine, beside needing no approval at all. */
export const RELEASING_APPROVALS: readonly ApprovalStatus[] = ['APPROVED'];
