import type { Db } from '../connection.js';
import { bool, json, jsonText } from './rows.js';

export type SandboxFailureMode = 'rate_limited' | 'transient' | 'permanent' | 'auth_expired' | 'timeout_after_post' | 'slow_after_post';

export interface SandboxPostRecord {
  id: string;
  accountId: string;
  channelId: string;
  text: string;
  media: string[];
  idempotencyKey: string | null;
  external: boolean;
  metrics: Record<string, number> | null;
  replyToId: string | null;
  createdAt: number;
}

/** The built-in sandbox network's own store: what it "published", and failures it was told to simulate. */
export class SandboxRepository {
  constructor(private readonly db: Db) {}

  /** Stores a post, or returns the one already stored under the same idempotency key on that channel. */
  async insertOnce(record: SandboxPostRecord): Promise<SandboxPostRecord> {
    if (record.idempotencyKey !== null) {
      await this.db('sandbox_posts').insert(toRow(record)).onConflict(['channel_id', 'idempotency_key']).ignore();
      return (await this.findByKey(record.channelId, record.idempotencyKey))!;
    }
    await this.db('sandbox_posts').insert(toRow(record));
    return record;
  }

  async findByKey(channelId: string, idempotencyKey: string): Promise<SandboxPostRecord | undefined> {
    const row = await this.db('sandbox_posts').where({ channel_id: channelId, idempotency_key: idempotencyKey }).first();
    return row && toRecord(row);
  }

  async get(channelId: string, id: string): Promise<SandboxPostRecord | undefined> {
    const row = await this.db('sandbox_posts').where({ channel_id: channelId, id }).first();
    return row && toRecord(row);
  }

  /** The channel's newest top-level posts (not comments), newest first; `before` continues after a post of a previous page. */
  async recent(channelId: string, limit: number, before?: { createdAt: number; id: string }): Promise<SandboxPostRecord[]> {
    const query = this.db('sandbox_posts').where({ channel_id: channelId }).whereNull('reply_to_id');
    if (before) {
      query.andWhere((older) => older.where('created_at', '<', before.createdAt).orWhere((same) => same.where('created_at', before.createdAt).andWhere('id', '<', before.id)));
    }
    const rows = await query.orderBy([{ column: 'created_at', order: 'desc' }, { column: 'id', order: 'desc' }]).limit(limit);
    return rows.map(toRecord);
  }

  async replies(channelId: string, postId: string): Promise<SandboxPostRecord[]> {
    const rows = await this.db('sandbox_posts').where({ channel_id: channelId, reply_to_id: postId }).orderBy('created_at');
    return rows.map(toRecord);
  }

  async countOnChannel(channelId: string): Promise<number> {
    const row = await this.db('sandbox_posts').where({ channel_id: channelId }).whereNull('reply_to_id').count<{ n: number | string }[]>({ n: '*' });
    return Number(row[0].n);
  }

  async setMetrics(channelId: string, id: string, metrics: Record<string, number>): Promise<void> {
    await this.db('sandbox_posts').where({ channel_id: channelId, id }).update({ metrics: jsonText(metrics) });
  }

  async setFailure(accountId: string, channelId: string, mode: SandboxFailureMode, times: number): Promise<void> {
    await this.db('sandbox_failures').insert({ channel_id: channelId, account_id: accountId, mode, remaining: times }).onConflict('channel_id').merge();
  }

  /** Takes one simulated failure for the channel, if any is left. */
  async takeFailure(channelId: string): Promise<SandboxFailureMode | undefined> {
    // Decrement first, then read: SQLite makes a writer that read first fail rather than wait.
    return this.db.transaction(async (trx) => {
      const n = await trx('sandbox_failures').where({ channel_id: channelId }).andWhere('remaining', '>', 0).decrement('remaining', 1);
      if (n === 0) return undefined;
      const row = await trx('sandbox_failures').where({ channel_id: channelId }).first();
      return row.mode as SandboxFailureMode;
    });
  }
}

function toRow(r: SandboxPostRecord): Record<string, unknown> {
  return {
    id: r.id,
    account_id: r.accountId,
    channel_id: r.channelId,
    text: r.text,
    media: jsonText(r.media),
    idempotency_key: r.idempotencyKey,
    external: r.external,
    metrics: jsonText(r.metrics),
    reply_to_id: r.replyToId,
    created_at: r.createdAt,
  };
}

function toRecord(row: any): SandboxPostRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    channelId: row.channel_id,
    text: row.text,
    media: json(row.media, []),
    idempotencyKey: row.idempotency_key,
    external: bool(row.external),
    metrics: json(row.metrics, null),
    replyToId: row.reply_to_id,
    createdAt: Number(row.created_at),
  };
}
