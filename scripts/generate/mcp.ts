import type { Output } from './output.js';

/** MCP tool contracts from jsonrpc-schemas/ (filled in by the MCP server work). */
export async function generateMcp(_root: string): Promise<Output[]> {
  return [];
}
