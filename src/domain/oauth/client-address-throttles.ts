/**
 * Budgets per client address on the OAuth endpoints anyone can call without credentials, kept in the
 * shared counter table so every instance enforces them together:
 * - dynamic client registration: at most `registrationsPerHour` per address per clock hour, so one host
 *   cannot fill the client table;
 * - sign-in: at most `failedSignInsPerWindow` wrong passwords per address per window, whatever the emails
 *   tried, on top of the per-email limit of sign-in.ts (one host spraying many emails).
 * The address is Express's `req.ip`: the socket peer, or what TRUST_PROXY allows proxies to report.
 */
import type { DomainDeps } from '../deps.js';
import { OAuthRateLimitedError } from './errors.js';

const HOUR_MS = 3_600_000;
export const FAILED_SIGN_IN_WINDOW_MS = 15 * 60_000;

export async function consumeRegistrationBudget(deps: DomainDeps, clientAddress: string): Promise<void> {
  const now = deps.now();
  const windowStart = now - (now % HOUR_MS);
  const hits = await deps.repos.rateLimits.hit(`oauth_register:${clientAddress}`, windowStart, windowStart + HOUR_MS);
  if (hits > deps.config.oauthThrottles.registrationsPerHour) {
    const retryAfterSeconds = Math.max(1, Math.ceil((windowStart + HOUR_MS - now) / 1000));
    throw new OAuthRateLimitedError(
      `Too many client registrations from this address (at most ${deps.config.oauthThrottles.registrationsPerHour} an hour). ` +
        `Reuse the client_id you registered, or retry in ${retryAfterSeconds} seconds.`,
      retryAfterSeconds,
    );
  }
}

function signInWindow(now: number): number {
  return now - (now % FAILED_SIGN_IN_WINDOW_MS);
}

/** Minutes until this address may try again, or 0 when its failed sign-ins are within budget. */
export async function addressSignInLockMinutes(deps: DomainDeps, clientAddress: string): Promise<number> {
  const now = deps.now();
  const windowStart = signInWindow(now);
  const failures = await deps.repos.rateLimits.hits(`oauth_sign_in_failures_ip:${clientAddress}`, windowStart);
  if (failures < deps.config.oauthThrottles.failedSignInsPerWindow) return 0;
  return Math.ceil((windowStart + FAILED_SIGN_IN_WINDOW_MS - now) / 60_000);
}

export async function recordFailedSignIn(deps: DomainDeps, clientAddress: string): Promise<void> {
  const windowStart = signInWindow(deps.now());
  await deps.repos.rateLimits.hit(`oauth_sign_in_failures_ip:${clientAddress}`, windowStart, windowStart + FAILED_SIGN_IN_WINDOW_MS);
}
