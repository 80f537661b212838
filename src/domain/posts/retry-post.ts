/**
 * Trying a failed post again, now (POST /posts/{postId}/retry, the post page's "Try again now"):
 * - only a `failed` post can be retried (anything else is a 409 saying what it is; live posts are read only);
 * - it goes back in line to publish now, whatever time it was scheduled for, with its error cleared;
 * - it is an update (update-post.ts), so approval holds and network limits apply as on any update, and the
 *   change is in the post's history.
 */
import type { DomainDeps } from '../deps.js';
import { ConflictError } from '../errors.js';
import type { Principal } from '../principal.js';
import { updatePost } from './update-post.js';
import type { PostView } from './post-view.js';
import { writablePost } from './writable-post.js';

export async function retryFailedPost(deps: DomainDeps, principal: Principal, postId: string): Promise<PostView> {
  const post = await writablePost(deps, principal, postId);
  if (post.status !== 'failed') {
    throw new ConflictError(
      'post_not_failed',
      `Post ${postId} is ${post.status}; only a failed post can be tried again.`,
    );
  }
  const [retried] = (await updatePost(deps, principal, postId, { isScheduled: false })).filter((p) => p.id === postId);
  return retried;
}
