/**
 * Which tools an MCP URL serves, and tools/list paging.
 * - A tool is served only when it has a handler (contracts of later areas stay unlisted until then).
 * - /mcp/claude serves everything but generate_image (SPEC, Versioning).
 * - Cursors are opaque; a cursor that does not come from this listing is invalid params.
 */
import { toolCatalogue } from '../../generated/mcp/catalogue.js';
import type { ToolDefinition, ToolName } from '../../generated/mcp/handlers.js';
import { ValidationError } from '../domain/errors.js';
import type { AreaTools } from './tools/context.js';

export const MCP_PATHS = ['/mcp', '/mcp/claude'] as const;
export type McpPath = (typeof MCP_PATHS)[number];

const OMITTED: Record<McpPath, readonly ToolName[]> = {
  '/mcp': [],
  '/mcp/claude': ['generate_image'],
};

const TOOLS_PAGE_SIZE = 100;

export function servedTools(handlers: AreaTools, mcpPath: McpPath): ReadonlyMap<ToolName, ToolDefinition> {
  return new Map(
    toolCatalogue
      .filter((tool) => handlers[tool.name] !== undefined && !OMITTED[mcpPath].includes(tool.name))
      .map((tool) => [tool.name, tool]),
  );
}

export interface ToolsPage {
  tools: Omit<ToolDefinition, 'scope' | 'chargesWriteBudget'>[];
  nextCursor?: string;
}

export function toolsListPage(
  tools: ReadonlyMap<ToolName, ToolDefinition>,
  cursor: unknown,
  pageSize = TOOLS_PAGE_SIZE,
): ToolsPage {
  const start = cursor === undefined ? 0 : offsetOf(cursor);
  const all = [...tools.values()];
  const page = all
    .slice(start, start + pageSize)
    .map(({ scope: _scope, chargesWriteBudget: _charges, ...tool }) => tool);
  const next = start + pageSize;
  return next < all.length
    ? { tools: page, nextCursor: Buffer.from(`tools:${next}`).toString('base64url') }
    : { tools: page };
}

function offsetOf(cursor: unknown): number {
  const match = typeof cursor === 'string' ? /^tools:(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString()) : null;
  if (!match)
    throw new ValidationError(
      'Invalid cursor: pass the nextCursor of the previous tools/list answer, or none to start over.',
    );
  return Number(match[1]);
}
