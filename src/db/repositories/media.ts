import type { Db } from '../connection.js';

export type MediaKind = 'image' | 'video';
export type MediaSource = 'upload' | 'import' | 'generated';

export interface MediaRecord {
  id: string;
  accountId: string;
  workspaceId: string;
  filename: string;
  mimeType: string;
  kind: MediaKind;
  sizeBytes: number;
  width: number | null;
  height: number | null;
  durationMs: number | null;
  storageKey: string;
  source: MediaSource;
  sourceUrl: string | null;
  createdAt: number;
}

export interface MediaUploadRecord {
  id: string;
  accountId: string;
  workspaceId: string;
  filename: string;
  declaredMimeType: string;
  maxBytes: number;
  receivedBytes: number | null;
  mediaId: string | null;
  expiresAt: number;
  createdAt: number;
}

/** The media library and its pending uploads; every query is scoped to an account. */
export class MediaRepository {
  constructor(private readonly db: Db) {}

  async create(record: MediaRecord): Promise<void> {
    await this.db('media').insert({
      id: record.id,
      account_id: record.accountId,
      workspace_id: record.workspaceId,
      filename: record.filename,
      mime_type: record.mimeType,
      kind: record.kind,
      size_bytes: record.sizeBytes,
      width: record.width,
      height: record.height,
      duration_ms: record.durationMs,
      storage_key: record.storageKey,
      source: record.source,
      source_url: record.sourceUrl,
      created_at: record.createdAt,
    });
  }

  async get(accountId: string, id: string): Promise<MediaRecord | undefined> {
    const row = await this.db('media').where({ account_id: accountId, id }).first();
    return row && toMedia(row);
  }

  async findMany(accountId: string, ids: readonly string[]): Promise<MediaRecord[]> {
    if (ids.length === 0) return [];
    return (await this.db('media').where({ account_id: accountId }).whereIn('id', ids)).map(toMedia);
  }

  /** The account's library, newest first (ids are time-sortable), after `beforeId` when paging. */
  async list(
    accountId: string,
    options: { workspaceId?: string; beforeId?: string; limit: number },
  ): Promise<MediaRecord[]> {
    const query = this.db('media').where({ account_id: accountId });
    if (options.workspaceId) query.andWhere({ workspace_id: options.workspaceId });
    if (options.beforeId) query.andWhere('id', '<', options.beforeId);
    return (await query.orderBy('id', 'desc').limit(options.limit)).map(toMedia);
  }

  /** For serving the public file link, which carries no account: the id is the capability, with the filename. */
  async getPublic(id: string, filename: string): Promise<MediaRecord | undefined> {
    const row = await this.db('media').where({ id, filename }).first();
    return row && toMedia(row);
  }

  async createUpload(record: MediaUploadRecord): Promise<void> {
    await this.db('media_uploads').insert({
      id: record.id,
      account_id: record.accountId,
      workspace_id: record.workspaceId,
      filename: record.filename,
      declared_mime_type: record.declaredMimeType,
      max_bytes: record.maxBytes,
      received_bytes: record.receivedBytes,
      media_id: record.mediaId,
      expires_at: record.expiresAt,
      created_at: record.createdAt,
    });
  }

  /** The upload by id alone: the signed URL that names it is checked by the caller. */
  async getUploadById(id: string): Promise<MediaUploadRecord | undefined> {
    const row = await this.db('media_uploads').where({ id }).first();
    return row && toUpload(row);
  }

  async getUpload(accountId: string, id: string): Promise<MediaUploadRecord | undefined> {
    const row = await this.db('media_uploads').where({ account_id: accountId, id }).first();
    return row && toUpload(row);
  }

  async markReceived(id: string, bytes: number): Promise<boolean> {
    return (await this.db('media_uploads').where({ id }).whereNull('media_id').update({ received_bytes: bytes })) > 0;
  }

  /** Links the upload to its media record once; false when another completion won. */
  async markCompleted(accountId: string, id: string, mediaId: string): Promise<boolean> {
    return (
      (await this.db('media_uploads')
        .where({ account_id: accountId, id })
        .whereNull('media_id')
        .update({ media_id: mediaId })) > 0
    );
  }

  async deleteExpiredUploads(now: number): Promise<string[]> {
    const rows = await this.db('media_uploads').where('expires_at', '<', now).whereNull('media_id').select('id');
    const ids = rows.map((row) => row.id as string);
    if (ids.length > 0) await this.db('media_uploads').whereIn('id', ids).delete();
    return ids;
  }
}

function toMedia(row: any): MediaRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    workspaceId: row.workspace_id,
    filename: row.filename,
    mimeType: row.mime_type,
    kind: row.kind,
    sizeBytes: Number(row.size_bytes),
    width: row.width ?? null,
    height: row.height ?? null,
    durationMs: row.duration_ms ?? null,
    storageKey: row.storage_key,
    source: row.source,
    sourceUrl: row.source_url ?? null,
    createdAt: Number(row.created_at),
  };
}

function toUpload(row: any): MediaUploadRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    workspaceId: row.workspace_id,
    filename: row.filename,
    declaredMimeType: row.declared_mime_type,
    maxBytes: Number(row.max_bytes),
    receivedBytes: row.received_bytes === null || row.received_bytes === undefined ? null : Number(row.received_bytes),
    mediaId: row.media_id ?? null,
    expiresAt: Number(row.expires_at),
    createdAt: Number(row.created_at),
  };
}
