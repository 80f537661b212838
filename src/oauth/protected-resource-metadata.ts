/** RFC 9728 protected resource metadata for each MCP URL, served at /.well-known/oauth-protected-resource{path}. */
import type { RequestHandler } from 'express';
import type { Config } from '../config.js';
import { issuerOf } from '../domain/oauth/resources.js';
import { OAUTH_SCOPES } from '../domain/oauth/scopes.js';

export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** Where the metadata of the MCP URL at `mcpPath` lives: the URL that 401s on /mcp point to in `resource_metadata`. */
export function protectedResourceMetadataUrl(config: Config, mcpPath: string): string {
  return config.baseUrl + PROTECTED_RESOURCE_METADATA_PATH + mcpPath;
}

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
