/**
 * Signing a Herald user in on the authorization page:
 * - the password is checked with scrypt (`verifyPassword`);
 * - an unknown email costs the same scrypt work as a wrong password, so the answer time does not tell
 *   which emails have accounts;
 * - users without a password (created without one) cannot sign in here;
 * - after MAX_FAILED_SIGN_INS wrong attempts for one email within a window, that email is refused
 *   without checking the password until the window ends (online guessing), on every instance alike;
 * - the client address has its own budget of wrong attempts across all emails (client-address-throttles.ts);
 * - both budgets count an attempt atomically BEFORE the password is checked, and a successful sign-in
 *   takes its attempt back: concurrent guesses cannot all pass a check made before any of them counted.
 */
import type { UserRecord } from '../../db/repositories/accounts.js';
import type { DomainDeps } from '../deps.js';
import { hashPassword, verifyPassword } from '../passwords.js';
import { countAddressSignInAttempt, FAILED_SIGN_IN_WINDOW_MS } from './client-address-throttles.js';

export const MAX_FAILED_SIGN_INS = 10;

export type SignInResult =
  | { user: UserRecord }
  | { refused: 'wrong_credentials' }
  | { refused: 'too_many_attempts'; from: 'email' | 'address'; retryAfterMinutes: number };

const decoyHashes = new Map<number, Promise<string>>();

export async function signIn(
  deps: DomainDeps,
  email: string,
  password: string,
  clientAddress: string,
): Promise<SignInResult> {
  const address = await countAddressSignInAttempt(deps, clientAddress);
  if (address.lockedMinutes > 0)
    return { refused: 'too_many_attempts', from: 'address', retryAfterMinutes: address.lockedMinutes };
  const normalized = email.trim().toLowerCase();
  const now = deps.now();
  const windowStart = now - (now % FAILED_SIGN_IN_WINDOW_MS);
  const bucket = `oauth_sign_in_failures:${normalized}`;
  if (
    (await deps.repos.rateLimits.hit(bucket, windowStart, windowStart + FAILED_SIGN_IN_WINDOW_MS)) > MAX_FAILED_SIGN_INS
  ) {
    await address.takeBack();
    return {
      refused: 'too_many_attempts',
      from: 'email',
      retryAfterMinutes: Math.ceil((windowStart + FAILED_SIGN_IN_WINDOW_MS - now) / 60_000),
    };
  }
  const user = normalized === '' ? undefined : await deps.repos.accounts.findUserByEmail(normalized);
  let ok = false;
  if (!user || user.passwordHash === null) {
    const cost = deps.config.passwordHashCost;
    if (!decoyHashes.has(cost)) decoyHashes.set(cost, hashPassword('decoy password for unknown emails', cost));
    await verifyPassword(password, await decoyHashes.get(cost)!);
  } else {
    ok = await verifyPassword(password, user.passwordHash);
  }
  if (ok && user) {
    await deps.repos.rateLimits.unhit(bucket, windowStart);
    await address.takeBack();
    return { user };
  }
  return { refused: 'wrong_credentials' };
}
