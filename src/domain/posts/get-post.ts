/**
 * Reading one post, and the group it was made in:
 * - A post of another account is not found, never told apart from one that does not exist.
 * - A post's group is every post that shares its `groupId` (made together, or added by PATCH `channelIds`), the
 *   post itself first; a post made alone, or a live post, is a group of one.
 */
import type { DomainDeps } from '../deps.js';
import type { Principal } from '../principal.js';
import { notFound } from './post-rules.js';
import { toPostReadView, toPostView, type PostView } from './post-view.js';

export async function getPost(deps: DomainDeps, principal: Principal, id: string): Promise<PostView> {
  const post = await deps.repos.posts.get(principal.accountId, id);
  if (!post) throw notFound(id);
  return toPostReadView(
    post,
    post.isLive ? [] : await deps.repos.publishAttempts.attempts(principal.accountId, post.id),
  );
}

export async function getPostGroup(deps: DomainDeps, principal: Principal, id: string): Promise<PostView[]> {
  const post = await deps.repos.posts.get(principal.accountId, id);
  if (!post) throw notFound(id);
  const group = post.groupId && !post.isLive ? await deps.repos.posts.listGroup(principal.accountId, post.groupId) : [];
  return [post, ...group.filter((p) => p.id !== post.id)].map(toPostView);
}
