/**
 * The MCP methods over json-rpc-2.0, stateless: no session is needed, so any instance answers any
 * request. One server per era, sharing tools/list (src/mcp/served-tools.ts) and tools/call
 * (src/mcp/call-tool.ts):
 * - legacy (2025-03-26 to 2025-11-25): initialize negotiates the revision; ping. Client notifications need
 *   no handler: the HTTP layer acknowledges them with 202.
 * - modern (2026-07-28): server/discover; every result framed by completeResult (src/mcp/modern-era.ts);
 *   Herald's own error codes renumbered out of the range MCP now reserves.
 * - Tasks, each era its own way (src/mcp/tasks.ts): the capability in initialize for 2025-11-25 and the
 *   extension in server/discover; tools/list shows a tool's execution.taskSupport only to 2025-11-25, the one
 *   revision that defines it.
 */
import { createJSONRPCErrorResponse, JSONRPCErrorException, JSONRPCServer } from 'json-rpc-2.0';
import type { ToolDefinition, ToolName } from '../../generated/mcp/handlers.js';
import type { DomainDeps } from '../domain/deps.js';
import { ValidationError } from '../domain/errors.js';
import type { Principal } from '../domain/principal.js';
import type { CallToolOptions, ToolCall } from './call-tool.js';
import { completeResult } from './modern-era.js';
import { negotiateProtocolVersion, RpcErrorCode, SUPPORTED_PROTOCOL_VERSIONS, type Era } from './protocol.js';
import { toolsListPage } from './served-tools.js';
import { addLegacyTaskMethods, addModernTaskMethods, LEGACY_TASKS_CAPABILITY, legacyToolsCall, modernToolsCall, TASKS_EXTENSION, TASKS_REVISION, type TaskRuntime } from './tasks.js';

export interface RpcContext {
  principal: Principal;
  tools: ReadonlyMap<ToolName, ToolDefinition>;
  /** The MCP-Protocol-Version header, when sent. */
  revision?: string;
}

const SERVER_INFO = { name: 'herald', title: 'Herald', version: '0.1.0' };

const CAPABILITIES = { tools: { listChanged: false } };

const INSTRUCTIONS =
  'Herald schedules and publishes social posts. Get channel ids with get_channels before posting (never hard-code them). ' +
  'Omitting isScheduled publishes immediately; use bulk_schedule for many posts. Posts whose id starts with live_ were ' +
  'published outside Herald and are read only.';

export type RpcServers = Record<Era, JSONRPCServer<RpcContext>>;

export function mcpRpcServers(options: Omit<CallToolOptions, 'tools' | 'era'> & { deps: DomainDeps }): RpcServers {
  const tasks: TaskRuntime = { deps: options.deps, log: options.log, frame: (result) => completeResult(result, SERVER_INFO) };
  const legacy = rpcServer(options);
  legacy.addMethod('initialize', (params) => {
    const protocolVersion = negotiateProtocolVersion((params as { protocolVersion?: unknown } | undefined)?.protocolVersion);
    return {
      protocolVersion,
      capabilities: protocolVersion === TASKS_REVISION ? { ...CAPABILITIES, tasks: LEGACY_TASKS_CAPABILITY } : CAPABILITIES,
      serverInfo: SERVER_INFO,
      instructions: INSTRUCTIONS,
    };
  });
  legacy.addMethod('ping', () => ({}));
  legacy.addMethod('tools/list', (params, { tools, revision }) => listTools(tools, params, revision === TASKS_REVISION));
  legacy.addMethod('tools/call', (params, context) => legacyToolsCall(tasks, { ...options, tools: context.tools, era: 'legacy' }, toolCall(params), context));
  addLegacyTaskMethods(legacy, tasks);

  const modern = rpcServer(options);
  modern.addMethod('server/discover', () =>
    completeResult(
      { supportedVersions: SUPPORTED_PROTOCOL_VERSIONS, capabilities: { ...CAPABILITIES, extensions: { [TASKS_EXTENSION]: {} } }, instructions: INSTRUCTIONS },
      SERVER_INFO,
      true,
    ),
  );
  modern.addMethod('tools/list', (params, { tools }) => completeResult(listTools(tools, params, false), SERVER_INFO, true));
  modern.addMethod('tools/call', (params, context) => modernToolsCall(tasks, { ...options, tools: context.tools, era: 'modern' }, toolCall(params), context));
  addModernTaskMethods(modern, tasks);
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

function listTools(tools: ReadonlyMap<ToolName, ToolDefinition>, params: unknown, withExecution: boolean) {
  try {
    const page = toolsListPage(tools, (params as { cursor?: unknown } | undefined)?.cursor);
    return withExecution ? page : { ...page, tools: page.tools.map(({ execution: _execution, ...tool }) => tool) };
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
