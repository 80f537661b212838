/**
 * What this server protects and who issues its tokens (RFC 9728, RFC 8414, RFC 8707):
 * - the issuer is BASE_URL, the origin the MCP URLs live on;
 * - the protected resources are exactly the MCP URLs, `{BASE_URL}/mcp` and `{BASE_URL}/mcp/claude`;
 * - a token is only good for the resource it was issued for, and only if that is one of ours: one for
 *   /mcp is refused at /mcp/claude and the other way round;
 * - REST admits tokens issued for /mcp, never those for /mcp/claude: REST offers every operation /mcp does,
 *   generate_image's POST /ai/images included, which /mcp/claude withholds.
 */
import type { Config } from '../../config.js';
import { UnauthorizedError } from '../errors.js';
import type { Principal } from '../principal.js';

export const MCP_PATHS = ['/mcp', '/mcp/claude'] as const;

export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** Where the metadata of the MCP URL at `mcpPath` lives: the URL that 401s on /mcp point to in `resource_metadata`. */
export function protectedResourceMetadataUrl(config: Config, mcpPath: string): string {
  return config.baseUrl + PROTECTED_RESOURCE_METADATA_PATH + mcpPath;
}

export function issuerOf(config: Config): string {
  return config.baseUrl;
}

function mcpResources(config: Config): string[] {
  return MCP_PATHS.map((path) => config.baseUrl + path);
}

/** The resource a request names by default: clients that send no `resource` mean the main MCP URL. */
export function defaultResource(config: Config): string {
  return config.baseUrl + MCP_PATHS[0];
}

export function isOurResource(config: Config, resource: string): boolean {
  return mcpResources(config).includes(resource);
}

/** Where a request arrived: one of the MCP URLs, or REST. */
export type TokenSurface = (typeof MCP_PATHS)[number] | 'rest';

/** Refuses an OAuth token at a surface it was not issued for; API keys and app sessions have no resource. */
export function requireTokenFor(config: Config, principal: Principal, surface: TokenSurface): void {
  if (principal.tokenKind !== 'oauth' || principal.resource === undefined) return;
  const wanted = config.baseUrl + (surface === 'rest' ? MCP_PATHS[0] : surface);
  if (principal.resource === wanted) return;
  const where = surface === 'rest' ? 'the REST API' : wanted;
  throw new UnauthorizedError(
    `This access token was issued for ${principal.resource} and is accepted there only; ` +
      `to call ${where}, authorize again with resource=${wanted}.`,
  );
}
