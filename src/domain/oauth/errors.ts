/**
 * OAuth wire errors: their own channel (RFC 6749 section 5.2, RFC 7591 section 3.2.2, RFC 8707),
 * separate from Herald's REST error bodies. `error` is the registered code a client acts on.
 */
export class OAuthError extends Error {
  constructor(
    readonly error: string,
    readonly description: string,
    readonly status = 400,
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

/** A budget of an anonymous endpoint is spent: 429 with Retry-After. */
export class OAuthRateLimitedError extends OAuthError {
  constructor(
    description: string,
    readonly retryAfterSeconds: number,
  ) {
    super('too_many_requests', description, 429);
  }
}

/**
 * An authorization request whose client or redirect URI cannot be trusted: shown to the user as a page,
 * never redirected (RFC 6749 section 4.1.2.1), so that Herald is not an open redirector.
 */
export class UntrustedRedirectError extends Error {
  constructor(readonly description: string) {
    super(description);
    this.name = 'UntrustedRedirectError';
  }
}

/** An authorization request that fails after the redirect URI is trusted: the client hears about it at that URI. */
export class AuthorizationRedirectError extends OAuthError {
  constructor(
    error: string,
    description: string,
    readonly redirectUri: string,
    readonly state: string | undefined,
  ) {
    super(error, description);
  }
}
