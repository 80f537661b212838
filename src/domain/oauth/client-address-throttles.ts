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
      'Too many client registrations from this address (at ' +
        `most ${deps.config.oauthThrottles.registrationsPerHour} an hour). ` +
        `Reuse the client_id you registered, or retry in ${retryAfterSeconds} seconds.`,
      retryAfterSeconds,
    );
  }
}

function signInWindow(now: number): number {
  return now - (now % FAILED_SIGN_IN_WINDOW_MS);
}

/**
 * Counts one sign-in attempt from this address, atomically, before its password is checked. Attempts over
 * the budget answer the minutes until the window ends (and stay counted); the others can be taken back
 * when they turn out not to be wrong guesses (a successful sign-in, or one refused for its email).
 */
export async function countAddressSignInAttempt(
  deps: DomainDeps,
  clientAddress: string,
): Promise<{ lockedMinutes: number; takeBack(): Promise<void> }> {
  const now = deps.now();
  const windowStart = signInWindow(now);
  const bucket = `oauth_sign_in_failures_ip:${clientAddress}`;
  const attempts = await deps.repos.rateLimits.hit(bucket, windowStart, windowStart + FAILED_SIGN_IN_WINDOW_MS);
  const lockedMinutes =
    attempts > deps.config.oauthThrottles.failedSignInsPerWindow
      ? Math.ceil((windowStart + FAILED_SIGN_IN_WINDOW_MS - now) / 60_000)
      : 0;
  return { lockedMinutes, takeBack: () => deps.repos.rateLimits.unhit(bucket, windowStart) };
}
