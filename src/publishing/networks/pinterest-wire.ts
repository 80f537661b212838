import { NetworkError, type NetworkPost } from '../../domain/networks/connector.js';
import { retryAtFrom, type NetworkAnswer } from './network-http.js';
import type { TokenRefusal } from './oauth2-client.js';

/**
 * Pinterest's wire rules that are not one call (API v5 description, pinterest/api-description v5/openapi.yaml;
 * developers.pinterest.com rate-limits and content-apps guides):
 * - every refusal is `{ code, message }` (Pinterest.Lib.Error); 401 is a token Pinterest no longer takes (expired or
 *   revoked: a refresh tells which), 429 is a spent rate-limit category, whose `x-ratelimit-reset` says when it comes
 *   back; 5xx retries later; every other refusal (400 invalid parameters, 403 not permitted, 404 board not found) is
 *   permanent, in Pinterest's words;
 * - a video goes to the upload_url of a registered media upload as a multipart/form-data POST: every field of
 *   upload_parameters first, then the file as `file` (S3's POST policy rejects a form with the file before them);
 * - the token endpoint refuses in the same form: 401 is the app's HTTP Basic refused, 400 a code or refresh token
 *   it no longer takes;
 * - a Pin's lifetime metrics (pin_metrics=true) are Herald's metrics for it.
 */
export function classify(answer: NetworkAnswer, now: number): NetworkError {
  const code = answer.json?.code;
  const message = typeof answer.json?.message === 'string' ? answer.json.message : '';
  const words =
    'Pinterest answered ' +
    `HTTP ${answer.status}${code !== undefined ? ` (code ${code})` : ''}${message ? `: ${message}` : ''}`;
  if (answer.status === 429) return new NetworkError('retry_later', words, retryAtFrom(answer, now));
  if (answer.status === 401) return new NetworkError('refresh_and_retry', words);
  if (answer.status >= 500) return new NetworkError('retry_later', words);
  return new NetworkError('permanent', words);
}

/** A refusal of the token endpoint in OAuth terms. */
export function tokenRefusal(answer: NetworkAnswer): TokenRefusal {
  const code = answer.json?.code;
  const message = typeof answer.json?.message === 'string' ? answer.json.message : `HTTP ${answer.status}`;
  const error = answer.status === 401 ? 'invalid_client' : answer.status === 400 ? 'invalid_grant' : undefined;
  return { error, said: `${message}${code !== undefined ? ` (code ${code})` : ''}` };
}

/** A multipart/form-data body: the fields in order, then the file. */
export function multipart(
  fields: Record<string, string>,
  file: { bytes: Buffer; contentType: string; name: string },
): { body: Buffer; contentType: string } {
  const boundary = `----herald${Math.random().toString(16).slice(2)}${Date.now().toString(16)}`;
  const parts: Buffer[] = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`, 'utf8'),
    );
  }
  parts.push(
    Buffer.from(
      `--${boundary}\r\nContent-Disposition: form-data; name="file"; ` +
        `filename="${file.name}"\r\nContent-Type: ${file.contentType}\r\n\r\n`,
      'utf8',
    ),
  );
  parts.push(file.bytes, Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8'));
  return { body: Buffer.concat(parts), contentType: `multipart/form-data; boundary=${boundary}` };
}

const METRICS: Readonly<Record<string, string>> = {
  impression: 'impressions',
  save: 'saves',
  pin_click: 'pinClicks',
  outbound_click: 'outboundClicks',
  clickthrough: 'outboundClicks',
  reaction: 'reactions',
  comment: 'comments',
  video_mrc_view: 'views',
};

/** A Pin as Herald lists it among the account's posts. */
export function pinPost(pin: any): NetworkPost {
  const lifetime = pin.pin_metrics?.lifetime_metrics ?? {};
  const metrics: Record<string, number> = {};
  for (const [key, value] of Object.entries(lifetime)) {
    const name = METRICS[key.toLowerCase()];
    if (name && Number.isFinite(Number(value))) metrics[name] = Number(value);
  }
  const images =
    pin.media?.images && typeof pin.media.images === 'object'
      ? Object.values(pin.media.images as Record<string, any>)
      : [];
  const image = images.map((size) => size?.url).find((url) => typeof url === 'string');
  return {
    networkPostId: String(pin.id),
    permalinkUrl: pinUrl(String(pin.id)),
    publishedAt: Date.parse(String(pin.created_at)) || 0,
    attemptKey: null,
    text: String(pin.description || pin.title || ''),
    imageUrls: image ? [image] : [],
    metrics,
  };
}

export function pinUrl(id: string): string {
  return `https://www.pinterest.com/pin/${encodeURIComponent(id)}/`;
}
