import type { PostRecord } from '../../db/repositories/posts.js';
import { eachPostId } from '../bulk.js';
import { writablePost } from './writable-post.js';
import type { DomainDeps } from '../deps.js';
import { ConflictError } from '../errors.js';
import { requireScope, type Principal } from '../principal.js';
import { recordPostEvent } from '../events/events.js';
import { recordPostEvents } from './post-history.js';
import { notFound } from './post-rules.js';

/** Removes a post from Herald; a published post stays on the network. Live posts are read only. */
export async function deletePost(
  deps: DomainDeps,
  principal: Principal,
  id: string,
): Promise<{ id: string; deleted: true }> {
  const post = await checkDeletable(deps, principal, id);
  await deps.repos.inTransaction(async (repos) => {
    if (!(await repos.posts.delete(principal.accountId, id))) throw notFound(id);
    await recordPostEvents({ ...deps, repos }, principal.accountId, principal, [{ postId: id, kind: 'deleted' }]);
    await recordPostEvent(repos, deps.now(), 'post.deleted', post);
  });
  return { id, deleted: true };
}

async function checkDeletable(deps: DomainDeps, principal: Principal, id: string): Promise<PostRecord> {
  const post = await writablePost(deps, principal, id);
  if (post.status === 'publishing') {
    throw new ConflictError('post_publishing', `Post ${id} is being published right now; try again in a few seconds.`);
  }
  return post;
}

/** Deletes many posts (manage_team). With dryRun nothing is removed and the results say what would be. */
export async function bulkDeletePosts(deps: DomainDeps, principal: Principal, postIds: string[], dryRun: boolean) {
  requireScope(principal, 'manage_team');
  const outcome = await eachPostId(postIds, async (id) => {
    if (dryRun) await checkDeletable(deps, principal, id);
    else await deletePost(deps, principal, id);
  });
  return { dryRun, ...outcome };
}
