/**
 * The MCP methods over json-rpc-2.0, stateless: no session is needed, so any instance answers any
 * request. One server per era, sharing tools/list (src/mcp/served-tools.ts) and tools/call
 * (src/mcp/call-tool.ts):
 * - legacy (2025-03-26 to 2025-11-25): initialize negotiates the revision; ping. Client notifications need
 *   no handler: the HTTP layer acknowledges them with 202.
 * - modern (2026-07-28): server/discover; every result framed by completeResult (src/mcp/modern-era.ts);
 *   Herald's own error codes renumbered out of the range MCP now reserves.
 * - both, for an MCP Apps client only: resources/list and resources/read serve the views, tools/list links them,
 *   and the results of the tools with a view carry what it shows (src/mcp/apps/extension.ts).
 */
import { createJSONRPCErrorResponse, JSONRPCErrorException, JSONRPCServer } from 'json-rpc-2.0';
import type { ToolDefinition, ToolName } from '../../generated/mcp/handlers.js';
import { ValidationError } from '../domain/errors.js';
import type { Principal } from '../domain/principal.js';
import type { PostPreview, PreviewablePost } from '../domain/posts/post-preview.js';
import { APPS_RESOURCES_CAPABILITY, APPS_SERVER_EXTENSION, linkViews, listViews as viewResources, readView as viewContents, withViewData } from './apps/extension.js';
import { callTool, type CallToolOptions, type ToolCall } from './call-tool.js';
import { completeResult } from './modern-era.js';
import { negotiateProtocolVersion, RpcErrorCode, SUPPORTED_PROTOCOL_VERSIONS, type Era } from './protocol.js';
import { toolsListPage } from './served-tools.js';

export interface RpcContext {
  principal: Principal;
  tools: ReadonlyMap<ToolName, ToolDefinition>;
  /** The client declared MCP Apps (src/mcp/apps/extension.ts). */
  apps: boolean;
}

export interface RpcOptions extends Omit<CallToolOptions, 'tools' | 'era'> {
  /** What an Apps view shows of the posts a tool answered with. */
  preview(principal: Principal, posts: readonly PreviewablePost[]): Promise<PostPreview[]>;
}

const SERVER_INFO = { name: 'herald', title: 'Herald', version: '0.1.0' };

const CAPABILITIES = { tools: { listChanged: false } };

const INSTRUCTIONS =
  'Herald schedules and publishes social posts. Get channel ids with get_channels before posting (never hard-code them). ' +
  'Omitting isScheduled publishes immediately; use bulk_schedule for many posts. Posts whose id starts with live_ were ' +
  'published outside Herald and are read only.';

export type RpcServers = Record<Era, JSONRPCServer<RpcContext>>;

export function mcpRpcServers(options: RpcOptions): RpcServers {
  const legacy = rpcServer(options);
  legacy.addMethod('initialize', (params, { apps }) => ({
    protocolVersion: negotiateProtocolVersion((params as { protocolVersion?: unknown } | undefined)?.protocolVersion),
    capabilities: apps ? { ...CAPABILITIES, ...APPS_RESOURCES_CAPABILITY, extensions: APPS_SERVER_EXTENSION } : CAPABILITIES,
    serverInfo: SERVER_INFO,
    instructions: INSTRUCTIONS,
  }));
  legacy.addMethod('ping', () => ({}));
  legacy.addMethod('tools/list', (params, { tools, apps }) => listTools(tools, params, apps));
  legacy.addMethod('resources/list', (_params, { tools, apps }) => listViews(tools, apps));
  legacy.addMethod('resources/read', (params, { tools, apps }) => readView(tools, params, apps, LEGACY_RESOURCE_NOT_FOUND));

  const modern = rpcServer(options);
  modern.addMethod('server/discover', (_params, { apps }) =>
    completeResult(
      {
        supportedVersions: SUPPORTED_PROTOCOL_VERSIONS,
        capabilities: { ...CAPABILITIES, ...(apps ? APPS_RESOURCES_CAPABILITY : {}), extensions: { ...(apps ? APPS_SERVER_EXTENSION : {}) } },
        instructions: INSTRUCTIONS,
      },
      SERVER_INFO,
      true,
    ),
  );
  modern.addMethod('tools/list', (params, { tools, apps }) => completeResult(listTools(tools, params, apps), SERVER_INFO, true));
  modern.addMethod('resources/list', (_params, { tools, apps }) => completeResult(listViews(tools, apps), SERVER_INFO, true));
  modern.addMethod('resources/read', (params, { tools, apps }) => completeResult(readView(tools, params, apps, RpcErrorCode.InvalidParams), SERVER_INFO, true));
  modern.addMethod('tools/call', async (params, context) => completeResult(await runTool(options, 'modern', params, context), SERVER_INFO));
  legacy.addMethod('tools/call', (params, context) => runTool(options, 'legacy', params, context));
  return { legacy, modern };
}

function rpcServer(options: Pick<CallToolOptions, 'log'>): JSONRPCServer<RpcContext> {
  // Expected refusals are JSONRPCErrorExceptions; anything else is a bug, logged and never echoed.
  const server = new JSONRPCServer<RpcContext>({
    errorListener: (message, error) => {
      if (!(error instanceof JSONRPCErrorException)) options.log(message, error);
    },
  });
  server.mapErrorToJSONRPCErrorResponse = (id, error) =>
    error instanceof JSONRPCErrorException
      ? createJSONRPCErrorResponse(id, error.code, error.message, error.data)
      : createJSONRPCErrorResponse(id, RpcErrorCode.InternalError, 'Internal error; the call may be retried.');
  return server;
}

/** Resource not found before 2026-07-28, which made it invalid params. */
const LEGACY_RESOURCE_NOT_FOUND = -32002;

async function runTool(options: RpcOptions, era: Era, params: unknown, { principal, tools, apps }: RpcContext) {
  const call = toolCall(params);
  const result = await callTool({ ...options, tools, era }, call, { principal });
  return apps ? withViewData(call.name as ToolName, result, (posts) => options.preview(principal, posts)) : result;
}

function listViews(tools: ReadonlyMap<ToolName, ToolDefinition>, apps: boolean) {
  if (!apps) throw notWithoutApps();
  return viewResources(tools);
}

function readView(tools: ReadonlyMap<ToolName, ToolDefinition>, params: unknown, apps: boolean, notFoundCode: number) {
  if (!apps) throw notWithoutApps();
  const uri = (params as { uri?: unknown } | undefined)?.uri;
  const contents = viewContents(tools, uri);
  if (!contents) throw new JSONRPCErrorException(`Resource not found: ${String(uri)}. resources/list names the views this URL serves.`, notFoundCode, { uri });
  return contents;
}

/** Herald's only resources are MCP Apps views: to a client that did not declare the extension, the methods do not exist. */
function notWithoutApps(): JSONRPCErrorException {
  return new JSONRPCErrorException('Method not found', RpcErrorCode.MethodNotFound);
}

function listTools(tools: ReadonlyMap<ToolName, ToolDefinition>, params: unknown, apps: boolean) {
  try {
    const page = toolsListPage(tools, (params as { cursor?: unknown } | undefined)?.cursor);
    return apps ? { ...page, tools: linkViews(page.tools) } : page;
  } catch (error) {
    if (error instanceof ValidationError) throw new JSONRPCErrorException(error.message, RpcErrorCode.InvalidParams);
    throw error;
  }
}

function toolCall(params: unknown): ToolCall {
  if (!params || typeof params !== 'object' || Array.isArray(params)) {
    throw new JSONRPCErrorException('tools/call needs params { name, arguments }.', RpcErrorCode.InvalidParams);
  }
  return params as ToolCall;
}
