/**
 * @herald/sdk: typed clients for Herald's REST API (`createHeraldClient`, `paginate`, `unwrap`) and its MCP server
 * (`createHeraldMcpClient`), with the types of both specs.
 */
import type { components } from '../../generated/rest/openapi-types.js';

export type { paths, components } from '../../generated/rest/openapi-types.js';
export * from './rest.js';
export * from './paging.js';
export * from './errors.js';
export * from './mcp.js';
export type { RetryOptions, TransportOptions } from './transport.js';
export type Post = components['schemas']['Post'];
export type Channel = components['schemas']['Channel'];
export type HeraldError = components['schemas']['Error'];
