/**
 * A surface's browser state, in two cookies scoped to its path (HttpOnly, SameSite=Lax, Secure on https):
 * - the sign-in: the token of a server-side session (src/domain/sessions.ts), so signing out ends it for
 *   good and nothing about it can be forged from an instance secret;
 * - the CSRF token: random, echoed in every form as a hidden field and compared on POST (double submit;
 *   another site can neither read the cookie nor set it for this host); replaced at sign-in, so a token
 *   planted before sign-in is worthless after it.
 * A cookie that is not valid percent-encoding is treated as absent. The web app and the OAuth consent pages
 * share one pair (one sign-in for both), on "/" because the app's page calls the REST API under /v1/rest with
 * it; there the CSRF token travels in the X-CSRF-Token header instead of a form field.
 */
import crypto from 'node:crypto';
import type { Request, Response } from 'express';
import { safeEqual } from '../domain/secrets.js';
import { SESSION_LIFETIME_MS } from '../domain/sessions.js';

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

export interface BrowserSession {
  setSignIn(res: Response, sessionToken: string): void;
  clearSignIn(res: Response): void;
  /** The session token the browser presents, if any (validity is the session store's to say). */
  signInToken(req: Request): string | undefined;
  /** The CSRF token for this browser, set as a cookie when it has none yet. */
  csrfToken(req: Request, res: Response): string;
  csrfTokenMatches(req: Request, submitted: unknown): boolean;
}

/**
 * The cookies of one surface: `herald_<name>_sign_in` and `herald_<name>_csrf`, on `path`; Secure when served over
 * https.
 */
export function browserSession(name: string, path: string, secure: boolean): BrowserSession {
  const signInCookie = `herald_${name}_sign_in`;
  const csrfCookie = `herald_${name}_csrf`;
  const options = (maxAgeMs: number) => ({ httpOnly: true, sameSite: 'lax' as const, secure, path, maxAge: maxAgeMs });
  const rotateCsrfToken = (res: Response): string => {
    const token = crypto.randomBytes(32).toString('base64url');
    res.cookie(csrfCookie, token, options(24 * 60 * 60_000));
    return token;
  };
  return {
    setSignIn(res, sessionToken) {
      res.cookie(signInCookie, sessionToken, options(SESSION_LIFETIME_MS));
      rotateCsrfToken(res);
    },
    clearSignIn(res) {
      const { maxAge: _maxAge, ...rest } = options(0);
      res.clearCookie(signInCookie, rest);
    },
    signInToken: (req) => readCookie(req, signInCookie),
    csrfToken(req, res) {
      const existing = readCookie(req, csrfCookie);
      if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
      return rotateCsrfToken(res);
    },
    csrfTokenMatches(req, submitted) {
      const cookie = readCookie(req, csrfCookie);
      return typeof submitted === 'string' && cookie !== undefined && safeEqual(cookie, submitted);
    },
  };
}

/** The header the web app's calls to REST carry its CSRF token in. */
export const CSRF_HEADER = 'x-csrf-token';

/**
 * The web app's cookie pair: its pages at /app, its calls to /v1/rest, and the OAuth consent pages. Not named
 * `app`: that pair lived on path /app, and a browser still holding it sends it first on the app's pages (the
 * longer path), so the page would carry its stale CSRF token while the calls to /v1/rest carry the new cookie.
 */
export function appBrowserSession(secure: boolean): BrowserSession {
  return browserSession('web', '/', secure);
}
