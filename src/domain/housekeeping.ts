import type { DomainDeps } from './deps.js';
import { purgeExpiredUploads } from './media/media-library.js';

/**
 * Removes bookkeeping whose time has passed: spent rate-limit windows, idempotency keys older than 24 hours,
 * expired OAuth codes and tokens (an expired one is refused either way), and media uploads never completed.
 */
export async function purgeExpired(
  deps: DomainDeps,
): Promise<{ rateLimitWindows: number; idempotencyKeys: number; oauthGrants: number; mediaUploads: number }> {
  const now = deps.now();
  return {
    rateLimitWindows: await deps.repos.rateLimits.deleteExpired(now),
    idempotencyKeys: await deps.repos.idempotency.deleteExpired(now),
    oauthGrants: await deps.repos.oauth.purgeExpired(now),
    mediaUploads: await purgeExpiredUploads(deps),
  };
}
