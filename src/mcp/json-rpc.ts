/**
 * The MCP methods over json-rpc-2.0, stateless: no session is needed, so any instance answers any
 * request. One server per era, sharing tools/list (src/mcp/served-tools.ts) and tools/call
 * (src/mcp/call-tool.ts):
 * - legacy (2025-03-26 to 2025-11-25): initialize negotiates the revision; ping. Client notifications need
 *   no handler: the HTTP layer acknowledges them with 202.
 * - modern (2026-07-28): server/discover; every result framed by completeResult (src/mcp/modern-era.ts);
 *   Herald's own error codes renumbered out of the range MCP now reserves.
 */
import { createJSONRPCErrorResponse, JSONRPCErrorException, JSONRPCServer } from 'json-rpc-2.0';
import type { ToolDefinition, ToolName } from '../../generated/mcp/handlers.js';
import { ValidationError } from '../domain/errors.js';
import type { Principal } from '../domain/principal.js';
import { callTool, type CallToolOptions, type ToolCall } from './call-tool.js';
import { completeResult } from './modern-era.js';
import { negotiateProtocolVersion, RpcErrorCode, SUPPORTED_PROTOCOL_VERSIONS, type Era } from './protocol.js';
import { toolsListPage } from './served-tools.js';

export interface RpcContext {
  principal: Principal;
  tools: ReadonlyMap<ToolName, ToolDefinition>;
}

const SERVER_INFO = { name: 'herald', title: 'Herald', version: '0.1.0' };

const CAPABILITIES = { tools: { listChanged: false } };

const INSTRUCTIONS =
  'Herald schedules and publishes social posts. Get channel ids with get_channels before posting (never hard-code them). ' +
  'Omitting isScheduled publishes immediately; use bulk_schedule for many posts. Posts whose id starts with live_ were ' +
  'published outside Herald and are read only.';

export type RpcServers = Record<Era, JSONRPCServer<RpcContext>>;

export function mcpRpcServers(options: Omit<CallToolOptions, 'tools' | 'era'>): RpcServers {
  const legacy = rpcServer(options);
  legacy.addMethod('initialize', (params) => ({
    protocolVersion: negotiateProtocolVersion((params as { protocolVersion?: unknown } | undefined)?.protocolVersion),
    capabilities: CAPABILITIES,
    serverInfo: SERVER_INFO,
    instructions: INSTRUCTIONS,
  }));
  legacy.addMethod('ping', () => ({}));
  legacy.addMethod('tools/list', (params, { tools }) => listTools(tools, params));

  const modern = rpcServer(options);
  modern.addMethod('server/discover', () =>
    completeResult({ supportedVersions: SUPPORTED_PROTOCOL_VERSIONS, capabilities: { ...CAPABILITIES, extensions: {} }, instructions: INSTRUCTIONS }, SERVER_INFO, true),
  );
  modern.addMethod('tools/list', (params, { tools }) => completeResult(listTools(tools, params), SERVER_INFO, true));
  modern.addMethod('tools/call', async (params, { principal, tools }) =>
    completeResult(await callTool({ ...options, tools, era: 'modern' }, toolCall(params), { principal }), SERVER_INFO),
  );
  legacy.addMethod('tools/call', (params, { principal, tools }) => callTool({ ...options, tools, era: 'legacy' }, toolCall(params), { principal }));
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

function listTools(tools: ReadonlyMap<ToolName, ToolDefinition>, params: unknown) {
  try {
    return toolsListPage(tools, (params as { cursor?: unknown } | undefined)?.cursor);
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
