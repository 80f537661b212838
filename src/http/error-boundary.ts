/**
 * The one place an error becomes a response, mounted after every router.
 *
 * Rules enforced:
 * - every error is first classified once (classifyError): Herald's own errors keep their status, code and
 *   message; OAuth errors keep their RFC 6749/7591 code; path-decoding and OpenAPI validator errors become the
 *   4xx that says what to fix; the database's faults (domain/database-health.ts) become 503 with Retry-After when it
 *   cannot be reached and 507 when its storage is full; anything else is a 500 that is logged and never echoed;
 * - the answer takes the shape of the surface that was called (surfaceOf): REST's error body, the OAuth
 *   `{error, error_description}`, a JSON-RPC error for MCP, a small HTML page for the browser pages,
 *   plain text for the iCalendar feeds (calendar apps show that, not HTML);
 * - no answer ever carries a stack, an exception's own message or a file path: only messages written
 *   for the caller;
 * - an answer given before the request's body arrived whole closes the connection rather than read the rest;
 * - once headers are sent nothing can be said: the connection is closed.
 */
import type { ErrorRequestHandler, Request, Response } from 'express';
import type { components } from '../../generated/rest/openapi-types.js';
import { HeraldError, type FieldProblem } from '../domain/errors.js';
import { OAuthError, OAuthRateLimitedError, UntrustedRedirectError } from '../domain/oauth/errors.js';
import { RateLimitExceeded } from '../domain/rate-limits.js';
import { databaseFault, DatabaseUnavailableError } from '../domain/database-health.js';
import { escapeHtml } from './html.js';
import { BodiesInFlightError, closeIfBodyUnread } from './request-body.js';
import { setRateLimitHeaders } from './rate-limit-headers.js';

type RestErrorBody = components['schemas']['Error'];

export type Surface = 'rest' | 'oauth' | 'mcp' | 'page' | 'feed';

/** A classified error: what the caller is told, whatever surface it called. */
export interface Problem {
  status: number;
  code: string;
  message: string;
  details?: FieldProblem[];
  /** The OAuth error code, when the error came from the OAuth vocabulary. */
  oauthError?: string;
  cause?: unknown;
  /** A bug or an outage: logged. An unknown error's own message is never used: it gets a generic one. */
  internal?: boolean;
  /** When the caller may send the request again (Retry-After). */
  retryAfterSeconds?: number;
}

const GENERIC_500 = 'Something went wrong on our side; the request may be retried.';

const JSON_RPC_CODES: Record<number, number> = {
  400: -32600,
  401: -32001,
  403: -32004,
  404: -32601,
  413: -32600,
  415: -32600,
  429: -32029,
};

const PAGE_PATHS =
  /^\/(oauth2\/mcp\/(authorize|sign-in|decision|sign-out|consent)|calendars?(\/|$)|sandbox\/|connect\/|app(\/|$))/;
const FEED_PATHS = /^\/calendars\/[^/]+\.ics$/;
const OAUTH_API_PATHS = /^\/oauth2\/mcp\/(register|token|revoke)$/;

function surfaceOf(path: string): Surface {
  if (path.startsWith('/v1/rest')) return 'rest';
  if (path === '/mcp' || path === '/mcp/claude') return 'mcp';
  if (OAUTH_API_PATHS.test(path)) return 'oauth';
  if (FEED_PATHS.test(path)) return 'feed';
  if (PAGE_PATHS.test(path)) return 'page';
  return 'rest';
}

interface HttpLikeError {
  status?: number;
  statusCode?: number;
  errors?: { path?: string; message?: string }[];
  message?: string;
}

function classifyError(error: unknown): Problem {
  if (error instanceof BodiesInFlightError) {
    // A flood's refusals are not bugs, and logging each would make the flood the log's too.
    const oauthError = error.status === 429 ? 'too_many_requests' : 'temporarily_unavailable';
    return { status: error.status, code: error.code, message: error.message, oauthError };
  }
  if (error instanceof HeraldError) {
    return {
      status: error.status,
      code: error.code,
      message: error.message,
      details: error.details,
      cause: error.cause,
      internal: error.status >= 500,
    };
  }
  if (error instanceof UntrustedRedirectError)
    return { status: 400, code: 'invalid_request', message: error.description };
  if (error instanceof OAuthError)
    return { status: error.status, code: error.error, oauthError: error.error, message: error.description };
  const e = (error ?? {}) as HttpLikeError;
  const status = e.status ?? e.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    if (Array.isArray(e.errors)) return fromValidator(status, e);
    if (error instanceof URIError || /decode/i.test(e.message ?? '')) {
      return {
        status: 400,
        code: 'invalid_request',
        message: 'The URL has a malformed percent-encoding; encode path and query values as UTF-8.',
      };
    }
    return {
      status,
      code: 'invalid_request',
      message: `The request could not be read (HTTP ${status}); check its encoding, headers and body.`,
    };
  }
  if (error instanceof URIError)
    return {
      status: 400,
      code: 'invalid_request',
      message: 'The URL has a malformed percent-encoding; encode path and query values as UTF-8.',
    };
  const fault = databaseFault(error);
  if (fault) {
    const retryAfterSeconds = fault instanceof DatabaseUnavailableError ? fault.retryAfterSeconds : undefined;
    const oauthError = retryAfterSeconds ? 'temporarily_unavailable' : 'server_error';
    // Logged as an outage (the log the app gives the boundary says it once), not as a bug.
    return {
      status: fault.status,
      code: fault.code,
      message: fault.message,
      internal: true,
      cause: error,
      retryAfterSeconds,
      oauthError,
    };
  }
  return { status: 500, code: 'internal_error', message: GENERIC_500, internal: true, cause: error };
}

function fromValidator(status: number, error: HttpLikeError): Problem {
  const details: FieldProblem[] = (error.errors ?? []).map((e) => ({
    path: (e.path ?? '')
      .replace(/^\/?(body|query|params|headers)\/?/, '$1.')
      .replace(/\//g, '.')
      .replace(/\.$/, ''),
    message: e.message ?? 'is invalid',
  }));
  switch (status) {
    case 404:
      return {
        status,
        code: 'not_found',
        message: 'No such route; see the OpenAPI description at /v1/rest/openapi.json.',
      };
    case 405:
      return {
        status,
        code: 'method_not_allowed',
        message: 'This method is not allowed on this route; see the OpenAPI description at /v1/rest/openapi.json.',
      };
    case 415:
      return { status, code: 'unsupported_media_type', message: 'Send the body as application/json.' };
    default: {
      const summary = details.map((d) => `${d.path} ${d.message}`).join('; ');
      return {
        status: 400,
        code: 'invalid_request',
        message: summary ? `Invalid request: ${summary}` : 'Invalid request.',
        details,
      };
    }
  }
}

const formats: Record<Surface, (req: Request, res: Response, problem: Problem) => void> = {
  rest(_req, res, problem) {
    const body: RestErrorBody = {
      status: false,
      code: problem.code,
      message: problem.message,
      ...(problem.details?.length ? { details: problem.details } : {}),
    };
    res.status(problem.status).json(body);
  },
  oauth(req, res, problem) {
    if (problem.status === 401 && req.headers.authorization !== undefined)
      res.setHeader('WWW-Authenticate', 'Basic realm="herald-oauth"');
    res.setHeader('Cache-Control', 'no-store');
    const refused = req.path.endsWith('/register') ? 'invalid_client_metadata' : 'invalid_request';
    const error = problem.oauthError ?? (problem.status >= 500 ? 'server_error' : refused);
    res.status(problem.status).json({ error, error_description: problem.message });
  },
  mcp(_req, res, problem) {
    // The MCP surface may renumber its own codes by protocol revision (res.locals.jsonRpcErrorCodes).
    const codes: Record<number, number> = {
      ...JSON_RPC_CODES,
      ...(res.locals.jsonRpcErrorCodes as Record<number, number> | undefined),
    };
    const code =
      problem.status >= 500 ? -32603 : problem.code === 'invalid_json' ? -32700 : (codes[problem.status] ?? -32600);
    const message = problem.code === 'invalid_json' ? `Parse error: ${problem.message}` : problem.message;
    // Over budget, SPEC's rate-limit body (status false, message) rides beside the JSON-RPC error.
    const budget = problem.status === 429 ? { status: false, message } : {};
    res.status(problem.status).json({ jsonrpc: '2.0', id: null, error: { code, message }, ...budget });
  },
  feed(_req, res, problem) {
    const text = [problem.message, ...(problem.details ?? []).map((d) => d.message)].join(' ');
    res
      .status(problem.status)
      .set({
        'content-type': 'text/plain; charset=utf-8',
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
      })
      .send(`${text}\n`);
  },
  page(_req, res, problem) {
    const title =
      problem.status === 404
        ? 'Not found'
        : problem.status >= 500
          ? 'Something went wrong'
          : 'This request could not be handled';
    const text = [problem.message, ...(problem.details ?? []).map((d) => d.message)].join(' ');
    res.status(problem.status).set({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy':
        "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
    });
    res.send(
      '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, ' +
        `initial-scale=1"><title>${escapeHtml(title)}</title></head>` +
        `<body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>`,
    );
  },
};

export function errorBoundary(log: (message: string, error: unknown) => void): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const problem = classifyError(error);
    if (problem.internal) log(`${req.method} ${req.route?.path ?? surfaceOf(req.path)} failed`, problem.cause ?? error);
    if (res.headersSent) {
      res.destroy();
      return;
    }
    closeIfBodyUnread(req, res);
    if (error instanceof RateLimitExceeded) {
      setRateLimitHeaders(res, error.usage);
      res.setHeader('Retry-After', String(error.retryAfterSeconds));
    } else if (error instanceof OAuthRateLimitedError) {
      res.setHeader('Retry-After', String(error.retryAfterSeconds));
    } else if (problem.retryAfterSeconds) {
      res.setHeader('Retry-After', String(problem.retryAfterSeconds));
    }
    formats[surfaceOf(req.path)](req, res, problem);
  };
}
