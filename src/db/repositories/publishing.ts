import type { Knex } from 'knex';
import type { Db } from '../connection.js';
import { isPostgres } from '../connection.js';
import { toPost, toRow, type PostRecord } from './posts.js';
import { attemptRow, type AttemptOutcome, type PublishAttemptRecord } from './publish-attempts.js';

export interface ClaimedPost {
  post: PostRecord;
  /** Attempts made so far; the next one is number attemptCount + 1. */
  attemptCount: number;
}

/** The outcome written to an attempt in the same transaction as the post's new state. */
export interface AttemptResult {
  idempotencyKey: string;
  outcome: AttemptOutcome;
  detail: string | null;
  at: number;
}

export interface PublishedChanges {
  accountId: string;
  channelId: string;
  networkPostId: string;
  permalinkUrl: string | null;
  publishedAt: number;
  /** Set when the post has a first comment that applies on its network. */
  firstCommentDueAt?: number;
}

/**
 * The publishing queue. The posts table is the queue: a worker claims due posts by writing its id and a
 * lease on them; every later write is guarded by that claim, so a worker that lost its lease changes nothing.
 * A post's new state, its attempt's outcome and its first-comment step are written in one transaction.
 * These queries span accounts on purpose: the worker serves the whole instance. Attempts, comment steps
 * and live posts have their own repositories (publish-attempts.ts, comment-steps.ts, live-posts.ts).
 */
export class PublishingRepository {
  constructor(private readonly db: Db) {}

  /**
   * Claims up to `limit` posts: scheduled, due, not a draft or live post, needing no approval or with a
   * decision in `releasingApprovals` (the domain's rule, approvals/approval-holds.ts),
   * past any retry back-off, on a channel whose queue is not paused; plus posts whose worker's lease expired.
   * Postgres: FOR UPDATE SKIP LOCKED, so concurrent workers each take different rows without waiting.
   * SQLite: one UPDATE ... RETURNING statement, atomic under SQLite's single writer.
   */
  async claimDue(workerId: string, now: number, leaseMs: number, limit: number, releasingApprovals: readonly string[]): Promise<ClaimedPost[]> {
    const pg = isPostgres(this.db);
    const due = `
      SELECT p.id FROM posts p JOIN channels c ON c.id = p.channel_id
      WHERE c.queue_paused = false AND p.is_live = false AND (
        (p.status = 'scheduled' AND p.is_draft = false AND p.date_time <= ?
          AND (p.approval_status IS NULL OR p.approval_status IN (${releasingApprovals.map(() => '?').join(', ') || 'NULL'}))
          AND (p.next_attempt_at IS NULL OR p.next_attempt_at <= ?))
        OR (p.status = 'publishing' AND p.lease_expires_at < ?))
      ORDER BY p.date_time, p.id LIMIT ?${pg ? ' FOR UPDATE OF p SKIP LOCKED' : ''}`;
    const result = await this.db.raw(
      `UPDATE posts SET status = 'publishing', claimed_by = ?, lease_expires_at = ? WHERE id IN (${due}) RETURNING *`,
      [workerId, now + leaseMs, now, ...releasingApprovals, now, now, limit],
    );
    const rows: any[] = pg ? result.rows : result;
    return rows
      .map((row) => ({ post: toPost(row), attemptCount: Number(row.attempt_count) }))
      .sort((a, b) => (a.post.dateTime ?? 0) - (b.post.dateTime ?? 0) || (a.post.id < b.post.id ? -1 : 1));
  }

  /** Puts claimed posts the worker did not start back in the queue (graceful shutdown). */
  async release(workerId: string, postIds: readonly string[]): Promise<void> {
    if (postIds.length === 0) return;
    await this.db('posts')
      .whereIn('id', postIds)
      .where({ claimed_by: workerId, status: 'publishing' })
      .update({ status: 'scheduled', claimed_by: null, lease_expires_at: null });
  }

  /**
   * Records an attempt before the network call, while the worker still holds the post; false when the
   * claim was lost (lease expired and another worker took it), in which case nothing may be sent.
   */
  async startAttempt(attempt: PublishAttemptRecord, leaseExpiresAt: number): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const held = await trx('posts')
        .where({ id: attempt.postId, claimed_by: attempt.workerId, status: 'publishing' })
        .update({ attempt_count: attempt.number, lease_expires_at: leaseExpiresAt });
      if (held === 0) return false;
      await trx('publish_attempts').insert(attemptRow(attempt));
      return true;
    });
  }

  async markPublished(postId: string, workerId: string, changes: PublishedChanges, attempt: AttemptResult): Promise<boolean> {
    // Write first: on SQLite a transaction that reads before writing cannot wait for another process's lock.
    return this.db.transaction(async (trx) => {
      const n = await trx('posts').where({ id: postId, claimed_by: workerId, status: 'publishing' }).update({
        ...toRow({
          status: 'published', networkPostId: changes.networkPostId, permalinkUrl: changes.permalinkUrl,
          publishedAt: changes.publishedAt, lastError: null, updatedAt: changes.publishedAt,
        }),
        claimed_by: null, lease_expires_at: null, next_attempt_at: null,
      });
      if (n === 0) return false;
      await finishAttemptIn(trx, attempt);
      await insertCommentStep(trx, postId, changes);
      return true;
    });
  }

  /** Back to the queue after a retryable error, not claimed again before `nextAttemptAt`. */
  async reschedule(postId: string, workerId: string, nextAttemptAt: number, lastError: string, attempt: AttemptResult): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const n = await trx('posts').where({ id: postId, claimed_by: workerId, status: 'publishing' }).update({
        status: 'scheduled', claimed_by: null, lease_expires_at: null, next_attempt_at: nextAttemptAt, last_error: lastError, updated_at: attempt.at,
      });
      if (n > 0) await finishAttemptIn(trx, attempt);
      return n > 0;
    });
  }

  /** Back to the queue when nothing was sent (media could not be checked yet). */
  async rescheduleUnattempted(postId: string, workerId: string, nextAttemptAt: number, lastError: string, now: number): Promise<boolean> {
    const n = await this.db('posts').where({ id: postId, claimed_by: workerId, status: 'publishing' }).update({
      status: 'scheduled', claimed_by: null, lease_expires_at: null, next_attempt_at: nextAttemptAt, last_error: lastError, updated_at: now,
      attempt_count: this.db.raw('attempt_count + 1'),
    });
    return n > 0;
  }

  /** Puts a claimed post back until `at` without counting an attempt (its channel's rate limit is spent). */
  async waitUntil(postId: string, workerId: string, at: number, lastError: string, now: number): Promise<boolean> {
    const n = await this.db('posts').where({ id: postId, claimed_by: workerId, status: 'publishing' }).update({
      status: 'scheduled', claimed_by: null, lease_expires_at: null, next_attempt_at: at, last_error: lastError, updated_at: now,
    });
    return n > 0;
  }

  /** Ends the post as failed or unconfirmed, with the reason people will read. */
  async finish(postId: string, workerId: string, status: 'failed' | 'unconfirmed', lastError: string, now: number, attempt?: AttemptResult): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const n = await trx('posts').where({ id: postId, claimed_by: workerId, status: 'publishing' }).update({
        status, claimed_by: null, lease_expires_at: null, next_attempt_at: null, last_error: lastError, updated_at: now,
      });
      if (n > 0 && attempt) await finishAttemptIn(trx, attempt);
      return n > 0;
    });
  }

  /** Unconfirmed posts, oldest first, for reconciling against the network again. */
  async unconfirmed(limit: number): Promise<PostRecord[]> {
    const rows = await this.db('posts').where({ status: 'unconfirmed', is_live: false }).orderBy('id').limit(limit);
    return rows.map(toPost);
  }

  /** An unconfirmed post found on the network after all. */
  async confirmPublished(postId: string, changes: PublishedChanges, attempt: AttemptResult): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const n = await trx('posts').where({ id: postId, status: 'unconfirmed' }).update(toRow({
        status: 'published', networkPostId: changes.networkPostId, permalinkUrl: changes.permalinkUrl,
        publishedAt: changes.publishedAt, lastError: null, updatedAt: changes.publishedAt,
      }));
      if (n === 0) return false;
      await finishAttemptIn(trx, attempt);
      await insertCommentStep(trx, postId, changes);
      return true;
    });
  }

  /** An unconfirmed post a person checked and found missing on the network: failed, with their words. */
  async markUnconfirmedFailed(postId: string, lastError: string, attempt: AttemptResult | undefined): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const n = await trx('posts').where({ id: postId, status: 'unconfirmed' }).update(toRow({ status: 'failed', lastError, updatedAt: attempt?.at ?? null }));
      if (n === 0) return false;
      if (attempt) await finishAttemptIn(trx, attempt);
      return true;
    });
  }

  /** Extends a claim still held by this worker; false when the claim was lost. */
  async renewLease(postId: string, workerId: string, leaseExpiresAt: number): Promise<boolean> {
    const n = await this.db('posts').where({ id: postId, claimed_by: workerId, status: 'publishing' }).update({ lease_expires_at: leaseExpiresAt });
    return n > 0;
  }

}

async function insertCommentStep(trx: Knex.Transaction, postId: string, changes: PublishedChanges): Promise<void> {
  if (changes.firstCommentDueAt === undefined) return;
  await trx('first_comment_steps')
    .insert({ post_id: postId, account_id: changes.accountId, channel_id: changes.channelId, status: 'pending', due_at: changes.firstCommentDueAt, attempts: 0 })
    .onConflict('post_id').ignore();
}

async function finishAttemptIn(trx: Knex.Transaction, attempt: AttemptResult): Promise<void> {
  await trx('publish_attempts').where({ idempotency_key: attempt.idempotencyKey }).update({ outcome: attempt.outcome, detail: attempt.detail, finished_at: attempt.at });
}

