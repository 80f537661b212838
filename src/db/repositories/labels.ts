import type { Db } from '../connection.js';

export interface LabelRecord {
  id: string;
  accountId: string;
  workspaceId: string;
  name: string;
  color: string;
  createdAt: number;
}

/** Workspace labels and which posts carry them; every query is scoped to an account. */
export class LabelsRepository {
  constructor(private readonly db: Db) {}

  /** False when the workspace already has a label of that name (any case). */
  async create(record: LabelRecord): Promise<boolean> {
    const inserted = await this.db('labels')
      .insert({
        id: record.id,
        account_id: record.accountId,
        workspace_id: record.workspaceId,
        name: record.name,
        name_key: record.name.toLowerCase(),
        color: record.color,
        created_at: record.createdAt,
      })
      .onConflict(['workspace_id', 'name_key'])
      .ignore()
      .returning('id');
    return inserted.length > 0;
  }

  async list(accountId: string, workspaceId?: string): Promise<LabelRecord[]> {
    const q = this.db('labels').where({ account_id: accountId });
    if (workspaceId) q.andWhere({ workspace_id: workspaceId });
    return (await q.orderBy(['name_key', 'id'])).map(toLabel);
  }

  async findMany(accountId: string, ids: readonly string[]): Promise<LabelRecord[]> {
    if (ids.length === 0) return [];
    return (await this.db('labels').where({ account_id: accountId }).whereIn('id', ids)).map(toLabel);
  }

  /** Adds the labels a post does not carry yet; returns the ids newly added. */
  async apply(accountId: string, postId: string, labelIds: readonly string[], at: number): Promise<string[]> {
    const db = this.db;
    const existing = new Set(
      (await db('post_labels').where({ post_id: postId }).select('label_id')).map((r) => r.label_id as string),
    );
    const added = labelIds.filter((id) => !existing.has(id));
    if (added.length > 0) {
      await db('post_labels')
        .insert(added.map((labelId) => ({ post_id: postId, label_id: labelId, account_id: accountId, created_at: at })))
        .onConflict(['post_id', 'label_id'])
        .ignore();
    }
    return added;
  }

  async remove(accountId: string, postId: string, labelIds: readonly string[]): Promise<string[]> {
    const db = this.db;
    const present = (
      await db('post_labels')
        .where({ account_id: accountId, post_id: postId })
        .whereIn('label_id', labelIds)
        .select('label_id')
    ).map((r) => r.label_id as string);
    if (present.length > 0)
      await db('post_labels').where({ account_id: accountId, post_id: postId }).whereIn('label_id', present).delete();
    return present;
  }
}

function toLabel(row: any): LabelRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    workspaceId: row.workspace_id,
    name: row.name,
    color: row.color,
    createdAt: Number(row.created_at),
  };
}
