import type { NetworkCapabilities } from '../../domain/networks/capabilities.js';
import { NetworkError } from '../../domain/networks/connector.js';
import { retryAtFrom, type NetworkAnswer } from './network-http.js';

/**
 * TikTok's wire rules that are not one call (tiktok-api-v2-error-handling, media-transfer-guide, get-video-status):
 * - every answer is `{ data, error: { code, message, log_id } }`; only code "ok" is success, whatever the status;
 * - failures are classified once: 429 rate_limit_exceeded waits out the one-minute sliding window (TikTok sends no
 *   reset); 401 access_token_invalid is an expired or revoked token; 401 scope_not_authorized and
 *   scope_permission_missed need the person to grant more; 5xx internal_error retries later; every other refusal
 *   (400 invalid_params, 403 privacy_level_option_mismatch, url_ownership_unverified, spam_risk_*, ...) is permanent,
 *   in TikTok's words;
 * - a FILE_UPLOAD is cut as the media transfer guide says (see chunkPlan);
 * - TikTok's post ids are int64 written as bare JSON numbers, read from the raw text so they are not rounded.
 */
export interface TikTokEnvelope {
  ok: boolean;
  data: any;
  code: string;
  message: string;
}

export function envelope(answer: NetworkAnswer): TikTokEnvelope {
  const error = answer.json?.error ?? {};
  const code = typeof error.code === 'string' ? error.code : `HTTP ${answer.status}`;
  return {
    ok: answer.status === 200 && code === 'ok',
    data: answer.json?.data ?? {},
    code,
    message: typeof error.message === 'string' ? error.message : '',
  };
}

export function classify(answer: NetworkAnswer, now: number, capabilities: NetworkCapabilities): NetworkError {
  const { code, message } = envelope(answer);
  const words = `TikTok answered HTTP ${answer.status} ${code}${message ? `: ${message}` : ''}`;
  if (answer.status === 429 || code === 'rate_limit_exceeded') {
    const windowEnd = capabilities.rateWindowMs !== undefined ? now + capabilities.rateWindowMs : undefined;
    return new NetworkError('retry_later', words, retryAtFrom(answer, now) ?? windowEnd);
  }
  if (code === 'access_token_invalid') return new NetworkError('refresh_and_retry', words);
  if (code === 'scope_not_authorized' || code === 'scope_permission_missed') {
    return new NetworkError(
      'reconnect_needed',
      `${words}. Reconnect the channel and allow every permission Herald asks for`,
    );
  }
  if (answer.status >= 500) return new NetworkError('retry_later', words);
  return new NetworkError('permanent', words);
}

/** What TikTok's status/fetch said of a publish. */
export interface PublishStatus {
  status: string;
  failReason: string | null;
  /** Public post ids, exact (int64), empty for private posts and drafts. */
  postIds: string[];
}

export function publishStatus(answer: NetworkAnswer): PublishStatus {
  const data = answer.json?.data ?? {};
  const raw = /"publicaly_available_post_id"\s*:\s*\[([^\]]*)\]/.exec(answer.body.toString('utf8'))?.[1] ?? '';
  return {
    status: String(data.status ?? ''),
    failReason: typeof data.fail_reason === 'string' && data.fail_reason ? data.fail_reason : null,
    postIds: raw
      .split(',')
      .map((id) => id.trim().replace(/^"|"$/g, ''))
      .filter((id) => /^\d+$/.test(id)),
  };
}

/**
 * How a file of `size` bytes is cut (media-transfer-guide, "Chunk restrictions"): under the smallest chunk it goes
 * whole; otherwise chunks of the smallest size that keeps the count within the maximum, total_chunk_count being
 * size / chunk_size rounded down, so the last chunk takes the trailing bytes (less than two chunks, within its cap).
 */
export function chunkPlan(
  size: number,
  rules: NonNullable<NetworkCapabilities['chunkedUpload']>,
): { chunkSize: number; count: number } {
  if (size < rules.minChunkBytes) return { chunkSize: size, count: 1 };
  const chunkSize = Math.min(rules.maxChunkBytes, Math.max(rules.minChunkBytes, Math.ceil(size / rules.maxChunks)));
  const count = Math.max(1, Math.floor(size / chunkSize));
  const last = size - (count - 1) * chunkSize;
  if (count > rules.maxChunks || last > rules.maxLastChunkBytes || (count === 1 && size > rules.maxChunkBytes)) {
    throw new NetworkError(
      'permanent',
      `TikTok takes a file in at most ${rules.maxChunks} chunks of ${rules.maxChunkBytes / 2 ** 20} MB; ` +
        `this video has ${size} bytes`,
    );
  }
  return { chunkSize, count };
}

/** The bytes of chunk `index` of a plan: every chunk is chunkSize, the last runs to the end. */
export function chunkRange(
  size: number,
  plan: { chunkSize: number; count: number },
  index: number,
): { first: number; last: number } {
  const first = index * plan.chunkSize;
  return { first, last: index === plan.count - 1 ? size - 1 : first + plan.chunkSize - 1 };
}

/**
 * A video's length in seconds from its movie header (ISO BMFF `moov/mvhd`: MP4, QuickTime), or undefined when the
 * file has none Herald can read; TikTok refuses videos longer than the creator's max_video_post_duration_sec only
 * after the upload, so Herald checks first.
 */
export function videoSeconds(bytes: Buffer): number | undefined {
  const moov = findBox(bytes, 0, bytes.length, 'moov');
  if (!moov) return undefined;
  const mvhd = findBox(bytes, moov.start, moov.end, 'mvhd');
  if (!mvhd || mvhd.end - mvhd.start < 20) return undefined;
  const version = bytes[mvhd.start];
  const timescale = bytes.readUInt32BE(mvhd.start + (version === 1 ? 20 : 12));
  if (version === 1 && mvhd.end - mvhd.start < 32) return undefined;
  const duration = version === 1 ? Number(bytes.readBigUInt64BE(mvhd.start + 24)) : bytes.readUInt32BE(mvhd.start + 16);
  return timescale > 0 ? duration / timescale : undefined;
}

/** The payload of the first box of this type among the boxes in [from, to). */
function findBox(bytes: Buffer, from: number, to: number, type: string): { start: number; end: number } | undefined {
  let at = from;
  while (at + 8 <= to) {
    let size = bytes.readUInt32BE(at);
    let header = 8;
    if (size === 1) {
      if (at + 16 > to) return undefined;
      size = Number(bytes.readBigUInt64BE(at + 8));
      header = 16;
    } else if (size === 0) {
      size = to - at;
    }
    if (size < header || at + size > to) return undefined;
    if (bytes.toString('latin1', at + 4, at + 8) === type) return { start: at + header, end: at + size };
    at += size;
  }
  return undefined;
}
