import type { RequestHandler } from 'express';
import type { Logger } from '../logger.js';

/**
 * One log line per request, written when the response is finished. The path logged is the matched route's
 * pattern (`/v1/rest/posts/:postId`), never the URL: calendar links, upload URLs and query strings carry
 * secrets, and a pattern is what one wants to count anyway. Unmatched requests log no path at all.
 */
export function accessLog(logger: Logger): RequestHandler {
  return (req, res, next) => {
    const started = process.hrtime.bigint();
    // The pattern is read when the router matches: by the time an error reaches the app's error boundary
    // the router has left and req.baseUrl no longer holds its mount path.
    let route: string | null = null;
    let matched: unknown;
    Object.defineProperty(req, 'route', {
      configurable: true,
      get: () => matched,
      set(value: { path?: unknown } | undefined) {
        matched = value;
        if (value) route = `${req.baseUrl}${String(value.path)}`;
      },
    });
    res.on('finish', () => {
      logger.info('request', {
        method: req.method,
        route,
        status: res.statusCode,
        ms: Number((process.hrtime.bigint() - started) / 1000n) / 1000,
      });
    });
    next();
  };
}
