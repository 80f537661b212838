import type { DomainDeps } from '../../domain/deps.js';
import { bulkCreatePosts } from '../../domain/posts/bulk-create-posts.js';
import { createMediaPosts, createPosts } from '../../domain/posts/create-posts.js';
import { deletePost } from '../../domain/posts/delete-posts.js';
import {
  listPosts,
  listPostsForChannels,
  listPostsWithAssets,
  listScheduledPosts,
} from '../../domain/posts/list-posts.js';
import { updatePost } from '../../domain/posts/update-post.js';
import type { AreaTools } from './context.js';

/** Posts made through MCP carry sourceType 'mcp'. */
export function postTools(deps: DomainDeps): AreaTools {
  return {
    create_text_post: async (args, { principal }) => ({ data: await createPosts(deps, principal, args, 'mcp') }),
    create_image_post: async (args, { principal }) => ({ data: await createMediaPosts(deps, principal, args, 'mcp') }),
    update_post: async ({ postId, ...changes }, { principal }) => ({
      data: await updatePost(deps, principal, postId, changes),
    }),
    delete_post: async ({ postId }, { principal }) => deletePost(deps, principal, postId),
    bulk_schedule: async ({ posts }, { principal, progress }) =>
      bulkCreatePosts(deps, principal, posts, 'mcp', progress),
    get_paginated_posts: async (query, { principal }) => listPosts(deps, principal, query),
    get_posts_for_channels: async (query, { principal }) => listPostsForChannels(deps, principal, query),
    get_posts_with_assets: async (query, { principal }) => listPostsWithAssets(deps, principal, query),
    get_scheduled_posts: async (query, { principal }) => listScheduledPosts(deps, principal, query),
    instagram_first_comment: async ({ postId, ...firstComment }, { principal }) => ({
      data: await updatePost(deps, principal, postId, { firstComment }),
    }),
  };
}
