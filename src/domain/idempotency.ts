/**
 * Idempotency-Key rules: a retried request with the same key and body gets the first response and
 * creates nothing new; the same key with another body is 422; a key still being processed is 409;
 * keys are per account and kept 24 hours. The key is claimed before the work, so two concurrent
 * retries can never both create posts. A body's fingerprint ignores key order and is computed without
 * recursion, whatever its depth.
 */
import crypto from 'node:crypto';
import type { DomainDeps } from './deps.js';
import { ConflictError, UnprocessableError } from './errors.js';

const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface StoredResponse {
  status: number;
  body: unknown;
}

export function requestFingerprint(method: string, path: string, body: unknown): string {
  return crypto
    .createHash('sha256')
    .update(`${method} ${path}\n${canonicalJson(body)}`)
    .digest('hex');
}

export async function runIdempotent(
  deps: DomainDeps,
  accountId: string,
  key: string,
  fingerprint: string,
  work: () => Promise<StoredResponse>,
): Promise<StoredResponse & { replayed: boolean }> {
  const now = deps.now();
  const claimed = await deps.repos.idempotency.claim({
    accountId,
    key,
    requestHash: fingerprint,
    responseStatus: null,
    responseBody: null,
    createdAt: now,
    expiresAt: now + IDEMPOTENCY_TTL_MS,
  });
  if (!claimed) {
    const previous = await deps.repos.idempotency.get(accountId, key);
    if (previous && previous.requestHash !== fingerprint) {
      throw new UnprocessableError(
        'idempotency_key_reused',
        'This Idempotency-Key was already used with a different request; send a new key for a new request.',
      );
    }
    if (!previous || previous.responseStatus === null) {
      throw new ConflictError(
        'idempotency_key_in_progress',
        'A request with this Idempotency-Key is still being processed; retry in a few seconds.',
      );
    }
    return { status: previous.responseStatus, body: JSON.parse(previous.responseBody ?? 'null'), replayed: true };
  }
  try {
    const response = await work();
    await deps.repos.idempotency.complete(accountId, key, response.status, JSON.stringify(response.body));
    return { ...response, replayed: false };
  } catch (error) {
    // Nothing was created: free the key so a corrected retry may use it.
    await deps.repos.idempotency.release(accountId, key);
    throw error;
  }
}

type Pending = { text: string } | { value: unknown };

/**
 * JSON with object keys sorted, so key order does not change the fingerprint. Walked with an explicit
 * stack, not recursion: however deep a body nests, this cannot overflow the call stack.
 */
function canonicalJson(root: unknown): string {
  const out: string[] = [];
  const pending: Pending[] = [{ value: root }];
  while (pending.length > 0) {
    const next = pending.pop()!;
    if ('text' in next) {
      out.push(next.text);
      continue;
    }
    const { value } = next;
    if (Array.isArray(value)) {
      const parts: Pending[] = [{ text: '[' }];
      value.forEach((item, i) => {
        if (i > 0) parts.push({ text: ',' });
        parts.push({ value: item });
      });
      parts.push({ text: ']' });
      for (let i = parts.length - 1; i >= 0; i--) pending.push(parts[i]);
    } else if (value && typeof value === 'object') {
      const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
      const parts: Pending[] = [{ text: '{' }];
      entries.forEach(([key, item], i) =>
        parts.push({ text: `${i > 0 ? ',' : ''}${JSON.stringify(key)}:` }, { value: item }),
      );
      parts.push({ text: '}' });
      for (let i = parts.length - 1; i >= 0; i--) pending.push(parts[i]);
    } else {
      out.push(JSON.stringify(value ?? null));
    }
  }
  return out.join('');
}
