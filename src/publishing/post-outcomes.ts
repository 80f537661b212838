/**
 * The end states of a claimed post, each written with its event in one transaction (the outbox):
 * published (with its permalink), failed (with the reason), unconfirmed (with the reason). Guarded by the
 * claim like every worker write: a worker that lost the post writes neither the state nor the event.
 */
import type { PostRecord } from '../db/repositories/posts.js';
import type { AttemptResult, PublishedChanges } from '../db/repositories/publishing.js';
import { recordPostEventById, recordPostEvents } from '../domain/events/events.js';
import type { WorkerRuntime } from './runtime.js';

export async function markPublished(
  rt: WorkerRuntime,
  post: PostRecord,
  changes: PublishedChanges,
  attempt: AttemptResult,
): Promise<boolean> {
  return rt.ctx.deps.repos.inTransaction(async (repos) => {
    if (!(await repos.publishing.markPublished(post.id, rt.options.workerId, changes, attempt))) return false;
    await recordPostEventById(repos, attempt.at, 'post.published', post.accountId, post.id, {
      permalinkUrl: changes.permalinkUrl,
    });
    return true;
  });
}

/** An unconfirmed post found on the network after all (it held no claim: reconciliation runs on sync). */
export async function confirmPublished(
  rt: WorkerRuntime,
  post: PostRecord,
  changes: PublishedChanges,
  attempt: AttemptResult,
): Promise<boolean> {
  return rt.ctx.deps.repos.inTransaction(async (repos) => {
    if (!(await repos.publishing.confirmPublished(post.id, changes, attempt))) return false;
    await recordPostEventById(repos, attempt.at, 'post.published', post.accountId, post.id, {
      permalinkUrl: changes.permalinkUrl,
    });
    return true;
  });
}

export async function finishPost(
  rt: WorkerRuntime,
  post: PostRecord,
  status: 'failed' | 'unconfirmed',
  reason: string,
  now: number,
  attempt?: AttemptResult,
): Promise<boolean> {
  return rt.ctx.deps.repos.inTransaction(async (repos) => {
    if (!(await repos.publishing.finish(post.id, rt.options.workerId, status, reason, now, attempt))) return false;
    await recordPostEventById(
      repos,
      now,
      status === 'failed' ? 'post.failed' : 'post.unconfirmed',
      post.accountId,
      post.id,
      { reason },
    );
    return true;
  });
}

export interface PublishedResult {
  post: PostRecord;
  changes: PublishedChanges;
  attempt: AttemptResult;
}

/**
 * markPublished for many posts in one transaction: the posts still held, their attempts, comment steps and
 * events. Each event carries the post as it now is, built from the claimed post and its changes (the same
 * row a read would give) with its labels read once for the batch. Returns the ids of the posts written.
 */
export async function markManyPublished(rt: WorkerRuntime, results: readonly PublishedResult[]): Promise<Set<string>> {
  return rt.ctx.deps.repos.inTransaction(async (repos) => {
    const held = await repos.publishing.markManyPublished(
      rt.options.workerId,
      results.map(({ post, changes, attempt }) => ({ postId: post.id, changes, attempt })),
    );
    const written = results.filter(({ post }) => held.has(post.id));
    const posts = await repos.posts.withLabels(
      written.map(({ post, changes }) => ({
        ...post,
        status: 'published',
        networkPostId: changes.networkPostId,
        permalinkUrl: changes.permalinkUrl,
        publishedAt: changes.publishedAt,
        updatedAt: changes.publishedAt,
        lastError: null,
      })),
    );
    await recordPostEvents(
      repos,
      posts.map((post, i) => ({
        at: written[i].attempt.at,
        type: 'post.published',
        post,
        facts: { permalinkUrl: written[i].changes.permalinkUrl },
      })),
    );
    return held;
  });
}
