/**
 * POST /oauth2/mcp/revoke (RFC 7009): the client that holds a token revokes it. The answer is 200
 * whether or not the token was known; client authentication follows the token endpoint's rules.
 */
import type { RequestHandler } from 'express';
import type { DomainDeps } from '../domain/deps.js';
import { authenticateClient } from '../domain/oauth/client-authentication.js';
import { OAuthError } from '../domain/oauth/errors.js';
import { revokeClientToken } from '../domain/oauth/tokens.js';
import { presentedClientCredentials } from './client-credentials.js';

export function revocationEndpoint(deps: DomainDeps): RequestHandler {
  return async (req, res) => {
    const client = await authenticateClient(deps, presentedClientCredentials(req));
    const token = req.body?.token;
    if (typeof token !== 'string' || token === '')
      throw new OAuthError('invalid_request', 'Send the token to revoke in the "token" form field.');
    await revokeClientToken(deps, client.id, token);
    res.setHeader('Cache-Control', 'no-store');
    res.status(200).end();
  };
}
