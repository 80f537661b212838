import type { Db } from '../connection.js';
import { insertRows, json, jsonText } from './rows.js';

export type PostEventKind =
  | 'created'
  | 'updated'
  | 'deleted'
  | 'queued'
  | 'queue_moved'
  | 'queue_cleared'
  | 'approved'
  | 'rejected'
  | 'decision_voided'
  | 'assigned'
  | 'labelled'
  | 'unlabelled'
  | 'recycled';

export interface PostEventRecord {
  accountId: string;
  postId: string;
  at: number;
  /** Null when Herald acted on its own (collection re-queue, queue catch-up). */
  actorUserId: string | null;
  kind: PostEventKind;
  details: Record<string, unknown> | null;
}

/** The history of every post: one row per change, oldest first. */
export class PostEventsRepository {
  constructor(private readonly db: Db) {}

  async append(events: readonly PostEventRecord[]): Promise<void> {
    if (events.length === 0) return;
    await insertRows(
      this.db,
      'post_events',
      events.map((e) => ({
        account_id: e.accountId,
        post_id: e.postId,
        at: e.at,
        actor_user_id: e.actorUserId,
        kind: e.kind,
        details: jsonText(e.details),
      })),
    );
  }

  async list(accountId: string, postId: string): Promise<PostEventRecord[]> {
    const rows = await this.db('post_events').where({ account_id: accountId, post_id: postId }).orderBy('seq');
    return rows.map((row) => ({
      accountId: row.account_id,
      postId: row.post_id,
      at: Number(row.at),
      actorUserId: row.actor_user_id,
      kind: row.kind,
      details: json(row.details, null),
    }));
  }
}
