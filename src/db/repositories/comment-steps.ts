import type { Db } from '../connection.js';
import { isPostgres } from '../connection.js';

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

/**
 * First-comment steps: due after their post is published, claimed with a lease like posts (SKIP LOCKED on
 * Postgres), finished with their outcome.
 */
export class CommentStepsRepository {
  constructor(private readonly db: Db) {}

  /** Claims due first-comment steps (pending, due, lease free or expired). */
  async claimDueComments(
    workerId: string,
    now: number,
    leaseMs: number,
    limit: number,
  ): Promise<FirstCommentStepRecord[]> {
    const pg = isPostgres(this.db);
    const due = `
      SELECT s.post_id FROM first_comment_steps s
      WHERE s.status = 'pending' AND s.due_at <= ? AND (s.lease_expires_at IS NULL OR s.lease_expires_at < ?)
      ORDER BY s.due_at LIMIT ?${pg ? ' FOR UPDATE OF s SKIP LOCKED' : ''}`;
    const result = await this.db.raw(
      'UPDATE first_comment_steps SET claimed_by = ?, lease_expires_at = ?, ' +
        `attempts = attempts + 1 WHERE post_id IN (${due}) RETURNING *`,
      [workerId, now + leaseMs, now, now, limit],
    );
    const rows: any[] = pg ? result.rows : result;
    return rows.map(toStep);
  }

  async commentStep(postId: string): Promise<FirstCommentStepRecord | undefined> {
    const row = await this.db('first_comment_steps').where({ post_id: postId }).first();
    return row && toStep(row);
  }

  /** Extends a first-comment step's claim still held by this worker; false when the claim was lost. */
  async renewCommentLease(postId: string, workerId: string, leaseExpiresAt: number): Promise<boolean> {
    const n = await this.db('first_comment_steps')
      .where({ post_id: postId, claimed_by: workerId })
      .update({ lease_expires_at: leaseExpiresAt });
    return n > 0;
  }

  /** `returnTry` gives back the try the claim counted (the step waited without calling the network). */
  async finishComment(
    postId: string,
    workerId: string,
    changes: {
      status: 'pending' | 'done' | 'failed';
      dueAt?: number;
      networkCommentId?: string;
      lastError?: string | null;
      returnTry?: boolean;
    },
  ): Promise<void> {
    await this.db('first_comment_steps')
      .where({ post_id: postId, claimed_by: workerId })
      .update({
        status: changes.status,
        ...(changes.returnTry ? { attempts: this.db.raw('attempts - 1') } : {}),
        ...(changes.dueAt !== undefined ? { due_at: changes.dueAt } : {}),
        ...(changes.networkCommentId !== undefined ? { network_comment_id: changes.networkCommentId } : {}),
        ...(changes.lastError !== undefined ? { last_error: changes.lastError } : {}),
        claimed_by: null,
        lease_expires_at: null,
      });
  }
}

function toStep(row: any): FirstCommentStepRecord {
  return {
    postId: row.post_id,
    accountId: row.account_id,
    channelId: row.channel_id,
    status: row.status,
    dueAt: Number(row.due_at),
    attempts: row.attempts,
    networkCommentId: row.network_comment_id,
    lastError: row.last_error,
  };
}
