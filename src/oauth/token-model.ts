/**
 * The storage model @node-oauth/oauth2-server's token endpoint runs on, one per request because two
 * checks need the request itself: how the client sent its credentials (the registered method only),
 * and the RFC 8707 `resource` it names (it must be the one the code or refresh token is bound to).
 * The library handles grant dispatch, PKCE verification, redirect_uri matching, expiry and the
 * response; this model adds single-use codes with replay revocation, refresh rotation with family
 * revocation, resource binding and hashed storage (src/domain/oauth/).
 */
import OAuth2Server from '@node-oauth/oauth2-server';
import type { DomainDeps } from '../domain/deps.js';
import { findUnusedAuthorizationCode, spendAuthorizationCode } from '../domain/oauth/authorization-codes.js';
import { authenticateClient } from '../domain/oauth/client-authentication.js';
import { OAuthError } from '../domain/oauth/errors.js';
import { parseScopeParam, stillHeldScopes } from '../domain/oauth/scopes.js';
import {
  findUsableRefreshToken,
  newAccessToken,
  newRefreshToken,
  saveTokens,
  spendRefreshToken,
  type TokenIssue,
} from '../domain/oauth/tokens.js';

/** The library's `user`: who consented, and the token family (authorization) the new tokens join. */
export interface GrantSubject {
  id: string;
  accountId: string;
  family: TokenIssue['family'];
}

export interface TokenRequestContext {
  /** True when the client sent an Authorization header (client_secret_basic). */
  sentBasicCredentials: boolean;
  /** The RFC 8707 `resource` parameter of the token request, if any. */
  resource: string | undefined;
  /** The `scope` parameter of a refresh request, if any. */
  scope: string | undefined;
}

function noLongerAMember(): OAuth2Server.OAuthError {
  return new OAuth2Server.InvalidGrantError(
    'The person who authorized this client is no longer a member of the ' + 'account.',
  );
}

function invalidTarget(): OAuth2Server.OAuthError {
  return new OAuth2Server.OAuthError('The resource parameter must name the resource this grant was issued for.', {
    code: 400,
    name: 'invalid_target',
  });
}

type TokenEndpointModel = Omit<
  OAuth2Server.AuthorizationCodeModel,
  'saveAuthorizationCode' | 'getAccessToken' | 'verifyScope'
> &
  Omit<OAuth2Server.RefreshTokenModel, 'getAccessToken' | 'verifyScope'>;

export function tokenEndpointModel(
  deps: DomainDeps,
  context: TokenRequestContext,
): OAuth2Server.AuthorizationCodeModel & OAuth2Server.RefreshTokenModel {
  const model: TokenEndpointModel = {
    async getClient(clientId, clientSecret) {
      try {
        const client = await authenticateClient(deps, {
          clientId,
          clientSecret: clientSecret || undefined,
          via: context.sentBasicCredentials ? 'basic' : 'post',
        });
        return { id: client.id, grants: client.grantTypes, redirectUris: client.redirectUris };
      } catch (error) {
        if (error instanceof OAuthError) return false;
        throw error;
      }
    },

    async getAuthorizationCode(code) {
      const record = await findUnusedAuthorizationCode(deps, code);
      if (!record) return false;
      if (context.resource !== undefined && context.resource !== record.resource) throw invalidTarget();
      const scope = await stillHeldScopes(deps, record, record.scope);
      if (!scope) throw noLongerAMember();
      const subject: GrantSubject = {
        id: record.userId,
        accountId: record.accountId,
        family: {
          id: record.familyId,
          clientId: record.clientId,
          accountId: record.accountId,
          userId: record.userId,
          scope: record.scope,
          resource: record.resource,
          createdAt: deps.now(),
          revokedAt: null,
        },
      };
      return {
        authorizationCode: code,
        expiresAt: new Date(record.expiresAt),
        redirectUri: record.redirectUri,
        scope,
        client: { id: record.clientId, grants: [] },
        user: subject,
        codeChallenge: record.codeChallenge,
        codeChallengeMethod: record.codeChallengeMethod,
        record,
      };
    },

    async revokeAuthorizationCode(code) {
      return spendAuthorizationCode(deps, code.record);
    },

    async getRefreshToken(refreshToken) {
      const found = await findUsableRefreshToken(deps, refreshToken);
      if (!found) return false;
      if (context.resource !== undefined && context.resource !== found.family.resource) throw invalidTarget();
      const scope = await stillHeldScopes(deps, found.family, found.token.scope);
      if (!scope) throw noLongerAMember();
      // Checked before the token is spent (the library checks only after), so asking for too much costs no grant.
      const beyond = parseScopeParam(context.scope).filter((asked) => !scope.includes(asked));
      if (beyond.length > 0) {
        throw new OAuth2Server.InvalidScopeError(`This grant does not hold ${beyond.join(' ')} (now).`);
      }
      const subject: GrantSubject = {
        id: found.family.userId,
        accountId: found.family.accountId,
        family: found.family,
      };
      return {
        refreshToken,
        refreshTokenExpiresAt: new Date(found.token.expiresAt),
        scope,
        client: { id: found.family.clientId, grants: [] },
        user: subject,
        found,
      };
    },

    async revokeToken(token) {
      return spendRefreshToken(deps, token.found);
    },

    async generateAccessToken() {
      return newAccessToken();
    },

    async generateRefreshToken() {
      return newRefreshToken();
    },

    async validateScope(_user, _client, scope) {
      // The scopes were chosen on the consent page and bound into the code, then cut to what the person still holds.
      return scope ?? false;
    },

    async saveToken(token, client, user) {
      const subject = user as GrantSubject;
      await saveTokens(deps, {
        family: subject.family,
        scope: token.scope ?? [],
        accessToken: token.accessToken,
        accessTokenExpiresAt: token.accessTokenExpiresAt!.getTime(),
        refreshToken: token.refreshToken,
        refreshTokenExpiresAt: token.refreshTokenExpiresAt?.getTime(),
      });
      return { ...token, client, user };
    },
  };
  // The token endpoint never calls saveAuthorizationCode (codes come from Herald's own consent page) nor
  // getAccessToken/verifyScope (bearer tokens are resolved by resolveOAuthAccessToken).
  return model as OAuth2Server.AuthorizationCodeModel & OAuth2Server.RefreshTokenModel;
}
