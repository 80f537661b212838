/**
 * The OAuth 2.1 authorization server for MCP clients (SPEC, OAuth endpoints): metadata, registration,
 * authorization pages, token and revocation. Registration, token and revocation are for server-side
 * callers: no CORS headers, so browsers on other origins cannot read their answers.
 */
import express, { type ErrorRequestHandler } from 'express';
import type { Config } from '../config.js';
import type { DomainDeps } from '../domain/deps.js';
import { OAuthError } from '../domain/oauth/errors.js';
import { MCP_PATHS } from '../domain/oauth/resources.js';
import { authorizationEndpoint } from './authorization-endpoint.js';
import { AUTHORIZATION_SERVER_METADATA_PATH, authorizationServerMetadata } from './authorization-server-metadata.js';
import { OAUTH_ENDPOINTS } from './endpoints.js';
import { sendOAuthError } from './oauth-error-response.js';
import { PAGES_STYLESHEET } from './pages.js';
import { PROTECTED_RESOURCE_METADATA_PATH, protectedResourceMetadata } from './protected-resource-metadata.js';
import { registrationEndpoint } from './registration-endpoint.js';
import { revocationEndpoint } from './revocation-endpoint.js';
import { tokenEndpoint } from './token-endpoint.js';

export function oauthRouter(deps: DomainDeps, config: Config, log: (message: string, error: unknown) => void): express.Router {
  const router = express.Router();
  for (const path of MCP_PATHS) router.get(PROTECTED_RESOURCE_METADATA_PATH + path, protectedResourceMetadata(config, path));
  // Clients that find no resource_metadata in a 401 try the path-specific URL, then the root one (RFC 9728 section 3.1, MCP authorization spec): the root describes /mcp.
  router.get(PROTECTED_RESOURCE_METADATA_PATH, protectedResourceMetadata(config, MCP_PATHS[0]));
  router.get(AUTHORIZATION_SERVER_METADATA_PATH, authorizationServerMetadata(config));

  router.get(OAUTH_ENDPOINTS.stylesheet, (_req, res) => {
    res.type('css').setHeader('Cache-Control', 'public, max-age=3600');
    res.send(PAGES_STYLESHEET);
  });
  router.use(authorizationEndpoint(deps, { maxBodyBytes: config.maxBodyBytes }));

  const form = express.urlencoded({ extended: false, limit: config.maxBodyBytes });
  router.post(OAUTH_ENDPOINTS.register, express.json({ limit: config.maxBodyBytes, type: () => true }), registrationEndpoint(deps));
  router.post(OAUTH_ENDPOINTS.token, form, tokenEndpoint(deps));
  router.post(OAUTH_ENDPOINTS.revoke, form, revocationEndpoint(deps));
  router.use(OAUTH_ENDPOINTS.register, oauthErrors(log, 'invalid_client_metadata'));
  router.use(OAUTH_ENDPOINTS.token, oauthErrors(log, 'invalid_request'));
  router.use(OAUTH_ENDPOINTS.revoke, oauthErrors(log, 'invalid_request'));
  return router;
}

/** OAuth endpoints answer in RFC 6749 / RFC 7591 error bodies; unknown errors are logged, never echoed. */
function oauthErrors(log: (message: string, error: unknown) => void, unparsableBody: string): ErrorRequestHandler {
  return (error, req, res, _next) => {
    if (res.headersSent) return;
    if (error instanceof OAuthError) return sendOAuthError(res, error, { basicChallenge: req.headers.authorization !== undefined });
    const parser = error as { type?: string };
    if (parser?.type === 'entity.parse.failed') {
      return sendOAuthError(res, new OAuthError(unparsableBody, 'The body could not be parsed.'));
    }
    if (parser?.type === 'entity.too.large') return sendOAuthError(res, new OAuthError('invalid_request', 'The body is too large.', 413));
    log('unhandled OAuth error', error);
    res.setHeader('Cache-Control', 'no-store');
    res.status(500).json({ error: 'server_error', error_description: 'Something went wrong on our side; try again.' });
  };
}
