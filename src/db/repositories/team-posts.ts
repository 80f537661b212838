import type { Knex } from 'knex';
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
      .where({ account_id: accountId, channel_id: channelId, in_queue: true, is_live: false, is_draft: false, status: 'scheduled' })
      .orderBy([{ column: 'date_time', order: 'asc' }, { column: 'id', order: 'asc' }]);
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

  async listPendingApproval(accountId: string, limit: number): Promise<PostRecord[]> {
    const rows = await this.db('posts')
      .where({ account_id: accountId, is_live: false, approval_status: 'PENDING' })
      .orderBy([{ column: 'timeline_at', order: 'asc' }, { column: 'id', order: 'asc' }])
      .limit(limit);
    return this.posts.withLabels(rows.map(toPost));
  }

  /** Changes a post only while it is still in the given state (compare-and-set); false when it moved on. */
  async updateIf(accountId: string, id: string, expected: Partial<Pick<PostRecord, 'status' | 'approvalStatus' | 'dateTime'>>, changes: Record<string, unknown>, trx?: Knex.Transaction): Promise<boolean> {
    const q = (trx ?? this.db)('posts').where({ account_id: accountId, id, is_live: false });
    if (expected.status !== undefined) q.andWhere('status', expected.status);
    if (expected.approvalStatus !== undefined) q.andWhere('approval_status', expected.approvalStatus);
    if (expected.dateTime !== undefined) q.andWhere('date_time', expected.dateTime);
    return (await q.update(changes)) > 0;
  }

  async isMember(workspaceId: string, userId: string): Promise<boolean> {
    return (await this.db('memberships').where({ workspace_id: workspaceId, user_id: userId }).first('user_id')) !== undefined;
  }
}
