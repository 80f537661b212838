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
import type { BodyReader } from '../http/request-body.js';
import { requireFormSubmission } from '../http/form-submission.js';
import { PAGES_STYLESHEET } from './pages.js';
import { protectedResourceMetadata } from './protected-resource-metadata.js';
import { registrationEndpoint } from './registration-endpoint.js';
import { revocationEndpoint } from './revocation-endpoint.js';
import { tokenEndpoint } from './token-endpoint.js';

// Nobody is known on these endpoints before their bodies are read: those bodies stay small.
const REGISTRATION_BODY_BYTES = 64 * 1024;
const FORM_BODY_BYTES = 16 * 1024;

export function oauthRouter(deps: DomainDeps, config: Config, bodies: BodyReader): express.Router {
  const router = express.Router();
  for (const path of MCP_PATHS)
    router.get(PROTECTED_RESOURCE_METADATA_PATH + path, protectedResourceMetadata(config, path));
  // Clients that find no resource_metadata in a 401 try the path-specific URL, then the root one (RFC 9728 section 3.1,
  // MCP authorization spec): the root describes /mcp.
  router.get(PROTECTED_RESOURCE_METADATA_PATH, protectedResourceMetadata(config, MCP_PATHS[0]));
  router.get(AUTHORIZATION_SERVER_METADATA_PATH, authorizationServerMetadata(config));

  router.get(OAUTH_ENDPOINTS.stylesheet, (_req, res) => {
    res.type('css').setHeader('Cache-Control', 'public, max-age=3600');
    res.send(PAGES_STYLESHEET);
  });
  const formLimit = { limit: Math.min(FORM_BODY_BYTES, config.maxBodyBytes) };
  router.use(authorizationEndpoint(deps, [...bodies.form(formLimit), requireFormSubmission('page')]));

  const registration = bodies.json({ limit: Math.min(REGISTRATION_BODY_BYTES, config.maxBodyBytes), anyType: true });
  router.post(OAUTH_ENDPOINTS.register, registration, registrationEndpoint(deps));
  const form = [...bodies.form(formLimit), requireFormSubmission('client')];
  router.post(OAUTH_ENDPOINTS.token, form, tokenEndpoint(deps));
  router.post(OAUTH_ENDPOINTS.revoke, form, revocationEndpoint(deps));
  return router;
}
