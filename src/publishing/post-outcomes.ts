/**
 * The end states of a claimed post, each written with its event in one transaction (the outbox):
 * published (with its permalink), failed (with the reason), unconfirmed (with the reason). Guarded by the
 * claim like every worker write: a worker that lost the post writes neither the state nor the event.
 */
import type { PostRecord } from '../db/repositories/posts.js';
import type { AttemptResult, PublishedChanges } from '../db/repositories/publishing.js';
import { recordPostEventById } from '../domain/events/events.js';
import type { WorkerRuntime } from './runtime.js';

export async function markPublished(rt: WorkerRuntime, post: PostRecord, changes: PublishedChanges, attempt: AttemptResult): Promise<boolean> {
  return rt.ctx.deps.repos.inTransaction(async (repos) => {
    if (!(await repos.publishing.markPublished(post.id, rt.options.workerId, changes, attempt))) return false;
    await recordPostEventById(repos, attempt.at, 'post.published', post.accountId, post.id, { permalinkUrl: changes.permalinkUrl });
    return true;
  });
}

/** An unconfirmed post found on the network after all (it held no claim: reconciliation runs on sync). */
export async function confirmPublished(rt: WorkerRuntime, post: PostRecord, changes: PublishedChanges, attempt: AttemptResult): Promise<boolean> {
  return rt.ctx.deps.repos.inTransaction(async (repos) => {
    if (!(await repos.publishing.confirmPublished(post.id, changes, attempt))) return false;
    await recordPostEventById(repos, attempt.at, 'post.published', post.accountId, post.id, { permalinkUrl: changes.permalinkUrl });
    return true;
  });
}

export async function finishPost(
  rt: WorkerRuntime, post: PostRecord, status: 'failed' | 'unconfirmed', reason: string, now: number, attempt?: AttemptResult,
): Promise<boolean> {
  return rt.ctx.deps.repos.inTransaction(async (repos) => {
    if (!(await repos.publishing.finish(post.id, rt.options.workerId, status, reason, now, attempt))) return false;
    await recordPostEventById(repos, now, status === 'failed' ? 'post.failed' : 'post.unconfirmed', post.accountId, post.id, { reason });
    return true;
  });
}
