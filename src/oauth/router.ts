/**
 * The OAuth 2.1 authorization server for MCP clients (SPEC, OAuth endpoints): metadata, registration,
 * authorization pages, token and revocation. Registration, token and revocation are for server-side
 * callers: no CORS headers, so browsers on other origins cannot read their answers.
 */
import express from 'express';
import type { Config } from '../config.js';
import type { DomainDeps } from '../domain/deps.js';
import { MCP_PATHS, PROTECTED_RESOURCE_METADATA_PATH } from '../domain/oauth/resources.js';
import { authorizationEndpoint } from './authorization-endpoint.js';
import { AUTHORIZATION_SERVER_METADATA_PATH, authorizationServerMetadata } from './authorization-server-metadata.js';
import { OAUTH_ENDPOINTS } from './endpoints.js';
import { requireFormSubmission } from '../http/form-submission.js';
import { formBody, jsonBody } from '../http/request-body.js';
import { PAGES_STYLESHEET } from './pages.js';
import { protectedResourceMetadata } from './protected-resource-metadata.js';
import { registrationEndpoint } from './registration-endpoint.js';
import { revocationEndpoint } from './revocation-endpoint.js';
import { tokenEndpoint } from './token-endpoint.js';

export function oauthRouter(deps: DomainDeps, config: Config): express.Router {
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

  const form = [...formBody({ limit: config.maxBodyBytes }), requireFormSubmission('client')];
  router.post(OAUTH_ENDPOINTS.register, jsonBody({ limit: config.maxBodyBytes, type: () => true }), registrationEndpoint(deps));
  router.post(OAUTH_ENDPOINTS.token, form, tokenEndpoint(deps));
  router.post(OAUTH_ENDPOINTS.revoke, form, revocationEndpoint(deps));
  return router;
}
