import type { Db } from '../connection.js';

export interface CollectionRecord {
  id: string;
  accountId: string;
  name: string;
  /** Null: the collection is never re-queued on its own. */
  intervalDays: number | null;
  endsAt: number | null;
  nextRunAt: number | null;
  createdAt: number;
  postIds: string[];
}

/** Recycling collections of evergreen posts. */
export class CollectionsRepository {
  constructor(private readonly db: Db) {}

  async create(record: Omit<CollectionRecord, 'postIds'>): Promise<void> {
    await this.db('collections').insert({
      id: record.id,
      account_id: record.accountId,
      name: record.name,
      interval_days: record.intervalDays,
      ends_at: record.endsAt,
      next_run_at: record.nextRunAt,
      created_at: record.createdAt,
    });
  }

  async get(accountId: string, id: string): Promise<CollectionRecord | undefined> {
    const row = await this.db('collections').where({ account_id: accountId, id }).first();
    return row && (await this.withPosts([toCollection(row)]))[0];
  }

  async list(accountId: string): Promise<CollectionRecord[]> {
    return this.withPosts(
      (await this.db('collections').where({ account_id: accountId }).orderBy('id')).map(toCollection),
    );
  }

  /** Collections whose next re-queue is due, across accounts (the periodic job). */
  async listDue(now: number): Promise<CollectionRecord[]> {
    const rows = await this.db('collections')
      .whereNotNull('next_run_at')
      .andWhere('next_run_at', '<=', now)
      .orderBy('next_run_at');
    return this.withPosts(rows.map(toCollection));
  }

  async addPost(collectionId: string, postId: string, at: number): Promise<void> {
    await this.db('collection_posts')
      .insert({ collection_id: collectionId, post_id: postId, added_at: at })
      .onConflict(['collection_id', 'post_id'])
      .ignore();
  }

  /** Moves the next run on, only if no other instance did it first; false when it lost the race. */
  async advance(id: string, expectedNextRunAt: number, nextRunAt: number | null): Promise<boolean> {
    return (
      (await this.db('collections').where({ id, next_run_at: expectedNextRunAt }).update({ next_run_at: nextRunAt })) >
      0
    );
  }

  private async withPosts(collections: CollectionRecord[]): Promise<CollectionRecord[]> {
    if (collections.length === 0) return collections;
    const rows = await this.db('collection_posts')
      .whereIn(
        'collection_id',
        collections.map((c) => c.id),
      )
      .orderBy(['added_at', 'post_id']);
    return collections.map((c) => ({
      ...c,
      postIds: rows.filter((r) => r.collection_id === c.id).map((r) => r.post_id as string),
    }));
  }
}

function toCollection(row: any): CollectionRecord {
  const num = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    id: row.id,
    accountId: row.account_id,
    name: row.name,
    intervalDays: num(row.interval_days),
    endsAt: num(row.ends_at),
    nextRunAt: num(row.next_run_at),
    createdAt: Number(row.created_at),
    postIds: [],
  };
}
