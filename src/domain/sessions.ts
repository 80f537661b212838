/**
 * Browser sign-in sessions (the OAuth consent pages and the web app):
 * - a session is a random token in an HttpOnly cookie; the database keeps only its hash, so neither a
 *   leaked database nor a leaked instance secret lets anyone forge one;
 * - it lasts SESSION_LIFETIME_MS and no longer;
 * - signing out deletes it: a copied cookie stops working at once, on every instance;
 * - what a person starts in one browser and finishes after a trip elsewhere (connecting a channel) is tied
 *   to the session by browserBinding, a hash that is not the stored one.
 */
import type { DomainDeps } from './deps.js';
import { UnauthorizedError } from './errors.js';
import type { Principal } from './principal.js';
import { heldPowers, NO_LONGER_A_MEMBER } from './role-powers.js';
import { hashSecret, newSecret } from './secrets.js';

export const SESSION_LIFETIME_MS = 60 * 60_000;

export interface SessionUser {
  accountId: string;
  userId: string;
}

export async function startSession(deps: DomainDeps, user: SessionUser): Promise<{ token: string; expiresAt: number }> {
  const token = newSecret('hs_');
  const now = deps.now();
  const expiresAt = now + SESSION_LIFETIME_MS;
  await deps.repos.sessions.create(hashSecret(token), { ...user, expiresAt }, now);
  return { token, expiresAt };
}

/** The user a session token belongs to, or undefined when it is unknown, expired or signed out. */
export async function resolveSession(deps: DomainDeps, token: string | undefined): Promise<SessionUser | undefined> {
  if (!token || !/^hs_[A-Za-z0-9_-]{43}$/.test(token)) return undefined;
  const session = await deps.repos.sessions.find(hashSecret(token), deps.now());
  return session && { accountId: session.accountId, userId: session.userId };
}

/** What a signed-in person may do in the web app: everything their roles hold now (role-powers.ts), and no more. */
export async function sessionPrincipal(deps: DomainDeps, user: SessionUser): Promise<Principal> {
  const held = await heldPowers(deps, user.accountId, user.userId);
  if (held.roles.length === 0) throw new UnauthorizedError(NO_LONGER_A_MEMBER);
  return {
    accountId: user.accountId,
    userId: user.userId,
    tokenId: 'browser',
    tokenKind: 'session',
    scopes: held.scopes,
    reviews: held.reviews,
  };
}

export async function endSession(deps: DomainDeps, token: string | undefined): Promise<void> {
  if (token) await deps.repos.sessions.delete(hashSecret(token));
}

/** Names the browser a session token was presented by, for flows that must end where they began. */
export function browserBinding(token: string): string {
  return hashSecret(`browser-binding:${token}`);
}
