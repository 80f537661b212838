/**
 * OAuth access tokens as bearer credentials on /mcp and REST, exactly like API keys (SPEC,
 * Authentication 2 and 6):
 * - the principal carries the scopes the user granted, and the token family as its token id, so the
 *   per-token MCP limit follows one authorization across refreshes;
 * - expired or revoked tokens (or a revoked family) are 401;
 * - a token issued for a resource other than this server's MCP URLs (RFC 8707 audience) is 401;
 * - the principal carries the resource, so each surface admits only the tokens meant for it
 *   (requireTokenFor in ./resources.ts).
 */
import type { TokenResolver } from '../authentication.js';
import { UnauthorizedError } from '../errors.js';
import { isScope } from '../principal.js';
import { hashSecret } from '../secrets.js';
import { isOurResource } from './resources.js';
import { ACCESS_TOKEN_PREFIX } from './tokens.js';

export const resolveOAuthAccessToken: TokenResolver = async (deps, token) => {
  if (!token.startsWith(ACCESS_TOKEN_PREFIX)) return undefined;
  const found = await deps.repos.oauth.findToken(hashSecret(token));
  if (found?.token.kind !== 'access') return undefined;
  const { token: record, family } = found;
  if (record.revokedAt !== null || family.revokedAt !== null) {
    throw new UnauthorizedError('This access token was revoked; authorize the application again.');
  }
  if (record.expiresAt <= deps.now()) {
    throw new UnauthorizedError('This access token has expired; use the refresh token to get a new one.');
  }
  if (!isOurResource(deps.config, family.resource)) {
    throw new UnauthorizedError(
      `This access token was issued for ${family.resource}, not for this server; ` +
        `request a token with resource=${deps.config.baseUrl}/mcp.`,
    );
  }
  return {
    accountId: family.accountId,
    userId: family.userId,
    tokenId: family.id,
    tokenKind: 'oauth',
    scopes: record.scope.filter(isScope),
    resource: family.resource,
  };
};
