import express from 'express';
import type { Config } from './config.js';
import { resolveApiKey, type TokenResolver } from './domain/authentication.js';
import type { DomainDeps } from './domain/deps.js';
import { resolveOAuthAccessToken } from './domain/oauth/access-token-resolver.js';
import { restErrorHandler } from './rest/error-handler.js';
import { REST_PREFIX, restRouter } from './rest/router.js';
import { accessLog } from './http/access-log.js';
import type { Logger } from './logger.js';
import { mcpRouter } from './mcp/router.js';
import { oauthRouter } from './oauth/router.js';
import { calendarRouter } from './web/calendar-routes.js';
import { mediaRouter } from './web/media-routes.js';
import { sandboxRouter } from './publishing/sandbox-page.js';

export interface AppOptions {
  config: Config;
  deps: DomainDeps;
  logger: Logger;
  /** How bearer tokens are resolved, the same for REST and MCP. */
  tokenResolvers?: readonly TokenResolver[];
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
  app.set('trust proxy', config.trustProxy);
  app.set('query parser', 'extended');
  if (config.logRequests) app.use(accessLog(logger));

  app.get('/healthz', (_req, res) => {
    res.json({ status: true });
  });

  app.use(REST_PREFIX, express.json({ limit: config.maxBodyBytes, type: ['application/json', 'application/*+json'] }));
  app.use(REST_PREFIX, restRouter({ deps, tokenResolvers, validateResponses: config.validateResponses }));
  app.use(REST_PREFIX, restErrorHandler((message, error) => logger.error(message, error)));

  app.use(mcpRouter({ deps, config, tokenResolvers, log: (message, error) => logger.error(message, error) }));

  app.use(oauthRouter(deps, config, (message, error) => logger.error(message, error)));
  app.use(mediaRouter(deps, (message, error) => logger.error(message, error)));
  app.use(calendarRouter(deps, (message, error) => logger.error(message, error)));

  app.use(sandboxRouter(deps.repos.sandbox));

  // Mount new surfaces above this line: anything unmatched gets the JSON error shape, not Express's HTML page.
  app.use((_req, res) => {
    res.status(404).json({ status: false, code: 'not_found', message: 'No such route. The REST API lives under /v1/rest and MCP at /mcp.' });
  });
  return app;
}
