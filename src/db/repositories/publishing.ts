import type { Knex } from 'knex';
import type { Db } from '../connection.js';
import { isPostgres } from '../connection.js';
import type { ChannelRecord } from './channels.js';
import { toPost, toRow, type PostRecord } from './posts.js';
import { bool, jsonText } from './rows.js';

export type AttemptKind = 'publish' | 'comment';
export type AttemptOutcome = 'published' | 'retryable' | 'permanent' | 'unknown' | 'reconciled';

export interface PublishAttemptRecord {
  postId: string;
  accountId: string;
  kind: AttemptKind;
  number: number;
  idempotencyKey: string;
  workerId: string;
  startedAt: number;
  finishedAt: number | null;
  outcome: AttemptOutcome | null;
  detail: string | null;
}

export interface FirstCommentStepRecord {
  postId: string;
  accountId: string;
  channelId: string;
  status: 'pending' | 'done' | 'failed';
  dueAt: number;
  attempts: number;
  networkCommentId: string | null;
  lastError: string | null;
}

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
  permalinkUrl: string;
  publishedAt: number;
  /** Set when the post has a first comment that applies on its network. */
  firstCommentDueAt?: number;
}

/**
 * The publishing queue. The posts table is the queue: a worker claims due posts by writing its id and a
 * lease on them; every later write is guarded by that claim, so a worker that lost its lease changes nothing.
 * These queries span accounts on purpose: the worker serves the whole instance.
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

  async channel(channelId: string): Promise<ChannelRecord | undefined> {
    const row = await this.db('channels').where({ id: channelId }).first();
    return row && {
      id: row.id, accountId: row.account_id, workspaceId: row.workspace_id, network: row.network, handle: row.handle,
      name: row.name, timezone: row.timezone, queuePaused: bool(row.queue_paused), createdAt: Number(row.created_at),
    };
  }

  /** Every channel of the instance, a page at a time by id (live-post sync). */
  async channelsAfter(afterId: string, limit: number): Promise<ChannelRecord[]> {
    const rows = await this.db('channels').where('id', '>', afterId).orderBy('id').limit(limit);
    return rows.map((row) => ({
      id: row.id, accountId: row.account_id, workspaceId: row.workspace_id, network: row.network, handle: row.handle,
      name: row.name, timezone: row.timezone, queuePaused: bool(row.queue_paused), createdAt: Number(row.created_at),
    }));
  }

  /** The attempt a worker started and never finished: its outcome is unknown. */
  async unfinishedAttempt(postId: string, kind: AttemptKind): Promise<PublishAttemptRecord | undefined> {
    const row = await this.db('publish_attempts').where({ post_id: postId, kind }).whereNull('finished_at').orderBy('seq', 'desc').first();
    return row && toAttempt(row);
  }

  /** Publish attempts of several posts at once (a page of posts), oldest first per post. */
  async attemptsByPost(accountId: string, postIds: readonly string[]): Promise<Map<string, PublishAttemptRecord[]>> {
    const byPost = new Map<string, PublishAttemptRecord[]>();
    if (postIds.length === 0) return byPost;
    const rows = await this.db('publish_attempts').where({ account_id: accountId, kind: 'publish' }).whereIn('post_id', postIds).orderBy('seq');
    for (const row of rows) {
      const attempt = toAttempt(row);
      byPost.set(attempt.postId, [...(byPost.get(attempt.postId) ?? []), attempt]);
    }
    return byPost;
  }

  /** A post's publish attempts, oldest first (first-comment attempts are the comment step's own). */
  async attempts(accountId: string, postId: string): Promise<PublishAttemptRecord[]> {
    const rows = await this.db('publish_attempts').where({ account_id: accountId, post_id: postId, kind: 'publish' }).orderBy('seq');
    return rows.map(toAttempt);
  }

  /** The newest attempt whose outcome was left unknown (reconciling an unconfirmed post later). */
  async lastUnknownAttempt(postId: string): Promise<PublishAttemptRecord | undefined> {
    const row = await this.db('publish_attempts').where({ post_id: postId, kind: 'publish', outcome: 'unknown' }).orderBy('seq', 'desc').first();
    return row && toAttempt(row);
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

  async finishAttempt(idempotencyKey: string, outcome: AttemptOutcome, detail: string | null, at: number): Promise<void> {
    await this.db('publish_attempts').where({ idempotency_key: idempotencyKey }).update({ outcome, detail, finished_at: at });
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

  /** Which of these idempotency keys belong to Herald's own attempts. */
  async knownAttemptKeys(keys: readonly string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows = await this.db('publish_attempts').whereIn('idempotency_key', keys).select('idempotency_key');
    return new Set(rows.map((row: { idempotency_key: string }) => row.idempotency_key));
  }

  /** Claims due first-comment steps (pending, due, lease free or expired). */
  async claimDueComments(workerId: string, now: number, leaseMs: number, limit: number): Promise<FirstCommentStepRecord[]> {
    const pg = isPostgres(this.db);
    const due = `
      SELECT s.post_id FROM first_comment_steps s
      WHERE s.status = 'pending' AND s.due_at <= ? AND (s.lease_expires_at IS NULL OR s.lease_expires_at < ?)
      ORDER BY s.due_at LIMIT ?${pg ? ' FOR UPDATE OF s SKIP LOCKED' : ''}`;
    const result = await this.db.raw(
      `UPDATE first_comment_steps SET claimed_by = ?, lease_expires_at = ?, attempts = attempts + 1 WHERE post_id IN (${due}) RETURNING *`,
      [workerId, now + leaseMs, now, now, limit],
    );
    const rows: any[] = pg ? result.rows : result;
    return rows.map(toStep);
  }

  async commentStep(postId: string): Promise<FirstCommentStepRecord | undefined> {
    const row = await this.db('first_comment_steps').where({ post_id: postId }).first();
    return row && toStep(row);
  }

  /** Extends a claim still held by this worker; false when the claim was lost. */
  async renewLease(postId: string, workerId: string, leaseExpiresAt: number): Promise<boolean> {
    const n = await this.db('posts').where({ id: postId, claimed_by: workerId, status: 'publishing' }).update({ lease_expires_at: leaseExpiresAt });
    return n > 0;
  }

  /** Extends a first-comment step's claim still held by this worker; false when the claim was lost. */
  async renewCommentLease(postId: string, workerId: string, leaseExpiresAt: number): Promise<boolean> {
    const n = await this.db('first_comment_steps').where({ post_id: postId, claimed_by: workerId }).update({ lease_expires_at: leaseExpiresAt });
    return n > 0;
  }

  async recordCommentAttempt(attempt: PublishAttemptRecord): Promise<void> {
    await this.db('publish_attempts').insert(attemptRow(attempt));
  }

  async finishComment(postId: string, workerId: string, changes: { status: 'pending' | 'done' | 'failed'; dueAt?: number; networkCommentId?: string; lastError?: string | null }): Promise<void> {
    await this.db('first_comment_steps').where({ post_id: postId, claimed_by: workerId }).update({
      status: changes.status,
      ...(changes.dueAt !== undefined ? { due_at: changes.dueAt } : {}),
      ...(changes.networkCommentId !== undefined ? { network_comment_id: changes.networkCommentId } : {}),
      ...(changes.lastError !== undefined ? { last_error: changes.lastError } : {}),
      claimed_by: null,
      lease_expires_at: null,
    });
  }

  /** Herald's own published posts on a channel with these network ids. */
  async ownByNetworkIds(channelId: string, networkPostIds: readonly string[]): Promise<PostRecord[]> {
    if (networkPostIds.length === 0) return [];
    const rows = await this.db('posts').where({ channel_id: channelId }).whereIn('network_post_id', networkPostIds);
    return rows.map(toPost);
  }

  /** Stores posts found on the network; a post another worker stored first is left as it is. */
  async insertLivePosts(records: PostRecord[]): Promise<void> {
    if (records.length === 0) return;
    await this.db('posts').insert(records.map(toRow)).onConflict(['channel_id', 'network_post_id']).ignore();
  }

  /** How many of an account's posts are in this state (tests and the benchmark watch the queue drain). */
  async countByStatus(accountId: string, status: string): Promise<number> {
    const [row] = await this.db('posts').where({ account_id: accountId, status }).count<{ n: number | string }[]>({ n: '*' });
    return Number(row.n);
  }

  async countAttempts(accountId: string): Promise<number> {
    const [row] = await this.db('publish_attempts').where({ account_id: accountId, kind: 'publish' }).count<{ n: number | string }[]>({ n: '*' });
    return Number(row.n);
  }

  async setMetrics(postId: string, metrics: Record<string, number>, now: number): Promise<void> {
    await this.db('posts').where({ id: postId }).update({ metrics: jsonText(metrics), updated_at: now });
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

function attemptRow(a: PublishAttemptRecord): Record<string, unknown> {
  return {
    post_id: a.postId, account_id: a.accountId, kind: a.kind, number: a.number, idempotency_key: a.idempotencyKey,
    worker_id: a.workerId, started_at: a.startedAt, finished_at: a.finishedAt, outcome: a.outcome, detail: a.detail,
  };
}

function toAttempt(row: any): PublishAttemptRecord {
  return {
    postId: row.post_id, accountId: row.account_id, kind: row.kind, number: row.number, idempotencyKey: row.idempotency_key,
    workerId: row.worker_id, startedAt: Number(row.started_at), finishedAt: row.finished_at === null ? null : Number(row.finished_at),
    outcome: row.outcome, detail: row.detail,
  };
}

function toStep(row: any): FirstCommentStepRecord {
  return {
    postId: row.post_id, accountId: row.account_id, channelId: row.channel_id, status: row.status, dueAt: Number(row.due_at),
    attempts: row.attempts, networkCommentId: row.network_comment_id, lastError: row.last_error,
  };
}
