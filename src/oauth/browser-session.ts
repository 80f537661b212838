/**
 * The browser state of the authorization pages, in two cookies scoped to /oauth2/mcp (HttpOnly,
 * SameSite=Lax, Secure on https):
 * - the sign-in: `accountId.userId.expiresAt.mac`, HMAC-SHA256 signed with the instance's session key, so it cannot
 *   be forged or extended; it lasts SIGN_IN_LIFETIME_MS;
 * - the CSRF token: random, echoed in every form as a hidden field and compared on POST (double submit;
 *   another site can neither read the cookie nor set it for this host).
 */
import crypto from 'node:crypto';
import type { Request, Response } from 'express';
import type { Config } from '../config.js';
import { safeEqual } from '../domain/secrets.js';
import { OAUTH_PREFIX } from './endpoints.js';

export const SIGN_IN_COOKIE = 'herald_oauth_sign_in';
export const CSRF_COOKIE = 'herald_oauth_csrf';
export const SIGN_IN_LIFETIME_MS = 60 * 60_000;

export function readCookie(req: Request, name: string): string | undefined {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return decodeURIComponent(part.slice(eq + 1).trim());
  }
  return undefined;
}

function cookieOptions(config: Config, maxAgeMs: number) {
  return { httpOnly: true, sameSite: 'lax' as const, secure: config.baseUrl.startsWith('https:'), path: OAUTH_PREFIX, maxAge: maxAgeMs };
}

function mac(key: string, payload: string): string {
  return crypto.createHmac('sha256', key).update(payload).digest('base64url');
}

export interface SignedInUser { accountId: string; userId: string }

export function setSignIn(res: Response, config: Config, key: string, user: SignedInUser, now: number): void {
  const payload = `${user.accountId}.${user.userId}.${now + SIGN_IN_LIFETIME_MS}`;
  res.cookie(SIGN_IN_COOKIE, `${payload}.${mac(key, payload)}`, cookieOptions(config, SIGN_IN_LIFETIME_MS));
}

export function clearSignIn(res: Response, config: Config): void {
  const { maxAge: _maxAge, ...options } = cookieOptions(config, 0);
  res.clearCookie(SIGN_IN_COOKIE, options);
}

/** The signed-in user, or undefined when there is no valid, unexpired sign-in cookie. */
export function signedInUser(req: Request, key: string, now: number): SignedInUser | undefined {
  const value = readCookie(req, SIGN_IN_COOKIE);
  const parts = value?.split('.');
  if (!parts || parts.length !== 4) return undefined;
  const [accountId, userId, expiresAt, signature] = parts;
  if (!safeEqual(signature, mac(key, `${accountId}.${userId}.${expiresAt}`))) return undefined;
  return Number(expiresAt) > now ? { accountId, userId } : undefined;
}

/** The CSRF token for this browser, set as a cookie when it has none yet. */
export function csrfToken(req: Request, res: Response, config: Config): string {
  const existing = readCookie(req, CSRF_COOKIE);
  if (existing && /^[A-Za-z0-9_-]{43}$/.test(existing)) return existing;
  const token = crypto.randomBytes(32).toString('base64url');
  res.cookie(CSRF_COOKIE, token, { ...cookieOptions(config, 24 * 60 * 60_000) });
  return token;
}

export function csrfTokenMatches(req: Request, submitted: unknown): boolean {
  const cookie = readCookie(req, CSRF_COOKIE);
  return typeof submitted === 'string' && cookie !== undefined && safeEqual(cookie, submitted);
}
