/**
 * Tool calls run as tasks (MCP tasks): the rules every era shares.
 * - A task belongs to the account and the credential that started it (an API key, or an OAuth token family, so
 *   a refreshed token keeps its tasks); anyone else asking for it is told it does not exist.
 * - Its id is 32 random bytes: it stands for the task's result and cannot be guessed.
 * - It lives ttl from its creation (one hour unless asked otherwise, between a minute and a day); past that it
 *   is expired, then purged (housekeeping.ts).
 * - working is the only state that changes: to completed (the tool's result, isError or not), failed (a
 *   JSON-RPC error) or cancelled, each final. A cancelled task stays cancelled whatever the work does next.
 * - The work reports its progress through checkpoints, which is also where it learns it was cancelled and stops;
 *   work that cannot be stopped runs to its end and its task says what became of it.
 * - Work reports or ends well within STALLED_TASK_MS (each bulk entry is a checkpoint; a fetch, a generation or a
 *   media check is bounded by its timeout): a working task silent longer lost the instance running it, and is
 *   failed with an internal error the first time anyone reads it.
 * - The state is in the database, so any instance answers for a task another one runs.
 */
import crypto from 'node:crypto';
import type { McpTaskOwner, McpTaskRecord } from '../db/repositories/mcp-tasks.js';
import type { DomainDeps } from './deps.js';
import { NotFoundError, ValidationError } from './errors.js';
import type { Principal } from './principal.js';

export type { McpTaskRecord as ToolTask } from '../db/repositories/mcp-tasks.js';

const DEFAULT_TASK_TTL_MS = 60 * 60 * 1000;
const MIN_TASK_TTL_MS = 60 * 1000;
const MAX_TASK_TTL_MS = 24 * 60 * 60 * 1000;
/** How often a client should ask: the tools that run as tasks take seconds, not milliseconds. */
export const TASK_POLL_INTERVAL_MS = 1000;
const TASKS_PAGE_SIZE = 50;
const STALLED_TASK_MS = 10 * 60 * 1000;
/** JSON-RPC's internal error: what a task whose work was lost fails with (the record keeps JSON-RPC errors). */
const INTERNAL_ERROR = -32603;

/** Thrown by a checkpoint of work whose task was cancelled: the work stops there. */
export class TaskCancelledError extends Error {
  constructor(readonly taskId: string) {
    super(`Task ${taskId} was cancelled.`);
  }
}

function ownerOf(principal: Principal): McpTaskOwner {
  return { accountId: principal.accountId, tokenKind: principal.tokenKind, tokenId: principal.tokenId };
}

function isTerminal(task: McpTaskRecord): boolean {
  return task.status !== 'working';
}

/** Records a working task before anyone is told its id, so the first tasks/get finds it. */
export async function createToolTask(
  deps: DomainDeps,
  principal: Principal,
  input: { tool: string; statusMessage: string; ttlMs?: number },
): Promise<McpTaskRecord> {
  const now = deps.now();
  const ttlMs = Math.min(MAX_TASK_TTL_MS, Math.max(MIN_TASK_TTL_MS, Math.round(input.ttlMs ?? DEFAULT_TASK_TTL_MS)));
  const task: McpTaskRecord = {
    ...ownerOf(principal),
    id: crypto.randomBytes(32).toString('base64url'),
    tool: input.tool,
    status: 'working',
    statusMessage: input.statusMessage,
    result: null,
    error: null,
    createdAt: now,
    updatedAt: now,
    ttlMs,
    expiresAt: now + ttlMs,
  };
  return deps.repos.mcpTasks.create(task);
}

export async function getToolTask(deps: DomainDeps, principal: Principal, taskId: unknown): Promise<McpTaskRecord> {
  if (typeof taskId !== 'string' || taskId === '')
    throw new ValidationError('params.taskId must be the taskId a tools/call answered with.');
  const task = await deps.repos.mcpTasks.get(ownerOf(principal), taskId, deps.now());
  if (!task)
    throw new NotFoundError(
      `Task ${taskId} not found: it never existed for this credential, or it expired and was removed.`,
    );
  return failIfStalled(deps, task);
}

async function failIfStalled(deps: DomainDeps, task: McpTaskRecord): Promise<McpTaskRecord> {
  const now = deps.now();
  if (task.status !== 'working' || now - task.updatedAt <= STALLED_TASK_MS) return task;
  const message =
    `The Herald instance running this ${task.tool} stopped before it ended; ` +
    'what it finished stays done. Check, then call the tool again.';
  const error = JSON.stringify({ code: INTERNAL_ERROR, message });
  if (await deps.repos.mcpTasks.updateWorking(task.id, { status: 'failed', statusMessage: message, error }, now)) {
    return { ...task, status: 'failed', statusMessage: message, error, updatedAt: now };
  }
  return (await deps.repos.mcpTasks.get(task, task.id, now)) ?? task;
}

export async function listToolTasks(
  deps: DomainDeps,
  principal: Principal,
  cursor: unknown,
): Promise<{ tasks: McpTaskRecord[]; nextCursor?: string }> {
  const after = cursor === undefined ? undefined : positionOf(cursor);
  const page = await deps.repos.mcpTasks.list(ownerOf(principal), deps.now(), TASKS_PAGE_SIZE + 1, after);
  const tasks = await Promise.all(page.slice(0, TASKS_PAGE_SIZE).map((task) => failIfStalled(deps, task)));
  const last = tasks[tasks.length - 1];
  return page.length > TASKS_PAGE_SIZE
    ? { tasks, nextCursor: Buffer.from(`tasks:${last.createdAt}:${last.id}`).toString('base64url') }
    : { tasks };
}

function positionOf(cursor: unknown): { createdAt: number; id: string } {
  const match =
    typeof cursor === 'string'
      ? /^tasks:(\d+):([A-Za-z0-9_-]+)$/.exec(Buffer.from(cursor, 'base64url').toString())
      : null;
  if (!match)
    throw new ValidationError(
      'Invalid cursor: pass the nextCursor of the previous tasks/list answer, or none to start over.',
    );
  return { createdAt: Number(match[1]), id: match[2] };
}

/**
 * Cancels a working task at once (its work stops at its next checkpoint). A task already final is answered as
 * it is, with cancelled false: the era decides whether that is an error.
 */
export async function cancelToolTask(
  deps: DomainDeps,
  principal: Principal,
  taskId: unknown,
): Promise<{ task: McpTaskRecord; cancelled: boolean }> {
  const task = await getToolTask(deps, principal, taskId);
  if (isTerminal(task)) return { task, cancelled: false };
  const now = deps.now();
  const statusMessage =
    'Cancelled by request; the work stops at its next step, and what it finished before stays done.';
  if (!(await deps.repos.mcpTasks.updateWorking(task.id, { status: 'cancelled', statusMessage }, now))) {
    return { task: await getToolTask(deps, principal, task.id), cancelled: false };
  }
  return { task: { ...task, status: 'cancelled', statusMessage, updatedAt: now }, cancelled: true };
}

/** Waits until the task is final (tasks/result blocks so); a task that expires meanwhile is not found. */
export async function awaitToolTask(deps: DomainDeps, principal: Principal, taskId: unknown): Promise<McpTaskRecord> {
  for (;;) {
    const task = await getToolTask(deps, principal, taskId);
    if (isTerminal(task)) return task;
    await new Promise<void>((resolve) => deps.timers.after(TASK_POLL_INTERVAL_MS / 4, resolve));
  }
}

/** A checkpoint of the work: records its progress, or throws TaskCancelledError when the task is no longer working. */
export function taskCheckpoint(deps: DomainDeps, taskId: string): (progress: string) => Promise<void> {
  return async (progress) => {
    if (
      !(await deps.repos.mcpTasks.updateWorking(taskId, { status: 'working', statusMessage: progress }, deps.now()))
    ) {
      throw new TaskCancelledError(taskId);
    }
  };
}

/** The work's end: its result (completed) or its JSON-RPC error (failed), unless the task was cancelled meanwhile. */
export async function finishToolTask(
  deps: DomainDeps,
  task: McpTaskRecord,
  outcome: { result: object; summary: string } | { error: { code: number; message: string; data?: unknown } },
): Promise<void> {
  const now = deps.now();
  const finished =
    'result' in outcome
      ? await deps.repos.mcpTasks.updateWorking(
          task.id,
          { status: 'completed', statusMessage: outcome.summary, result: JSON.stringify(outcome.result) },
          now,
        )
      : await deps.repos.mcpTasks.updateWorking(
          task.id,
          { status: 'failed', statusMessage: outcome.error.message, error: JSON.stringify(outcome.error) },
          now,
        );
  if (!finished) {
    await deps.repos.mcpTasks.noteCancelled(
      task.id,
      `Cancelled by request, but ${task.tool} could not be stopped and ran to its end; its answer is dropped, ` +
        'and what it made stays (look it up with the listing tools).',
      now,
    );
  }
}

/** The work stopped at a checkpoint because its task was cancelled: the task says how far it got. */
export async function noteTaskStopped(deps: DomainDeps, taskId: string, lastProgress: string): Promise<void> {
  await deps.repos.mcpTasks.noteCancelled(
    taskId,
    `Cancelled by request; the work stopped after: ${lastProgress}. What it finished before stays done.`,
    deps.now(),
  );
}
