/** The one place OAuth wire errors become responses: `{ error, error_description }`, never cached. */
import type { Response } from 'express';
import { OAuthError, OAuthRateLimitedError } from '../domain/oauth/errors.js';

export function sendOAuthError(res: Response, error: OAuthError, options: { basicChallenge?: boolean } = {}): void {
  if (error.status === 401 && options.basicChallenge) res.setHeader('WWW-Authenticate', 'Basic realm="herald-oauth"');
  if (error instanceof OAuthRateLimitedError) res.setHeader('Retry-After', String(error.retryAfterSeconds));
  res.setHeader('Cache-Control', 'no-store');
  res.status(error.status).json({ error: error.error, error_description: error.description });
}

export { OAuthError };
