/**
 * tools/call, the same for every tool:
 * - an unknown tool (or one this URL does not serve) is a JSON-RPC error (invalid params);
 * - a manage_team tool without that scope is an insufficient_scope JSON-RPC error naming the scope (the
 *   HTTP layer turns it into a 403 with a WWW-Authenticate challenge), and only for those tools;
 * - a tool marked x-herald-rate-limit: write (the AI helpers) also spends the write minute budget, once
 *   its arguments are valid; over that budget is an isError result with the seconds to wait;
 * - arguments are checked by the validator compiled from jsonrpc-schemas/ (defaults filled in); bad
 *   arguments and domain errors a model can fix come back as isError results saying what to change;
 * - the database unreachable or full is a tool failure that says so (domain/database-health.ts);
 * - anything else is a bug: logged, answered with a generic internal error;
 * - the checks come first (prepareToolCall), so a call that runs as a task (src/mcp/tasks.ts) is refused the
 *   same way before any task exists, and a cancelled task's work stops without being taken for a bug.
 */
import { databaseFault } from '../domain/database-health.js';
import { JSONRPCErrorException } from 'json-rpc-2.0';
import type { ToolDefinition, ToolName } from '../../generated/mcp/handlers.js';
import { argumentValidators, resultValidators, type ValidationProblem } from '../../generated/mcp/validators.js';
import { HeraldError, InsufficientScopeError } from '../domain/errors.js';
import { TaskCancelledError } from '../domain/tool-tasks.js';
import {
  HERALD_RPC_ERROR_CODES,
  RpcErrorCode,
  toolFailure,
  toolSuccess,
  type Era,
  type ToolResult,
} from './protocol.js';
import type { AreaTools, ToolContext } from './tools/context.js';

export interface ToolCall {
  name: unknown;
  arguments?: unknown;
}

export interface CallToolOptions {
  tools: ReadonlyMap<ToolName, ToolDefinition>;
  /** Which era's error codes to refuse with. */
  era: Era;
  handlers: AreaTools;
  /** Spends the write minute budget for the tools that count as writes (the AI helpers). */
  chargeWriteBudget(principal: ToolContext['principal']): Promise<void>;
  /** Check results against outputSchema too (tests, VALIDATE_RESPONSES). */
  validateResults: boolean;
  log(message: string, error: unknown): void;
}

/** A call whose tool, scope and arguments have been checked: what is left is running it, now or as a task. */
export interface PreparedCall {
  tool: ToolDefinition;
  args: unknown;
  run(context: ToolContext): Promise<ToolResult>;
}

export async function callTool(options: CallToolOptions, call: ToolCall, context: ToolContext): Promise<ToolResult> {
  const prepared = prepareToolCall(options, call, context);
  return 'run' in prepared ? prepared.run(context) : prepared;
}

/** The checks made before any work: a refusal is thrown (protocol errors) or answered (bad arguments). */
export function prepareToolCall(
  options: CallToolOptions,
  call: ToolCall,
  context: ToolContext,
): PreparedCall | ToolResult {
  const tool = typeof call.name === 'string' ? options.tools.get(call.name as ToolName) : undefined;
  const handler =
    tool && (options.handlers[tool.name] as ((args: unknown, context: ToolContext) => Promise<object>) | undefined);
  if (!tool || !handler) {
    throw new JSONRPCErrorException(
      `Unknown tool: ${String(call.name)}. Call tools/list for the tools this server offers.`,
      RpcErrorCode.InvalidParams,
    );
  }
  if (!context.principal.scopes.includes(tool.scope))
    throw insufficientScope(options.era, new InsufficientScopeError(tool.scope));

  const args = structuredClone(call.arguments ?? {});
  const validate = argumentValidators[tool.name];
  if (!validate(args)) return toolFailure(invalidArguments(tool.name, validate.errors ?? []));
  return { tool, args, run: (runContext) => runTool(options, tool, handler, args, runContext) };
}

async function runTool(
  options: CallToolOptions,
  tool: ToolDefinition,
  handler: (args: unknown, context: ToolContext) => Promise<object>,
  args: unknown,
  context: ToolContext,
): Promise<ToolResult> {
  let result: object;
  try {
    if (tool.chargesWriteBudget) await options.chargeWriteBudget(context.principal);
    result = await handler(args, context);
  } catch (error) {
    if (error instanceof TaskCancelledError) throw error;
    if (error instanceof InsufficientScopeError) throw insufficientScope(options.era, error);
    if (error instanceof HeraldError) {
      if (error.status >= 500) options.log(`MCP tool ${tool.name} failed`, error.cause ?? error);
      return toolFailure(describe(error));
    }
    options.log(`MCP tool ${tool.name} failed`, error);
    // The database down or full: the tool's answer says so and when to call again (the log says it once).
    const fault = databaseFault(error);
    if (fault) return toolFailure(describe(fault));
    throw new JSONRPCErrorException('Internal error; the call may be retried.', RpcErrorCode.InternalError);
  }
  if (options.validateResults && !resultValidators[tool.name](result)) {
    options.log(`MCP tool ${tool.name} answered outside its outputSchema`, resultValidators[tool.name].errors);
    throw new JSONRPCErrorException('Internal error; the call may be retried.', RpcErrorCode.InternalError);
  }
  return toolSuccess(result);
}

function insufficientScope(era: Era, error: InsufficientScopeError): JSONRPCErrorException {
  return new JSONRPCErrorException(
    `insufficient_scope: ${error.message}`,
    HERALD_RPC_ERROR_CODES[era].InsufficientScope,
    {
      error: 'insufficient_scope',
      scope: error.scope,
    },
  );
}

function describe(error: HeraldError): string {
  const details = error.details?.map((d) => `${d.path}: ${d.message}`) ?? [];
  return details.length > 0 ? `${error.message} (${details.join('; ')})` : error.message;
}

function invalidArguments(tool: string, problems: ValidationProblem[]): string {
  const lines = problems.map((p) => {
    const where = p.instancePath ? `argument ${p.instancePath.slice(1).replace(/\//g, '.')}` : 'arguments';
    if (p.keyword === 'additionalProperties')
      return `${where}: unknown argument "${String(p.params.additionalProperty)}"; remove it`;
    if (p.keyword === 'required') return `${where}: missing required argument "${String(p.params.missingProperty)}"`;
    return `${where}: ${p.message ?? 'is invalid'}`;
  });
  return (
    `Invalid arguments for ${tool}: ${[...new Set(lines)].join('; ')}. ` +
    `Fix them as the tool's inputSchema describes and call again.`
  );
}
