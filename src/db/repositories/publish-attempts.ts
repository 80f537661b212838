import type { Db } from '../connection.js';

export type AttemptKind = 'publish' | 'comment' | 'part';
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

/** Publish and comment attempts: recorded before each network call, finished with their outcome. */
export class PublishAttemptsRepository {
  constructor(private readonly db: Db) {}

  /** The attempt a worker started and never finished: its outcome is unknown. */
  async unfinishedAttempt(postId: string, kind: AttemptKind): Promise<PublishAttemptRecord | undefined> {
    const row = await this.db('publish_attempts')
      .where({ post_id: postId, kind })
      .whereNull('finished_at')
      .orderBy('seq', 'desc')
      .first();
    return row && toAttempt(row);
  }

  /** unfinishedAttempt for many posts in one statement: the newest unfinished attempt of each that has one. */
  async unfinishedAttempts(postIds: readonly string[], kind: AttemptKind): Promise<Map<string, PublishAttemptRecord>> {
    const byPost = new Map<string, PublishAttemptRecord>();
    if (postIds.length === 0) return byPost;
    const rows = await this.db('publish_attempts')
      .where({ kind })
      .whereIn('post_id', postIds)
      .whereNull('finished_at')
      .orderBy('seq');
    for (const row of rows) byPost.set(row.post_id, toAttempt(row));
    return byPost;
  }

  /** Publish attempts of several posts at once (a page of posts), oldest first per post. */
  async attemptsByPost(accountId: string, postIds: readonly string[]): Promise<Map<string, PublishAttemptRecord[]>> {
    const byPost = new Map<string, PublishAttemptRecord[]>();
    if (postIds.length === 0) return byPost;
    const rows = await this.db('publish_attempts')
      .where({ account_id: accountId, kind: 'publish' })
      .whereIn('post_id', postIds)
      .orderBy('seq');
    for (const row of rows) {
      const attempt = toAttempt(row);
      byPost.set(attempt.postId, [...(byPost.get(attempt.postId) ?? []), attempt]);
    }
    return byPost;
  }

  /** A post's publish attempts, oldest first (first-comment attempts are the comment step's own). */
  async attempts(accountId: string, postId: string): Promise<PublishAttemptRecord[]> {
    const rows = await this.db('publish_attempts')
      .where({ account_id: accountId, post_id: postId, kind: 'publish' })
      .orderBy('seq');
    return rows.map(toAttempt);
  }

  /** The newest attempt whose outcome was left unknown (reconciling an unconfirmed post later). */
  async lastUnknownAttempt(postId: string): Promise<PublishAttemptRecord | undefined> {
    const row = await this.db('publish_attempts')
      .where({ post_id: postId, kind: 'publish', outcome: 'unknown' })
      .orderBy('seq', 'desc')
      .first();
    return row && toAttempt(row);
  }

  /** What the network gave the attempt before the call that can make the post; see PublishRequest.recordHandle. */
  async setHandle(idempotencyKey: string, handle: string): Promise<void> {
    await this.db('publish_attempts').where({ idempotency_key: idempotencyKey }).update({ network_handle: handle });
  }

  async handleOf(idempotencyKey: string): Promise<string | null> {
    const row = await this.db('publish_attempts').where({ idempotency_key: idempotencyKey }).first('network_handle');
    return row?.network_handle ?? null;
  }

  async finishAttempt(
    idempotencyKey: string,
    outcome: AttemptOutcome,
    detail: string | null,
    at: number,
  ): Promise<void> {
    await this.db('publish_attempts')
      .where({ idempotency_key: idempotencyKey })
      .update({ outcome, detail, finished_at: at });
  }

  /** Which of these idempotency keys belong to Herald's own attempts. */
  async knownAttemptKeys(keys: readonly string[]): Promise<Set<string>> {
    if (keys.length === 0) return new Set();
    const rows = await this.db('publish_attempts').whereIn('idempotency_key', keys).select('idempotency_key');
    return new Set(rows.map((row: { idempotency_key: string }) => row.idempotency_key));
  }

  /** A post's newest first-comment try, if any. */
  async lastCommentAttempt(postId: string): Promise<PublishAttemptRecord | undefined> {
    const row = await this.db('publish_attempts')
      .where({ post_id: postId, kind: 'comment' })
      .orderBy('seq', 'desc')
      .first();
    return row && toAttempt(row);
  }

  /** The newest try at one part of a thread (its key is the part's, followed by the try's number). */
  async lastPartAttempt(postId: string, partKey: string): Promise<PublishAttemptRecord | undefined> {
    const row = await this.db('publish_attempts')
      .where({ post_id: postId, kind: 'part' })
      .where('idempotency_key', 'like', `${partKey}:%`)
      .orderBy('seq', 'desc')
      .first();
    return row && toAttempt(row);
  }

  /** A first-comment or thread-part try, recorded before its network call. */
  async recordCommentAttempt(attempt: PublishAttemptRecord): Promise<void> {
    await this.db('publish_attempts').insert(attemptRow(attempt));
  }
}

export function attemptRow(a: PublishAttemptRecord): Record<string, unknown> {
  return {
    post_id: a.postId,
    account_id: a.accountId,
    kind: a.kind,
    number: a.number,
    idempotency_key: a.idempotencyKey,
    worker_id: a.workerId,
    started_at: a.startedAt,
    finished_at: a.finishedAt,
    outcome: a.outcome,
    detail: a.detail,
  };
}

function toAttempt(row: any): PublishAttemptRecord {
  return {
    postId: row.post_id,
    accountId: row.account_id,
    kind: row.kind,
    number: row.number,
    idempotencyKey: row.idempotency_key,
    workerId: row.worker_id,
    startedAt: Number(row.started_at),
    finishedAt: row.finished_at === null ? null : Number(row.finished_at),
    outcome: row.outcome,
    detail: row.detail,
  };
}
