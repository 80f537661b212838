/**
 * OAuth access and refresh tokens (OAuth 2.1 sections 1.3.2, 4.3 and 7.1; RFC 9700 section 4.14):
 * - opaque random strings, stored only as SHA-256 hashes, each with an expiry;
 * - every token belongs to a family: the authorization (one consent, one code) it descends from;
 * - a refresh token is rotated on every use; presenting a used one again is replay and revokes the
 *   whole family, so a stolen refresh token dies the moment either holder uses it twice;
 * - revoking a refresh token revokes its family; revoking an access token revokes just that token.
 */
import type { OAuthTokenWithFamily, TokenFamilyRecord } from '../../db/repositories/oauth.js';
import { forgetResolvedTokens } from '../authentication.js';
import type { DomainDeps } from '../deps.js';
import { newId } from '../ids.js';
import { hashSecret, newSecret } from '../secrets.js';

export const ACCESS_TOKEN_PREFIX = 'hoa_';
const REFRESH_TOKEN_PREFIX = 'hor_';
export const ACCESS_TOKEN_LIFETIME_SECONDS = 60 * 60;
export const REFRESH_TOKEN_LIFETIME_SECONDS = 30 * 24 * 60 * 60;

export function newAccessToken(): string {
  return newSecret(ACCESS_TOKEN_PREFIX);
}

export function newRefreshToken(): string {
  return newSecret(REFRESH_TOKEN_PREFIX);
}

export interface TokenIssue {
  family: TokenFamilyRecord;
  scope: string[];
  accessToken: string;
  accessTokenExpiresAt: number;
  refreshToken?: string;
  refreshTokenExpiresAt?: number;
}

/** Stores a freshly minted access (and refresh) token in its family, creating the family on a code's exchange. */
export async function saveTokens(deps: DomainDeps, issue: TokenIssue): Promise<void> {
  const now = deps.now();
  await deps.repos.oauth.ensureFamily(issue.family);
  await deps.repos.oauth.createToken({
    id: newId(),
    familyId: issue.family.id,
    kind: 'access',
    tokenHash: hashSecret(issue.accessToken),
    scope: issue.scope,
    createdAt: now,
    expiresAt: issue.accessTokenExpiresAt,
    usedAt: null,
    revokedAt: null,
  });
  if (issue.refreshToken !== undefined && issue.refreshTokenExpiresAt !== undefined) {
    await deps.repos.oauth.createToken({
      id: newId(),
      familyId: issue.family.id,
      kind: 'refresh',
      tokenHash: hashSecret(issue.refreshToken),
      scope: issue.scope,
      createdAt: now,
      expiresAt: issue.refreshTokenExpiresAt,
      usedAt: null,
      revokedAt: null,
    });
  }
}

/**
 * A refresh token that may be exchanged, or undefined. A used one is replay: its family is revoked.
 * Expiry is left to the caller, which reports it.
 */
export async function findUsableRefreshToken(
  deps: DomainDeps,
  refreshToken: string,
): Promise<OAuthTokenWithFamily | undefined> {
  const found = await deps.repos.oauth.findToken(hashSecret(refreshToken));
  if (found?.token.kind !== 'refresh') return undefined;
  if (found.token.usedAt !== null) {
    await deps.repos.oauth.revokeFamily(found.family.id, deps.now());
    forgetResolvedTokens(deps);
    return undefined;
  }
  if (found.token.revokedAt !== null || found.family.revokedAt !== null) return undefined;
  return found;
}

/** Spends the refresh token being rotated; false (and the family revoked) when a concurrent request spent it first. */
export async function spendRefreshToken(deps: DomainDeps, found: OAuthTokenWithFamily): Promise<boolean> {
  if (await deps.repos.oauth.useRefreshToken(found.token.id, deps.now())) return true;
  await deps.repos.oauth.revokeFamily(found.family.id, deps.now());
  forgetResolvedTokens(deps);
  return false;
}

/**
 * RFC 7009 revocation by the client the token was issued to. Unknown tokens, and tokens of other
 * clients, are ignored: the answer is the same, so revocation cannot probe for tokens.
 */
export async function revokeClientToken(deps: DomainDeps, clientId: string, token: string): Promise<void> {
  const found = await deps.repos.oauth.findToken(hashSecret(token));
  if (!found || found.family.clientId !== clientId) return;
  if (found.token.kind === 'refresh') await deps.repos.oauth.revokeFamily(found.family.id, deps.now());
  else await deps.repos.oauth.revokeToken(found.token.id, deps.now());
  forgetResolvedTokens(deps);
}
