import type { Db } from '../connection.js';
import { isPostgres } from '../connection.js';
import { jsonText } from './rows.js';
import type { ThreadPartRecord } from './posts.js';
import type { AttemptResult } from './publishing.js';

export interface ThreadStepRecord {
  postId: string;
  accountId: string;
  channelId: string;
  status: 'pending' | 'done' | 'failed' | 'unconfirmed';
  dueAt: number;
  attempts: number;
  lastError: string | null;
}

/**
 * Thread steps: the parts of a published post, due once it is out, claimed with a lease like first comments (SKIP
 * LOCKED on Postgres). Each part's outcome is written to the post's thread under the step's claim, before the next
 * part goes out, so a worker that stops between parts leaves the chain to be resumed where it stopped.
 */
export class ThreadStepsRepository {
  constructor(private readonly db: Db) {}

  /** Claims due thread steps (pending, due, lease free or expired). */
  async claimDue(workerId: string, now: number, leaseMs: number, limit: number): Promise<ThreadStepRecord[]> {
    const pg = isPostgres(this.db);
    const due = `
      SELECT s.post_id FROM thread_steps s
      WHERE s.status = 'pending' AND s.due_at <= ? AND (s.lease_expires_at IS NULL OR s.lease_expires_at < ?)
      ORDER BY s.due_at LIMIT ?${pg ? ' FOR UPDATE OF s SKIP LOCKED' : ''}`;
    const result = await this.db.raw(
      `UPDATE thread_steps SET claimed_by = ?, lease_expires_at = ?, attempts = attempts + 1
       WHERE post_id IN (${due}) RETURNING *`,
      [workerId, now + leaseMs, now, now, limit],
    );
    const rows: any[] = pg ? result.rows : result;
    return rows.map(toStep);
  }

  async step(postId: string): Promise<ThreadStepRecord | undefined> {
    const row = await this.db('thread_steps').where({ post_id: postId }).first();
    return row && toStep(row);
  }

  /** Extends a thread step's claim still held by this worker; false when the claim was lost. */
  async renewLease(postId: string, workerId: string, leaseExpiresAt: number): Promise<boolean> {
    const n = await this.db('thread_steps')
      .where({ post_id: postId, claimed_by: workerId })
      .update({ lease_expires_at: leaseExpiresAt });
    return n > 0;
  }

  /**
   * Writes the post's thread as it now stands (a part's network id, or why it stopped), and the outcome of the try
   * that made the part, in one transaction, while this worker still holds the step; false, writing nothing, when the
   * claim was lost. A try is never finished without its part: a worker that stops between the two leaves neither.
   */
  async writeThread(
    postId: string,
    workerId: string,
    thread: readonly ThreadPartRecord[],
    attempt?: AttemptResult,
  ): Promise<boolean> {
    return this.db.transaction(async (trx) => {
      // Write first: on SQLite a transaction that reads before writing cannot wait for another process's lock.
      const held = await trx('thread_steps')
        .where({ post_id: postId, claimed_by: workerId })
        .update({ claimed_by: workerId });
      if (held === 0) return false;
      await trx('posts')
        .where({ id: postId })
        .update({ thread: jsonText(thread) });
      if (attempt) {
        await trx('publish_attempts')
          .where({ idempotency_key: attempt.idempotencyKey })
          .update({ outcome: attempt.outcome, detail: attempt.detail, finished_at: attempt.at });
      }
      return true;
    });
  }

  /** `returnTry` gives back the try the claim counted (the step waited without calling the network). */
  async finish(
    postId: string,
    workerId: string,
    changes: { status: ThreadStepRecord['status']; dueAt?: number; lastError?: string | null; returnTry?: boolean },
  ): Promise<void> {
    await this.db('thread_steps')
      .where({ post_id: postId, claimed_by: workerId })
      .update({
        status: changes.status,
        ...(changes.returnTry ? { attempts: this.db.raw('attempts - 1') } : {}),
        ...(changes.dueAt !== undefined ? { due_at: changes.dueAt } : {}),
        ...(changes.lastError !== undefined ? { last_error: changes.lastError } : {}),
        claimed_by: null,
        lease_expires_at: null,
      });
  }
}

function toStep(row: any): ThreadStepRecord {
  return {
    postId: row.post_id,
    accountId: row.account_id,
    channelId: row.channel_id,
    status: row.status,
    dueAt: Number(row.due_at),
    attempts: row.attempts,
    lastError: row.last_error,
  };
}
