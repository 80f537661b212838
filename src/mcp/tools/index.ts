/**
 * The MCP tools Herald serves. A tool's contract is its file in jsonrpc-schemas/ (`make generate` types
 * it and compiles its validators); its handler is one method in the file of its area here
 * (posts.ts, channels.ts, workspaces.ts, ...) that maps the validated arguments to a domain call and
 * returns the domain's answer: no rules in handlers. To add a tool: write the method in
 * src/mcp/tools/<area>.ts (a function returning AreaTools) and spread that area below. tools/list shows
 * only tools with a handler; scope checks, argument validation and error mapping are done for every
 * tool by src/mcp/call-tool.ts.
 */
import type { DomainDeps } from '../../domain/deps.js';
import { aiTools } from './ai.js';
import { approvalTools } from './approvals.js';
import { calendarTools } from './calendars.js';
import { channelTools } from './channels.js';
import type { AreaTools } from './context.js';
import { labelTools } from './labels.js';
import { mediaTools } from './media.js';
import { postTools } from './posts.js';
import { queueTools } from './queue.js';
import { recyclingTools } from './recycling.js';
import { workspaceTools } from './workspaces.js';

export function toolHandlers(deps: DomainDeps): AreaTools {
  return {
    ...postTools(deps),
    ...channelTools(deps),
    ...workspaceTools(deps),
    ...mediaTools(deps),
    ...aiTools(deps),
    ...calendarTools(deps),
    ...queueTools(deps),
    ...labelTools(deps),
    ...recyclingTools(deps),
    ...approvalTools(deps),
  };
}
