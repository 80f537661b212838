import { approvePost, assignReviewer, listPendingApprovals, rejectPost } from '../../domain/approvals/approvals.js';
import type { DomainDeps } from '../../domain/deps.js';
import { bulkDeletePosts } from '../../domain/posts/delete-posts.js';
import type { AreaTools } from './context.js';

export function approvalTools(deps: DomainDeps): AreaTools {
  return {
    approval_list_pending: async (args, { principal }) => ({ data: await listPendingApprovals(deps, principal, args) }),
    approval_approve: async ({ postId, version }, { principal }) => ({
      data: await approvePost(deps, principal, postId, version),
    }),
    approval_reject: async ({ postId, reason, version }, { principal }) => ({
      data: await rejectPost(deps, principal, postId, reason, version),
    }),
    approval_assign: async ({ postId, reviewerUserId }, { principal }) => ({
      data: await assignReviewer(deps, principal, postId, reviewerUserId),
    }),
    // The MCP contract reports only until dryRun false is sent (SPEC); the schema defaults it to true.
    bulk_delete: async ({ postIds, dryRun }, { principal }) =>
      bulkDeletePosts(deps, principal, postIds, dryRun ?? true),
  };
}
