import type { RestHandlers } from '../../generated/rest/handlers.js';
import type { DomainDeps } from '../domain/deps.js';
import { getProfile, listChannels, listWorkspaces } from '../domain/directory.js';
import type { Principal } from '../domain/principal.js';
import { bulkCreatePosts } from '../domain/posts/bulk-create-posts.js';
import { createPosts } from '../domain/posts/create-posts.js';
import { bulkDeletePosts, deletePost } from '../domain/posts/delete-posts.js';
import { getPost } from '../domain/posts/get-post.js';
import { listPosts, listScheduledPosts } from '../domain/posts/list-posts.js';
import { updatePost } from '../domain/posts/update-post.js';

export interface RestContext {
  principal: Principal;
}

/** Maps each REST operation to its domain call; no rules live here. */
export function restHandlers(deps: DomainDeps): RestHandlers<RestContext> {
  return {
    getProfile: async (_req, { principal }) => ({ status: 200, body: await getProfile(deps, principal) }),
    createPostLegacy: async (req, { principal }) => ({ status: 201, body: { data: await createPosts(deps, principal, req.body, 'api') } }),
    listChannels: async (_req, { principal }) => ({ status: 200, body: { data: await listChannels(deps, principal) } }),
    listWorkspaces: async (_req, { principal }) => ({ status: 200, body: { data: await listWorkspaces(deps, principal) } }),
    createPosts: async (req, { principal }) => ({ status: 201, body: { data: await createPosts(deps, principal, req.body, 'api') } }),
    listPosts: async (req, { principal }) => ({ status: 200, body: await listPosts(deps, principal, req.query) }),
    listScheduledPosts: async (req, { principal }) => ({ status: 200, body: await listScheduledPosts(deps, principal, req.query) }),
    bulkCreatePosts: async (req, { principal }) => ({ status: 200, body: await bulkCreatePosts(deps, principal, req.body.posts, 'bulk') }),
    bulkDeletePosts: async (req, { principal }) => ({
      status: 200,
      body: await bulkDeletePosts(deps, principal, req.body.postIds, req.body.dryRun ?? false),
    }),
    getPost: async (req, { principal }) => ({ status: 200, body: { data: await getPost(deps, principal, req.params.postId) } }),
    updatePost: async (req, { principal }) => ({ status: 200, body: { data: await updatePost(deps, principal, req.params.postId, req.body) } }),
    deletePost: async (req, { principal }) => ({ status: 200, body: { data: await deletePost(deps, principal, req.params.postId) } }),
  };
}
