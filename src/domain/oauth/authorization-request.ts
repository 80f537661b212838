/**
 * Checks an authorization request (OAuth 2.1 section 4.1.1, RFC 7636, RFC 8707), in this order:
 * 1. `client_id` names a registered client, or is the URL of a valid client metadata document
 *    (client-metadata-documents.ts, fetched again once its cached copy is stale), and `redirect_uri` equals
 *    one of its redirect URIs exactly (a client with a single URI may omit it); otherwise the user sees an
 *    error page and nothing is redirected;
 * 2. from here on, problems go back to the redirect URI with `state`: `response_type` must be `code`;
 *    a PKCE `code_challenge` is required, with `code_challenge_method` `S256` (absent or `plain` is refused);
 *    `resource`, when sent, must be one of this server's MCP URLs (`invalid_target`), and defaults to `/mcp`.
 */
import type { OAuthClientRecord } from '../../db/repositories/oauth.js';
import type { DomainDeps } from '../deps.js';
import { findClient } from './client-metadata-documents.js';
import { AuthorizationRedirectError, UntrustedRedirectError } from './errors.js';
import { isRegisteredRedirectUri } from './redirect-uris.js';
import { defaultResource, isOurResource } from './resources.js';
import { parseScopeParam } from './scopes.js';

export interface AuthorizationRequest {
  client: OAuthClientRecord;
  redirectUri: string;
  state: string | undefined;
  codeChallenge: string;
  codeChallengeMethod: 'S256';
  resource: string;
  /** Scope values the client asked for; the consent page pre-ticks manage_team when it is among them. */
  requestedScopes: string[];
}

export type AuthorizationParams = Record<string, unknown>;

// RFC 7636 section 4.2: BASE64URL(SHA256(verifier)) is 43 characters.
const S256_CHALLENGE = /^[A-Za-z0-9_-]{43}$/;

function single(params: AuthorizationParams, name: string): string | undefined {
  const value = params[name];
  if (value === undefined || value === '') return undefined;
  if (typeof value !== 'string') return undefined;
  return value;
}

export async function checkAuthorizationRequest(
  deps: DomainDeps,
  params: AuthorizationParams,
): Promise<AuthorizationRequest> {
  const clientId = single(params, 'client_id');
  if (!clientId)
    throw new UntrustedRedirectError(
      'The request names no client (client_id is missing). Start again from the application you are connecting.',
    );
  const client = await findClient(deps, clientId, { fresh: true });
  if (!client)
    throw new UntrustedRedirectError(
      'This application is not registered with Herald (unknown client_id). ' +
        'Start again from the application you are connecting.',
    );
  const requested = single(params, 'redirect_uri');
  const redirectUri = requested ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
  if (!redirectUri)
    throw new UntrustedRedirectError(
      'The request has no redirect_uri and this application registered several; it must say which one to use.',
    );
  if (!isRegisteredRedirectUri(client.redirectUris, redirectUri)) {
    throw new UntrustedRedirectError(
      'The redirect address in this request is not one this application registered, so Herald will not send you there.',
    );
  }

  const state = single(params, 'state');
  const fail = (error: string, description: string) =>
    new AuthorizationRedirectError(error, description, redirectUri, state);

  if (single(params, 'response_type') !== 'code')
    throw fail('unsupported_response_type', 'Only response_type=code is supported.');
  const codeChallenge = single(params, 'code_challenge');
  const method = single(params, 'code_challenge_method');
  if (!codeChallenge)
    throw fail('invalid_request', 'PKCE is required: send code_challenge with code_challenge_method=S256.');
  if (method !== 'S256')
    throw fail(
      'invalid_request',
      'Only code_challenge_method=S256 is supported; "plain" and an absent method are refused.',
    );
  if (!S256_CHALLENGE.test(codeChallenge))
    throw fail('invalid_request', 'code_challenge must be the base64url SHA-256 of the verifier (43 characters).');
  const resource = single(params, 'resource') ?? defaultResource(deps.config);
  if (!isOurResource(deps.config, resource)) {
    throw fail('invalid_target', `resource must be this server's MCP URL (${defaultResource(deps.config)}).`);
  }
  if (!client.grantTypes.includes('authorization_code'))
    throw fail('unauthorized_client', 'This client did not register the authorization_code grant.');

  return {
    client,
    redirectUri,
    state,
    codeChallenge,
    codeChallengeMethod: 'S256',
    resource,
    requestedScopes: parseScopeParam(single(params, 'scope')),
  };
}
