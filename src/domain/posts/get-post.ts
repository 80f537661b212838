import type { DomainDeps } from '../deps.js';
import type { Principal } from '../principal.js';
import { notFound } from './post-rules.js';
import { toPostReadView, type PostView } from './post-view.js';

export async function getPost(deps: DomainDeps, principal: Principal, id: string): Promise<PostView> {
  const post = await deps.repos.posts.get(principal.accountId, id);
  if (!post) throw notFound(id);
  return toPostReadView(
    post,
    post.isLive ? [] : await deps.repos.publishAttempts.attempts(principal.accountId, post.id),
  );
}
