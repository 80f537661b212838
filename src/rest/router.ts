/**
 * Binds the generated route table to Express: authenticate (an OAuth token only if issued for /mcp), count against
 * the route's rate budget, read the body (only now: an anonymous or over-budget caller is answered before a byte of
 * it is read), validate against openapi/, then call the handler (through the idempotency rule where the spec says so).
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { dispatchRest, restRoutes, type RestRoute } from '../../generated/rest/handlers.js';
import openapiDocument from '../../generated/openapi.json' with { type: 'json' };
import { authenticate, type TokenResolver } from '../domain/authentication.js';
import { HeraldError, UnauthorizedError } from '../domain/errors.js';
import { browserBinding, resolveSession, sessionPrincipal } from '../domain/sessions.js';
import { appBrowserSession, CSRF_HEADER, type BrowserSession } from '../http/browser-session.js';
import type { BodyReader } from '../http/request-body.js';
import type { DomainDeps } from '../domain/deps.js';
import { requireTokenFor } from '../domain/oauth/resources.js';
import { requestFingerprint, runIdempotent } from '../domain/idempotency.js';
import type { Principal } from '../domain/principal.js';
import { consumeAppBudget, consumeRateLimit } from '../domain/rate-limits.js';
import { restHandlers } from './handlers.js';
import { setRateLimitHeaders } from '../http/rate-limit-headers.js';
import { compileResponseValidatorsPerRoute } from './validator-response-cache.js';
import { memoizeValidatorRouteMatchers } from './validator-route-matchers.js';

export const REST_PREFIX = '/v1/rest';

export interface RestRouterOptions {
  deps: DomainDeps;
  tokenResolvers: readonly TokenResolver[];
  validateResponses: boolean;
  bodies: BodyReader;
}

function principalOf(res: Response): Principal {
  return res.locals.principal as Principal;
}

export function restRouter(options: RestRouterOptions): express.Router {
  const { deps } = options;
  const router = express.Router();
  const handlers = restHandlers(deps);
  memoizeValidatorRouteMatchers();
  compileResponseValidatorsPerRoute();

  router.get('/openapi.json', (_req, res) => {
    res.json(openapiDocument);
  });

  const appSession = appBrowserSession(deps.config.baseUrl.startsWith('https:'));
  router.use(async (req: Request, res: Response, next: NextFunction) => {
    const signedIn = req.headers.authorization === undefined ? appSession.signInToken(req) : undefined;
    if (signedIn === undefined) {
      const principal = await authenticate(deps, options.tokenResolvers, req.headers.authorization);
      requireTokenFor(deps.config, principal, 'rest');
      res.locals.principal = principal;
      return next();
    }
    res.locals.principal = await appSessionPrincipal(deps, appSession, req, signedIn);
    next();
  });

  const limits = express.Router();
  for (const route of restRoutes) {
    if (route.rateLimit === 'none') continue;
    limits[route.method](route.expressPath, rateLimited(deps, route));
  }
  router.use(async (_req: Request, res: Response, next: NextFunction) => {
    const principal = principalOf(res);
    if (principal.tokenKind !== 'session') return limits(_req, res, next);
    await consumeAppBudget(deps, principal);
    next();
  });

  router.use(options.bodies.json({ limit: deps.config.maxBodyBytes }));

  router.use(...openApiValidator(options.validateResponses));

  for (const route of restRoutes) {
    router[route.method](route.expressPath, async (req: Request, res: Response) => {
      const principal = principalOf(res);
      const call = () =>
        dispatchRest(
          handlers,
          route.operationId,
          { params: req.params, query: req.query, body: req.body },
          { principal },
        );
      const key = route.idempotent ? req.header('Idempotency-Key') : undefined;
      const result = key
        ? await runIdempotent(
            deps,
            principal.accountId,
            key,
            requestFingerprint(route.method, route.path, req.body),
            call,
          )
        : await call();
      if (key && 'replayed' in result && result.replayed) res.setHeader('Idempotent-Replayed', 'true');
      // The one answer that is not JSON is a CSV export, whose spec types its body as a string, given whole or in
      // chunks as it is made.
      if (typeof result.body === 'string') res.status(result.status).type('text/csv; charset=utf-8').send(result.body);
      else if (isChunked(result.body))
        await sendChunks(res.status(result.status).type('text/csv; charset=utf-8'), result.body);
      else res.status(result.status).json(result.body);
    });
  }
  return router;
}

function isChunked(body: unknown): body is AsyncIterable<string> {
  return typeof body === 'object' && body !== null && Symbol.asyncIterator in body;
}

/**
 * Writes a text answer chunk by chunk, each only once the client took the one before, so a slow reader holds one
 * chunk in memory; a client gone stops the making (a failure after the first chunk is met by the error boundary,
 * which cuts the connection, so a cut file never looks complete).
 */
async function sendChunks(res: Response, chunks: AsyncIterable<string>): Promise<void> {
  for await (const chunk of chunks) {
    if (res.destroyed) return;
    if (!res.write(chunk))
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
  }
  res.end();
}

const validators = new Map<boolean, { handlers: RequestHandler[]; ready: Promise<void>; compiled: boolean }>();

/**
 * The validator depends on nothing but openapi/ and whether responses are checked too, so it is made once per
 * process: compiling its schemas took 0.3-1 s of CPU, paid again by every app a process starts (the test suite
 * starts hundreds).
 */
function openApiValidator(validateResponses: boolean): RequestHandler[] {
  let made = validators.get(validateResponses);
  if (!made) {
    const handlers = OpenApiValidator.middleware({
      apiSpec: structuredClone(openapiDocument) as never,
      validateRequests: { allowUnknownQueryParameters: false, coerceTypes: true },
      validateResponses: validateResponses ? { removeAdditional: false } : false,
      validateSecurity: false,
      validateFormats: true,
      ignoreUndocumented: false,
    }) as RequestHandler[];
    // Each of its handlers waits for the spec read and compiled; its security check (off here) does nothing else,
    // so it tells when that is done. A version that named it otherwise would only leave the wait to a request.
    const specRead = handlers.find((handler) => handler.name === 'securityMiddleware');
    const ready = new Promise<void>((resolve) => {
      if (specRead) void specRead({} as Request, {} as Response, () => resolve());
      else resolve();
    });
    const entry = { handlers, ready, compiled: false };
    void ready.then(() => {
      entry.compiled = true;
    });
    made = entry;
    validators.set(validateResponses, made);
  }
  return made.handlers;
}

/**
 * Resolves once the validators made so far have read and compiled openapi/, which they do after they are made
 * (0.4-0.5 s of CPU): a server waits for it before it says it is ready, so its first request does not.
 */
export async function restValidatorsReady(): Promise<void> {
  await Promise.all([...validators.values()].map((made) => made.ready));
}

/** Whether every validator made so far has read and compiled openapi/ (what a started server promises). */
export function restValidatorsCompiled(): boolean {
  return [...validators.values()].every((made) => made.compiled);
}

/**
 * The web app's own calls: the signed-in person's session cookie, with the app's CSRF token in X-CSRF-Token on
 * every call (reads too), so another site's page can never call as that person. A token in Authorization always
 * wins, so an integration never runs as whoever happens to be signed in in the same browser.
 */
async function appSessionPrincipal(
  deps: DomainDeps,
  cookies: BrowserSession,
  req: Request,
  token: string,
): Promise<Principal> {
  const user = await resolveSession(deps, token);
  if (!user)
    throw new UnauthorizedError(
      'Your web app session has ended (signed out or expired): sign in again at /app/sign-in, ' +
        'or send "Authorization: Bearer <API key or access token>".',
    );
  if (!cookies.csrfTokenMatches(req, req.header(CSRF_HEADER))) {
    throw new HeraldError(
      'csrf_token_mismatch',
      403,
      "A call with the web app's session must carry its CSRF token in the X-CSRF-Token header (the app's page has " +
        'it); API integrations send "Authorization: Bearer <API key or access token>" instead.',
    );
  }
  return { ...(await sessionPrincipal(deps, user)), browser: browserBinding(token) };
}

function rateLimited(deps: DomainDeps, route: RestRoute): RequestHandler {
  const surface = route.rateLimit === 'write' ? 'rest_write' : 'rest_read';
  return async (_req, res, next) => {
    setRateLimitHeaders(res, await consumeRateLimit(deps, principalOf(res), surface));
    next();
  };
}
