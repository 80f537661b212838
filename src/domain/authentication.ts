/**
 * Bearer authentication (SPEC, Authentication): an API key or an OAuth access token, no other
 * difference in the request. Unknown, revoked or expired tokens, and tokens without both
 * `read_profile` and `manage_post`, are 401. A token's scopes are cut to what its holder's roles hold at
 * the request (role-powers.ts), so a credential never outranks the person it acts for.
 */
import type { DomainDeps } from './deps.js';
import { UnauthorizedError } from './errors.js';
import { isScope, missingRequiredScopes, type Principal } from './principal.js';
import { boundByRoles } from './role-powers.js';
import { hashSecret } from './secrets.js';

export const API_KEY_PREFIX = 'hk_';
/** How fresh `lastUsedAt` is kept: a busy key writes at most once per this period. */
const LAST_USED_PRECISION_MS = 60_000;

/** Resolves one kind of bearer token; undefined when the token is not of its kind or unknown. */
export type TokenResolver = (deps: DomainDeps, token: string) => Promise<Principal | undefined>;

export const resolveApiKey: TokenResolver = async (deps, token) => {
  if (!token.startsWith(API_KEY_PREFIX)) return undefined;
  const key = await deps.repos.apiKeys.findByHash(hashSecret(token));
  if (!key) return undefined;
  if (key.revokedAt !== null) throw new UnauthorizedError('This API key was revoked; create a new one.');
  const now = deps.now();
  // The row just read tells whether the once-a-minute touch is due; skipping the UPDATE saves a statement per request.
  if (key.lastUsedAt === null || key.lastUsedAt < now - LAST_USED_PRECISION_MS)
    await deps.repos.apiKeys.touch(key.id, now, LAST_USED_PRECISION_MS);
  return {
    accountId: key.accountId,
    userId: key.userId,
    tokenId: key.id,
    tokenKind: 'api_key',
    scopes: key.scopes.filter(isScope),
  };
};

/**
 * A token resolved in the last PRINCIPAL_CACHE_MS is not read again: the key lookup is most of what a cheap
 * request costs. A revocation on this instance empties the cache at once (forgetResolvedTokens); on another
 * instance it takes effect within PRINCIPAL_CACHE_MS, and so does a change of the holder's role, which is read
 * with the token. Measured on Herald's clock (deps.now); an entry from a
 * clock that has since gone back is not trusted.
 */
export const PRINCIPAL_CACHE_MS = 1_000;
const resolved = new WeakMap<DomainDeps, Map<string, { principal: Principal; until: number }>>();

/** Called by every revocation (keys, OAuth tokens and families): nothing resolved before it is trusted after it. */
export function forgetResolvedTokens(deps: DomainDeps): void {
  resolved.get(deps)?.clear();
}

export async function authenticate(
  deps: DomainDeps,
  resolvers: readonly TokenResolver[],
  header: string | undefined,
): Promise<Principal> {
  const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header ?? '');
  if (!match) {
    throw new UnauthorizedError('Send "Authorization: Bearer <API key or access token>".');
  }
  const token = match[1];
  let cache = resolved.get(deps);
  if (!cache) resolved.set(deps, (cache = new Map()));
  const key = hashSecret(token);
  const cached = cache.get(key);
  const now = deps.now();
  if (cached && cached.until > now && cached.until - now <= PRINCIPAL_CACHE_MS) return cached.principal;
  if (cached) cache.delete(key);
  const principal = await resolveToken(deps, resolvers, token);
  // A bounded cache: when full, it starts over rather than growing with the number of tokens seen.
  if (cache.size >= 10_000) cache.clear();
  cache.set(key, { principal, until: now + PRINCIPAL_CACHE_MS });
  return principal;
}

async function resolveToken(deps: DomainDeps, resolvers: readonly TokenResolver[], token: string): Promise<Principal> {
  for (const resolve of resolvers) {
    const principal = await resolve(deps, token);
    if (!principal) continue;
    const missing = missingRequiredScopes(principal.scopes);
    if (missing.length > 0) {
      throw new UnauthorizedError(
        `This token lacks the required scope${missing.length > 1 ? 's' : ''} ${missing.join(' and ')}; ` +
          'every token needs read_profile and manage_post.',
      );
    }
    return boundByRoles(deps, principal);
  }
  throw new UnauthorizedError('The bearer token is not valid (unknown, expired or revoked).');
}
