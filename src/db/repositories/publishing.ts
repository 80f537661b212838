import type { Knex } from 'knex';
import type { Db } from '../connection.js';
import { isPostgres } from '../connection.js';
import { toPost, toRow, type PostRecord, type PostRiskRecord } from './posts.js';
import { attemptRow, type AttemptOutcome, type PublishAttemptRecord } from './publish-attempts.js';
import { insertRows, jsonText } from './rows.js';

export interface ClaimedPost {
  post: PostRecord;
  /** Attempts made so far; the next one is number attemptCount + 1. */
  attemptCount: number;
}

/** What a rehearsal's finding is written under: the window's taking, or the worker's claim to publish. */
export type RehearsalHold = { rehearsedAt: number } | { claimedBy: string };

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
  /** Set when the post has a thread whose parts are to follow it on its network. */
  threadDueAt?: number;
}

/**
 * The publishing queue. The posts table is the queue: a worker claims due posts by writing its id and a
 * lease on them; every later write is guarded by that claim, so a worker that lost its lease changes nothing.
 * A post's new state, its attempt's outcome and its first-comment step are written in one transaction; an end state
 * drops the risk a rehearsal found (the attempt at the slot was the last rehearsal, and its outcome is the word).
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
  async claimDue(
    workerId: string,
    now: number,
    leaseMs: number,
    limit: number,
    releasingApprovals: readonly string[],
  ): Promise<ClaimedPost[]> {
    const pg = isPostgres(this.db);
    const approvals = releasingApprovals.map(() => '?').join(', ') || 'NULL';
    const scheduled = `p.status = 'scheduled' AND p.is_draft = false AND p.date_time <= ?
      AND (p.approval_status IS NULL OR p.approval_status IN (${approvals}))
      AND (p.next_attempt_at IS NULL OR p.next_attempt_at <= ?)`;
    const expired = `p.status = 'publishing' AND p.lease_expires_at < ?`;
    const from =
      'FROM posts p JOIN channels c ON c.id = p.channel_id WHERE c.queue_paused = false AND p.is_live = false';
    // SQLite: each kind in due order on its own, so the scheduled posts stream from the (status, date_time, id)
    // index and stop at the limit; one OR over both sorted every due post on every claim (a burst of 10,000
    // posts, 40 claims). Postgres takes no FOR UPDATE across a UNION, and plans the OR well.
    const due = pg
      ? `SELECT p.id ${from} AND ((${scheduled}) OR (${expired})) ORDER BY p.date_time, p.id LIMIT ? FOR UPDATE OF p ` +
        'SKIP LOCKED'
      : `SELECT id FROM (
           SELECT * FROM (SELECT p.id, p.date_time ${from} AND ${scheduled} ORDER BY p.date_time, p.id LIMIT ?)
           UNION ALL SELECT * FROM (SELECT p.id, p.date_time ${from} AND ${expired} ORDER BY p.date_time, p.id LIMIT ?)
         ) ORDER BY date_time, id LIMIT ?`;
    const bindings = pg
      ? [now, ...releasingApprovals, now, now, limit]
      : [now, ...releasingApprovals, now, limit, now, limit, limit];
    const result = await this.db.raw(
      `UPDATE posts SET status = 'publishing', claimed_by = ?, lease_expires_at = ? WHERE id IN (${due}) RETURNING *`,
      [workerId, now + leaseMs, ...bindings],
    );
    const rows: any[] = pg ? result.rows : result;
    return rows
      .map((row) => ({ post: toPost(row), attemptCount: Number(row.attempt_count) }))
      .sort((a, b) => (a.post.dateTime ?? 0) - (b.post.dateTime ?? 0) || (a.post.id < b.post.id ? -1 : 1));
  }

  /**
   * Takes up to `limit` scheduled posts to rehearse before their slots (domain/posts/preflight.ts), marking them
   * rehearsed at `now` in the same statement: those due within `leadMs` not yet rehearsed for this window, those at
   * risk whose last rehearsal is `recheckMs` old, and those at risk edited since. Soonest first. Postgres: FOR UPDATE
   * SKIP LOCKED, so concurrent workers take different posts; SQLite: one UPDATE ... RETURNING under its one writer.
   * The window is a range of the (status, date_time, id) index and the posts at risk have an index of their own, so
   * a poll that finds nothing reads next to nothing.
   */
  async claimRehearsals(now: number, leadMs: number, recheckMs: number, limit: number): Promise<PostRecord[]> {
    const pg = isPostgres(this.db);
    const own = "p.status = 'scheduled' AND p.is_live = false AND p.is_draft = false";
    const window = `${own} AND p.date_time > ? AND p.date_time <= ?
      AND (p.rehearsed_at IS NULL OR (p.risk IS NOT NULL AND p.rehearsed_at <= ?))`;
    const edited = `${own} AND p.risk IS NOT NULL AND p.rehearsed_at IS NULL AND p.date_time > ?`;
    const due = pg
      ? `SELECT p.id FROM posts p WHERE (${window}) OR (${edited})
         ORDER BY p.date_time, p.id LIMIT ? FOR UPDATE OF p SKIP LOCKED`
      : `SELECT id FROM (
           SELECT * FROM (SELECT p.id, p.date_time FROM posts p WHERE ${window} ORDER BY p.date_time, p.id LIMIT ?)
           UNION
           SELECT * FROM (SELECT p.id, p.date_time FROM posts p WHERE ${edited} ORDER BY p.date_time, p.id LIMIT ?)
         ) ORDER BY date_time, id LIMIT ?`;
    const windowBindings = [now, now + leadMs, now - recheckMs];
    const bindings = pg ? [...windowBindings, now, limit] : [...windowBindings, limit, now, limit, limit];
    const sql = `UPDATE posts SET rehearsed_at = ? WHERE id IN (${due}) RETURNING *`;
    const result = await this.db.raw(sql, [now, ...bindings]);
    const rows: any[] = pg ? result.rows : result;
    return rows.map(toPost).sort((a, b) => (a.dateTime ?? 0) - (b.dateTime ?? 0) || (a.id < b.id ? -1 : 1));
  }

  /**
   * Writes a rehearsal's finding on a post taken at `rehearsedAt`, while it is still scheduled and untouched since
   * (an edit clears rehearsed_at, a later rehearsal changes it), or on a post this worker claimed to publish, while
   * it still holds it. Returns the post as written, or undefined.
   */
  async recordRisk(postId: string, taken: RehearsalHold, risk: PostRiskRecord | null): Promise<PostRecord | undefined> {
    const guard =
      'rehearsedAt' in taken ? `rehearsed_at = ? AND status = 'scheduled'` : `claimed_by = ? AND status = 'publishing'`;
    const result = await this.db.raw(`UPDATE posts SET risk = ? WHERE id = ? AND ${guard} RETURNING *`, [
      jsonText(risk),
      postId,
      'rehearsedAt' in taken ? taken.rehearsedAt : taken.claimedBy,
    ]);
    const rows: any[] = isPostgres(this.db) ? result.rows : result;
    return rows[0] && toPost(rows[0]);
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
   * Records attempts before their network calls, for a batch of this worker's claimed posts in one transaction:
   * the posts still held get their attempt number and lease (one statement), and only those get their attempt
   * rows (one more). Returns the ids of the posts held; nothing may be sent for the others (their lease expired
   * and another worker took them).
   */
  async startAttempts(
    workerId: string,
    attempts: readonly PublishAttemptRecord[],
    leaseExpiresAt: number,
  ): Promise<Set<string>> {
    if (attempts.length === 0) return new Set();
    return this.db.transaction(async (trx) => {
      const held = new Set<string>();
      for (const chunk of chunks(attempts)) {
        const numbers = valuesOf(chunk.map((a) => [a.postId, a.number]));
        const result = await trx.raw(
          `UPDATE posts SET attempt_count = CAST(v.column2 AS INTEGER), lease_expires_at = ? FROM ${numbers.sql}
           WHERE posts.id = v.column1 AND claimed_by = ? AND status = 'publishing' RETURNING id`,
          [leaseExpiresAt, ...numbers.bindings, workerId],
        );
        for (const row of rowsOf(trx, result)) held.add(row.id);
      }
      const rows = attempts.filter((a) => held.has(a.postId)).map(attemptRow);
      for (const chunk of chunks(rows)) await insertRows(trx, 'publish_attempts', chunk);
      return held;
    });
  }

  /**
   * markPublished for many posts of this worker at once, in one transaction: posts, attempts and first-comment
   * steps each in one statement. Returns the ids of the posts that were still held (only those changed).
   */
  async markManyPublished(
    workerId: string,
    entries: readonly { postId: string; changes: PublishedChanges; attempt: AttemptResult }[],
  ): Promise<Set<string>> {
    if (entries.length === 0) return new Set();
    return this.db.transaction(async (trx) => {
      const held = new Set<string>();
      for (const chunk of chunks(entries)) {
        const values = valuesOf(
          chunk.map((e) => [e.postId, e.changes.networkPostId, e.changes.permalinkUrl, e.changes.publishedAt]),
        );
        const result = await trx.raw(
          `UPDATE posts SET status = 'published', network_post_id = v.column2, permalink_url = v.column3,
             published_at = CAST(v.column4 AS BIGINT),
             updated_at = CAST(v.column4 AS BIGINT), last_error = NULL, risk = NULL,
             claimed_by = NULL, lease_expires_at = NULL, next_attempt_at = NULL
           FROM ${values.sql} WHERE posts.id = v.column1 AND claimed_by = ? AND status = 'publishing' RETURNING id`,
          [...values.bindings, workerId],
        );
        for (const row of rowsOf(trx, result)) held.add(row.id);
      }
      const done = entries.filter((e) => held.has(e.postId));
      for (const chunk of chunks(done)) {
        const values = valuesOf(
          chunk.map((e) => [e.attempt.idempotencyKey, e.attempt.outcome, e.attempt.detail, e.attempt.at]),
        );
        await trx.raw(
          `UPDATE publish_attempts SET outcome = v.column2, detail = v.column3, finished_at = CAST(v.column4 AS BIGINT)
           FROM ${values.sql} WHERE publish_attempts.idempotency_key = v.column1`,
          values.bindings,
        );
      }
      const steps = done
        .filter((e) => e.changes.firstCommentDueAt !== undefined)
        .map((e) => commentStepRow(e.postId, e.changes));
      for (const chunk of chunks(steps)) await trx('first_comment_steps').insert(chunk).onConflict('post_id').ignore();
      const threads = done
        .filter((e) => e.changes.threadDueAt !== undefined)
        .map((e) => threadStepRow(e.postId, e.changes));
      for (const chunk of chunks(threads)) await trx('thread_steps').insert(chunk).onConflict('post_id').ignore();
      return held;
    });
  }

  async markPublished(
    postId: string,
    workerId: string,
    changes: PublishedChanges,
    attempt: AttemptResult,
  ): Promise<boolean> {
    // Write first: on SQLite a transaction that reads before writing cannot wait for another process's lock.
    return this.db.transaction(async (trx) => {
      const n = await trx('posts')
        .where({ id: postId, claimed_by: workerId, status: 'publishing' })
        .update({
          ...toRow({
            status: 'published',
            networkPostId: changes.networkPostId,
            permalinkUrl: changes.permalinkUrl,
            publishedAt: changes.publishedAt,
            lastError: null,
            updatedAt: changes.publishedAt,
            risk: null,
          }),
          claimed_by: null,
          lease_expires_at: null,
          next_attempt_at: null,
        });
      if (n === 0) return false;
      await finishAttemptIn(trx, attempt);
      await insertFollowingSteps(trx, postId, changes);
      return true;
    });
  }

  /** Back to the queue after a retryable error, not claimed again before `nextAttemptAt`. */
  async reschedule(
    postId: string,
    workerId: string,
    nextAttemptAt: number,
    lastError: string,
    attempt: AttemptResult,
  ): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const n = await trx('posts').where({ id: postId, claimed_by: workerId, status: 'publishing' }).update({
        status: 'scheduled',
        claimed_by: null,
        lease_expires_at: null,
        next_attempt_at: nextAttemptAt,
        last_error: lastError,
        updated_at: attempt.at,
      });
      if (n > 0) await finishAttemptIn(trx, attempt);
      return n > 0;
    });
  }

  /** Back to the queue when nothing was sent (media could not be checked yet). */
  async rescheduleUnattempted(
    postId: string,
    workerId: string,
    nextAttemptAt: number,
    lastError: string,
    now: number,
  ): Promise<boolean> {
    const n = await this.db('posts')
      .where({ id: postId, claimed_by: workerId, status: 'publishing' })
      .update({
        status: 'scheduled',
        claimed_by: null,
        lease_expires_at: null,
        next_attempt_at: nextAttemptAt,
        last_error: lastError,
        updated_at: now,
        attempt_count: this.db.raw('attempt_count + 1'),
      });
    return n > 0;
  }

  /** Puts a claimed post back until `at` without counting an attempt (its channel's rate limit is spent). */
  async waitUntil(postId: string, workerId: string, at: number, lastError: string, now: number): Promise<boolean> {
    const n = await this.db('posts').where({ id: postId, claimed_by: workerId, status: 'publishing' }).update({
      status: 'scheduled',
      claimed_by: null,
      lease_expires_at: null,
      next_attempt_at: at,
      last_error: lastError,
      updated_at: now,
    });
    return n > 0;
  }

  /** Ends the post as failed or unconfirmed, with the reason people will read. */
  async finish(
    postId: string,
    workerId: string,
    status: 'failed' | 'unconfirmed',
    lastError: string,
    now: number,
    attempt?: AttemptResult,
  ): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const n = await trx('posts').where({ id: postId, claimed_by: workerId, status: 'publishing' }).update({
        status,
        claimed_by: null,
        lease_expires_at: null,
        next_attempt_at: null,
        last_error: lastError,
        updated_at: now,
        risk: null,
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
      const n = await trx('posts')
        .where({ id: postId, status: 'unconfirmed' })
        .update(
          toRow({
            status: 'published',
            networkPostId: changes.networkPostId,
            permalinkUrl: changes.permalinkUrl,
            publishedAt: changes.publishedAt,
            lastError: null,
            updatedAt: changes.publishedAt,
          }),
        );
      if (n === 0) return false;
      await finishAttemptIn(trx, attempt);
      await insertFollowingSteps(trx, postId, changes);
      return true;
    });
  }

  /** An unconfirmed post a person checked and found missing on the network: failed, with their words. */
  async markUnconfirmedFailed(postId: string, lastError: string, attempt: AttemptResult | undefined): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      const n = await trx('posts')
        .where({ id: postId, status: 'unconfirmed' })
        .update(toRow({ status: 'failed', lastError, updatedAt: attempt?.at ?? null }));
      if (n === 0) return false;
      if (attempt) await finishAttemptIn(trx, attempt);
      return true;
    });
  }

  /** Extends a claim still held by this worker; false when the claim was lost. */
  async renewLease(postId: string, workerId: string, leaseExpiresAt: number): Promise<boolean> {
    const n = await this.db('posts')
      .where({ id: postId, claimed_by: workerId, status: 'publishing' })
      .update({ lease_expires_at: leaseExpiresAt });
    return n > 0;
  }
}

/** The steps that follow a published post: its first comment, and its thread's parts. */
async function insertFollowingSteps(trx: Knex.Transaction, postId: string, changes: PublishedChanges): Promise<void> {
  if (changes.firstCommentDueAt !== undefined) {
    await trx('first_comment_steps').insert(commentStepRow(postId, changes)).onConflict('post_id').ignore();
  }
  if (changes.threadDueAt !== undefined) {
    await trx('thread_steps').insert(threadStepRow(postId, changes)).onConflict('post_id').ignore();
  }
}

function threadStepRow(postId: string, changes: PublishedChanges): Record<string, unknown> {
  return {
    post_id: postId,
    account_id: changes.accountId,
    channel_id: changes.channelId,
    status: 'pending',
    due_at: changes.threadDueAt,
    attempts: 0,
  };
}

function commentStepRow(postId: string, changes: PublishedChanges): Record<string, unknown> {
  return {
    post_id: postId,
    account_id: changes.accountId,
    channel_id: changes.channelId,
    status: 'pending',
    due_at: changes.firstCommentDueAt,
    attempts: 0,
  };
}

// Rows per statement: well under the bound parameters SQLite (32,766) and Postgres (65,535) take.
const CHUNK = 500;

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += CHUNK) out.push(items.slice(i, i + CHUNK));
  return out;
}

/**
 * Rows of values to join an UPDATE on (UPDATE ... FROM, on SQLite and Postgres alike), named v.column1, v.column2,
 * ...: one pass over the rows, where a CASE per column would compare each row with every value. Postgres takes the
 * bound values for text, so number columns are cast where they are set.
 */
function valuesOf(rows: readonly Knex.Value[][]): { sql: string; bindings: Knex.Value[] } {
  return {
    sql: `(VALUES ${rows.map((row) => `(${row.map(() => '?').join(', ')})`).join(', ')}) AS v`,
    bindings: rows.flat(),
  };
}

function rowsOf(db: Knex, result: any): any[] {
  return isPostgres(db) ? result.rows : result;
}

async function finishAttemptIn(trx: Knex.Transaction, attempt: AttemptResult): Promise<void> {
  await trx('publish_attempts')
    .where({ idempotency_key: attempt.idempotencyKey })
    .update({ outcome: attempt.outcome, detail: attempt.detail, finished_at: attempt.at });
}
