/**
 * The MCP methods over json-rpc-2.0, stateless: no session is needed, so any instance answers any
 * request. initialize negotiates the revision; ping; tools/list pages through the served tools;
 * tools/call runs one (src/mcp/call-tool.ts). Client notifications need no handler: the HTTP layer
 * acknowledges them with 202.
 */
import { createJSONRPCErrorResponse, JSONRPCErrorException, JSONRPCServer } from 'json-rpc-2.0';
import type { ToolDefinition, ToolName } from '../../generated/mcp/handlers.js';
import { ValidationError } from '../domain/errors.js';
import type { Principal } from '../domain/principal.js';
import { callTool, type CallToolOptions, type ToolCall } from './call-tool.js';
import { negotiateProtocolVersion, RpcErrorCode } from './protocol.js';
import { toolsListPage } from './served-tools.js';

export interface RpcContext {
  principal: Principal;
  tools: ReadonlyMap<ToolName, ToolDefinition>;
}

const SERVER_INFO = { name: 'herald', title: 'Herald', version: '0.1.0' };

const INSTRUCTIONS =
  'Herald schedules and publishes social posts. Get channel ids with get_channels before posting (never hard-code them). ' +
  'Omitting isScheduled publishes immediately; use bulk_schedule for many posts. Posts whose id starts with live_ were ' +
  'published outside Herald and are read only.';

export function mcpRpcServer(options: Omit<CallToolOptions, 'tools'>): JSONRPCServer<RpcContext> {
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
  server.addMethod('initialize', (params) => ({
    protocolVersion: negotiateProtocolVersion((params as { protocolVersion?: unknown } | undefined)?.protocolVersion),
    capabilities: { tools: { listChanged: false } },
    serverInfo: SERVER_INFO,
    instructions: INSTRUCTIONS,
  }));
  server.addMethod('ping', () => ({}));
  server.addMethod('tools/list', (params, { tools }) => {
    try {
      return toolsListPage(tools, (params as { cursor?: unknown } | undefined)?.cursor);
    } catch (error) {
      if (error instanceof ValidationError) throw new JSONRPCErrorException(error.message, RpcErrorCode.InvalidParams);
      throw error;
    }
  });
  server.addMethod('tools/call', (params, { principal, tools }) => {
    if (!params || typeof params !== 'object' || Array.isArray(params)) {
      throw new JSONRPCErrorException('tools/call needs params { name, arguments }.', RpcErrorCode.InvalidParams);
    }
    return callTool({ ...options, tools }, params as ToolCall, { principal });
  });
  return server;
}
