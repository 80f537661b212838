/**
 * Settling an unconfirmed post by hand, once a person has looked at the network:
 * - only an `unconfirmed` post can be settled (anything else is a 409 saying what it is);
 * - "published": the post becomes published, with the permalink the person gives (an http(s) URL) if any;
 *   its first comment is not made, nor its thread's parts (the first part says so), since Herald cannot know the
 *   post's id on the network;
 * - "not published": the post becomes failed, saying a person checked; rescheduling it tries again;
 * - the unknown attempt is closed with what the person said, and the change records its event
 *   (post.published or post.failed) in the same transaction.
 */
import type { DomainDeps } from '../deps.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { recordPostEventById } from '../events/events.js';
import { requireScope, type Principal } from '../principal.js';
import { getPost } from './get-post.js';
import type { PostView } from './post-view.js';

export async function settleUnconfirmed(
  deps: DomainDeps,
  principal: Principal,
  postId: string,
  outcome: { published: true; permalinkUrl?: string } | { published: false },
): Promise<PostView> {
  requireScope(principal, 'manage_post');
  const post = await deps.repos.posts.get(principal.accountId, postId);
  if (!post) throw new NotFoundError(`No post ${postId} in this account.`);
  if (post.status !== 'unconfirmed')
    throw new ConflictError(
      'post_not_unconfirmed',
      `Post ${postId} is ${post.status}; only an unconfirmed post can be marked by hand.`,
    );
  const now = deps.now();
  const attempt = await deps.repos.publishAttempts.lastUnknownAttempt(postId);
  await deps.repos.inTransaction(async (repos) => {
    if (outcome.published) {
      const permalinkUrl = outcome.permalinkUrl?.trim() ?? '';
      if (permalinkUrl && !/^https?:\/\/\S+$/.test(permalinkUrl)) {
        throw new ValidationError("permalinkUrl must be the post's http(s) address on the network.", [
          { path: 'permalinkUrl', message: 'Paste the address of the post on the network.' },
        ]);
      }
      const changed = await repos.publishing.confirmPublished(
        postId,
        {
          accountId: post.accountId,
          channelId: post.channelId,
          networkPostId: `confirmed-by-hand:${postId}`,
          permalinkUrl: permalinkUrl || null,
          publishedAt: now,
        },
        {
          idempotencyKey: attempt?.idempotencyKey ?? '',
          outcome: 'reconciled',
          detail: 'marked published by a person who checked the network',
          at: now,
        },
      );
      if (!changed) throw new ConflictError('post_not_unconfirmed', `Post ${postId} changed meanwhile; reload it.`);
      if (post.thread?.length) {
        const error =
          "The thread's parts were not sent: Herald cannot know the post's id on the network, which they " +
          'reply to. Post them as replies on the network, or duplicate the post.';
        await repos.posts.setThread(post.accountId, postId, [{ ...post.thread[0], error }, ...post.thread.slice(1)]);
      }
      await recordPostEventById(repos, now, 'post.published', post.accountId, postId, {
        permalinkUrl: permalinkUrl || null,
      });
    } else {
      const reason = 'A person checked the network and found this post missing; reschedule it to try again.';
      const changed = await repos.publishing.markUnconfirmedFailed(
        postId,
        reason,
        attempt && {
          idempotencyKey: attempt.idempotencyKey,
          outcome: 'permanent',
          detail: 'marked not published by a person who checked the network',
          at: now,
        },
      );
      if (!changed) throw new ConflictError('post_not_unconfirmed', `Post ${postId} changed meanwhile; reload it.`);
      await recordPostEventById(repos, now, 'post.failed', post.accountId, postId, { reason });
    }
  });
  return getPost(deps, principal, postId);
}
