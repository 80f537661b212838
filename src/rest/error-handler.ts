/**
 * The one place REST errors become responses. HeraldErrors carry their status and message; body
 * parser and OpenAPI validation errors become 4xx with the fields to fix; anything else is a 500 that
 * is logged and never echoed.
 */
import type { ErrorRequestHandler, Response } from 'express';
import { HeraldError, ValidationError, type FieldProblem } from '../domain/errors.js';
import { RateLimitExceeded } from '../domain/rate-limits.js';
import { errorBody } from './error-body.js';
import { setRateLimitHeaders } from '../http/rate-limit-headers.js';

interface ValidatorError {
  status?: number;
  message?: string;
  errors?: { path?: string; message?: string }[];
}

interface BodyParserError {
  type?: string;
  status?: number;
  limit?: number;
}

export function restErrorHandler(log: (message: string, error: unknown) => void): ErrorRequestHandler {
  return (error, _req, res, _next) => {
    if (res.headersSent) return;
    if (error instanceof RateLimitExceeded) {
      setRateLimitHeaders(res, error.usage);
      res.setHeader('Retry-After', String(error.retryAfterSeconds));
    }
    if (error instanceof HeraldError) {
      if (error.status >= 500) log('dependency failed', error.cause ?? error);
      return send(res, error);
    }
    const parser = error as BodyParserError;
    if (parser?.type === 'entity.parse.failed') {
      return send(res, new ValidationError('The body is not a valid JSON object; check quotes, commas and brackets.'));
    }
    if (parser?.type === 'entity.too.large') {
      return send(res, new HeraldError('payload_too_large', 413, `The body is larger than the ${parser.limit} bytes accepted; send fewer or smaller entries.`));
    }
    if (parser?.type === 'encoding.unsupported' || parser?.type === 'charset.unsupported') {
      return send(res, new HeraldError('unsupported_media_type', 415, 'Send the body as UTF-8 JSON.'));
    }
    const validation = error as ValidatorError;
    if (typeof validation?.status === 'number' && validation.status >= 400 && validation.status < 500 && Array.isArray(validation.errors)) {
      return send(res, fromValidator(validation));
    }
    log('unhandled error', error);
    res.status(500).json({ status: false, code: 'internal_error', message: 'Something went wrong on our side; the request may be retried.' });
  };
}

function send(res: Response, error: HeraldError) {
  res.status(error.status).json(errorBody(error));
}

function fromValidator(error: ValidatorError): HeraldError {
  const details: FieldProblem[] = (error.errors ?? []).map((e) => ({
    path: (e.path ?? '').replace(/^\/?(body|query|params|headers)\/?/, '$1.').replace(/\//g, '.').replace(/\.$/, ''),
    message: e.message ?? 'is invalid',
  }));
  const summary = details.map((d) => `${d.path} ${d.message}`).join('; ');
  switch (error.status) {
    case 404:
      return new HeraldError('not_found', 404, 'No such route; see the OpenAPI description at /v1/rest/openapi.json.');
    case 405:
      return new HeraldError('method_not_allowed', 405, error.message ?? 'Method not allowed on this route.');
    case 415:
      return new HeraldError('unsupported_media_type', 415, 'Send the body as application/json.');
    default:
      return new ValidationError(summary ? `Invalid request: ${summary}` : (error.message ?? 'Invalid request'), details);
  }
}
