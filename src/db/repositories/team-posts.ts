import type { Db } from '../connection.js';
import { QUEUE_SLOT_INDEX } from '../migrations/004_team.js';
import { toPost, type PostRecord, type PostsRepository } from './posts.js';

/** True when a write lost a race for a queue slot (the unique index on queued posts' channel and time). */
export function isQueueSlotConflict(error: unknown): boolean {
  const e = error as { code?: string; constraint?: string; message?: string };
  if (e?.code === '23505') return e.constraint === QUEUE_SLOT_INDEX; // Postgres unique_violation
  // SQLite names the columns, not the index.
  return e?.code === 'SQLITE_CONSTRAINT_UNIQUE' && /posts\.channel_id, posts\.date_time/.test(e.message ?? '');
}

/** The post queries of the team workflow: a channel's queue, its taken times, held posts. */
export class TeamPostsRepository {
  constructor(
    private readonly db: Db,
    private readonly posts: PostsRepository,
  ) {}

  /** Queued posts of a channel still waiting to go out, in queue order (time, then id). */
  async listQueued(accountId: string, channelId: string): Promise<PostRecord[]> {
    const rows = await this.db('posts')
      .where({
        account_id: accountId,
        channel_id: channelId,
        in_queue: true,
        is_live: false,
        is_draft: false,
        status: 'scheduled',
      })
      .orderBy([
        { column: 'date_time', order: 'asc' },
        { column: 'id', order: 'asc' },
      ]);
    return this.posts.withLabels(rows.map(toPost));
  }

  /** Times (epoch ms) at or after `from` that a channel's unpublished posts already occupy. */
  async takenTimes(accountId: string, channelId: string, from: number): Promise<Set<number>> {
    const rows = await this.db('posts')
      .where({ account_id: accountId, channel_id: channelId, is_live: false, is_draft: false })
      .whereIn('status', ['scheduled', 'publishing'])
      .andWhere('date_time', '>=', from)
      .select('date_time');
    return new Set(rows.map((r) => Number(r.date_time)));
  }

  /** Held posts, soonest first; with `reviewerUserId`, only those assigned to that reviewer. */
  async listPendingApproval(accountId: string, limit: number, reviewerUserId?: string): Promise<PostRecord[]> {
    const rows = await this.db('posts')
      .where({
        account_id: accountId,
        is_live: false,
        approval_status: 'PENDING',
        ...(reviewerUserId === undefined ? {} : { reviewer_user_id: reviewerUserId }),
      })
      .orderBy([
        { column: 'timeline_at', order: 'asc' },
        { column: 'id', order: 'asc' },
      ])
      .limit(limit);
    return this.posts.withLabels(rows.map(toPost));
  }

  /**
   * Releases a held post as last read (`readAt`, its updatedAt then); `publishAt` moves a time that has passed to now
   * (out of the queue). False when it was no longer PENDING or was changed since.
   */
  async approve(accountId: string, id: string, readAt: number | null, at: number, publishAt?: number) {
    const moved = publishAt === undefined ? {} : { date_time: publishAt, timeline_at: publishAt, in_queue: false };
    return this.updateIf(
      accountId,
      id,
      { approvalStatus: 'PENDING', updatedAt: readAt },
      { approval_status: 'APPROVED', rejection_reason: null, updated_at: at, ...moved },
    );
  }

  /** Keeps a held post, as last read, unpublished with the reviewer's reason. False when not PENDING or changed. */
  async reject(accountId: string, id: string, readAt: number | null, reason: string, at: number): Promise<boolean> {
    return this.updateIf(
      accountId,
      id,
      { approvalStatus: 'PENDING', updatedAt: readAt },
      { approval_status: 'REJECTED', rejection_reason: reason, updated_at: at },
    );
  }

  async assignReviewer(accountId: string, id: string, reviewerUserId: string, at: number): Promise<boolean> {
    return this.updateIf(accountId, id, {}, { reviewer_user_id: reviewerUserId, updated_at: at });
  }

  /** Moves a scheduled post to a queue slot; `from`, when given, must still be its time (compare-and-set). */
  async moveToSlot(accountId: string, id: string, slot: number, at: number, from?: number): Promise<boolean> {
    return this.updateIf(
      accountId,
      id,
      { status: 'scheduled', dateTime: from },
      { date_time: slot, timeline_at: slot, updated_at: at, rehearsed_at: null },
    );
  }

  /** Parks a queued post at a placeholder time while a reorder frees the slots (the slots' unique index). */
  async parkForReorder(accountId: string, id: string, from: number | undefined, parkedAt: number): Promise<boolean> {
    return this.updateIf(accountId, id, { status: 'scheduled', dateTime: from }, { date_time: parkedAt });
  }

  /** True when the post is still scheduled (not claimed by the engine meanwhile); locks it for this transaction. */
  async stillScheduled(accountId: string, id: string): Promise<boolean> {
    return this.updateIf(accountId, id, { status: 'scheduled' }, { status: 'scheduled' });
  }

  /** Changes a post only while it is still in the given state (compare-and-set); false when it moved on. */
  private async updateIf(
    accountId: string,
    id: string,
    expected: Partial<Pick<PostRecord, 'status' | 'approvalStatus' | 'dateTime' | 'updatedAt'>>,
    changes: Record<string, unknown>,
  ): Promise<boolean> {
    const q = this.db('posts').where({ account_id: accountId, id, is_live: false });
    if (expected.updatedAt !== undefined) {
      if (expected.updatedAt === null) q.whereNull('updated_at');
      else q.andWhere('updated_at', expected.updatedAt);
    }
    if (expected.status !== undefined) q.andWhere('status', expected.status);
    if (expected.approvalStatus !== undefined) q.andWhere('approval_status', expected.approvalStatus);
    if (expected.dateTime !== undefined) q.andWhere('date_time', expected.dateTime);
    return (await q.update(changes)) > 0;
  }

  async isMember(workspaceId: string, userId: string): Promise<boolean> {
    return (
      (await this.db('memberships').where({ workspace_id: workspaceId, user_id: userId }).first('user_id')) !==
      undefined
    );
  }
}
