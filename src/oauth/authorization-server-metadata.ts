/** RFC 8414 authorization server metadata, at /.well-known/oauth-authorization-server. */
import type { RequestHandler } from 'express';
import type { Config } from '../config.js';
import { GRANT_TYPES, RESPONSE_TYPES, TOKEN_ENDPOINT_AUTH_METHODS } from '../domain/oauth/client-registration.js';
import { issuerOf } from '../domain/oauth/resources.js';
import { OAUTH_SCOPES } from '../domain/oauth/scopes.js';
import { OAUTH_ENDPOINTS } from './endpoints.js';

export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';

export function authorizationServerMetadata(config: Config): RequestHandler {
  const issuer = issuerOf(config);
  const document = {
    issuer,
    authorization_endpoint: config.baseUrl + OAUTH_ENDPOINTS.authorize,
    token_endpoint: config.baseUrl + OAUTH_ENDPOINTS.token,
    registration_endpoint: config.baseUrl + OAUTH_ENDPOINTS.register,
    revocation_endpoint: config.baseUrl + OAUTH_ENDPOINTS.revoke,
    response_types_supported: RESPONSE_TYPES,
    response_modes_supported: ['query'],
    grant_types_supported: GRANT_TYPES,
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: TOKEN_ENDPOINT_AUTH_METHODS,
    revocation_endpoint_auth_methods_supported: TOKEN_ENDPOINT_AUTH_METHODS,
    scopes_supported: OAUTH_SCOPES,
    authorization_response_iss_parameter_supported: true,
    // A client_id may be the https URL of the client's metadata document (MCP 2026-07-28's preferred registration).
    client_id_metadata_document_supported: true,
  };
  return (_req, res) => {
    res.json(document);
  };
}
