/**
 * The MCP revisions Herald speaks and the JSON-RPC vocabulary it answers with.
 * - Two eras on the same URLs: legacy revisions (2025-03-26 to 2025-11-25) open with initialize; the modern
 *   one (2026-07-28) declares its revision on every request (src/mcp/modern-era.ts).
 * - initialize answers the client's protocolVersion when it is a legacy revision Herald speaks, else the
 *   latest legacy one (a modern revision has no initialize to negotiate).
 * - A revision Herald does not speak is a 400 UnsupportedProtocolVersion naming the ones it does.
 */
import { serializeResult } from './reply-body.js';

export const MODERN_PROTOCOL_VERSIONS = ['2026-07-28'] as const;
export const LEGACY_PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26'] as const;
export const SUPPORTED_PROTOCOL_VERSIONS: readonly string[] = [
  ...MODERN_PROTOCOL_VERSIONS,
  ...LEGACY_PROTOCOL_VERSIONS,
];

export type Era = 'legacy' | 'modern';

export function negotiateProtocolVersion(requested: unknown): string {
  return typeof requested === 'string' && (LEGACY_PROTOCOL_VERSIONS as readonly string[]).includes(requested)
    ? requested
    : LEGACY_PROTOCOL_VERSIONS[0];
}

export function isSupportedProtocolVersion(value: string): boolean {
  return SUPPORTED_PROTOCOL_VERSIONS.includes(value);
}

export function isModernProtocolVersion(value: string): boolean {
  return (MODERN_PROTOCOL_VERSIONS as readonly string[]).includes(value);
}

/** JSON-RPC error codes: the standard ones, and those MCP itself defines (2026-07-28 allocation policy). */
export const RpcErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  HeaderMismatch: -32020,
  MissingRequiredClientCapability: -32021,
  UnsupportedProtocolVersion: -32022,
} as const;

export type HeraldRpcError = 'Unauthorized' | 'InsufficientScope' | 'Forbidden' | 'RateLimited';

/**
 * Herald's own codes, per era. The legacy era keeps the ones its clients have seen since 2025. From
 * 2026-07-28 -32000..-32019 is closed to new implementations and -32020..-32099 belongs to MCP, so the
 * modern era answers the same refusals from outside the JSON-RPC reserved range.
 */
export const HERALD_RPC_ERROR_CODES: Record<Era, Record<HeraldRpcError, number>> = {
  legacy: { Unauthorized: -32001, InsufficientScope: -32003, Forbidden: -32004, RateLimited: -32029 },
  modern: { Unauthorized: -31001, InsufficientScope: -31003, Forbidden: -31004, RateLimited: -31029 },
};

export interface ToolResult {
  content: { type: 'text'; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
  /** What an MCP Apps view shows beside the result (src/mcp/apps/). */
  _meta?: Record<string, unknown>;
}

/** A successful call: the structured result, and the same JSON as text for clients that read only content. */
export function toolSuccess(result: object): ToolResult {
  return {
    content: [{ type: 'text', text: serializeResult(result) }],
    structuredContent: result as Record<string, unknown>,
  };
}

/** A refusal the model can act on: the message says what to change. */
export function toolFailure(message: string): ToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}
