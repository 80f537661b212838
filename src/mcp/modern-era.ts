/**
 * MCP 2026-07-28 (the modern era) on Streamable HTTP: no initialize, no session, each request stands alone.
 * - A request is modern when its MCP-Protocol-Version header or its params._meta
 *   io.modelcontextprotocol/protocolVersion names a revision that is not a legacy one.
 * - MCP-Protocol-Version, Mcp-Method and, for tools/call and the tasks/ methods, Mcp-Name are required and equal
 *   the body's _meta revision, method and params.name (params.taskId) (Mcp-Name decoded from its =?base64?...?= form
 *   first); anything else is a 400 HeaderMismatch (-32020) saying which header to fix.
 * - A revision Herald does not speak is a 400 UnsupportedProtocolVersion (-32022) with data.supported.
 * - _meta clientCapabilities and clientInfo, when sent, are objects (invalid params otherwise).
 * - Every result carries resultType "complete" and the server's identity in _meta; server/discover and
 *   tools/list carry the caching hints ttlMs and cacheScope ("public": what Herald lists depends only on the
 *   URL, never on who asks).
 * - initialize, ping and logging/setLevel do not exist in this era: like any unknown method, a 404 with -32601.
 */
import {
  isModernProtocolVersion,
  isSupportedProtocolVersion,
  LEGACY_PROTOCOL_VERSIONS,
  RpcErrorCode,
  SUPPORTED_PROTOCOL_VERSIONS,
} from './protocol.js';

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  clientInfo: 'io.modelcontextprotocol/clientInfo',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
} as const;

/** How long a client may keep server/discover and tools/list: they change only when Herald is upgraded. */
export const LIST_TTL_MS = 60 * 60 * 1000;

export interface RpcMessage {
  id?: unknown;
  method?: unknown;
  params?: unknown;
}

/** A request refused before it runs: the HTTP status and the JSON-RPC error to answer with. */
export class ModernRequestError extends Error {
  constructor(
    readonly status: number,
    readonly code: number,
    message: string,
    readonly data?: Record<string, unknown>,
  ) {
    super(message);
  }
}

function metaOf(message: RpcMessage): Record<string, unknown> | undefined {
  const params = message.params;
  if (params === null || typeof params !== 'object' || Array.isArray(params)) return undefined;
  const meta = (params as { _meta?: unknown })._meta;
  return meta !== null && typeof meta === 'object' && !Array.isArray(meta)
    ? (meta as Record<string, unknown>)
    : undefined;
}

export function bodyProtocolVersion(message: RpcMessage): unknown {
  return metaOf(message)?.[META.protocolVersion];
}

/** Modern when either the header or the body's _meta says so; checkModernRequest then holds them to each other. */
export function isModernRequest(headerVersion: string | undefined, message: RpcMessage): boolean {
  if (headerVersion !== undefined && isModernProtocolVersion(headerVersion)) return true;
  const declared = bodyProtocolVersion(message);
  return typeof declared === 'string' && !(LEGACY_PROTOCOL_VERSIONS as readonly string[]).includes(declared);
}

export function unsupportedVersion(requested: string): ModernRequestError {
  return new ModernRequestError(
    400,
    RpcErrorCode.UnsupportedProtocolVersion,
    `Unsupported protocol version ${requested}; this server speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}.`,
    { supported: SUPPORTED_PROTOCOL_VERSIONS, requested },
  );
}

type Headers = (name: string) => string | undefined;

/** The methods whose Mcp-Name carries a body value: a tool call's name, and a task's id (the Tasks extension). */
const MCP_NAME_SOURCE: Record<string, { param: string; what: string }> = {
  'tools/call': { param: 'name', what: "the tool's name" },
  'tasks/get': { param: 'taskId', what: "the task's id" },
  'tasks/update': { param: 'taskId', what: "the task's id" },
  'tasks/cancel': { param: 'taskId', what: "the task's id" },
};

/** Checks a modern request's headers against its body (Streamable HTTP, Server Validation). */
export function checkModernRequest(header: Headers, message: RpcMessage): void {
  const declared = bodyProtocolVersion(message);
  const headerVersion = header('mcp-protocol-version');
  if (typeof declared !== 'string') {
    throw mismatch(
      `the request's params._meta has no "${META.protocolVersion}"; send the revision ` +
        `(e.g. ${headerVersion ?? '2026-07-28'}) there and in MCP-Protocol-Version`,
    );
  }
  if (headerVersion === undefined)
    throw mismatch(`the MCP-Protocol-Version header is missing; send ${declared}, the revision in params._meta`);
  if (headerVersion !== declared)
    throw mismatch(
      `MCP-Protocol-Version ${headerVersion} does not match params._meta "${META.protocolVersion}" ${declared}`,
    );
  if (!isSupportedProtocolVersion(declared)) throw unsupportedVersion(declared);

  const method = header('mcp-method');
  if (method === undefined)
    throw mismatch(`the Mcp-Method header is missing; send ${String(message.method)}, the request's method`);
  if (method !== message.method)
    throw mismatch(`Mcp-Method ${method} does not match the body's method ${String(message.method)}`);
  const named = MCP_NAME_SOURCE[String(message.method)];
  if (named) {
    const bodyName = (message.params as Record<string, unknown> | undefined)?.[named.param];
    const name = header('mcp-name');
    if (name === undefined) throw mismatch(`the Mcp-Name header is missing; send ${named.what}, ${String(bodyName)}`);
    const decoded = decodeHeaderValue(name);
    if (decoded === undefined) throw mismatch('Mcp-Name is not a valid =?base64?...?= value');
    if (decoded !== bodyName)
      throw mismatch(`Mcp-Name ${name} does not match the body's params.${named.param} ${String(bodyName)}`);
  }

  const meta = metaOf(message)!;
  for (const key of [META.clientCapabilities, META.clientInfo]) {
    const value = meta[key];
    if (value !== undefined && (value === null || typeof value !== 'object' || Array.isArray(value))) {
      throw new ModernRequestError(400, RpcErrorCode.InvalidParams, `params._meta "${key}" must be an object.`);
    }
  }
}

function mismatch(detail: string): ModernRequestError {
  return new ModernRequestError(400, RpcErrorCode.HeaderMismatch, `Header mismatch: ${detail}.`);
}

/** A header value as sent, or the UTF-8 text inside the Base64 sentinel; undefined when the sentinel is broken. */
function decodeHeaderValue(value: string): string | undefined {
  const sentinel = /^=\?base64\?(.*)\?=$/.exec(value);
  if (!sentinel) return value;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(sentinel[1])) return undefined;
  return Buffer.from(sentinel[1], 'base64').toString('utf8');
}

export interface ServerIdentity {
  name: string;
  title: string;
  version: string;
}

/** A complete result as the modern era frames it. */
export function completeResult(result: object, server: ServerIdentity, cacheable = false): Record<string, unknown> {
  const own = (result as { _meta?: Record<string, unknown> })._meta;
  return {
    ...result,
    resultType: 'complete',
    _meta: { ...own, [META.serverInfo]: server },
    ...(cacheable ? { ttlMs: LIST_TTL_MS, cacheScope: 'public' } : {}),
  };
}
