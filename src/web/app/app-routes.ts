/**
 * The web app at /app: the sign-in and sign-out forms, with the same accounts and session store as the OAuth
 * pages; every other /app address is the single-page app's (spa.ts), which does everything else through REST.
 *
 * Rules kept here:
 * - every POST carries the CSRF token of the app's cookie pair (http/browser-session.ts);
 * - signing in starts a server-side session and replaces the CSRF token; signing out ends the session, so a
 *   copied cookie stops working, for the pages and for REST alike;
 * - a refusal is said on the page (wrong email or password, too many attempts); never a stack trace;
 * - signed in, the person goes back to the app's address they asked for, never to another site (returnAddress).
 */
import express, { type Request, type Response } from 'express';
import type { DomainDeps } from '../../domain/deps.js';
import { signIn } from '../../domain/oauth/sign-in.js';
import { endSession, resolveSession, startSession } from '../../domain/sessions.js';
import { appBrowserSession } from '../../http/browser-session.js';
import type { BodyReader } from '../../http/request-body.js';
import { requireFormSubmission } from '../../http/form-submission.js';
import { spaRouter } from './spa.js';
import { signInPage, type PageContext } from './app-pages.js';

const APP = '/app';

export function appRouter(deps: DomainDeps, bodies: BodyReader): express.Router {
  const router = express.Router();
  const cookies = appBrowserSession(deps.config.baseUrl.startsWith('https:'));
  const form = [...bodies.form({ limit: 16 * 1024 }), requireFormSubmission('page')];

  function context(req: Request, res: Response): PageContext {
    return { csrf: cookies.csrfToken(req, res) };
  }

  function send(res: Response, page: string, status = 200): void {
    res.setHeader(
      'content-security-policy',
      "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; " +
        "base-uri 'none'",
    );
    res.setHeader('cache-control', 'no-store');
    res.status(status).type('html').send(page);
  }

  function checked(req: Request, res: Response): boolean {
    if (cookies.csrfTokenMatches(req, req.body?.csrf_token)) return true;
    send(res, signInPage(context(req, res), { problem: 'This form expired; please try again.' }), 403);
    return false;
  }

  router.get('/', (_req, res) => res.redirect(302, APP));

  router.get(`${APP}/sign-in`, async (req, res) => {
    const next = returnAddress(req.query.next);
    if (await resolveSession(deps, cookies.signInToken(req))) return res.redirect(303, next);
    send(res, signInPage(context(req, res), { next }));
  });

  router.post(`${APP}/sign-in`, ...form, async (req, res) => {
    if (!checked(req, res)) return;
    const email = typeof req.body.email === 'string' ? req.body.email : '';
    const next = returnAddress(req.body.next);
    const result = await signIn(
      deps,
      email,
      typeof req.body.password === 'string' ? req.body.password : '',
      req.ip ?? 'unknown',
    );
    if ('refused' in result) {
      const problem =
        result.refused === 'wrong_credentials'
          ? 'The email or password is not right.'
          : `Too many attempts; try again in ${result.retryAfterMinutes} minutes.`;
      return send(
        res,
        signInPage(context(req, res), { email, problem, next }),
        result.refused === 'wrong_credentials' ? 401 : 429,
      );
    }
    const session = await startSession(deps, { accountId: result.user.accountId, userId: result.user.id });
    cookies.setSignIn(res, session.token);
    res.redirect(303, next);
  });

  router.post(`${APP}/sign-out`, ...form, async (req, res) => {
    if (!checked(req, res)) return;
    await endSession(deps, cookies.signInToken(req));
    cookies.clearSignIn(res);
    res.redirect(303, `${APP}/sign-in`);
  });

  // Last: every /app address the routes above do not answer is the single-page app's.
  router.use(spaRouter(deps, cookies, APP));
  return router;
}

/** Where to go once signed in: an address of the app (`/app` or below it), else the app's first page. */
function returnAddress(value: unknown): string {
  if (typeof value !== 'string' || value.length > 2000) return APP;
  let url: URL;
  try {
    url = new URL(value, 'http://herald.invalid');
  } catch {
    return APP;
  }
  const ours =
    url.origin === 'http://herald.invalid' &&
    (url.pathname === APP || url.pathname.startsWith(`${APP}/`)) &&
    !url.pathname.startsWith(`${APP}/sign-`);
  return ours ? url.pathname + url.search : APP;
}
