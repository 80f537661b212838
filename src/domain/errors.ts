/**
 * Errors a caller can act on. Each carries its wire code and HTTP status; the surfaces (REST, MCP)
 * map them once at the edge. Anything that is not a HeraldError is a bug: logged, never echoed.
 */
export interface FieldProblem {
  /** Where the problem is, e.g. "body.dateTime" or "posts[3].channelIds". */
  path: string;
  message: string;
}

export class HeraldError extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly details?: FieldProblem[],
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class ValidationError extends HeraldError {
  constructor(message: string, details?: FieldProblem[]) {
    super('invalid_request', 400, message, details);
  }
}

export class NotFoundError extends HeraldError {
  constructor(message: string) {
    super('not_found', 404, message);
  }
}

/** A write aimed at a post published outside Herald: those are read only everywhere. */
export class LivePostReadOnlyError extends HeraldError {
  constructor(id: string) {
    super(
      'live_post_read_only',
      409,
      `Post ${id} is a live post (published on the network outside Herald) and is read only: ` +
        'it cannot be updated, deleted, recycled or labelled. Edit or remove it on the network itself.',
    );
  }
}

export class ConflictError extends HeraldError {
  constructor(code: string, message: string) {
    super(code, 409, message);
  }
}

export class UnprocessableError extends HeraldError {
  constructor(code: string, message: string) {
    super(code, 422, message);
  }
}

export class UnauthorizedError extends HeraldError {
  constructor(message: string) {
    super('unauthorized', 401, message);
  }
}

export class InsufficientScopeError extends HeraldError {
  constructor(readonly scope: string) {
    super('insufficient_scope', 403, `This action needs the "${scope}" scope, which this token was not granted.`);
  }
}

export class RateLimitedError extends HeraldError {
  constructor(
    readonly retryAfterSeconds: number,
    budget: string,
  ) {
    super(
      'rate_limited',
      429,
      `Rate limit exceeded for the ${budget}. Wait ${retryAfterSeconds} seconds before retrying, ` +
        'and lengthen the delay if it happens again.',
    );
  }
}

/**
 * Something Herald depends on (media storage, a provider) is down or misconfigured: 503, and the operator is told
 * through the log.
 */
export class ServiceUnavailableError extends HeraldError {
  constructor(message: string, options: { cause: unknown }) {
    super('service_unavailable', 503, message);
    this.cause = options.cause;
  }
}
