/**
 * Approval rules (approval_list_pending, approval_approve, approval_reject, approval_assign, and many at once):
 * - Every action here needs the manage_team scope, or a reviewer signed in to the web app (checked here, so
 *   REST, MCP and the app all inherit it).
 * - The inbox lists every held post, or only those assigned to the caller.
 * - A decision on many posts decides each on its own (partial success, one result per post); rejecting
 *   them needs one reason, checked before any post is touched.
 * - Only a PENDING post can be approved or rejected; the change is compare-and-set, so two reviewers
 *   cannot both win.
 * - Approve releases the post: a time already past publishes now (dateTime becomes now); a future
 *   time stays scheduled; a draft stays a draft.
 * - Reject records the reason and keeps the post unpublished (REJECTED is never claimed by the engine).
 * - Assign names a reviewer who must be a member of the post's workspace.
 * - A decision is on the content the reviewer read: a caller that sends the reviewVersion it read gets 409
 *   changed_since_read when the post changed since, and a post changed while the call runs is not decided either
 *   (409 not_pending). The history names the version decided on (approval-holds.ts's contentVersion) and the
 *   reviewer.
 * - Live posts are read only; every step is recorded in the post's history.
 */
import type { PostRecord } from '../../db/repositories/posts.js';
import type { DomainDeps } from '../deps.js';
import { ConflictError, ValidationError } from '../errors.js';
import { requireReviewer, type Principal } from '../principal.js';
import { recordPostEventById } from '../events/events.js';
import { recordPostEvents } from '../posts/post-history.js';
import { toPostView, type PostView } from '../posts/post-view.js';
import { writablePost } from '../posts/writable-post.js';
import { toWireTime } from '../time.js';
import { contentVersion } from './approval-holds.js';
import { eachPostId, type BulkIdResult, type BulkOutcome } from '../bulk.js';

const MAX_PENDING = 100;

export async function listPendingApprovals(
  deps: DomainDeps,
  principal: Principal,
  input: { limit?: number; assignedTo?: 'me' | 'anyone' } = {},
): Promise<PostView[]> {
  requireReviewer(principal);
  const limit = Math.min(Math.max(input.limit ?? MAX_PENDING, 1), MAX_PENDING);
  const reviewer = input.assignedTo === 'me' ? principal.userId : undefined;
  return (await deps.repos.teamPosts.listPendingApproval(principal.accountId, limit, reviewer)).map(toPostView);
}

async function heldPost(deps: DomainDeps, principal: Principal, postId: string, action: string): Promise<PostRecord> {
  const post = await writablePost(deps, principal, postId);
  if (post.approvalStatus !== 'PENDING') {
    throw new ConflictError(
      'not_pending',
      `Post ${postId} is not waiting for approval (approvalStatus ${post.approvalStatus ?? 'none'}); ` +
        `only PENDING posts can be ${action}.`,
    );
  }
  return post;
}

/** `seen`: the reviewVersion the reviewer read, when they sent it. */
function requireSeenVersion(post: PostRecord, seen: string | undefined): void {
  if (seen === undefined || seen === contentVersion(post)) return;
  throw new ConflictError(
    'changed_since_read',
    `Post ${post.id} was changed after you read it; read it again and decide on what it says now.`,
  );
}

function decidedMeanwhile(postId: string): ConflictError {
  return new ConflictError(
    'not_pending',
    `Post ${postId} was changed, approved or rejected by someone else meanwhile; read it again before deciding.`,
  );
}

export async function approvePost(
  deps: DomainDeps,
  principal: Principal,
  postId: string,
  seen?: string,
): Promise<PostView> {
  requireReviewer(principal);
  const post = await heldPost(deps, principal, postId, 'approved');
  requireSeenVersion(post, seen);
  const now = deps.now();
  const overdue = !post.isDraft && post.dateTime !== null && post.dateTime <= now;
  await deps.repos.inTransaction(async (repos) => {
    // An overdue post leaves the queue (its slot is gone) and goes out now.
    if (!(await repos.teamPosts.approve(principal.accountId, postId, post.updatedAt, now, overdue ? now : undefined))) {
      throw decidedMeanwhile(postId);
    }
    const decided = { version: contentVersion(post), reviewerUserId: principal.userId };
    const when = overdue ? { publishesNow: true, dateTime: toWireTime(now) } : { dateTime: toWireTime(post.dateTime) };
    await recordPostEvents({ ...deps, repos }, principal.accountId, principal, [
      { postId, kind: 'approved', details: { ...when, ...decided } },
    ]);
    await recordPostEventById(repos, now, 'approval.approved', principal.accountId, postId, {
      reviewerUserId: principal.userId,
    });
  });
  return toPostView((await deps.repos.posts.get(principal.accountId, postId))!);
}

export async function rejectPost(
  deps: DomainDeps,
  principal: Principal,
  postId: string,
  reason: string,
  seen?: string,
): Promise<PostView> {
  requireReviewer(principal);
  const trimmed = reason.trim();
  if (trimmed === '')
    throw new ValidationError('reason is required: say why the post is rejected', [
      { path: 'reason', message: 'Give a reason.' },
    ]);
  const post = await heldPost(deps, principal, postId, 'rejected');
  requireSeenVersion(post, seen);
  const now = deps.now();
  await deps.repos.inTransaction(async (repos) => {
    if (!(await repos.teamPosts.reject(principal.accountId, postId, post.updatedAt, trimmed, now))) {
      throw decidedMeanwhile(postId);
    }
    const decided = { version: contentVersion(post), reviewerUserId: principal.userId };
    await recordPostEvents({ ...deps, repos }, principal.accountId, principal, [
      { postId, kind: 'rejected', details: { reason: trimmed, ...decided } },
    ]);
    await recordPostEventById(repos, now, 'approval.rejected', principal.accountId, postId, {
      reason: trimmed,
      reviewerUserId: principal.userId,
    });
  });
  return toPostView((await deps.repos.posts.get(principal.accountId, postId))!);
}

export async function assignReviewer(
  deps: DomainDeps,
  principal: Principal,
  postId: string,
  reviewerUserId: string,
): Promise<PostView> {
  requireReviewer(principal);
  const post = await writablePost(deps, principal, postId);
  if (!(await deps.repos.teamPosts.isMember(post.workspaceId, reviewerUserId))) {
    throw new ValidationError(
      `User ${reviewerUserId} is not a member of the post's workspace; name a workspace member as reviewer.`,
      [{ path: 'reviewerUserId', message: 'Not a member of this workspace.' }],
    );
  }
  const now = deps.now();
  await deps.repos.inTransaction(async (repos) => {
    await repos.teamPosts.assignReviewer(principal.accountId, postId, reviewerUserId, now);
    await recordPostEvents({ ...deps, repos }, principal.accountId, principal, [
      { postId, kind: 'assigned', details: { reviewerUserId } },
    ]);
    await recordPostEventById(repos, now, 'approval.assigned', principal.accountId, postId, { reviewerUserId });
  });
  return toPostView((await deps.repos.posts.get(principal.accountId, postId))!);
}

/**
 * Approves or rejects each post in turn; a post that cannot be decided is reported in its result and the others go on.
 */
export async function decideApprovals(
  deps: DomainDeps,
  principal: Principal,
  input: { postIds: string[]; decision: 'approve' | 'reject'; reason?: string; versions?: Record<string, string> },
): Promise<BulkOutcome<BulkIdResult>> {
  requireReviewer(principal);
  if (input.decision === 'reject' && (input.reason ?? '').trim() === '') {
    throw new ValidationError('reason is required to reject: say why the posts are rejected', [
      { path: 'reason', message: 'Give a reason.' },
    ]);
  }
  return eachPostId(input.postIds, async (id) => {
    const seen = input.versions?.[id];
    if (input.decision === 'reject') await rejectPost(deps, principal, id, input.reason ?? '', seen);
    else await approvePost(deps, principal, id, seen);
  });
}
