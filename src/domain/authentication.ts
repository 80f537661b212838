/**
 * Bearer authentication (SPEC, Authentication): an API key or an OAuth access token, no other
 * difference in the request. Unknown, revoked or expired tokens, and tokens without both
 * `read_profile` and `manage_post`, are 401.
 */
import type { DomainDeps } from './deps.js';
import { UnauthorizedError } from './errors.js';
import { isScope, missingRequiredScopes, type Principal } from './principal.js';
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
  if (key.lastUsedAt === null || key.lastUsedAt < now - LAST_USED_PRECISION_MS) await deps.repos.apiKeys.touch(key.id, now, LAST_USED_PRECISION_MS);
  return { accountId: key.accountId, userId: key.userId, tokenId: key.id, tokenKind: 'api_key', scopes: key.scopes.filter(isScope) };
};

export async function authenticate(deps: DomainDeps, resolvers: readonly TokenResolver[], header: string | undefined): Promise<Principal> {
  const match = /^Bearer[ ]+([^\s]+)\s*$/i.exec(header ?? '');
  if (!match) {
    throw new UnauthorizedError('Send "Authorization: Bearer <API key or access token>".');
  }
  const token = match[1];
  for (const resolve of resolvers) {
    const principal = await resolve(deps, token);
    if (!principal) continue;
    const missing = missingRequiredScopes(principal.scopes);
    if (missing.length > 0) {
      throw new UnauthorizedError(`This token lacks the required scope${missing.length > 1 ? 's' : ''} ${missing.join(' and ')}; every token needs read_profile and manage_post.`);
    }
    return principal;
  }
  throw new UnauthorizedError('The bearer token is not valid (unknown, expired or revoked).');
}
