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
 * - both, for every client: resources/list, resources/templates/list and resources/read serve the account's
 *   insights (src/mcp/insights-resources.ts);
 * - both, for an MCP Apps client only: resources/list and resources/read also serve the views, tools/list links
 *   them, and the results of the tools with a view carry what it shows (src/mcp/apps/extension.ts).
 */
import { createJSONRPCErrorResponse, JSONRPCErrorException } from 'json-rpc-2.0';
import type { ToolDefinition, ToolName } from '../../generated/mcp/handlers.js';
import type { DomainDeps } from '../domain/deps.js';
import { ValidationError } from '../domain/errors.js';
import type { Principal } from '../domain/principal.js';
import type { PostPreview, PreviewablePost } from '../domain/posts/post-preview.js';
import {
  APPS_RESOURCES_CAPABILITY,
  APPS_SERVER_EXTENSION,
  insightsViewMeta,
  linkViews,
  listViews as viewResources,
  readView as viewContents,
  withViewData,
} from './apps/extension.js';
import type { CallToolOptions, ToolCall } from './call-tool.js';
import {
  INSIGHTS_TEMPLATES,
  isInsightsUri,
  listInsightsResources,
  readInsightsResource,
} from './insights-resources.js';
import { completeResult } from './modern-era.js';
import {
  negotiateProtocolVersion,
  RpcErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Era,
  type ToolResult,
} from './protocol.js';
import { RpcServer } from './rpc-server.js';
import { toolsListPage } from './served-tools.js';
import {
  addLegacyTaskMethods,
  addModernTaskMethods,
  LEGACY_TASKS_CAPABILITY,
  legacyToolsCall,
  modernToolsCall,
  TASKS_EXTENSION,
  TASKS_REVISION,
  type TaskRuntime,
} from './tasks.js';

export interface RpcContext {
  principal: Principal;
  tools: ReadonlyMap<ToolName, ToolDefinition>;
  /** The MCP-Protocol-Version header, when sent. */
  revision?: string;
  /** The client declared MCP Apps (src/mcp/apps/extension.ts). */
  apps: boolean;
}

export interface RpcOptions extends Omit<CallToolOptions, 'tools' | 'era'> {
  deps: DomainDeps;
  /** What an Apps view shows of the posts a tool answered with. */
  preview(principal: Principal, posts: readonly PreviewablePost[]): Promise<PostPreview[]>;
}

const SERVER_INFO = { name: 'herald', title: 'Herald', version: '0.1.0' };

const CAPABILITIES = { tools: { listChanged: false }, resources: {} };

const INSTRUCTIONS =
  'Herald schedules and publishes social posts. Get channel ids with get_channels before posting ' +
  '(never hard-code them). Omitting isScheduled publishes immediately; use bulk_schedule for many posts. ' +
  'Posts whose id starts with live_ were published outside Herald and are read only.';

export type RpcServers = Record<Era, RpcServer<RpcContext>>;

export function mcpRpcServers(options: RpcOptions): RpcServers {
  const tasks: TaskRuntime = {
    deps: options.deps,
    log: options.log,
    frame: (result) => completeResult(result, SERVER_INFO),
  };
  const legacy = rpcServer(options);
  legacy.addMethod('initialize', (params, { apps }) => {
    const protocolVersion = negotiateProtocolVersion(
      (params as { protocolVersion?: unknown } | undefined)?.protocolVersion,
    );
    const capabilities =
      protocolVersion === TASKS_REVISION ? { ...CAPABILITIES, tasks: LEGACY_TASKS_CAPABILITY } : CAPABILITIES;
    return {
      protocolVersion,
      capabilities: apps
        ? { ...capabilities, ...APPS_RESOURCES_CAPABILITY, extensions: APPS_SERVER_EXTENSION }
        : capabilities,
      serverInfo: SERVER_INFO,
      instructions: INSTRUCTIONS,
    };
  });
  legacy.addMethod('ping', () => ({}));
  legacy.addMethod('tools/list', (params, { tools, revision, apps }) =>
    listTools(tools, params, revision === TASKS_REVISION, apps),
  );
  legacy.addMethod('tools/call', async (params, context) =>
    withViews(
      options,
      context,
      params,
      await legacyToolsCall(tasks, { ...options, tools: context.tools, era: 'legacy' }, toolCall(params), context),
    ),
  );
  legacy.addMethod('resources/list', (_params, context) => listResources(options.deps, context));
  legacy.addMethod('resources/templates/list', (_params, context) => ({ resourceTemplates: templates(context) }));
  legacy.addMethod('resources/read', (params, context) =>
    readResource(options.deps, context, params, LEGACY_RESOURCE_NOT_FOUND),
  );
  addLegacyTaskMethods(legacy, tasks);

  const modern = rpcServer(options);
  modern.addMethod('server/discover', (_params, { apps }) =>
    completeResult(
      {
        supportedVersions: SUPPORTED_PROTOCOL_VERSIONS,
        capabilities: {
          ...CAPABILITIES,
          ...(apps ? APPS_RESOURCES_CAPABILITY : {}),
          extensions: { [TASKS_EXTENSION]: {}, ...(apps ? APPS_SERVER_EXTENSION : {}) },
        },
        instructions: INSTRUCTIONS,
      },
      SERVER_INFO,
      true,
    ),
  );
  modern.addMethod('tools/list', (params, { tools, apps }) =>
    completeResult(listTools(tools, params, false, apps), SERVER_INFO, true),
  );
  modern.addMethod('tools/call', async (params, context) =>
    withViews(
      options,
      context,
      params,
      await modernToolsCall(tasks, { ...options, tools: context.tools, era: 'modern' }, toolCall(params), context),
    ),
  );
  modern.addMethod('resources/list', async (_params, context) =>
    completeResult(await listResources(options.deps, context), SERVER_INFO, true),
  );
  modern.addMethod('resources/templates/list', (_params, context) =>
    completeResult({ resourceTemplates: templates(context) }, SERVER_INFO, true),
  );
  modern.addMethod('resources/read', async (params, context) =>
    completeResult(await readResource(options.deps, context, params, RpcErrorCode.InvalidParams), SERVER_INFO, true),
  );
  addModernTaskMethods(modern, tasks);
  return { legacy, modern };
}

function rpcServer(options: Pick<CallToolOptions, 'log'>): RpcServer<RpcContext> {
  // Expected refusals are JSONRPCErrorExceptions; anything else is a bug, logged and never echoed.
  const server = new RpcServer<RpcContext>({
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

/**
 * For an Apps client, the result of a tool with a view also carries what the view shows (a task handle carries
 * nothing).
 */
async function withViews(
  options: RpcOptions,
  { principal, apps }: RpcContext,
  params: unknown,
  result: object,
): Promise<object> {
  if (!apps) return result;
  return withViewData((params as ToolCall).name as ToolName, result as ToolResult, (posts) =>
    options.preview(principal, posts),
  );
}

/** The account's insights, and for an Apps client the views too, the insights naming the view that shows them. */
async function listResources(deps: DomainDeps, { principal, tools, apps }: RpcContext) {
  const insights = await listInsightsResources(deps, principal);
  if (!apps) return { resources: insights };
  const _meta = insightsViewMeta(tools);
  return {
    resources: [...viewResources(tools).resources, ...(_meta ? insights.map((r) => ({ ...r, _meta })) : insights)],
  };
}

function templates({ tools, apps }: RpcContext) {
  const _meta = apps ? insightsViewMeta(tools) : undefined;
  return _meta ? INSIGHTS_TEMPLATES.map((t) => ({ ...t, _meta })) : INSIGHTS_TEMPLATES;
}

async function readResource(
  deps: DomainDeps,
  { principal, tools, apps }: RpcContext,
  params: unknown,
  notFoundCode: number,
) {
  const uri = (params as { uri?: unknown } | undefined)?.uri;
  if (isInsightsUri(uri)) return readInsightsResource(deps, principal, uri, notFoundCode);
  const contents = apps ? viewContents(tools, uri) : undefined;
  if (!contents)
    throw new JSONRPCErrorException(
      `Resource not found: ${String(uri)}. resources/list names the resources this URL serves.`,
      notFoundCode,
      { uri },
    );
  return contents;
}

function listTools(
  tools: ReadonlyMap<ToolName, ToolDefinition>,
  params: unknown,
  withExecution: boolean,
  apps: boolean,
) {
  try {
    const page = toolsListPage(tools, (params as { cursor?: unknown } | undefined)?.cursor);
    const listed = withExecution ? page.tools : page.tools.map(({ execution: _execution, ...tool }) => tool);
    return { ...page, tools: apps ? linkViews(listed) : listed };
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
