/**
 * When the approval workflow holds a post, one rule for every path that makes a post meant to go out
 * (create, update leaving the drafts, queue, recycling) and for the engine that claims due posts:
 * - a post meant to go out in a workspace that requires approval is held as PENDING;
 * - a draft is not held until it leaves the drafts; a post that already has a decision keeps it;
 * - a post publishes only when it needs no approval (null) or was APPROVED (PENDING and REJECTED wait).
 */
import type { ApprovalStatus } from '../../db/repositories/posts.js';

export function approvalStatusFor(post: { isDraft: boolean; approvalRequired: boolean; current?: ApprovalStatus | null }): ApprovalStatus | null {
  if (post.current) return post.current;
  return !post.isDraft && post.approvalRequired ? 'PENDING' : null;
}

/** Decisions that release a post to the engine, beside needing no approval at all. */
export const RELEASING_APPROVALS: readonly ApprovalStatus[] = ['APPROVED'];
