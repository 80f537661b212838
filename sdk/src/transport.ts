/**
 * What every call of the SDK goes through:
 * - a write (POST, PUT, PATCH, DELETE) carries an Idempotency-Key unless the caller set one, the same on each try,
 *   so a retry never makes a second post;
 * - 429 and 503 are tried again after the wait their Retry-After names (a second, doubling, when they name none),
 *   up to `retries` times; a wait beyond `maxRetryDelaySeconds` is not slept through but answered, so a caller
 *   never hangs on a budget that resets in an hour.
 */
import { retryAfterSeconds } from './errors.js';

export interface RetryOptions {
  /** How many times a 429 or 503 is tried again (default 2; 0 answers it at once). */
  retries?: number;
  /** The longest Retry-After the SDK waits for (default 60 seconds); a longer one is answered as it is. */
  maxRetryDelaySeconds?: number;
}

export interface TransportOptions extends RetryOptions {
  /** Send an Idempotency-Key with every write that has none (default true). */
  idempotencyKeys?: boolean;
  fetch?: typeof globalThis.fetch;
}

const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const RETRIED = new Set([429, 503]);

export function heraldFetch(options: TransportOptions): (request: Request, init?: RequestInit) => Promise<Response> {
  const base = options.fetch ?? globalThis.fetch;
  const retries = options.retries ?? 2;
  const maxDelay = options.maxRetryDelaySeconds ?? 60;
  return async (request, init) => {
    if (options.idempotencyKeys !== false && WRITES.has(request.method) && !request.headers.has('Idempotency-Key')) {
      request.headers.set('Idempotency-Key', newKey());
    }
    for (let attempt = 0; ; attempt += 1) {
      const last = attempt >= retries;
      const response = await base(last ? request : request.clone(), init);
      if (last || !RETRIED.has(response.status)) return response;
      const delay = retryDelaySeconds(response, attempt);
      if (delay > maxDelay) return response;
      await response.body?.cancel();
      await sleep(delay * 1000, request.signal);
    }
  };
}

/**
 * A random UUID (version 4). Made from getRandomValues because randomUUID exists only in a browser's secure
 * contexts, and the web app may be served over plain http on a local network.
 */
function newKey(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

const retryDelaySeconds = (response: Response, attempt: number): number => retryAfterSeconds(response) ?? 2 ** attempt;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    const abort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal.addEventListener('abort', abort, { once: true });
  });
}
