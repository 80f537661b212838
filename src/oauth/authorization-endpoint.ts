/**
 * /oauth2/mcp/authorize and its two form targets. Every step checks the authorization request again
 * (src/domain/oauth/authorization-request.ts), so nothing a browser carries between pages is trusted:
 * 1. GET /authorize: not signed in -> the sign-in page; signed in -> the consent page;
 * 2. POST /authorize/sign-in: CSRF token, then email and password; success sets the sign-in cookie and
 *    goes back to step 1 (303), failure shows the sign-in page again;
 * 3. POST /authorize/decision: CSRF token and sign-in; "deny" redirects with error=access_denied,
 *    "approve" issues a code for read_profile + manage_post (+ manage_team if ticked and the person's role holds
 *    it: the box is offered only then) and redirects with it.
 * 4. POST /authorize/sign-out ("Not you?"): CSRF token, then forgets the sign-in and goes back to step 1.
 * Redirects to the client carry `state` and `iss` (RFC 9207). A post that is not a form is a 4xx page
 * (http/form-submission.ts).
 */
import express, { type ErrorRequestHandler, type Request, type RequestHandler, type Response } from 'express';
import type { DomainDeps } from '../domain/deps.js';
import { issueAuthorizationCode } from '../domain/oauth/authorization-codes.js';
import { checkAuthorizationRequest, type AuthorizationRequest } from '../domain/oauth/authorization-request.js';
import { metadataDocumentHost } from '../domain/oauth/client-metadata-documents.js';
import { AuthorizationRedirectError, UntrustedRedirectError } from '../domain/oauth/errors.js';
import { isLoopbackRedirectUri } from '../domain/oauth/redirect-uris.js';
import { issuerOf } from '../domain/oauth/resources.js';
import { grantedScopes } from '../domain/oauth/scopes.js';
import { heldPowers } from '../domain/role-powers.js';
import { signIn } from '../domain/oauth/sign-in.js';
import { REQUIRED_SCOPES } from '../domain/principal.js';
import { endSession, resolveSession, startSession } from '../domain/sessions.js';
import { appBrowserSession, type BrowserSession } from '../http/browser-session.js';
import { OAUTH_ENDPOINTS } from './endpoints.js';
import { consentPage, errorPage, sendPage, signInPage } from './pages.js';

const NOT_A_MEMBER =
  'You are not a member of any workspace of your Herald account, so you cannot connect ' +
  'applications. Ask an owner or admin to add you.';
const CSRF_PROBLEM =
  'This form expired or was not sent from this page (the security token did not match). ' +
  'Start again from the application.';

function queryString(req: Request): string {
  const index = req.originalUrl.indexOf('?');
  return index < 0 ? '' : req.originalUrl.slice(index + 1);
}

function paramsOf(authorizationRequest: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(authorizationRequest));
}

function redirectOrigin(request: AuthorizationRequest): string {
  return new URL(request.redirectUri).origin;
}

const sessions = new WeakMap<DomainDeps, BrowserSession>();

/**
 * The authorization pages' cookies: the web app's pair, so a person signed in to the app goes straight to consent, and
 * back.
 */
function oauthSession(deps: DomainDeps): BrowserSession {
  let session = sessions.get(deps);
  if (!session) sessions.set(deps, (session = appBrowserSession(deps.config.baseUrl.startsWith('https:'))));
  return session;
}

function redirectToClient(
  res: Response,
  deps: DomainDeps,
  redirectUri: string,
  params: Record<string, string | undefined>,
): void {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  url.searchParams.set('iss', issuerOf(deps.config));
  res.setHeader('Cache-Control', 'no-store');
  res.redirect(303, url.href);
}

async function signedInUser(deps: DomainDeps, req: Request) {
  const signedIn = await resolveSession(deps, oauthSession(deps).signInToken(req));
  return signedIn && deps.repos.accounts.getUser(signedIn.accountId, signedIn.userId);
}

function showSignIn(
  res: Response,
  request: AuthorizationRequest,
  context: { authorizationRequest: string; csrfToken: string },
  status = 200,
  extra: { email?: string; problem?: string } = {},
) {
  sendPage(
    res,
    status,
    signInPage({
      ...context,
      ...extra,
      clientName: request.client.clientName,
      clientHost: metadataDocumentHost(request.client),
    }),
  );
}

function showAuthorize(deps: DomainDeps): RequestHandler {
  return async (req, res) => {
    const authorizationRequest = queryString(req);
    const request = await checkAuthorizationRequest(deps, paramsOf(authorizationRequest));
    const context = { authorizationRequest, csrfToken: oauthSession(deps).csrfToken(req, res) };
    const user = await signedInUser(deps, req);
    if (!user) return showSignIn(res, request, context);
    const held = await heldPowers(deps, user.accountId, user.id);
    if (held.roles.length === 0) return sendPage(res, 403, errorPage(NOT_A_MEMBER));
    sendPage(
      res,
      200,
      consentPage({
        ...context,
        clientName: request.client.clientName,
        clientHost: metadataDocumentHost(request.client),
        redirectHost: new URL(request.redirectUri).host,
        redirectIsLocal: isLoopbackRedirectUri(request.redirectUri),
        userEmail: user.email,
        fixedScopes: REQUIRED_SCOPES,
        offerManageTeam: held.scopes.includes('manage_team'),
        manageTeamChecked: request.requestedScopes.includes('manage_team'),
      }),
      [redirectOrigin(request)],
    );
  };
}

function submitSignIn(deps: DomainDeps): RequestHandler {
  return async (req, res) => {
    const form = req.body as Record<string, unknown>;
    const authorizationRequest = typeof form.authorization_request === 'string' ? form.authorization_request : '';
    const request = await checkAuthorizationRequest(deps, paramsOf(authorizationRequest));
    if (!oauthSession(deps).csrfTokenMatches(req, form.csrf_token)) return sendPage(res, 403, errorPage(CSRF_PROBLEM));
    const email = typeof form.email === 'string' ? form.email : '';
    const result = await signIn(
      deps,
      email,
      typeof form.password === 'string' ? form.password : '',
      req.ip ?? 'unknown',
    );
    if (!('user' in result)) {
      const context = { authorizationRequest, csrfToken: oauthSession(deps).csrfToken(req, res) };
      const problem =
        result.refused === 'too_many_attempts'
          ? `Too many wrong passwords ${result.from === 'email' ? 'for this email' : 'from this network'}. ` +
            `Try again in ${result.retryAfterMinutes} minute${result.retryAfterMinutes === 1 ? '' : 's'}.`
          : 'That email and password do not match a Herald user.';
      return showSignIn(res, request, context, result.refused === 'too_many_attempts' ? 429 : 401, { email, problem });
    }
    const { user } = result;
    const session = await startSession(deps, { accountId: user.accountId, userId: user.id });
    oauthSession(deps).setSignIn(res, session.token);
    res.redirect(303, `${OAUTH_ENDPOINTS.authorize}?${authorizationRequest}`);
  };
}

function submitDecision(deps: DomainDeps): RequestHandler {
  return async (req, res) => {
    const form = req.body as Record<string, unknown>;
    const authorizationRequest = typeof form.authorization_request === 'string' ? form.authorization_request : '';
    const request = await checkAuthorizationRequest(deps, paramsOf(authorizationRequest));
    if (!oauthSession(deps).csrfTokenMatches(req, form.csrf_token)) return sendPage(res, 403, errorPage(CSRF_PROBLEM));
    const user = await signedInUser(deps, req);
    if (!user) return res.redirect(303, `${OAUTH_ENDPOINTS.authorize}?${authorizationRequest}`);
    if (form.decision !== 'approve') {
      return redirectToClient(res, deps, request.redirectUri, {
        error: 'access_denied',
        error_description: 'The user denied access.',
        state: request.state,
      });
    }
    const held = await heldPowers(deps, user.accountId, user.id);
    if (held.roles.length === 0) return sendPage(res, 403, errorPage(NOT_A_MEMBER));
    const scopes = grantedScopes(form.manage_team === 'yes', held.scopes);
    const code = await issueAuthorizationCode(deps, user, request, scopes);
    redirectToClient(res, deps, request.redirectUri, { code, state: request.state });
  };
}

function submitSignOut(deps: DomainDeps): RequestHandler {
  return async (req, res) => {
    const form = req.body as Record<string, unknown>;
    const authorizationRequest = typeof form.authorization_request === 'string' ? form.authorization_request : '';
    await checkAuthorizationRequest(deps, paramsOf(authorizationRequest));
    if (!oauthSession(deps).csrfTokenMatches(req, form.csrf_token)) return sendPage(res, 403, errorPage(CSRF_PROBLEM));
    await endSession(deps, oauthSession(deps).signInToken(req));
    oauthSession(deps).clearSignIn(res);
    res.redirect(303, `${OAUTH_ENDPOINTS.authorize}?${authorizationRequest}`);
  };
}

/**
 * The authorization endpoint's protocol duty (RFC 6749 section 4.1.2.1), not error mapping: a request whose
 * redirect URI cannot be trusted is explained to the person on a page; later failures go back to the
 * client. Everything else falls through to the app's error boundary.
 */
function authorizationErrors(deps: DomainDeps): ErrorRequestHandler {
  return (error, _req, res, next) => {
    if (error instanceof UntrustedRedirectError) return sendPage(res, 400, errorPage(error.description));
    if (error instanceof AuthorizationRedirectError) {
      return redirectToClient(res, deps, error.redirectUri, {
        error: error.error,
        error_description: error.description,
        state: error.state,
      });
    }
    next(error);
  };
}

/** `form` reads the pages' form bodies. */
export function authorizationEndpoint(deps: DomainDeps, form: RequestHandler[]): express.Router {
  const router = express.Router();
  router.get(OAUTH_ENDPOINTS.authorize, showAuthorize(deps));
  router.post(OAUTH_ENDPOINTS.signIn, form, submitSignIn(deps));
  router.post(OAUTH_ENDPOINTS.decision, form, submitDecision(deps));
  router.post(OAUTH_ENDPOINTS.signOut, form, submitSignOut(deps));
  router.use(authorizationErrors(deps));
  return router;
}
