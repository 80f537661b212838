/**
 * Binds the generated route table to Express: authenticate, count against the route's rate budget,
 * validate against openapi/, then call the handler (through the idempotency rule where the spec says so).
 */
import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { dispatchRest, restRoutes, type RestRoute } from '../../generated/rest/handlers.js';
import openapiDocument from '../../generated/openapi.json' with { type: 'json' };
import { authenticate, type TokenResolver } from '../domain/authentication.js';
import type { DomainDeps } from '../domain/deps.js';
import { requestFingerprint, runIdempotent } from '../domain/idempotency.js';
import type { Principal } from '../domain/principal.js';
import { consumeRateLimit } from '../domain/rate-limits.js';
import { restHandlers } from './handlers.js';
import { setRateLimitHeaders } from '../http/rate-limit-headers.js';

export const REST_PREFIX = '/v1/rest';

export interface RestRouterOptions {
  deps: DomainDeps;
  tokenResolvers: readonly TokenResolver[];
  validateResponses: boolean;
}

function principalOf(res: Response): Principal {
  return res.locals.principal as Principal;
}

export function restRouter(options: RestRouterOptions): express.Router {
  const { deps } = options;
  const router = express.Router();
  const handlers = restHandlers(deps);

  router.get('/openapi.json', (_req, res) => {
    res.json(openapiDocument);
  });

  router.use(async (req: Request, res: Response, next: NextFunction) => {
    res.locals.principal = await authenticate(deps, options.tokenResolvers, req.headers.authorization);
    next();
  });

  const limits = express.Router();
  for (const route of restRoutes) {
    if (route.rateLimit === 'none') continue;
    limits[route.method](route.expressPath, rateLimited(deps, route));
  }
  router.use(limits);

  router.use(
    ...(OpenApiValidator.middleware({
      apiSpec: structuredClone(openapiDocument) as never,
      validateRequests: { allowUnknownQueryParameters: false, coerceTypes: true },
      validateResponses: options.validateResponses ? { removeAdditional: false } : false,
      validateSecurity: false,
      validateFormats: true,
      ignoreUndocumented: false,
    }) as RequestHandler[]),
  );

  for (const route of restRoutes) {
    router[route.method](route.expressPath, async (req: Request, res: Response) => {
      const principal = principalOf(res);
      const call = () => dispatchRest(handlers, route.operationId, { params: req.params, query: req.query, body: req.body }, { principal });
      const key = route.idempotent ? req.header('Idempotency-Key') : undefined;
      const result = key
        ? await runIdempotent(deps, principal.accountId, key, requestFingerprint(route.method, route.path, req.body), call)
        : await call();
      if (key && 'replayed' in result && result.replayed) res.setHeader('Idempotent-Replayed', 'true');
      res.status(result.status).json(result.body);
    });
  }
  return router;
}

function rateLimited(deps: DomainDeps, route: RestRoute): RequestHandler {
  const surface = route.rateLimit === 'write' ? 'rest_write' : 'rest_read';
  return async (_req, res, next) => {
    setRateLimitHeaders(res, await consumeRateLimit(deps, principalOf(res), surface));
    next();
  };
}
