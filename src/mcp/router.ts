/**
 * POST /mcp and /mcp/claude: MCP's Streamable HTTP transport, stateless (with or without Mcp-Session-Id),
 * for both eras at once: a legacy client (2025-03-26 to 2025-11-25) opens with initialize, a modern one
 * (2026-07-28) declares its revision on every request (src/mcp/modern-era.ts). Each request runs these
 * steps in order:
 * 1. Origin: a browser Origin other than BASE_URL's or localhost is 403 (DNS rebinding guard).
 * 2. Bearer token, resolved like REST: missing or bad is 401 with a WWW-Authenticate challenge pointing
 *    at this URL's protected resource metadata (RFC 9728); so is an OAuth token issued for the other MCP URL.
 * 3. JSON body, read only now (src/http/request-body.ts: decoded size, budgets in flight, timeout, nesting
 *    depth). A request refused at steps 1 or 2 closes its connection rather than have its body read.
 * 4. MCP-Protocol-Version: a revision Herald does not speak is a 400 UnsupportedProtocolVersion. A modern
 *    request's headers must match its body (400 HeaderMismatch otherwise). These refusals carry the
 *    request's id, so a modern client reads them as protocol errors.
 * 5. Batches: accepted only from a 2025-03-26 client (batching left MCP in 2025-06-18; no header means
 *    2025-03-26), at most MAX_BATCH_MESSAGES messages and never holding initialize (that revision's
 *    lifecycle), else refused whole and nothing runs.
 * 6. Rate budgets: the token's MCP minute budget and the account's hourly one, with REST's headers as they
 *    stand after the last message. Every message is charged once, alone or batched, notification or not.
 *    A lone message over budget is a 429; a batched request over budget answers its own rate-limit error
 *    and the rest run.
 * 7. JSON-RPC: a message without an id (a notification, or the client's response) is acknowledged and
 *    never run, alone or in a batch (tools/call is a request: without an id there is no one to answer);
 *    notifications and responses only -> 202 without a body; requests -> JSON, or one SSE event when the
 *    client accepts only text/event-stream. A manage_team tool called without that scope is a 403 with
 *    an insufficient_scope challenge, alone or in a batch. A batch's requests run one after another,
 *    yielding to the event loop between them. A modern request for a method this era lacks is a 404.
 * A 2025 client that declares MCP Apps at initialize is answered with an Mcp-Session-Id that says so
 * (src/mcp/apps/extension.ts); nothing is stored, and any instance reads it.
 * Herald's own error codes (unauthorized, forbidden, insufficient scope, rate limited) follow the era the
 * MCP-Protocol-Version header names (HERALD_RPC_ERROR_CODES).
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
import { consumeRateLimit, consumeWriteBudgetForAi, RateLimitExceeded } from '../domain/rate-limits.js';
import { closeIfBodyUnread, type BodyReader } from '../http/request-body.js';
import { setRateLimitHeaders } from '../http/rate-limit-headers.js';
import { protectedResourceMetadataUrl, requireTokenFor } from '../domain/oauth/resources.js';
import { previewPosts } from '../domain/posts/post-preview.js';
import { appsDeclared, appsSessionId } from './apps/extension.js';
import { mcpRpcServers, type RpcServers } from './json-rpc.js';
import { replyChunks } from './reply-body.js';
import {
  checkModernRequest,
  isModernRequest,
  ModernRequestError,
  unsupportedVersion,
  type RpcMessage,
} from './modern-era.js';
import {
  HERALD_RPC_ERROR_CODES,
  isModernProtocolVersion,
  isSupportedProtocolVersion,
  RpcErrorCode,
  type Era,
} from './protocol.js';
import { MCP_PATHS, servedTools, type McpPath } from './served-tools.js';
import { toolHandlers } from './tools/index.js';

export interface McpRouterOptions {
  deps: DomainDeps;
  config: Config;
  tokenResolvers: readonly TokenResolver[];
  log(message: string, error: unknown): void;
  bodies: BodyReader;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function mcpRouter(options: McpRouterOptions): express.Router {
  const { deps, config } = options;
  const handlers = toolHandlers(deps);
  const rpc = mcpRpcServers({
    deps,
    handlers,
    preview: (principal, posts) => previewPosts(deps, principal, posts),
    chargeWriteBudget: (principal) => consumeWriteBudgetForAi(deps, principal),
    validateResults: config.validateResponses,
    log: options.log,
  });
  const router = express.Router();
  const parseJson = options.bodies.json({ limit: config.maxBodyBytes, anyType: true });

  for (const mcpPath of MCP_PATHS) {
    const tools = servedTools(handlers, mcpPath);
    router.post(
      mcpPath,
      eraCodes,
      checkOrigin(config),
      authenticated(options, mcpPath),
      parseJson,
      dispatch(rpc, tools, options, mcpPath),
    );
    router.all(mcpPath, (_req, res) => {
      res.setHeader('Allow', 'POST');
      sendError(
        res,
        405,
        RpcErrorCode.InvalidRequest,
        'This MCP server is stateless: send JSON-RPC messages with POST. ' +
          'GET streams and DELETE sessions are not offered.',
      );
    });
  }
  return router;
}

function checkOrigin(config: Config): RequestHandler {
  const own = new URL(config.baseUrl).origin;
  return (req, res, next) => {
    const origin = req.header('origin');
    if (origin === undefined || origin === own || isLoopbackOrigin(origin)) return next();
    closeIfBodyUnread(req, res);
    sendError(
      res,
      403,
      heraldCodes(res).Forbidden,
      `Origin ${origin} may not call this MCP server; call it from a server-side client or from ${own}.`,
    );
  };
}

function isLoopbackOrigin(origin: string): boolean {
  try {
    return LOOPBACK_HOSTS.has(new URL(origin).hostname);
  } catch {
    return false;
  }
}

/**
 * The era the MCP-Protocol-Version header names, known before the body is read; the error boundary's codes follow it.
 */
const eraCodes: RequestHandler = (req, res, next) => {
  const version = req.header('mcp-protocol-version');
  const era: Era = version !== undefined && isModernProtocolVersion(version) ? 'modern' : 'legacy';
  const codes = HERALD_RPC_ERROR_CODES[era];
  res.locals.mcpEra = era;
  res.locals.jsonRpcErrorCodes = { 401: codes.Unauthorized, 403: codes.Forbidden, 429: codes.RateLimited };
  next();
};

function heraldCodes(res: Response) {
  return HERALD_RPC_ERROR_CODES[res.locals.mcpEra as Era];
}

function authenticated(options: McpRouterOptions, mcpPath: McpPath): RequestHandler {
  const challenge = `Bearer resource_metadata="${protectedResourceMetadataUrl(options.config, mcpPath)}"`;
  return async (req, res, next) => {
    try {
      const principal = await authenticate(options.deps, options.tokenResolvers, req.header('authorization'));
      requireTokenFor(options.config, principal, mcpPath);
      res.locals.principal = principal;
    } catch (error) {
      if (!(error instanceof UnauthorizedError)) throw error;
      const presented = /^Bearer\s+\S/i.test(req.header('authorization') ?? '');
      res.setHeader('WWW-Authenticate', presented ? `${challenge}, error="invalid_token"` : challenge);
      closeIfBodyUnread(req, res);
      return sendError(res, 401, heraldCodes(res).Unauthorized, error.message);
    }
    next();
  };
}

/** Batches: only the revision that had them, and never so large that one request is a flood. */
export const MAX_BATCH_MESSAGES = 20;
const BATCH_REVISION = '2025-03-26';

function isRequest(m: RpcMessage): boolean {
  return m.method !== undefined && m.id !== undefined;
}

function rateLimitError(id: unknown, error: RateLimitExceeded): JSONRPCResponse {
  return {
    jsonrpc: '2.0',
    id: id as string | number,
    error: {
      code: HERALD_RPC_ERROR_CODES.legacy.RateLimited,
      message: error.message,
      data: { retryAfterSeconds: error.retryAfterSeconds },
    },
  };
}

/** Steps 4 to 7 of the list above, each a function of its own below. */
function dispatch(
  rpc: RpcServers,
  tools: ReadonlyMap<ToolName, ToolDefinition>,
  options: McpRouterOptions,
  mcpPath: McpPath,
): RequestHandler {
  const { deps, config } = options;
  const scopeChallenge = (scope: string) =>
    `Bearer error="insufficient_scope", scope="${scope}", ` +
    `resource_metadata="${protectedResourceMetadataUrl(config, mcpPath)}"`;
  return async (req, res) => {
    const body: unknown = req.body;
    const batch = Array.isArray(body);
    const messages = messagesOf(body);
    if (!messages) {
      return sendError(
        res,
        400,
        RpcErrorCode.InvalidRequest,
        'Send a JSON-RPC 2.0 message (an object with jsonrpc "2.0" and method) as application/json.',
      );
    }
    const principal = res.locals.principal as Principal;
    const headerVersion = req.header('mcp-protocol-version');
    const era = requestEra(req, res, headerVersion, batch ? undefined : messages[0]);
    if (era === undefined) return;
    const batchRefused = batch ? batchRefusal(headerVersion, messages) : undefined;
    if (batchRefused) return sendError(res, 400, RpcErrorCode.InvalidRequest, batchRefused);
    const context = { principal, tools, revision: headerVersion };
    const { replies, refused } = await runMessages(deps, rpc, req, res, { era, batch, messages, context });
    // A lone message, or a batch with nothing to answer, refused as a whole: a 429 from the error boundary.
    if (refused && replies.length === 0) throw refused;
    if (replies.length === 0) {
      res.status(202).end();
      return;
    }
    answer(req, res, { era, batch, replies, scopeChallenge });
  };
}

/** The body's messages, or undefined when it is not one JSON-RPC object or a non-empty array of them. */
function messagesOf(body: unknown): RpcMessage[] | undefined {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  if (messages.length === 0 || !messages.every((m) => m !== null && typeof m === 'object' && !Array.isArray(m)))
    return undefined;
  return messages as RpcMessage[];
}

/**
 * Step 4: the request's era, or undefined once its refusal is sent (a revision Herald does not speak, a modern
 * request whose headers disagree with its body), carrying a lone request's id.
 */
function requestEra(req: Request, res: Response, headerVersion: string | undefined, lone: RpcMessage | undefined) {
  const loneId = lone && isRequest(lone) ? lone.id : null;
  if (headerVersion !== undefined && !isSupportedProtocolVersion(headerVersion)) {
    sendRefusal(res, loneId, unsupportedVersion(headerVersion));
    return undefined;
  }
  const era: Era = lone && isModernRequest(headerVersion, lone) ? 'modern' : 'legacy';
  if (era === 'modern' && isRequest(lone!)) {
    try {
      checkModernRequest((name) => req.header(name), lone!);
    } catch (error) {
      if (!(error instanceof ModernRequestError)) throw error;
      sendRefusal(res, loneId, error);
      return undefined;
    }
  }
  return era;
}

/** Step 5: why a batch is refused whole, if it is. */
function batchRefusal(headerVersion: string | undefined, messages: RpcMessage[]): string | undefined {
  const version = headerVersion ?? BATCH_REVISION;
  if (version !== BATCH_REVISION)
    return (
      'JSON-RPC batches were removed from MCP in revision 2025-06-18 and this request speaks ' +
      `${version}: send one message per request.`
    );
  if (messages.length > MAX_BATCH_MESSAGES)
    return (
      `A batch holds at most ${MAX_BATCH_MESSAGES} messages and this one has ${messages.length}: ` +
      'split it, or send one message per request.'
    );
  if (messages.some((m) => m.method === 'initialize'))
    return (
      'initialize may not be part of a JSON-RPC batch (MCP 2025-03-26 lifecycle): ' +
      'send it alone, then batch the rest.'
    );
  return undefined;
}

/**
 * Steps 6 and 7: each message charged to the budgets, then each request run, one after another, yielding to the
 * event loop between them; answers the replies and the last budget refusal.
 */
async function runMessages(
  deps: DomainDeps,
  rpc: RpcServers,
  req: Request,
  res: Response,
  call: {
    era: Era;
    batch: boolean;
    messages: RpcMessage[];
    context: { principal: Principal; tools: ReadonlyMap<ToolName, ToolDefinition>; revision: string | undefined };
  },
): Promise<{ replies: JSONRPCResponse[]; refused: RateLimitExceeded | undefined }> {
  const { era, batch, context } = call;
  // Every message is charged once, requests and notifications alike, as a lone message is: the budget
  // counts what a client sends, so twenty notifications cost the same batched or one by one.
  const replies: JSONRPCResponse[] = [];
  let refused: RateLimitExceeded | undefined;
  for (const [position, message] of call.messages.entries()) {
    if (position > 0) await new Promise((resolve) => setImmediate(resolve));
    try {
      setRateLimitHeaders(res, await consumeRateLimit(deps, context.principal, 'mcp'));
    } catch (error) {
      if (!(error instanceof RateLimitExceeded)) throw error;
      setRateLimitHeaders(res, error.usage);
      refused = error;
      if (batch && isRequest(message)) replies.push(rateLimitError(message.id, error));
      continue;
    }
    if (!isRequest(message)) continue;
    const apps = appsDeclared(era, message, req.header('mcp-session-id'));
    if (apps && era === 'legacy' && message.method === 'initialize') res.setHeader('Mcp-Session-Id', appsSessionId());
    const reply = await rpc[era].receive(message as never, { ...context, apps });
    if (reply) replies.push(reply);
  }
  return { replies, refused };
}

/** Step 7's answer: its status from the replies (a missing scope, a malformed request, an unknown method). */
function answer(
  req: Request,
  res: Response,
  reply: { era: Era; batch: boolean; replies: JSONRPCResponse[]; scopeChallenge: (scope: string) => string },
): void {
  const { era, batch, replies } = reply;
  const scope = replies
    .map((r) => ('error' in r ? (r.error?.data as { scope?: string } | undefined)?.scope : undefined))
    .find(Boolean);
  if (scope) res.setHeader('WWW-Authenticate', reply.scopeChallenge(scope));
  const only = batch ? undefined : replies[0];
  const error = only && 'error' in only ? only.error : undefined;
  const malformed = error?.code === RpcErrorCode.InvalidRequest || error?.code === RpcErrorCode.ParseError;
  // A modern server answers an unknown method with 404, which a modern client tells apart from a missing endpoint
  // by its body.
  const unknownMethod = era === 'modern' && error?.code === RpcErrorCode.MethodNotFound;
  const status = scope ? 403 : malformed ? 400 : unknownMethod ? 404 : 200;
  send(req, res, status, batch ? replies : replies[0]);
}

/** JSON, or one SSE event for a client whose Accept allows only text/event-stream. */
function send(req: Request, res: Response, status: number, reply: JSONRPCResponse | JSONRPCResponse[]): void {
  const accept = req.header('accept') ?? '';
  const json = accept === '' || /application\/json|application\/\*|\*\/\*/.test(accept);
  if (!json && /text\/event-stream/.test(accept)) {
    res.status(status).setHeader('Content-Type', 'text/event-stream');
    res.setHeader('Cache-Control', 'no-cache');
    writeChunks(res, ['event: message\ndata: ', ...replyChunks(reply), '\n\n']);
    return;
  }
  // A reply to a POST is never cached nor asked for again conditionally, so it goes out without the ETag Express's
  // send would hash the whole reply for.
  writeChunks(res.status(status).type('json'), replyChunks(reply));
}

/** The parts of a body written one after another, as one response of a known length. */
function writeChunks(res: Response, chunks: string[]): void {
  res.setHeader(
    'Content-Length',
    chunks.reduce((length, chunk) => length + Buffer.byteLength(chunk), 0),
  );
  for (const chunk of chunks.slice(0, -1)) res.write(chunk);
  res.end(chunks[chunks.length - 1]);
}

function sendRefusal(res: Response, id: unknown, error: ModernRequestError): void {
  res.status(error.status).json({
    jsonrpc: '2.0',
    id,
    error: { code: error.code, message: error.message, ...(error.data ? { data: error.data } : {}) },
  });
}

function sendError(res: Response, status: number, code: number, message: string): void {
  res.status(status).json({ jsonrpc: '2.0', id: null, error: { code, message } });
}
