/**
 * A channel's pause, for every call on its account, not only publishing (Mastodon's per-account limit covers all
 * endpoints, api/rate-limits; the connector port promises no call before the pause ends):
 * - a channel whose `rateLimitedUntil` is ahead is paused: live sync, first comments and the later look for
 *   unconfirmed posts skip it (a first comment waits until then without counting a try), as publishing does;
 * - a refusal for rate with a reset (`retry_later` with `retryAt`) pauses the channel until that reset, whichever
 *   step drew it.
 */
import type { ChannelRecord } from '../db/repositories/channels.js';
import { NetworkError } from '../domain/networks/connector.js';
import type { WorkerRuntime } from './runtime.js';

/** When the channel's pause ends, if it is paused now. */
export function pausedUntil(channel: Pick<ChannelRecord, 'rateLimitedUntil'>, now: number): number | undefined {
  const until = channel.rateLimitedUntil;
  return until && until > now ? until : undefined;
}

/** Pauses the channel when the error is the network's refusal for rate with a reset; the caller still handles it. */
export async function pauseOnRateRefusal(rt: WorkerRuntime, channelId: string, error: unknown): Promise<void> {
  if (error instanceof NetworkError && error.kind === 'retry_later' && error.retryAt && error.retryAt > rt.now()) {
    await rt.ctx.deps.repos.channels.setRateLimitedUntil(channelId, error.retryAt);
  }
}
