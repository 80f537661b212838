/** RFC 9728 protected resource metadata for each MCP URL, served at /.well-known/oauth-protected-resource{path}. */
import type { RequestHandler } from 'express';
import type { Config } from '../config.js';
import { issuerOf } from '../domain/oauth/resources.js';
import { OAUTH_SCOPES } from '../domain/oauth/scopes.js';

export function protectedResourceMetadata(config: Config, mcpPath: string): RequestHandler {
  const document = {
    resource: config.baseUrl + mcpPath,
    authorization_servers: [issuerOf(config)],
    scopes_supported: OAUTH_SCOPES,
    bearer_methods_supported: ['header'],
    resource_name: 'Herald MCP server',
  };
  return (_req, res) => {
    res.json(document);
  };
}
