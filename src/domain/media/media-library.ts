import type { ToolResults } from '../../../generated/mcp/types.js';
import crypto from 'node:crypto';
import path from 'node:path';
import type { MediaRecord, MediaSource } from '../../db/repositories/media.js';
import type { DomainDeps } from '../deps.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { HeraldError, NotFoundError, UnprocessableError, ValidationError } from '../errors.js';
import { newId } from '../ids.js';
import type { KnownMedia } from '../networks/post-fit.js';
import type { Principal } from '../principal.js';
import { safeEqual } from '../secrets.js';
import { toWireTime } from '../time.js';
import { libraryRefOf } from './library-files.js';
import { ACCEPTED_TYPES, acceptedTypeList, inspectMedia } from './media-file.js';

/**
 * The media library: one per workspace.
 *
 * Rules enforced:
 * - uploads go to a signed, short-lived URL on Herald itself; the declared type must be one networks accept and
 *   the declared size within MEDIA_MAX_UPLOAD_BYTES; the bytes sent may not exceed the declared size;
 * - on completion the real type is sniffed from the bytes (the declared type and the file name do not count);
 * - an upload completes once; completing it again returns the same media;
 * - each media record has a public, direct file URL ({BASE_URL}/media/{id}/{filename}) a network can download;
 * - posts name media by id; the ids must belong to the caller's account;
 * - the library is listed within the caller's account, newest first, a page at a time with a signed cursor.
 */
const UPLOAD_TTL_MS = 15 * 60_000;

/** A media record as the tools show it (complete_media_upload's result item, from jsonrpc-schemas/). */
export type MediaView = ToolResults['complete_media_upload']['data'];

function mediaPublicUrl(deps: DomainDeps, record: Pick<MediaRecord, 'id' | 'filename'>): string {
  return `${deps.config.baseUrl}/media/${record.id}/${encodeURIComponent(record.filename)}`;
}

/**
 * The files behind a post's media URLs that are this account's library media ({BASE_URL}/media/{id}/...), with what
 * Herald read of each when it came in; other URLs are not in the map.
 */
export async function knownMediaOf(
  deps: DomainDeps,
  accountId: string,
  urls: readonly string[],
): Promise<Map<string, KnownMedia>> {
  const ids = new Map<string, string>();
  for (const url of urls) {
    const ref = libraryRefOf(deps.config.baseUrl, url);
    if (ref) ids.set(url, ref.id);
  }
  const known = new Map<string, KnownMedia>();
  if (ids.size === 0) return known;
  const records = new Map(
    (await deps.repos.media.findMany(accountId, [...new Set(ids.values())])).map((r) => [r.id, r]),
  );
  for (const [url, id] of ids) {
    const record = records.get(id);
    if (record)
      known.set(url, {
        mimeType: record.mimeType,
        sizeBytes: record.sizeBytes,
        width: record.width,
        height: record.height,
        durationMs: record.durationMs,
      });
  }
  return known;
}

function toMediaView(deps: DomainDeps, record: MediaRecord): MediaView {
  return {
    id: record.id,
    url: mediaPublicUrl(deps, record),
    contentType: record.mimeType,
    kind: record.kind,
    fileName: record.filename,
    sizeBytes: record.sizeBytes,
    width: record.width,
    height: record.height,
    durationSeconds: record.durationMs === null ? null : record.durationMs / 1000,
    workspaceId: record.workspaceId,
    createdAt: toWireTime(record.createdAt),
  };
}

const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;
const CURSOR_MODE = 'media';

/** GET /media: the library, newest first; `workspaceId` narrows it to one workspace's files. */
export async function listMedia(
  deps: DomainDeps,
  principal: Principal,
  input: { workspaceId?: string; limit?: number; cursor?: string },
): Promise<{ data: MediaView[]; paging: { nextCursor: string | null; hasMore: boolean } }> {
  const limit = Math.min(Math.max(input.limit ?? DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE);
  // The workspace is part of the mode: a cursor of one workspace's listing does not page another's.
  const mode = `${CURSOR_MODE}:${input.workspaceId ?? ''}`;
  const before = input.cursor ? decodeCursor(deps.secrets.cursorKey, mode, input.cursor) : undefined;
  if (input.workspaceId) await resolveWorkspace(deps, principal, input.workspaceId);
  const rows = await deps.repos.media.list(principal.accountId, {
    workspaceId: input.workspaceId,
    beforeId: before?.id,
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return {
    data: page.map((record) => toMediaView(deps, record)),
    paging: {
      nextCursor: hasMore
        ? encodeCursor(deps.secrets.cursorKey, mode, { key: null, id: page[page.length - 1].id })
        : null,
      hasMore,
    },
  };
}

/** A file name safe in a URL path and on disk: letters, digits, dot, dash, underscore. */
function cleanFileName(raw: string, extension: string): string {
  const base = path
    .basename(raw)
    .replace(/\.[^.]*$/, '')
    .normalize('NFKD')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 100);
  return `${base || 'media'}.${extension}`;
}

export async function resolveWorkspace(deps: DomainDeps, principal: Principal, workspaceId?: string): Promise<string> {
  const workspaces = await deps.repos.accounts.listWorkspaces(principal.accountId);
  const workspace = workspaceId ? workspaces.find((w) => w.id === workspaceId) : workspaces[0];
  if (!workspace)
    throw new NotFoundError(`No workspace ${workspaceId ?? ''} in this account; list them with get_workspaces.`);
  return workspace.id;
}

function uploadSignature(deps: DomainDeps, uploadId: string, expiresAt: number): string {
  return crypto
    .createHmac('sha256', deps.secrets.linkKey)
    .update(`media-upload:${uploadId}:${expiresAt}`)
    .digest('base64url');
}

function uploadKey(uploadId: string): string {
  return `uploads/${uploadId}`;
}

export interface CreateUploadInput {
  fileName: string;
  contentType: string;
  sizeBytes: number;
  workspaceId?: string;
}

export async function createMediaUpload(deps: DomainDeps, principal: Principal, input: CreateUploadInput) {
  const contentType = input.contentType.toLowerCase();
  if (!ACCEPTED_TYPES[contentType]) {
    throw new ValidationError(`contentType ${input.contentType} is not accepted`, [
      { path: 'contentType', message: `Use one of ${acceptedTypeList()}.` },
    ]);
  }
  const max = deps.config.media.maxUploadBytes;
  if (input.sizeBytes > max) {
    throw new ValidationError(`The file is larger than the ${max} byte upload limit`, [
      { path: 'sizeBytes', message: `At most ${max} bytes.` },
    ]);
  }
  const workspaceId = await resolveWorkspace(deps, principal, input.workspaceId);
  const now = deps.now();
  const id = newId();
  const expiresAt = now + UPLOAD_TTL_MS;
  await deps.repos.media.createUpload({
    id,
    accountId: principal.accountId,
    workspaceId,
    filename: cleanFileName(input.fileName, ACCEPTED_TYPES[contentType].extension),
    declaredMimeType: contentType,
    maxBytes: input.sizeBytes,
    receivedBytes: null,
    mediaId: null,
    expiresAt,
    createdAt: now,
  });
  const query = new URLSearchParams({ expires: String(expiresAt), sig: uploadSignature(deps, id, expiresAt) });
  return {
    uploadId: id,
    uploadUrl: `${deps.config.baseUrl}/media/uploads/${id}?${query}`,
    method: 'PUT' as const,
    headers: { 'content-type': contentType },
    maxBytes: input.sizeBytes,
    expiresAt: toWireTime(expiresAt),
  };
}

/** Why an upload PUT is refused, with the HTTP status that says it. */
export class UploadRefusedError extends HeraldError {
  constructor(status: 403 | 404 | 409 | 410 | 413 | 415, message: string) {
    super('upload_refused', status, message);
  }
}

/**
 * Receives the bytes PUT to a signed upload URL, up to the declared size. No principal: the signature is the
 * capability.
 */
export async function receiveUpload(
  deps: DomainDeps,
  input: {
    uploadId: string;
    expires: string;
    sig: string;
    contentType: string | undefined;
    body: AsyncIterable<Buffer>;
  },
): Promise<{ receivedBytes: number }> {
  const upload = await deps.repos.media.getUploadById(input.uploadId);
  if (
    !upload ||
    String(upload.expiresAt) !== input.expires ||
    !safeEqual(uploadSignature(deps, upload.id, upload.expiresAt), input.sig)
  ) {
    throw new UploadRefusedError(403, 'This upload URL is not valid. Ask create_media_upload for a new one.');
  }
  if (upload.expiresAt <= deps.now())
    throw new UploadRefusedError(410, 'This upload URL has expired. Ask create_media_upload for a new one.');
  if (upload.mediaId) throw new UploadRefusedError(409, 'This upload is already complete.');
  if ((input.contentType ?? '').split(';')[0].trim().toLowerCase() !== upload.declaredMimeType) {
    throw new UploadRefusedError(
      415,
      `Send the bytes with Content-Type: ${upload.declaredMimeType}, as declared to create_media_upload.`,
    );
  }
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of input.body) {
    received += chunk.length;
    if (received > upload.maxBytes) {
      throw new UploadRefusedError(
        413,
        `More than the ${upload.maxBytes} bytes declared to create_media_upload were sent.`,
      );
    }
    chunks.push(chunk);
  }
  await deps.mediaStorage.put(uploadKey(upload.id), Buffer.concat(chunks), upload.declaredMimeType);
  await deps.repos.media.markReceived(upload.id, received);
  return { receivedBytes: received };
}

/** From this size a video upload takes long to read back, inspect and store. */
const LONG_UPLOAD_BYTES = 50 * 1024 * 1024;

/** Whether completing this upload takes long: a large video whose bytes have all arrived. */
export async function completionTakesLong(deps: DomainDeps, principal: Principal, uploadId: string): Promise<boolean> {
  const upload = await deps.repos.media.getUpload(principal.accountId, uploadId);
  return (
    upload !== undefined &&
    upload.mediaId === null &&
    upload.declaredMimeType.startsWith('video/') &&
    (upload.receivedBytes ?? 0) >= LONG_UPLOAD_BYTES
  );
}

export async function completeMediaUpload(
  deps: DomainDeps,
  principal: Principal,
  input: { uploadId: string },
): Promise<MediaView> {
  const upload = await deps.repos.media.getUpload(principal.accountId, input.uploadId);
  if (!upload)
    throw new NotFoundError(`No upload ${input.uploadId} in this account; start one with create_media_upload.`);
  if (upload.mediaId) {
    const done = await deps.repos.media.get(principal.accountId, upload.mediaId);
    if (done) return toMediaView(deps, done);
  }
  if (upload.receivedBytes === null) {
    throw new UnprocessableError(
      'upload_incomplete',
      'No bytes have arrived for this upload yet: PUT the file to the uploadUrl first, ' +
        'then call complete_media_upload.',
    );
  }
  const bytes = await deps.mediaStorage.read(uploadKey(upload.id));
  if (!bytes)
    throw new UnprocessableError(
      'upload_incomplete',
      'The uploaded bytes are gone (the upload expired); start again with create_media_upload.',
    );
  const media = await storeMedia(deps, principal, {
    workspaceId: upload.workspaceId,
    bytes,
    fileName: upload.filename,
    source: 'upload',
    sourceUrl: null,
    mediaId: newId(),
  });
  if (!(await deps.repos.media.markCompleted(principal.accountId, upload.id, media.id))) {
    // Another completion won the race: answer with its record, drop ours.
    const winner = await deps.repos.media.getUpload(principal.accountId, upload.id);
    const record = winner?.mediaId ? await deps.repos.media.get(principal.accountId, winner.mediaId) : undefined;
    if (record) return toMediaView(deps, record);
  }
  await deps.mediaStorage.delete(uploadKey(upload.id));
  return media;
}

/** Forgets uploads that expired without completing, and their bytes. */
export async function purgeExpiredUploads(deps: DomainDeps): Promise<number> {
  const ids = await deps.repos.media.deleteExpiredUploads(deps.now());
  for (const id of ids) await deps.mediaStorage.delete(uploadKey(id));
  return ids.length;
}

/** Checks bytes and adds them to the library; shared by uploads, imports and generated images. */
export async function storeMedia(
  deps: DomainDeps,
  principal: Principal,
  input: {
    workspaceId: string;
    bytes: Buffer;
    fileName: string;
    source: MediaSource;
    sourceUrl: string | null;
    mediaId?: string;
  },
): Promise<MediaView> {
  const inspected = await inspectMedia(input.bytes);
  const id = input.mediaId ?? newId();
  const filename = cleanFileName(input.fileName, inspected.extension);
  const record: MediaRecord = {
    id,
    accountId: principal.accountId,
    workspaceId: input.workspaceId,
    filename,
    mimeType: inspected.mimeType,
    kind: inspected.kind,
    sizeBytes: input.bytes.length,
    width: inspected.width,
    height: inspected.height,
    durationMs: inspected.durationMs,
    storageKey: `${input.workspaceId}/${id}/${filename}`,
    source: input.source,
    sourceUrl: input.sourceUrl,
    createdAt: deps.now(),
  };
  await deps.mediaStorage.put(record.storageKey, input.bytes, record.mimeType);
  await deps.repos.media.create(record);
  return toMediaView(deps, record);
}

/** The stored file behind a public media URL, or undefined (404). */
export async function openPublicMedia(deps: DomainDeps, id: string, filename: string) {
  const record = await deps.repos.media.getPublic(id, filename);
  if (!record) return undefined;
  const stream = await deps.mediaStorage.open(record.storageKey);
  return stream && { stream, mimeType: record.mimeType, sizeBytes: record.sizeBytes };
}

/** Turns media ids into the public URLs posts carry, split by kind. */
export async function resolveMediaIds(
  deps: DomainDeps,
  principal: Principal,
  mediaIds: readonly string[],
  field = 'mediaIds',
) {
  const found = await deps.repos.media.findMany(principal.accountId, mediaIds);
  const byId = new Map(found.map((m) => [m.id, m]));
  const missing = mediaIds.filter((id) => !byId.has(id));
  if (missing.length > 0) {
    throw new ValidationError(
      `Unknown media ${missing.join(', ')}`,
      missing.map((id) => ({
        path: field,
        message: `No media ${id} in this account; add files with create_media_upload or import_media_from_url.`,
      })),
    );
  }
  const ordered = mediaIds.map((id) => byId.get(id)!);
  return {
    imageUrls: ordered.filter((m) => m.kind === 'image').map((m) => mediaPublicUrl(deps, m)),
    videoUrls: ordered.filter((m) => m.kind === 'video').map((m) => mediaPublicUrl(deps, m)),
  };
}
