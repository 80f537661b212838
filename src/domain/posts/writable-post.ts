import type { PostRecord } from '../../db/repositories/posts.js';
import type { DomainDeps } from '../deps.js';
import { LivePostReadOnlyError } from '../errors.js';
import { isLivePostId } from '../ids.js';
import type { Principal } from '../principal.js';
import { notFound } from './post-rules.js';

/** The post a write is aimed at: live posts are refused with an explanation before any lookup. */
export async function writablePost(deps: DomainDeps, principal: Principal, id: string): Promise<PostRecord> {
  if (isLivePostId(id)) throw new LivePostReadOnlyError(id);
  const post = await deps.repos.posts.get(principal.accountId, id);
  if (!post) throw notFound(id);
  if (post.isLive) throw new LivePostReadOnlyError(id);
  return post;
}
