import express from 'express';
import type { Config } from './config.js';
import { resolveApiKey, type TokenResolver } from './domain/authentication.js';
import type { DomainDeps } from './domain/deps.js';
import { NotFoundError } from './domain/errors.js';
import { lowSpaceWarning, type DatabaseOutages } from './domain/database-health.js';
import { resolveOAuthAccessToken } from './domain/oauth/access-token-resolver.js';
import { errorBoundary } from './http/error-boundary.js';
import { bodyReader, refuseNulInUrl } from './http/request-body.js';
import { REST_PREFIX, restRouter } from './rest/router.js';
import { accessLog } from './http/access-log.js';
import type { Logger } from './logger.js';
import { mcpRouter } from './mcp/router.js';
import { oauthRouter } from './oauth/router.js';
import { calendarRouter } from './web/calendar-routes.js';
import { mediaRouter } from './web/media-routes.js';
import { sandboxRouter } from './web/sandbox-page.js';
import { connectCallbackRouter } from './web/connect-callback.js';
import { appRouter } from './web/app/app-routes.js';

export interface AppOptions {
  config: Config;
  deps: DomainDeps;
  logger: Logger;
  /** How bearer tokens are resolved, the same for REST and MCP. */
  tokenResolvers?: readonly TokenResolver[];
  /** Says a database outage in the log once rather than per request (domain/database-health.ts). */
  outages?: DatabaseOutages;
  /** DATA_DIR's free space, for /healthz's warning before the disk is full. */
  freeBytes?: () => Promise<number>;
}

/**
 * The HTTP application: REST under /v1/rest, MCP at /mcp and /mcp/claude, the OAuth authorization server
 * under /oauth2/mcp and /.well-known.
 */
export function createApp(options: AppOptions): express.Express {
  const { config, deps, logger } = options;
  const tokenResolvers = options.tokenResolvers ?? [resolveApiKey, resolveOAuthAccessToken];
  const app = express();
  app.disable('x-powered-by');
  // Production behaviour whatever NODE_ENV says: Express never renders a stack, even if an error slipped past the
  // boundary.
  app.set('env', 'production');
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'extended');
  if (config.logRequests) app.use(accessLog(logger));

  // Up while it answers; a warning beside the status when DATA_DIR runs low, so monitoring sees it before writes fail.
  app.get('/healthz', async (_req, res) => {
    const freeBytes = await options.freeBytes?.().catch(() => undefined);
    const warning = freeBytes === undefined ? undefined : lowSpaceWarning(freeBytes, config.storageLowBytes);
    res.json({ status: true, ...(warning ? { warning } : {}) });
  });
  app.use(refuseNulInUrl);

  // Every surface's bodies are held against the same budgets; each surface reads its own, after authentication.
  const bodies = bodyReader(config.bodiesInFlight);
  app.use(REST_PREFIX, restRouter({ deps, tokenResolvers, validateResponses: config.validateResponses, bodies }));

  // A request that met a database outage is the outage's to log, once; anything else is logged as it comes.
  const log = (message: string, error: unknown) => {
    if (!options.outages?.noticed(error)) logger.error(message, error);
  };
  app.use(mcpRouter({ deps, config, tokenResolvers, log, bodies }));

  app.use(oauthRouter(deps, config, bodies));
  app.use(mediaRouter(deps, log));
  app.use(calendarRouter(deps));

  app.use(sandboxRouter(deps.repos.sandbox));
  app.use(connectCallbackRouter(deps, log));
  app.use(appRouter(deps, bodies));

  // Mount new surfaces above this line: anything unmatched gets the JSON error shape, not Express's HTML page.
  app.use((_req, _res, next) => {
    next(new NotFoundError('No such route. The REST API lives under /v1/rest and MCP at /mcp.'));
  });
  app.use(errorBoundary(log));
  return app;
}
