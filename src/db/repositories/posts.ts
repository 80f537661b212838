import type { Knex } from 'knex';
import { isPostgres, type Db } from '../connection.js';
import { bool, insertRows, json, jsonText, rowBuilder } from './rows.js';

export type PostStatus = 'draft' | 'scheduled' | 'publishing' | 'published' | 'failed' | 'unconfirmed';
export type ApprovalStatus = 'PENDING' | 'APPROVED' | 'REJECTED';
export type PostType = 'text' | 'image' | 'video';
export type SourceType = 'api' | 'mcp' | 'bulk' | 'recycle' | 'app';

export interface FirstCommentRecord {
  text: string;
  delayMinutes: number;
  mediaUrl?: string;
}

/** What a post's last rehearsal found wrong (domain/posts/preflight.ts). */
export interface PostRiskRecord {
  reason: string;
  advice: string;
  checkedAt: number;
}

/** A part of a thread after the post itself; the network's id, link and time once that part is published. */
export interface ThreadPartRecord {
  text: string;
  imageUrls: string[];
  videoUrls: string[];
  networkPostId?: string;
  permalinkUrl?: string | null;
  publishedAt?: number;
  /** Why this part, and so the ones after it, did not go out. */
  error?: string;
}

export interface PostRecord {
  id: string;
  accountId: string;
  workspaceId: string;
  channelId: string;
  groupId: string | null;
  text: string;
  dateTime: number | null;
  /** Publish time, or creation time where there is none: the order of merged listings. */
  timelineAt: number;
  isScheduled: boolean;
  isDraft: boolean;
  isLive: boolean;
  status: PostStatus;
  approvalStatus: ApprovalStatus | null;
  type: PostType | null;
  sourceType: SourceType | null;
  imageUrls: string[];
  videoUrls: string[];
  firstComment: FirstCommentRecord | null;
  /** The parts after the first, published as a reply chain (024_threads); absent or null for a single post. */
  thread?: ThreadPartRecord[] | null;
  channelOptions: Record<string, unknown> | null;
  networkPostId: string | null;
  permalinkUrl: string | null;
  metrics: Record<string, number> | null;
  lastError: string | null;
  publishedAt: number | null;
  createdAt: number | null;
  updatedAt: number | null;
  /** Team workflow (004_team); optional so that writers which predate it need not set them. */
  inQueue?: boolean;
  recycledFromPostId?: string | null;
  reviewerUserId?: string | null;
  rejectionReason?: string | null;
  /** Set by the worker's rehearsal before the post's slot (023_post_risk); null when none found a risk. */
  risk?: PostRiskRecord | null;
  /** Read-only: filled on reads from post_labels. */
  labels?: PostLabelRecord[];
}

export interface PostLabelRecord {
  id: string;
  name: string;
  color: string;
}

export type PostOrder =
  /** Newest created first (ids are time-sortable). */
  | 'created_desc'
  /** Latest publish time first. */
  | 'timeline_desc'
  /** Soonest publish time first. */
  | 'due_asc';

export interface PostListQuery {
  accountId: string;
  order: PostOrder;
  includeLive: boolean;
  /** Restricts Herald's own posts to these states; live posts are not affected. */
  ownStatuses?: readonly PostStatus[];
  excludeDrafts?: boolean;
  /** Only posts a rehearsal found at risk. */
  atRisk?: boolean;
  channelIds?: readonly string[];
  hasAssets?: boolean;
  /** Posts carrying any of these labels. */
  labelIds?: readonly string[];
  after?: { key: number | null; id: string };
  limit: number;
}

/** Posts, one row per channel. Every read and write is scoped to an account. */
export class PostsRepository {
  constructor(private readonly db: Db) {}

  async insertMany(records: PostRecord[]): Promise<void> {
    if (records.length === 0) return;
    await insertRows(this.db, 'posts', records.map(toRow));
  }

  async get(accountId: string, id: string): Promise<PostRecord | undefined> {
    const row = await this.db('posts').where({ account_id: accountId, id }).first(RECORD_COLUMNS);
    return row && (await this.withLabels([toPost(row)]))[0];
  }

  async listGroup(accountId: string, groupId: string): Promise<PostRecord[]> {
    const rows = await this.db('posts')
      .select(RECORD_COLUMNS)
      .where({ account_id: accountId, group_id: groupId })
      .orderBy('id');
    return this.withLabels(rows.map(toPost));
  }

  async list(query: PostListQuery): Promise<PostRecord[]> {
    const q = this.db('posts').select(this.listedColumns()).where('account_id', query.accountId);
    if (!query.includeLive) q.andWhere('is_live', false);
    const ownStatuses = query.ownStatuses;
    if (ownStatuses) {
      q.andWhere((w) => {
        w.where((own) => own.where('is_live', false).whereIn('status', ownStatuses));
        if (query.includeLive) w.orWhere('is_live', true);
      });
    }
    if (query.excludeDrafts) q.andWhere('is_draft', false);
    if (query.atRisk) q.whereNotNull('risk');
    if (query.channelIds?.length) q.whereIn('channel_id', query.channelIds);
    if (query.hasAssets) q.andWhere((w) => w.whereNot('image_urls', '[]').orWhereNot('video_urls', '[]'));
    if (query.labelIds?.length) {
      q.whereIn(
        'id',
        this.db('post_labels')
          .select('post_id')
          .where('account_id', query.accountId)
          .whereIn('label_id', query.labelIds),
      );
    }
    const after = query.after;
    switch (query.order) {
      case 'created_desc':
        if (after) q.andWhere('id', '<', after.id);
        q.orderBy('id', 'desc');
        break;
      case 'timeline_desc':
        if (after) {
          q.andWhere((w) =>
            w
              .where('timeline_at', '<', after.key!)
              .orWhere((e) => e.where('timeline_at', after.key!).andWhere('id', '<', after.id)),
          );
        }
        q.orderBy([
          { column: 'timeline_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ]);
        break;
      case 'due_asc':
        if (after) {
          q.andWhere((w) =>
            w
              .where('timeline_at', '>', after.key!)
              .orWhere((e) => e.where('timeline_at', after.key!).andWhere('id', '>', after.id)),
          );
        }
        q.orderBy([
          { column: 'timeline_at', order: 'asc' },
          { column: 'id', order: 'asc' },
        ]);
        break;
    }
    const rows = await q.limit(query.limit);
    return rows.map(toListedPost);
  }

  /**
   * A listing reads a page in one statement: the record's columns and each post's labels, by name, as JSON. SQLite
   * hands over every value separately, at about the same cost whatever its type, so there it packs each row into one
   * JSON array, parsed at once: a page of 50 posts costs a third less (BENCHMARKS.md).
   */
  private listedColumns(): (string | Knex.Raw)[] {
    const labels = 'FROM post_labels pl JOIN labels l ON l.id = pl.label_id WHERE pl.post_id = posts.id';
    if (isPostgres(this.db)) {
      return [
        ...RECORD_COLUMNS,
        this.db.raw(
          `COALESCE((SELECT json_agg(json_build_object('id', l.id, 'name', l.name, 'color', l.color) ` +
            `ORDER BY l.name_key) ${labels}), '[]'::json) AS labels`,
        ),
      ];
    }
    const columns = RECORD_COLUMNS.map((column) => `"${column}"`).join(', ');
    return [
      this.db.raw(
        `json_array(${columns}, (SELECT json_group_array(json_object('id', l.id, 'name', l.name, 'color', l.color) ` +
          `ORDER BY l.name_key) ${labels})) AS packed`,
      ),
    ];
  }

  async hasLivePosts(accountId: string, channelIds?: readonly string[]): Promise<boolean> {
    const q = this.db('posts').where({ account_id: accountId, is_live: true });
    if (channelIds?.length) q.whereIn('channel_id', channelIds);
    return (await q.first('id')) !== undefined;
  }

  /**
   * Applies a change to an unpublished, non-live post; false when it no longer is one. A changed post is rehearsed
   * again (its time or content may have mended, or made, a risk).
   */
  async updateUnpublished(accountId: string, id: string, changes: Partial<PostRecord>): Promise<boolean> {
    const n = await this.db('posts')
      .where({ account_id: accountId, id, is_live: false })
      .whereIn('status', ['draft', 'scheduled', 'failed'])
      .update({ ...toRow(changes), rehearsed_at: null });
    return n > 0;
  }

  /** Writes a post's thread as it now stands (a published post's parts, with why they did not go out). */
  async setThread(accountId: string, id: string, thread: readonly ThreadPartRecord[]): Promise<void> {
    await this.db('posts')
      .where({ account_id: accountId, id })
      .update({ thread: jsonText(thread) });
  }

  /** Turns a channel's posts that were waiting to go out (scheduled or failed) into drafts; answers their ids. */
  async draftWaitingOnChannel(accountId: string, channelId: string, now: number): Promise<string[]> {
    const waiting = this.db('posts')
      .where({ account_id: accountId, channel_id: channelId, is_live: false })
      .whereIn('status', ['scheduled', 'failed']);
    const ids = (await waiting.clone().orderBy('id').select('id')).map((row) => row.id as string);
    if (ids.length > 0) await this.db('posts').whereIn('id', ids).update({ status: 'draft', updated_at: now });
    return ids;
  }

  async delete(accountId: string, id: string): Promise<boolean> {
    const n = await this.db('posts').where({ account_id: accountId, id, is_live: false }).delete();
    return n > 0;
  }

  /**
   * Fills each post's labels with one query, in place: callers hand over records of their own making. Copies made
   * as `{ ...post, labels }` each get a hidden class of their own in Node 20's optimised code, made in the old
   * generation, where a page of them was most of the garbage a REST read left for a full collection (BENCHMARKS.md).
   */
  async withLabels(posts: PostRecord[]): Promise<PostRecord[]> {
    if (posts.length === 0) return posts;
    const rows = await this.db('post_labels')
      .join('labels', 'labels.id', 'post_labels.label_id')
      .whereIn(
        'post_labels.post_id',
        posts.map((p) => p.id),
      )
      .orderBy('labels.name_key')
      .select('post_labels.post_id', 'labels.id', 'labels.name', 'labels.color');
    const byPost = new Map<string, PostLabelRecord[]>();
    for (const row of rows) {
      const list = byPost.get(row.post_id) ?? [];
      list.push({ id: row.id, name: row.name, color: row.color });
      byPost.set(row.post_id, list);
    }
    for (const post of posts) post.labels = byPost.get(post.id) ?? [];
    return posts;
  }
}

// labels live in post_labels, not in a column.
const COLUMNS: Record<Exclude<keyof PostRecord, 'labels'>, string> = {
  id: 'id',
  accountId: 'account_id',
  workspaceId: 'workspace_id',
  channelId: 'channel_id',
  groupId: 'group_id',
  text: 'text',
  dateTime: 'date_time',
  timelineAt: 'timeline_at',
  isScheduled: 'is_scheduled',
  isDraft: 'is_draft',
  isLive: 'is_live',
  status: 'status',
  approvalStatus: 'approval_status',
  type: 'type',
  sourceType: 'source_type',
  imageUrls: 'image_urls',
  videoUrls: 'video_urls',
  firstComment: 'first_comment',
  thread: 'thread',
  channelOptions: 'channel_options',
  networkPostId: 'network_post_id',
  permalinkUrl: 'permalink_url',
  metrics: 'metrics',
  lastError: 'last_error',
  publishedAt: 'published_at',
  createdAt: 'created_at',
  updatedAt: 'updated_at',
  inQueue: 'in_queue',
  recycledFromPostId: 'recycled_from_post_id',
  reviewerUserId: 'reviewer_user_id',
  rejectionReason: 'rejection_reason',
  risk: 'risk',
};

/**
 * What a read selects: the record's columns, not the worker's lease bookkeeping. Every value read costs better-sqlite3
 * about the same to hand over whatever its type, so a page of posts costs in proportion to the columns selected.
 */
const RECORD_COLUMNS = Object.values(COLUMNS);

/** A row SQLite packed as a JSON array (listedColumns), made an object by a function compiled for its columns. */
const unpackListedRow = rowBuilder([...RECORD_COLUMNS, 'labels']);

function toListedPost(row: { packed?: string; labels?: unknown }): PostRecord {
  const values = row.packed === undefined ? row : unpackListedRow(JSON.parse(row.packed));
  const post = toPost(values);
  post.labels = json(values.labels, []);
  return post;
}

const JSON_FIELDS = new Set<keyof PostRecord>([
  'imageUrls',
  'videoUrls',
  'firstComment',
  'thread',
  'channelOptions',
  'metrics',
  'risk',
]);

export function toRow(record: Partial<PostRecord>): Record<string, unknown> {
  const row: Record<string, unknown> = {};
  for (const [field, value] of Object.entries(record) as [keyof PostRecord, unknown][]) {
    if (value === undefined || field === 'labels') continue;
    row[COLUMNS[field as Exclude<keyof PostRecord, 'labels'>]] = JSON_FIELDS.has(field) ? jsonText(value) : value;
  }
  return row;
}

export function toPost(row: any): PostRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    workspaceId: row.workspace_id,
    channelId: row.channel_id,
    groupId: row.group_id,
    text: row.text,
    dateTime: row.date_time,
    timelineAt: row.timeline_at,
    isScheduled: bool(row.is_scheduled),
    isDraft: bool(row.is_draft),
    isLive: bool(row.is_live),
    status: row.status,
    approvalStatus: row.approval_status,
    type: row.type,
    sourceType: row.source_type,
    imageUrls: json(row.image_urls, []),
    videoUrls: json(row.video_urls, []),
    firstComment: json(row.first_comment, null),
    thread: json(row.thread, null),
    channelOptions: json(row.channel_options, null),
    networkPostId: row.network_post_id,
    permalinkUrl: row.permalink_url,
    metrics: json(row.metrics, null),
    lastError: row.last_error,
    publishedAt: row.published_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    inQueue: bool(row.in_queue),
    recycledFromPostId: row.recycled_from_post_id ?? null,
    reviewerUserId: row.reviewer_user_id ?? null,
    rejectionReason: row.rejection_reason ?? null,
    risk: json(row.risk, null),
  };
}
