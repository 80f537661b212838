/**
 * The MCP revisions Herald speaks and the JSON-RPC vocabulary it answers with.
 * - initialize answers the client's protocolVersion when supported, else the latest (MCP lifecycle).
 * - An MCP-Protocol-Version header naming an unsupported revision is a 400 (Streamable HTTP transport).
 */
export const SUPPORTED_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
const LATEST_PROTOCOL_VERSION = SUPPORTED_PROTOCOL_VERSIONS[0];

export function negotiateProtocolVersion(requested: unknown): string {
  return typeof requested === 'string' && (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(requested)
    ? requested
    : LATEST_PROTOCOL_VERSION;
}

export function isSupportedProtocolVersion(value: string): boolean {
  return (SUPPORTED_PROTOCOL_VERSIONS as readonly string[]).includes(value);
}

/** JSON-RPC error codes: the standard ones, and Herald's in the implementation-defined server range. */
export const RpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  Unauthorized: -32001,
  InsufficientScope: -32003,
  Forbidden: -32004,
  RateLimited: -32029,
} as const;

export interface ToolResult {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A successful call: the structured result, and the same JSON as text for clients that read only content. */
export function toolSuccess(result: object): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(result) }], structuredContent: result as Record<string, unknown> };
}

/** A refusal the model can act on: the message says what to change. */
export function toolFailure(message: string): ToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
