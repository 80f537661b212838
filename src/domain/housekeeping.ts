import type { DomainDeps } from './deps.js';
import { compactSamples } from './insights/compaction.js';
import { purgeExpiredUploads } from './media/media-library.js';

/**
 * Registration is anonymous: a client that no user authorized within a day of registering is dropped, so
 * abandoned or flooded registrations do not pile up. A client someone authorized is kept.
 */
const NEVER_AUTHORIZED_CLIENT_TTL_MS = 24 * 3_600_000;

/**
 * Removes bookkeeping whose time has passed: spent rate-limit windows, idempotency keys older than 24 hours,
 * expired OAuth codes and tokens (an expired one is refused either way), OAuth clients never authorized,
 * media uploads never completed, expired sign-in sessions, channel connect flows never finished and MCP tasks past
 * their ttl; and compacts old metric samples (insights/compaction.ts).
 */
export async function purgeExpired(deps: DomainDeps): Promise<{
  rateLimitWindows: number;
  idempotencyKeys: number;
  oauthGrants: number;
  oauthClients: number;
  mediaUploads: number;
  sessions: number;
  connectFlows: number;
  mcpTasks: number;
  metricSamples: number;
}> {
  const now = deps.now();
  const oauthGrants = await deps.repos.oauth.purgeExpired(now);
  return {
    rateLimitWindows: await deps.repos.rateLimits.deleteExpired(now),
    idempotencyKeys: await deps.repos.idempotency.deleteExpired(now),
    oauthGrants,
    // After the grants: a code that has just expired no longer keeps its client.
    oauthClients: await deps.repos.oauth.deleteNeverAuthorizedClients(now - NEVER_AUTHORIZED_CLIENT_TTL_MS),
    mediaUploads: await purgeExpiredUploads(deps),
    sessions: await deps.repos.sessions.deleteExpired(now),
    connectFlows: await deps.repos.connectFlows.deleteExpired(now),
    mcpTasks: await deps.repos.mcpTasks.deleteExpired(now),
    metricSamples: await compactSamples(deps),
  };
}
