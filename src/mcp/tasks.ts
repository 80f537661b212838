/**
 * Tool calls that run as tasks, in the words of each era (the rules they share: src/domain/tool-tasks.ts).
 * - 2025-11-25 (tasks, an experimental core feature): the client asks, with params.task on tools/call, for a
 *   tool whose execution.taskSupport is "optional" (bulk_schedule, import_media_from_url, generate_image,
 *   complete_media_upload); asking it of another tool is -32601. initialize declares tasks.list, tasks.cancel and
 *   tasks.requests.tools.call. tasks/get; tasks/result, which waits for the end and answers what tools/call would
 *   have (with the related-task _meta); tasks/list, the caller's own tasks, paged; tasks/cancel, -32602 for a
 *   task already final. A tool result with isError shows as failed. Earlier legacy revisions have no tasks:
 *   params.task is ignored and the tasks/ methods do not exist.
 * - 2026-07-28 (the io.modelcontextprotocol/tasks extension): server/discover advertises it; when a request's
 *   client capabilities declare it, Herald decides, and answers the calls that take long (bulk_schedule of
 *   BULK_TASK_ENTRIES entries or more, import_media_from_url, generate_image, completing a large video upload)
 *   with resultType "task". tasks/get inlines the result or the error; tasks/update and tasks/cancel answer an
 *   empty result (cancelling a finished task changes nothing); there is no tasks/list. The tasks/ methods from a
 *   client that did not declare the extension are -32021.
 * - An unknown, expired or someone else's task id is -32602 (invalid params), the same answer for each.
 * - Progress is the task's statusMessage: these are stateless POSTs with no stream to carry notifications.
 */
import { JSONRPCErrorException, type JSONRPCServer } from 'json-rpc-2.0';
import type { DomainDeps } from '../domain/deps.js';
import { HeraldError } from '../domain/errors.js';
import { completionTakesLong } from '../domain/media/media-library.js';
import type { Principal } from '../domain/principal.js';
import {
  awaitToolTask,
  cancelToolTask,
  createToolTask,
  finishToolTask,
  getToolTask,
  listToolTasks,
  noteTaskStopped,
  TASK_POLL_INTERVAL_MS,
  TaskCancelledError,
  taskCheckpoint,
  type ToolTask,
} from '../domain/tool-tasks.js';
import { prepareToolCall, type CallToolOptions, type PreparedCall, type ToolCall } from './call-tool.js';
import { META } from './modern-era.js';
import { RpcErrorCode, type ToolResult } from './protocol.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
/** The one legacy revision with tasks. */
export const TASKS_REVISION = '2025-11-25';
export const LEGACY_TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
/** From this many entries a bulk_schedule takes long enough to answer with a task. */
const BULK_TASK_ENTRIES = 20;

const RELATED_TASK = 'io.modelcontextprotocol/related-task';
const IMMEDIATE_RESPONSE = 'io.modelcontextprotocol/model-immediate-response';

export interface TaskRuntime {
  deps: DomainDeps;
  log(message: string, error: unknown): void;
  /** Frames a modern result (resultType, the server's identity). */
  frame(result: object): Record<string, unknown>;
}

interface CallContext {
  principal: Principal;
  revision?: string;
}

type RawParams = ToolCall & { task?: unknown; _meta?: Record<string, unknown> };

export async function legacyToolsCall(
  runtime: TaskRuntime,
  options: CallToolOptions,
  params: RawParams,
  context: CallContext,
): Promise<object> {
  const prepared = prepareToolCall(options, params, context);
  const asked =
    context.revision === TASKS_REVISION &&
    params.task !== null &&
    typeof params.task === 'object' &&
    !Array.isArray(params.task);
  if (!asked) return 'run' in prepared ? prepared.run(context) : prepared;
  const tool = options.tools.get(params.name as never)!;
  if (tool.execution?.taskSupport !== 'optional') {
    throw new JSONRPCErrorException(
      `${tool.name} does not run as a task (its execution.taskSupport is not "optional"): call it without params.task.`,
      RpcErrorCode.MethodNotFound,
    );
  }
  const ttl = (params.task as { ttl?: unknown }).ttl;
  const task = await startTask(
    runtime,
    context.principal,
    tool.name,
    params.arguments,
    prepared,
    typeof ttl === 'number' && Number.isFinite(ttl) ? ttl : undefined,
  );
  return {
    task: legacyTask(task),
    _meta: {
      [IMMEDIATE_RESPONSE]:
        `${tool.name} is running as task ${task.id}; its answer comes with tasks/result once ` +
        'tasks/get says it ended.',
    },
  };
}

export async function modernToolsCall(
  runtime: TaskRuntime,
  options: CallToolOptions,
  params: RawParams,
  context: CallContext,
): Promise<object> {
  const prepared = prepareToolCall(options, params, context);
  if (!('run' in prepared)) return runtime.frame(prepared);
  if (!declaresTasks(params) || !(await takesLong(runtime.deps, context.principal, prepared)))
    return runtime.frame(await prepared.run(context));
  const task = await startTask(runtime, context.principal, prepared.tool.name, prepared.args, prepared);
  return { ...runtime.frame(modernTask(task)), resultType: 'task' };
}

async function takesLong(deps: DomainDeps, principal: Principal, prepared: PreparedCall): Promise<boolean> {
  switch (prepared.tool.name) {
    case 'bulk_schedule':
      return (prepared.args as { posts: unknown[] }).posts.length >= BULK_TASK_ENTRIES;
    case 'import_media_from_url':
    case 'generate_image':
      return true;
    case 'complete_media_upload':
      return completionTakesLong(deps, principal, (prepared.args as { uploadId: string }).uploadId);
    default:
      return false;
  }
}

function declaresTasks(params: { _meta?: Record<string, unknown> } | undefined): boolean {
  const capabilities = params?._meta?.[META.clientCapabilities] as { extensions?: Record<string, unknown> } | undefined;
  const declared = capabilities?.extensions?.[TASKS_EXTENSION];
  return declared !== null && typeof declared === 'object';
}

/** The task is recorded before its id is answered; the work runs on after the answer, on this instance. */
async function startTask(
  runtime: TaskRuntime,
  principal: Principal,
  tool: string,
  args: unknown,
  prepared: PreparedCall | ToolResult,
  ttlMs?: number,
): Promise<ToolTask> {
  const task = await createToolTask(runtime.deps, principal, {
    tool,
    statusMessage: startingMessage(tool, args),
    ttlMs,
  });
  runTask(runtime, task, principal, prepared).catch((error) =>
    runtime.log(`MCP task ${task.id} (${tool}) could not record its end`, error),
  );
  return task;
}

/**
 * A turn of the event loop. better-sqlite3 settles its queries as microtasks, so work that only awaits the
 * database would hold the instance until it ends: the answer naming the task, and every tasks/get, would wait.
 */
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

async function runTask(
  runtime: TaskRuntime,
  task: ToolTask,
  principal: Principal,
  prepared: PreparedCall | ToolResult,
): Promise<void> {
  const { deps } = runtime;
  await nextTurn();
  if (!('run' in prepared)) return finishToolTask(deps, task, { result: prepared, summary: summaryOf(prepared) });
  const checkpoint = taskCheckpoint(deps, task.id);
  let reached = task.statusMessage ?? task.tool;
  const progress = async (message: string) => {
    reached = message;
    await checkpoint(message);
    await nextTurn();
  };
  try {
    const result = await prepared.run({ principal, progress });
    await finishToolTask(deps, task, { result, summary: summaryOf(result) });
  } catch (error) {
    if (error instanceof TaskCancelledError) return noteTaskStopped(deps, task.id, reached);
    if (!(error instanceof JSONRPCErrorException)) throw error;
    await finishToolTask(deps, task, {
      error: { code: error.code, message: error.message, ...(error.data !== undefined ? { data: error.data } : {}) },
    });
  }
}

function startingMessage(tool: string, args: unknown): string {
  const input = (args ?? {}) as { posts?: unknown[]; url?: unknown };
  switch (tool) {
    case 'bulk_schedule':
      return Array.isArray(input.posts) ? `0 of ${input.posts.length} entries done` : 'Checking the entries';
    case 'import_media_from_url':
      return `Fetching ${String(input.url)} into the media library`;
    case 'generate_image':
      return 'Generating the image';
    case 'complete_media_upload':
      return 'Reading back, checking and storing the uploaded file';
    default:
      return `Running ${tool}`;
  }
}

function summaryOf(result: ToolResult): string {
  return result.isError
    ? result.content
        .map((c) => c.text)
        .join(' ')
        .slice(0, 1000)
    : 'Done: the result holds the answer.';
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}

/** The Task both eras share; each names the ttl and the poll interval its own way. */
function taskFields(task: ToolTask, status: string): Record<string, unknown> {
  return {
    taskId: task.id,
    status,
    ...(task.statusMessage ? { statusMessage: task.statusMessage } : {}),
    createdAt: iso(task.createdAt),
    lastUpdatedAt: iso(task.updatedAt),
  };
}

/** 2025-11-25's Task: ttl and pollInterval; a tool result with isError is a failed task. */
function legacyTask(task: ToolTask): Record<string, unknown> {
  const isError = task.status === 'completed' && (JSON.parse(task.result!) as ToolResult).isError === true;
  return {
    ...taskFields(task, isError ? 'failed' : task.status),
    ttl: task.ttlMs,
    pollInterval: TASK_POLL_INTERVAL_MS,
  };
}

/** The extension's Task: ttlMs and pollIntervalMs. */
function modernTask(task: ToolTask): Record<string, unknown> {
  return { ...taskFields(task, task.status), ttlMs: task.ttlMs, pollIntervalMs: TASK_POLL_INTERVAL_MS };
}

/** The extension's DetailedTask: a completed task inlines its result, a failed one its JSON-RPC error. */
function detailedTask(task: ToolTask): Record<string, unknown> {
  return {
    ...modernTask(task),
    ...(task.status === 'completed' ? { result: JSON.parse(task.result!) } : {}),
    ...(task.status === 'failed' ? { error: JSON.parse(task.error!) } : {}),
  };
}

/** A domain refusal about a task (not found, a bad id or cursor) as the invalid params both eras answer with. */
async function invalidParams<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof HeraldError && error.status < 500)
      throw new JSONRPCErrorException(`Failed to retrieve task: ${error.message}`, RpcErrorCode.InvalidParams);
    throw error;
  }
}

type TaskParams = { taskId?: unknown; cursor?: unknown; _meta?: Record<string, unknown> } | undefined;

export function addLegacyTaskMethods<C extends CallContext>(server: JSONRPCServer<C>, runtime: TaskRuntime): void {
  const { deps } = runtime;
  const method = (name: string, run: (params: TaskParams, principal: Principal) => Promise<object>) =>
    server.addMethod(name, (params: TaskParams, context) => {
      if (context.revision !== TASKS_REVISION) {
        throw new JSONRPCErrorException(
          `${name} belongs to MCP ${TASKS_REVISION} (tasks) and this request speaks ` +
            `${context.revision ?? '2025-03-26'}.`,
          RpcErrorCode.MethodNotFound,
        );
      }
      return invalidParams(() => run(params, context.principal));
    });
  method('tasks/get', async (params, principal) => legacyTask(await getToolTask(deps, principal, params?.taskId)));
  method('tasks/list', async (params, principal) => {
    const page = await listToolTasks(deps, principal, params?.cursor);
    return { tasks: page.tasks.map(legacyTask), ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
  });
  method('tasks/cancel', async (params, principal) => {
    const { task, cancelled } = await cancelToolTask(deps, principal, params?.taskId);
    if (!cancelled)
      throw new JSONRPCErrorException(
        `Cannot cancel task: already in terminal status '${legacyTask(task).status}'.`,
        RpcErrorCode.InvalidParams,
      );
    return legacyTask(task);
  });
  method('tasks/result', async (params, principal) => {
    const task = await awaitToolTask(deps, principal, params?.taskId);
    if (task.status === 'cancelled')
      throw new JSONRPCErrorException(
        `Task ${task.id} was cancelled and has no result: ${task.statusMessage}`,
        RpcErrorCode.InvalidParams,
      );
    if (task.status === 'failed') {
      const error = JSON.parse(task.error!) as { code: number; message: string; data?: unknown };
      throw new JSONRPCErrorException(error.message, error.code, error.data);
    }
    const result = JSON.parse(task.result!) as ToolResult & { _meta?: Record<string, unknown> };
    return { ...result, _meta: { ...result._meta, [RELATED_TASK]: { taskId: task.id } } };
  });
}

export function addModernTaskMethods<C extends CallContext>(server: JSONRPCServer<C>, runtime: TaskRuntime): void {
  const { deps } = runtime;
  const method = (name: string, run: (params: TaskParams, principal: Principal) => Promise<object>) =>
    server.addMethod(name, (params: TaskParams, context) => {
      if (!declaresTasks(params)) {
        throw new JSONRPCErrorException(
          `Missing required client capability: ${name} needs the ${TASKS_EXTENSION} extension declared in ` +
            `params._meta "${META.clientCapabilities}".extensions.`,
          RpcErrorCode.MissingRequiredClientCapability,
          { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
        );
      }
      return invalidParams(async () => runtime.frame(await run(params, context.principal)));
    });
  method('tasks/get', async (params, principal) => detailedTask(await getToolTask(deps, principal, params?.taskId)));
  // Herald's tools never ask the client for input, so no response is ever outstanding: the update is acknowledged.
  method('tasks/update', async (params, principal) => {
    await getToolTask(deps, principal, params?.taskId);
    return {};
  });
  method('tasks/cancel', async (params, principal) => {
    await cancelToolTask(deps, principal, params?.taskId);
    return {};
  });
}
