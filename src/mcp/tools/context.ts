import type { ToolHandlers } from '../../../generated/mcp/handlers.js';
import type { Principal } from '../../domain/principal.js';

/** What every tool handler receives besides its arguments. */
export interface ToolContext {
  principal: Principal;
}

/** The tools one area implements; a tool without a handler is not served. */
export type AreaTools = Partial<ToolHandlers<ToolContext>>;
