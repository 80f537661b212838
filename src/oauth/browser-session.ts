/**
 * The browser state of the authorization pages, in two cookies scoped to /oauth2/mcp (HttpOnly,
 * SameSite=Lax, Secure on https):
 * - the sign-in: the token of a server-side session (src/domain/sessions.ts), so signing out ends it for
 *   good and nothing about it can be forged from an instance secret;
 * - the CSRF token: random, echoed in every form as a hidden field and compared on POST (double submit;
 *   another site can neither read the cookie nor set it for this host); replaced at sign-in, so a token
 *   planted before sign-in is worthless after it.
 * A cookie that is not valid percent-encoding is treated as absent.
 */
import crypto from 'node:crypto';
import type { Request, Response } from 'express';
import type { Config } from '../config.js';
import { safeEqual } from '../domain/secrets.js';
import { SESSION_LIFETIME_MS } from '../domain/sessions.js';
import { OAUTH_PREFIX } from './endpoints.js';

const SIGN_IN_COOKIE = 'herald_oauth_sign_in';
const CSRF_COOKIE = 'herald_oauth_csrf';

function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) {
      try {
        return decodeURIComponent(part.slice(eq + 1).trim());
      } catch {
        return undefined;
      }
    }
  }
  return undefined;
}

function cookieOptions(config: Config, maxAgeMs: number) {
  return { httpOnly: true, sameSite: 'lax' as const, secure: config.baseUrl.startsWith('https:'), path: OAUTH_PREFIX, maxAge: maxAgeMs };
}

export function setSignIn(res: Response, config: Config, sessionToken: string): void {
  res.cookie(SIGN_IN_COOKIE, sessionToken, cookieOptions(config, SESSION_LIFETIME_MS));
  rotateCsrfToken(res, config);
}

export function clearSignIn(res: Response, config: Config): void {
  const { maxAge: _maxAge, ...options } = cookieOptions(config, 0);
  res.clearCookie(SIGN_IN_COOKIE, options);
}

/** The session token the browser presents, if any (validity is the session store's to say). */
export function signInToken(req: Request): string | undefined {
  return readCookie(req, SIGN_IN_COOKIE);
}

function rotateCsrfToken(res: Response, config: Config): string {
  const token = crypto.randomBytes(32).toString('base64url');
  res.cookie(CSRF_COOKIE, token, { ...cookieOptions(config, 24 * 60 * 60_000) });
  return token;
}

/** The CSRF token for this browser, set as a cookie when it has none yet. */
export function csrfToken(req: Request, res: Response, config: Config): string {
  const existing = readCookie(req, CSRF_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  return rotateCsrfToken(res, config);
}

export function csrfTokenMatches(req: Request, submitted: unknown): boolean {
  const cookie = readCookie(req, CSRF_COOKIE);
  return typeof submitted === 'string' && cookie !== undefined && safeEqual(cookie, submitted);
}
