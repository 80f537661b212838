/**
 * How Herald delivers an event to a webhook endpoint:
 * - a 2xx answer within ATTEMPT_TIMEOUT_MS is success; anything else (another status, a timeout, a refused
 *   or unreachable address) is a failed attempt;
 * - a failed attempt is retried with exponential back-off and full jitter over the upper half (5 s, 20 s,
 *   80 s, ... capped at 6 h) until DELIVERY_WINDOW_MS after the delivery was queued, then it is `failed`;
 * - 410 Gone disables the endpoint at once: the receiver said it is gone;
 * - an endpoint whose attempts have all failed for DISABLE_AFTER_FAILING_MS is disabled, and its workspace
 *   told by a `webhook.disabled` event.
 */
export const ATTEMPT_TIMEOUT_MS = 10_000;
export const DELIVERY_WINDOW_MS = 24 * 60 * 60_000;
export const DISABLE_AFTER_FAILING_MS = 3 * 24 * 60 * 60_000;
const FIRST_RETRY_MS = 5_000;
const MAX_RETRY_MS = 6 * 60 * 60_000;

/** The wait before the next try, after `attemptsMade` failed attempts. */
export function retryDelayMs(attemptsMade: number, random: () => number = Math.random): number {
  const exponential = Math.min(MAX_RETRY_MS, FIRST_RETRY_MS * 4 ** Math.max(0, attemptsMade - 1));
  return Math.round(exponential / 2 + random() * (exponential / 2));
}

export type AttemptVerdict =
  | { kind: 'succeeded' }
  | { kind: 'gone' }
  | { kind: 'retry'; nextAttemptAt: number }
  | { kind: 'failed' };

/** What one attempt's answer (an HTTP status, or none) means for its delivery. */
export function judgeAttempt(
  status: number | null,
  attemptsMade: number,
  now: number,
  giveUpAt: number,
): AttemptVerdict {
  if (status !== null && status >= 200 && status < 300) return { kind: 'succeeded' };
  if (status === 410) return { kind: 'gone' };
  const nextAttemptAt = now + retryDelayMs(attemptsMade);
  return nextAttemptAt < giveUpAt ? { kind: 'retry', nextAttemptAt } : { kind: 'failed' };
}
