/**
 * Serves the single-page web app built into `webAppDir` (make build, scripts/build-web.ts):
 * - its assets under /app/assets/, only the files the build made, named by content hash and cached for a year;
 * - its page for every other /app address (the app routes in the browser), only to a signed-in person (others
 *   are sent to sign in), never cached, with the CSRF token its REST calls carry in X-CSRF-Token, under a CSP
 *   that allows our own script and style only;
 * - the API reference at /docs, to anyone (the description it shows is public at /v1/rest/openapi.json): Redoc,
 *   built in with the app, under a CSP of its own that lets it add its styles inline and run its search in a worker;
 * - a plain 503 saying how to build it when it is not built;
 * - its icon (favicon.ts), to anyone: at /app/favicon.svg, which the page links, and at /favicon.ico.
 */
import fs from 'node:fs';
import path from 'node:path';
import express, { type Request, type Response } from 'express';
import type { DomainDeps } from '../../domain/deps.js';
import { NotFoundError, ServiceUnavailableError } from '../../domain/errors.js';
import { resolveSession } from '../../domain/sessions.js';
import type { BrowserSession } from '../../http/browser-session.js';
import { escapeHtml } from '../../http/html.js';
import { sendFavicon } from './favicon.js';

interface Build {
  script: string;
  style: string;
  /** Absent from a build made before the reference was part of it. */
  reference?: { renderer: string; script: string };
  files: Set<string>;
}

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' https: data: blob:",
  "media-src 'self' https: blob:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

// Redoc's components style themselves with <style> elements they write, and its search runs in a worker made from a
// blob; nothing else is loosened, and nothing is loaded from anywhere but Herald.
const REFERENCE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  'worker-src blob:',
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function spaRouter(deps: DomainDeps, cookies: BrowserSession, app: string): express.Router {
  const router = express.Router();
  const dir = deps.config.webAppDir;
  let build: Build | undefined;

  function currentBuild(): Build {
    if (build) return build;
    let manifest: Omit<Build, 'files'>;
    try {
      manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    } catch (cause) {
      throw new ServiceUnavailableError(
        `The web app is not built (no ${path.join(dir, 'manifest.json')}): run make build, or set WEB_APP_DIR to ` +
          'where it was built.',
        { cause },
      );
    }
    build = { ...manifest, files: new Set(fs.readdirSync(path.join(dir, 'assets'))) };
    return build;
  }

  router.get([`${app}/favicon.svg`, '/favicon.ico'], sendFavicon);

  router.get(`${app}/assets/*file`, (req: Request, res: Response) => {
    const file = ([] as string[]).concat(req.params.file ?? []).join('/');
    if (!currentBuild().files.has(file))
      throw new NotFoundError(`The web app has no asset ${file}: reload the page to get the current build.`);
    res.setHeader('cache-control', 'public, max-age=31536000, immutable');
    res.setHeader('x-content-type-options', 'nosniff');
    res.sendFile(path.join(dir, 'assets', file));
  });

  router.get('/docs', (_req: Request, res: Response) => {
    const { reference } = currentBuild();
    if (!reference)
      throw new ServiceUnavailableError(`The web app in ${dir} was built without the API reference: run make build.`, {
        cause: undefined,
      });
    res.setHeader('content-security-policy', REFERENCE_CSP);
    res.setHeader('cache-control', 'no-cache');
    res.type('html').send(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>Herald REST API reference</title><link rel="icon" type="image/svg+xml" href="${app}/favicon.svg"></head>
<body><main id="reference"><p role="status">Loading the API reference…</p></main>
<noscript><p>The reference needs JavaScript; the description it shows is at
<a href="/v1/rest/openapi.json">/v1/rest/openapi.json</a>.</p></noscript>
<script src="${app}/assets/${escapeHtml(reference.renderer)}"></script>
<script type="module" src="${app}/assets/${escapeHtml(reference.script)}"></script></body></html>`);
  });

  router.get([app, `${app}/*rest`], async (req: Request, res: Response) => {
    if (!(await resolveSession(deps, cookies.signInToken(req)))) {
      // Back to the address asked for once signed in (the app's own addresses only: see returnAddress).
      return res.redirect(
        303,
        req.originalUrl === app ? `${app}/sign-in` : `${app}/sign-in?next=${encodeURIComponent(req.originalUrl)}`,
      );
    }
    const { script, style } = currentBuild();
    res.setHeader('content-security-policy', CSP);
    res.setHeader('cache-control', 'no-store');
    res.type('html').send(`<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="herald-csrf-token" content="${escapeHtml(cookies.csrfToken(req, res))}"><title>Herald</title>
<link rel="icon" type="image/svg+xml" href="${app}/favicon.svg">
<link rel="stylesheet" href="${app}/assets/${escapeHtml(style)}">
<script type="module" src="${app}/assets/${escapeHtml(script)}"></script></head>
<body><div id="app"><p class="loading" role="status">Loading Herald…</p></div>
<noscript><p>Herald's app needs JavaScript. The REST API at /v1/rest and MCP at /mcp work without it.</p></noscript>
</body></html>`);
  });
  return router;
}
