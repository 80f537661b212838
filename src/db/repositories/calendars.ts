import type { Db } from '../connection.js';
import { json } from './rows.js';
import { toPost, type PostRecord, type PostStatus } from './posts.js';

/** What a shareable calendar shows. */
export interface CalendarViewRecord {
  /** month | week | list: the view the page opens on. */
  layout: 'month' | 'week' | 'list';
  channelIds: string[];
  labelIds: string[];
  /** Epoch ms bounds; null leaves that side open. */
  from: number | null;
  to: number | null;
  timezone: string;
  includeDrafts: boolean;
  includeLive: boolean;
  /** False shows only times and channels, not post text. */
  showText: boolean;
}

export interface ShareableCalendarRecord {
  id: string;
  accountId: string;
  workspaceId: string;
  name: string;
  tokenHash: string;
  view: CalendarViewRecord;
  expiresAt: number | null;
  createdAt: number;
  updatedAt: number;
}

export interface CalendarPostQuery {
  accountId: string;
  channelIds: readonly string[];
  labelIds: readonly string[];
  from: number;
  to: number;
  statuses: readonly PostStatus[];
  includeLive: boolean;
  limit: number;
}

/** Shareable calendars and the posts a calendar view shows; every query is scoped to an account. */
export class CalendarsRepository {
  constructor(private readonly db: Db) {}

  async create(record: ShareableCalendarRecord): Promise<void> {
    await this.db('shareable_calendars').insert(toRow(record));
  }

  async list(accountId: string, workspaceId?: string): Promise<ShareableCalendarRecord[]> {
    const q = this.db('shareable_calendars').where({ account_id: accountId });
    if (workspaceId) q.andWhere({ workspace_id: workspaceId });
    return (await q.orderBy('id')).map(toCalendar);
  }

  async get(accountId: string, id: string): Promise<ShareableCalendarRecord | undefined> {
    const row = await this.db('shareable_calendars').where({ account_id: accountId, id }).first();
    return row && toCalendar(row);
  }

  async findByTokenHash(tokenHash: string): Promise<ShareableCalendarRecord | undefined> {
    const row = await this.db('shareable_calendars').where({ token_hash: tokenHash }).first();
    return row && toCalendar(row);
  }

  async update(
    accountId: string,
    id: string,
    changes: { name: string; view: CalendarViewRecord; expiresAt: number | null; updatedAt: number },
  ): Promise<boolean> {
    const n = await this.db('shareable_calendars')
      .where({ account_id: accountId, id })
      .update({
        name: changes.name,
        view: JSON.stringify(changes.view),
        expires_at: changes.expiresAt,
        updated_at: changes.updatedAt,
      });
    return n > 0;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    return (await this.db('shareable_calendars').where({ account_id: accountId, id }).delete()) > 0;
  }

  /** Posts whose time (publish time, or creation time for undated drafts) falls in [from, to), soonest first. */
  async posts(query: CalendarPostQuery): Promise<PostRecord[]> {
    const q = this.db('posts')
      .where('account_id', query.accountId)
      .andWhere('timeline_at', '>=', query.from)
      .andWhere('timeline_at', '<', query.to)
      .andWhere((w) => {
        w.where((own) => own.where('is_live', false).whereIn('status', query.statuses));
        if (query.includeLive) w.orWhere('is_live', true);
      });
    if (query.channelIds.length) q.whereIn('channel_id', query.channelIds);
    if (query.labelIds.length) {
      q.whereIn(
        'id',
        this.db('post_labels')
          .select('post_id')
          .where('account_id', query.accountId)
          .whereIn('label_id', query.labelIds),
      );
    }
    const rows = await q
      .orderBy([
        { column: 'timeline_at', order: 'asc' },
        { column: 'id', order: 'asc' },
      ])
      .limit(query.limit);
    return rows.map(toPost);
  }
}

function toRow(record: ShareableCalendarRecord): Record<string, unknown> {
  return {
    id: record.id,
    account_id: record.accountId,
    workspace_id: record.workspaceId,
    name: record.name,
    token_hash: record.tokenHash,
    view: JSON.stringify(record.view),
    expires_at: record.expiresAt,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
}

function toCalendar(row: any): ShareableCalendarRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    workspaceId: row.workspace_id,
    name: row.name,
    tokenHash: row.token_hash,
    view: json<CalendarViewRecord>(row.view, undefined as never),
    expiresAt: row.expires_at === null || row.expires_at === undefined ? null : Number(row.expires_at),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}
