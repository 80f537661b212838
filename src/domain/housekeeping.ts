import type { DomainDeps } from './deps.js';

/**
 * Removes bookkeeping whose time has passed: spent rate-limit windows, idempotency keys older than 24 hours,
 * and expired OAuth codes and tokens (an expired one is refused either way).
 */
export async function purgeExpired(deps: DomainDeps): Promise<{ rateLimitWindows: number; idempotencyKeys: number; oauthGrants: number }> {
  const now = deps.now();
  return {
    rateLimitWindows: await deps.repos.rateLimits.deleteExpired(now),
    idempotencyKeys: await deps.repos.idempotency.deleteExpired(now),
    oauthGrants: await deps.repos.oauth.purgeExpired(now),
  };
}
