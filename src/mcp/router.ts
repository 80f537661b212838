/**
 * POST /mcp and /mcp/claude: MCP's Streamable HTTP transport, stateless (with or without Mcp-Session-Id).
 * Each request runs these steps in order:
 * 1. Origin: a browser Origin other than BASE_URL's or localhost is 403 (DNS rebinding guard).
 * 2. MCP-Protocol-Version: a revision Herald does not speak is 400.
 * 3. Bearer token, resolved like REST: missing or bad is 401 with a WWW-Authenticate challenge pointing
 *    at this URL's protected resource metadata (RFC 9728).
 * 4. Rate budgets: the token's MCP minute budget and the account's hourly one, with REST's headers; 429.
 * 5. JSON-RPC: notifications and responses only -> 202 without a body; requests -> JSON, or one SSE
 *    event when the client accepts only text/event-stream. A manage_team tool called without that scope
 *    is a 403 with an insufficient_scope challenge.
 * GET (no server-initiated stream) and DELETE (no sessions) are 405.
 */
import express, { type Request, type RequestHandler, type Response } from 'express';
import type { JSONRPCResponse } from 'json-rpc-2.0';
import type { ToolDefinition, ToolName } from '../../generated/mcp/handlers.js';
import type { Config } from '../config.js';
import { authenticate, type TokenResolver } from '../domain/authentication.js';
import type { DomainDeps } from '../domain/deps.js';
import { UnauthorizedError } from '../domain/errors.js';
import type { Principal } from '../domain/principal.js';
import { consumeRateLimit, RateLimitExceeded } from '../domain/rate-limits.js';
import { jsonBody } from '../http/json-body.js';
import { setRateLimitHeaders } from '../http/rate-limit-headers.js';
import { protectedResourceMetadataUrl } from '../oauth/protected-resource-metadata.js';
import { mcpRpcServer } from './json-rpc.js';
import { isSupportedProtocolVersion, RpcErrorCode, SUPPORTED_PROTOCOL_VERSIONS } from './protocol.js';
import { MCP_PATHS, servedTools, type McpPath } from './served-tools.js';
import { toolHandlers } from './tools/index.js';

export interface McpRouterOptions {
  deps: DomainDeps;
  config: Config;
  tokenResolvers: readonly TokenResolver[];
  log(message: string, error: unknown): void;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function mcpRouter(options: McpRouterOptions): express.Router {
  const { deps, config } = options;
  const handlers = toolHandlers(deps);
  const rpc = mcpRpcServer({ handlers, validateResults: config.validateResponses, log: options.log });
  const router = express.Router();
  const parseJson = jsonBody({ limit: config.maxBodyBytes, type: () => true });

  for (const mcpPath of MCP_PATHS) {
    const tools = servedTools(handlers, mcpPath);
    router.post(
      mcpPath,
      checkOrigin(config),
      checkProtocolVersion,
      authenticated(options, mcpPath),
      rateLimited(deps),
      parseJson,
      dispatch(rpc, tools, config, mcpPath),
    );
    router.all(mcpPath, (_req, res) => {
      res.setHeader('Allow', 'POST');
      sendError(res, 405, RpcErrorCode.InvalidRequest, 'This MCP server is stateless: send JSON-RPC messages with POST. GET streams and DELETE sessions are not offered.');
    });
  }
  return router;
}

function checkOrigin(config: Config): RequestHandler {
  const own = new URL(config.baseUrl).origin;
  return (req, res, next) => {
    const origin = req.header('origin');
    if (origin === undefined || origin === own || isLoopbackOrigin(origin)) return next();
    sendError(res, 403, RpcErrorCode.Forbidden, `Origin ${origin} may not call this MCP server; call it from a server-side client or from ${own}.`);
  };
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    return LOOPBACK_HOSTS.has(new URL(origin).hostname);
  } catch {
    return false;
  }
}

const checkProtocolVersion: RequestHandler = (req, res, next) => {
  const version = req.header('mcp-protocol-version');
  if (version === undefined || isSupportedProtocolVersion(version)) return next();
  sendError(res, 400, RpcErrorCode.InvalidRequest, `Unsupported MCP-Protocol-Version ${version}; this server speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')}.`);
};

function authenticated(options: McpRouterOptions, mcpPath: McpPath): RequestHandler {
  const challenge = `Bearer resource_metadata="${protectedResourceMetadataUrl(options.config, mcpPath)}"`;
  return async (req, res, next) => {
    try {
      res.locals.principal = await authenticate(options.deps, options.tokenResolvers, req.header('authorization'));
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
      const presented = /^Bearer\s+\S/i.test(req.header('authorization') ?? '');
      res.setHeader('WWW-Authenticate', presented ? `${challenge}, error="invalid_token"` : challenge);
      return sendError(res, 401, RpcErrorCode.Unauthorized, error.message);
    }
    next();
  };
}

function rateLimited(deps: DomainDeps): RequestHandler {
  return async (_req, res, next) => {
    try {
      setRateLimitHeaders(res, await consumeRateLimit(deps, res.locals.principal as Principal, 'mcp'));
    } catch (error) {
      if (!(error instanceof RateLimitExceeded)) throw error;
      setRateLimitHeaders(res, error.usage);
      res.setHeader('Retry-After', String(error.retryAfterSeconds));
      // SPEC's rate-limit body (status false, message) inside a JSON-RPC error envelope.
      res.status(429).json({ jsonrpc: '2.0', id: null, error: { code: RpcErrorCode.RateLimited, message: error.message }, status: false, message: error.message });
      return;
    }
    next();
  };
}

interface Message {
  id?: unknown;
  method?: unknown;
}

function dispatch(rpc: ReturnType<typeof mcpRpcServer>, tools: ReadonlyMap<ToolName, ToolDefinition>, config: Config, mcpPath: McpPath): RequestHandler {
  const scopeChallenge = (scope: string) =>
    `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${protectedResourceMetadataUrl(config, mcpPath)}"`;
  return async (req, res) => {
    const body: unknown = req.body;
    const messages: unknown[] = Array.isArray(body) ? body : [body];
    if (messages.length === 0 || !messages.every((m) => m !== null && typeof m === 'object' && !Array.isArray(m))) {
      return sendError(res, 400, RpcErrorCode.InvalidRequest, 'Send a JSON-RPC 2.0 message (an object with jsonrpc "2.0" and method) as application/json.');
    }
    // Notifications and the client's responses to us need no answer (Herald sends no requests of its own).
    const calls = (messages as Message[]).filter((m) => m.method !== undefined);
    if (!calls.some((m) => m.id !== undefined)) {
      res.status(202).end();
      return;
    }
    const reply = await rpc.receive((Array.isArray(body) ? calls : body) as never, { principal: res.locals.principal, tools });
    if (reply === null || (Array.isArray(reply) && reply.length === 0)) {
      res.status(202).end();
      return;
    }
    const error = Array.isArray(reply) || !('error' in reply) ? undefined : reply.error;
    const scope = (error?.data as { scope?: string } | undefined)?.scope;
    if (scope) res.setHeader('WWW-Authenticate', scopeChallenge(scope));
    const malformed = error?.code === RpcErrorCode.InvalidRequest || error?.code === RpcErrorCode.ParseError;
    const status = scope ? 403 : malformed ? 400 : 200;
    send(req, res, status, reply);
  };
}

/** JSON, or one SSE event for a client whose Accept allows only text/event-stream. */
function send(req: Request, res: Response, status: number, reply: JSONRPCResponse | JSONRPCResponse[]): void {
  const accept = req.header('accept') ?? '';
  const json = accept === '' || /application\/json|application\/\*|\*\/\*/.test(accept);
  if (!json && /text\/event-stream/.test(accept)) {
    res.status(status).setHeader('Content-Type', 'text/event-stream');
    res.setHeader('Cache-Control', 'no-cache');
    res.end(`event: message\ndata: ${JSON.stringify(reply)}\n\n`);
    return;
  }
  res.status(status).json(reply);
}

function sendError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', id: null, error: { code, message } });
}
