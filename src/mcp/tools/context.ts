import type { ToolHandlers } from '../../../generated/mcp/handlers.js';
import type { Principal } from '../../domain/principal.js';

/** What every tool handler receives besides its arguments. */
export interface ToolContext {
  principal: Principal;
  /** Set when the call runs as a task: the tool may report how far it is, and learns there that it was cancelled. */
  progress?: (message: string) => Promise<void>;
}

/** The tools one area implements; a tool without a handler is not served. */
export type AreaTools = Partial<ToolHandlers<ToolContext>>;
