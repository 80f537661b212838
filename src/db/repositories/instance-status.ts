import type { Db } from '../connection.js';
import { migrationSource } from '../migrations/index.js';

export interface ChannelNeedingReconnect {
  accountName: string;
  id: string;
  network: string;
  handle: string;
  reason: string | null;
}
export interface DisabledWebhook {
  accountName: string;
  id: string;
  url: string;
  reason: string | null;
}

/** What `herald status` reads across every account: the operator's view of the instance, never a surface's. */
export class InstanceStatusRepository {
  constructor(private readonly db: Db) {}

  async reachable(): Promise<boolean> {
    await this.db.raw('SELECT 1');
    return true;
  }

  /** The migrations this version has that the database has not run yet. */
  async pendingMigrations(): Promise<string[]> {
    const [, pending] = (await this.db.migrate.list({ migrationSource })) as [unknown[], string[]];
    return pending;
  }

  /** Posts the worker would have claimed more than `lateMs` ago (as its claim reads them): none while one runs. */
  async overduePosts(now: number, lateMs: number): Promise<number> {
    const before = now - lateMs;
    const row = await this.db('posts as p')
      .join('channels as c', 'c.id', 'p.channel_id')
      .where({ 'c.queue_paused': false, 'p.is_live': false })
      .where((q) =>
        q
          .where((s) =>
            s
              .where({ 'p.status': 'scheduled', 'p.is_draft': false })
              .where('p.date_time', '<=', before)
              .where((a) => a.whereNull('p.approval_status').orWhere('p.approval_status', 'APPROVED'))
              .where((n) => n.whereNull('p.next_attempt_at').orWhere('p.next_attempt_at', '<=', before)),
          )
          .orWhere((s) => s.where('p.status', 'publishing').where('p.lease_expires_at', '<', before)),
      )
      .count({ n: '*' })
      .first();
    return Number(row?.n ?? 0);
  }

  async channelsNeedingReconnect(limit: number): Promise<ChannelNeedingReconnect[]> {
    const rows = await this.db('channels as c')
      .join('accounts as a', 'a.id', 'c.account_id')
      .where('c.status', 'needs_reconnect')
      .orderBy('a.name')
      .orderBy('c.id')
      .limit(limit)
      .select('a.name as account_name', 'c.id', 'c.network', 'c.handle', 'c.status_reason');
    return rows.map((r) => ({
      accountName: r.account_name,
      id: r.id,
      network: r.network,
      handle: r.handle,
      reason: r.status_reason,
    }));
  }

  async disabledWebhooks(limit: number): Promise<DisabledWebhook[]> {
    const rows = await this.db('webhook_endpoints as w')
      .join('accounts as a', 'a.id', 'w.account_id')
      .where('w.enabled', false)
      .orderBy('a.name')
      .orderBy('w.id')
      .limit(limit)
      .select('a.name as account_name', 'w.id', 'w.url', 'w.disabled_reason');
    return rows.map((r) => ({ accountName: r.account_name, id: r.id, url: r.url, reason: r.disabled_reason }));
  }
}
