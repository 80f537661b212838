import type { Db } from '../connection.js';
import { bool } from './rows.js';

export interface ChannelRecord {
  id: string;
  accountId: string;
  workspaceId: string;
  network: string;
  handle: string;
  name: string;
  timezone: string;
  queuePaused: boolean;
  createdAt: number;
}

/** Channels: connected social accounts, always read within one account. */
export class ChannelsRepository {
  constructor(private readonly db: Db) {}

  async create(record: ChannelRecord): Promise<void> {
    await this.db('channels').insert({
      id: record.id,
      account_id: record.accountId,
      workspace_id: record.workspaceId,
      network: record.network,
      handle: record.handle,
      name: record.name,
      timezone: record.timezone,
      queue_paused: record.queuePaused,
      created_at: record.createdAt,
    });
  }

  async list(accountId: string): Promise<ChannelRecord[]> {
    const rows = await this.db('channels').where({ account_id: accountId }).orderBy('id');
    return rows.map(toChannel);
  }

  async findMany(accountId: string, ids: readonly string[]): Promise<ChannelRecord[]> {
    if (ids.length === 0) return [];
    const rows = await this.db('channels').where({ account_id: accountId }).whereIn('id', ids);
    return rows.map(toChannel);
  }

  async get(accountId: string, id: string): Promise<ChannelRecord | undefined> {
    const row = await this.db('channels').where({ account_id: accountId, id }).first();
    return row && toChannel(row);
  }
}

function toChannel(row: any): ChannelRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    workspaceId: row.workspace_id,
    network: row.network,
    handle: row.handle,
    name: row.name,
    timezone: row.timezone,
    queuePaused: bool(row.queue_paused),
    createdAt: row.created_at,
  };
}
