import type { DomainDeps } from './deps.js';

/** Removes bookkeeping whose time has passed: spent rate-limit windows and idempotency keys older than 24 hours. */
export async function purgeExpired(deps: DomainDeps): Promise<{ rateLimitWindows: number; idempotencyKeys: number }> {
  const now = deps.now();
  return {
    rateLimitWindows: await deps.repos.rateLimits.deleteExpired(now),
    idempotencyKeys: await deps.repos.idempotency.deleteExpired(now),
  };
}
