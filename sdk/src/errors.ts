/**
 * Herald's refusals as classes a caller can catch by family: each carries the HTTP status, Herald's error code
 * (`invalid_request`, `post_not_editable`, ...), its message (what to change) and, for invalid fields, the details.
 * The family follows the status, which every code of a family shares, so a code Herald adds later still lands in
 * the right class.
 */
import type { components } from '../../generated/rest/openapi-types.js';

export type ErrorBody = components['schemas']['Error'];
export type FieldProblem = NonNullable<ErrorBody['details']>[number];

export class HeraldApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: FieldProblem[] = [],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

/** 400: the request is malformed or a field is invalid; `details` names each field. */
export class HeraldValidationError extends HeraldApiError {}
/** 401: the token is missing, unknown, expired or revoked. */
export class HeraldAuthenticationError extends HeraldApiError {}
/** 403: the token lacks a scope, or its holder's role does not allow the action. */
export class HeraldPermissionError extends HeraldApiError {}
/** 404: no such record in the caller's account. */
export class HeraldNotFoundError extends HeraldApiError {}
/** 409: the record's state does not allow it now (a live post, a post already publishing, a key in use...). */
export class HeraldConflictError extends HeraldApiError {}
/** 413, 415, 422: well formed but not acceptable as sent (media, a reused Idempotency-Key...). */
export class HeraldUnprocessableError extends HeraldApiError {}
/** 429: a rate budget is spent; `retryAfterSeconds` says when to try again. */
export class HeraldRateLimitError extends HeraldApiError {
  constructor(
    status: number,
    code: string,
    message: string,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(status, code, message);
  }
}
/** 5xx: Herald or something it depends on is down for now (503 with Retry-After, 507 when its disk is full). */
export class HeraldUnavailableError extends HeraldApiError {
  constructor(
    status: number,
    code: string,
    message: string,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(status, code, message);
  }
}

/** Seconds from a Retry-After header (seconds or an HTTP date), or undefined when there is none to read. */
export function retryAfterSeconds(response: Response, now = Date.now()): number | undefined {
  const header = response.headers.get('Retry-After');
  if (header === null || header.trim() === '') return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/** The typed error for an answer that was not a success; `body` is Herald's error body when it sent one. */
export function errorFromResponse(response: Response, body: unknown): HeraldApiError {
  const { status } = response;
  const error = (typeof body === 'object' && body !== null ? body : {}) as Partial<ErrorBody>;
  const code = typeof error.code === 'string' ? error.code : `http_${status}`;
  const message = typeof error.message === 'string' ? error.message : `Herald answered HTTP ${status}.`;
  if (status === 429) return new HeraldRateLimitError(status, code, message, retryAfterSeconds(response));
  if (status >= 500) return new HeraldUnavailableError(status, code, message, retryAfterSeconds(response));
  const family = FAMILIES[status] ?? HeraldApiError;
  return new family(status, code, message, Array.isArray(error.details) ? error.details : []);
}

const FAMILIES: Record<number, typeof HeraldApiError> = {
  400: HeraldValidationError,
  401: HeraldAuthenticationError,
  403: HeraldPermissionError,
  404: HeraldNotFoundError,
  409: HeraldConflictError,
  413: HeraldUnprocessableError,
  415: HeraldUnprocessableError,
  422: HeraldUnprocessableError,
};
