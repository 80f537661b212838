import type { Db } from '../connection.js';
import { bool, insertRows, json, jsonText } from './rows.js';

export type SandboxFailureMode =
  | 'rate_limited'
  | 'transient'
  | 'permanent'
  | 'auth_expired'
  | 'timeout_after_post'
  | 'slow_after_post';

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

  /**
   * Many publish calls in one transaction: each takes its channel's next simulated failure, in the order given;
   * a call whose failure makes no post (`failure` not in `postsAnyway`) stores nothing, the others are stored
   * once by idempotency key as insertOnce would. Returns, per call, the failure taken and the post stored.
   */
  async publishMany(
    records: readonly SandboxPostRecord[],
    postsAnyway: readonly SandboxFailureMode[],
  ): Promise<{ failure?: SandboxFailureMode; stored?: SandboxPostRecord }[]> {
    if (records.length === 0) return [];
    return this.db.transaction(async (trx) => {
      // Write first (a decrement per failure taken, one per channel finding none): a SQLite transaction that
      // reads first cannot wait for another process's lock. Channels with no failures left cost one statement.
      const failures: (SandboxFailureMode | undefined)[] = [];
      const exhausted = new Set<string>();
      for (const record of records) {
        let failure: SandboxFailureMode | undefined;
        if (!exhausted.has(record.channelId)) {
          const [row] = await trx('sandbox_failures')
            .where({ channel_id: record.channelId })
            .andWhere('remaining', '>', 0)
            .decrement('remaining', 1)
            .returning('mode');
          if (row) failure = row.mode;
          else exhausted.add(record.channelId);
        }
        failures.push(failure);
      }
      const posting = records.filter((_, i) => failures[i] === undefined || postsAnyway.includes(failures[i]!));
      const stored = new Map<string, SandboxPostRecord>();
      const keyOf = (channelId: string, key: string | null) => `${channelId}\n${key}`;
      const repeated: SandboxPostRecord[] = [];
      for (let i = 0; i < posting.length; i += 500) {
        const chunk = posting.slice(i, i + 500);
        const inserted = (await insertRows(
          trx,
          'sandbox_posts',
          chunk.map(toRow),
          'ON CONFLICT (channel_id, idempotency_key) DO NOTHING RETURNING channel_id, idempotency_key',
        )) as { channel_id: string; idempotency_key: string }[];
        const fresh = new Set(inserted.map((row) => keyOf(row.channel_id, row.idempotency_key)));
        for (const record of chunk) {
          if (fresh.has(keyOf(record.channelId, record.idempotencyKey)))
            stored.set(keyOf(record.channelId, record.idempotencyKey), record);
          else repeated.push(record);
        }
      }
      // A repeated attempt key: the post already made under it.
      for (const record of repeated) {
        const row = await trx('sandbox_posts')
          .where({ channel_id: record.channelId, idempotency_key: record.idempotencyKey })
          .first();
        stored.set(keyOf(record.channelId, record.idempotencyKey), toRecord(row));
      }
      return records.map((record, i) => ({
        failure: failures[i],
        stored: stored.get(keyOf(record.channelId, record.idempotencyKey)),
      }));
    });
  }

  async findByKey(channelId: string, idempotencyKey: string): Promise<SandboxPostRecord | undefined> {
    const row = await this.db('sandbox_posts')
      .where({ channel_id: channelId, idempotency_key: idempotencyKey })
      .first();
    return row && toRecord(row);
  }

  async get(channelId: string, id: string): Promise<SandboxPostRecord | undefined> {
    const row = await this.db('sandbox_posts').where({ channel_id: channelId, id }).first();
    return row && toRecord(row);
  }

  /**
   * The channel's newest top-level posts (not comments), newest first; `before` continues after a post of a previous
   * page.
   */
  async recent(
    channelId: string,
    limit: number,
    before?: { createdAt: number; id: string },
  ): Promise<SandboxPostRecord[]> {
    const query = this.db('sandbox_posts').where({ channel_id: channelId }).whereNull('reply_to_id');
    if (before) {
      query.andWhere((older) =>
        older
          .where('created_at', '<', before.createdAt)
          .orWhere((same) => same.where('created_at', before.createdAt).andWhere('id', '<', before.id)),
      );
    }
    const rows = await query
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(limit);
    return rows.map(toRecord);
  }

  async replies(channelId: string, postId: string): Promise<SandboxPostRecord[]> {
    const rows = await this.db('sandbox_posts')
      .where({ channel_id: channelId, reply_to_id: postId })
      .orderBy('created_at');
    return rows.map(toRecord);
  }

  async countOnChannel(channelId: string): Promise<number> {
    const row = await this.db('sandbox_posts')
      .where({ channel_id: channelId })
      .whereNull('reply_to_id')
      .count<{ n: number | string }[]>({ n: '*' });
    return Number(row[0].n);
  }

  async setMetrics(channelId: string, id: string, metrics: Record<string, number>): Promise<void> {
    await this.db('sandbox_posts')
      .where({ channel_id: channelId, id })
      .update({ metrics: jsonText(metrics) });
  }

  async setFailure(accountId: string, channelId: string, mode: SandboxFailureMode, times: number): Promise<void> {
    await this.db('sandbox_failures')
      .insert({ channel_id: channelId, account_id: accountId, mode, remaining: times })
      .onConflict('channel_id')
      .merge();
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
