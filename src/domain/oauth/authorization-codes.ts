/**
 * Authorization codes (OAuth 2.1 section 4.1.2, RFC 6749 section 10.5):
 * - random, stored only as a SHA-256 hash, valid for AUTHORIZATION_CODE_LIFETIME_MS;
 * - bound to the client, redirect URI, PKCE challenge, resource and granted scopes;
 * - single use: the first exchange marks it used; presenting it again revokes every token issued from
 *   it (the code's token family) and fails.
 */
import type { AuthorizationCodeRecord } from '../../db/repositories/oauth.js';
import { forgetResolvedTokens } from '../authentication.js';
import type { DomainDeps } from '../deps.js';
import { newId } from '../ids.js';
import type { Scope } from '../principal.js';
import { hashSecret, newSecret } from '../secrets.js';
import type { AuthorizationRequest } from './authorization-request.js';

const AUTHORIZATION_CODE_PREFIX = 'hac_';
const AUTHORIZATION_CODE_LIFETIME_MS = 5 * 60_000;

export async function issueAuthorizationCode(
  deps: DomainDeps,
  user: { id: string; accountId: string },
  request: AuthorizationRequest,
  scopes: Scope[],
): Promise<string> {
  const code = newSecret(AUTHORIZATION_CODE_PREFIX);
  const now = deps.now();
  await deps.repos.oauth.createAuthorizationCode({
    codeHash: hashSecret(code),
    familyId: newId(),
    clientId: request.client.id,
    accountId: user.accountId,
    userId: user.id,
    redirectUri: request.redirectUri,
    scope: scopes,
    resource: request.resource,
    codeChallenge: request.codeChallenge,
    codeChallengeMethod: request.codeChallengeMethod,
    createdAt: now,
    expiresAt: now + AUTHORIZATION_CODE_LIFETIME_MS,
    usedAt: null,
  });
  return code;
}

/** The code as issued, or undefined when unknown or already used (and then its tokens are revoked). */
export async function findUnusedAuthorizationCode(
  deps: DomainDeps,
  code: string,
): Promise<AuthorizationCodeRecord | undefined> {
  const record = await deps.repos.oauth.findAuthorizationCode(hashSecret(code));
  if (!record) return undefined;
  if (record.usedAt !== null) {
    await deps.repos.oauth.revokeFamily(record.familyId, deps.now());
    forgetResolvedTokens(deps);
    return undefined;
  }
  return record;
}

/** Spends the code; false when a concurrent exchange spent it first, which is replay too. */
export async function spendAuthorizationCode(deps: DomainDeps, record: AuthorizationCodeRecord): Promise<boolean> {
  if (await deps.repos.oauth.useAuthorizationCode(record.codeHash, deps.now())) return true;
  await deps.repos.oauth.revokeFamily(record.familyId, deps.now());
  forgetResolvedTokens(deps);
  return false;
}
