/**
 * When a failed call is tried again: exponential back-off (baseBackoffMs doubling per attempt, capped at
 * maxBackoffMs) with full jitter over its upper half, so workers that failed together do not retry
 * together, and never sooner than the network asked (its retryAt, from its reset header).
 */
import type { NetworkError } from '../domain/networks/connector.js';
import type { WorkerOptions } from './runtime.js';

export function backoffMs(
  options: Pick<WorkerOptions, 'baseBackoffMs' | 'maxBackoffMs'>,
  attemptsMade: number,
  error: NetworkError,
  now: number,
): number {
  const exponential = Math.min(options.maxBackoffMs, options.baseBackoffMs * 2 ** Math.max(0, attemptsMade - 1));
  const asked = error.retryAt === undefined ? 0 : Math.max(0, error.retryAt - now);
  return Math.max(asked, Math.round(exponential / 2 + Math.random() * (exponential / 2)));
}
