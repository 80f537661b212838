import type { Db } from '../connection.js';
import { bool, json } from './rows.js';

export type Weekday = 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun';
/** A weekly posting slot, wall-clock time (HH:MM) in the channel's timezone. */
export interface SlotRecord {
  day: Weekday;
  time: string;
}

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
  /** Weekly queue slots (004_team); absent means none. */
  slots?: SlotRecord[];
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

  async setSlots(accountId: string, id: string, slots: SlotRecord[]): Promise<boolean> {
    return (await this.db('channels').where({ account_id: accountId, id }).update({ queue_slots: JSON.stringify(slots) })) > 0;
  }

  async setQueuePaused(accountId: string, id: string, paused: boolean): Promise<boolean> {
    return (await this.db('channels').where({ account_id: accountId, id }).update({ queue_paused: paused })) > 0;
  }

  async get(accountId: string, id: string): Promise<ChannelRecord | undefined> {
    const row = await this.db('channels').where({ account_id: accountId, id }).first();
    return row && toChannel(row);
  }

  /** A channel by id whatever its account: the publishing worker serves the whole instance. */
  async anyAccount(channelId: string): Promise<ChannelRecord | undefined> {
    const row = await this.db('channels').where({ id: channelId }).first();
    return row && toChannel(row);
  }

  /** Every channel of the instance, a page at a time by id (live-post sync). */
  async pageAcrossAccounts(afterId: string, limit: number): Promise<ChannelRecord[]> {
    const rows = await this.db('channels').where('id', '>', afterId).orderBy('id').limit(limit);
    return rows.map(toChannel);
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
    slots: json<SlotRecord[]>(row.queue_slots, []),
  };
}
