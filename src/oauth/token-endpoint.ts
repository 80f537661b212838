/**
 * POST /oauth2/mcp/token: the authorization_code and refresh_token grants, run by
 * @node-oauth/oauth2-server over Herald's model (token-model.ts). Responses are `no-store`; a client
 * that failed HTTP Basic authentication gets 401 with a Basic challenge.
 */
import OAuth2Server from '@node-oauth/oauth2-server';
import type { RequestHandler } from 'express';
import type { DomainDeps } from '../domain/deps.js';
import { ACCESS_TOKEN_LIFETIME_SECONDS, REFRESH_TOKEN_LIFETIME_SECONDS } from '../domain/oauth/tokens.js';
import { presentedClientCredentials } from './client-credentials.js';
import { tokenEndpointModel } from './token-model.js';

export function tokenEndpoint(deps: DomainDeps): RequestHandler {
  return async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const headers = { ...req.headers } as Record<string, string>;
    if (headers.authorization !== undefined) {
      // RFC 6749 section 2.3.1 form-encodes client_id and secret inside Basic (oauth4webapi does, "_" becomes
      // "%5F"); the library's basic-auth parser does not decode, so it gets them decoded.
      const presented = presentedClientCredentials(req);
      headers.authorization =
        'Basic ' + Buffer.from(`${presented.clientId}:${presented.clientSecret}`).toString('base64');
    }
    const model = tokenEndpointModel(deps, {
      sentBasicCredentials: req.headers.authorization !== undefined,
      resource: typeof body.resource === 'string' ? body.resource : undefined,
      scope: typeof body.scope === 'string' ? body.scope : undefined,
    });
    const server = new OAuth2Server({ model });
    const request = new OAuth2Server.Request({
      headers,
      method: req.method,
      query: req.query as Record<string, string>,
      body,
    });
    const response = new OAuth2Server.Response({ headers: {} });
    try {
      await server.token(request, response, {
        accessTokenLifetime: ACCESS_TOKEN_LIFETIME_SECONDS,
        refreshTokenLifetime: REFRESH_TOKEN_LIFETIME_SECONDS,
        // Public clients authenticate with PKCE alone on the code exchange and by client_id on refresh;
        // the model still demands the secret from confidential clients on both.
        requireClientAuthentication: { authorization_code: false, refresh_token: false },
        alwaysIssueNewRefreshToken: true,
      });
    } catch (error) {
      if (!(error instanceof OAuth2Server.OAuthError)) throw error;
      if (error instanceof OAuth2Server.ServerError) throw (error as { inner?: unknown }).inner ?? error;
    }
    for (const [name, value] of Object.entries(response.headers ?? {})) res.setHeader(name, value as string);
    res.setHeader('Cache-Control', 'no-store');
    res.status(response.status ?? 200).json(response.body);
  };
}
