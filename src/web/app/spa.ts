/**
 * Serves the single-page web app built into `webAppDir` (make build, scripts/build-web.ts):
 * - its assets under /app/assets/, only the files the build made, named by content hash and cached for a year;
 * - its page for every other /app address (the app routes in the browser), only to a signed-in person (others
 *   are sent to sign in), never cached, with the CSRF token its REST calls carry in X-CSRF-Token, under a CSP
 *   that allows our own script and style only;
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
  files: Set<string>;
}

const CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' https: data: blob:", "media-src 'self' https: blob:",
  "connect-src 'self'", "form-action 'self'", "frame-ancestors 'none'", "base-uri 'none'",
].join('; ');

export function spaRouter(deps: DomainDeps, cookies: BrowserSession, app: string): express.Router {
  const router = express.Router();
  const dir = deps.config.webAppDir;
  let build: Build | undefined;

  function currentBuild(): Build {
    if (build) return build;
    let manifest: { script: string; style: string };
    try {
      manifest = JSON.parse(fs.readFileSync(path.join(dir, 'manifest.json'), 'utf8'));
    } catch (cause) {
      throw new ServiceUnavailableError(`The web app is not built (no ${path.join(dir, 'manifest.json')}): run make build, or set WEB_APP_DIR to where it was built.`, { cause });
    }
    build = { ...manifest, files: new Set(fs.readdirSync(path.join(dir, 'assets'))) };
    return build;
  }

  router.get([`${app}/favicon.svg`, '/favicon.ico'], sendFavicon);

  router.get(`${app}/assets/*file`, (req: Request, res: Response) => {
    const file = ([] as string[]).concat(req.params.file ?? []).join('/');
    if (!currentBuild().files.has(file)) throw new NotFoundError(`The web app has no asset ${file}: reload the page to get the current build.`);
    res.setHeader('cache-control', 'public, max-age=31536000, immutable');
    res.setHeader('x-content-type-options', 'nosniff');
    res.sendFile(path.join(dir, 'assets', file));
  });

  router.get([app, `${app}/*rest`], async (req: Request, res: Response) => {
    if (!(await resolveSession(deps, cookies.signInToken(req)))) {
      // Back to the address asked for once signed in (the app's own addresses only: see returnAddress).
      return res.redirect(303, req.originalUrl === app ? `${app}/sign-in` : `${app}/sign-in?next=${encodeURIComponent(req.originalUrl)}`);
    }
    const { script, style } = currentBuild();
    res.setHeader('content-security-policy', CSP);
    res.setHeader('cache-control', 'no-store');
    res.type('html').send(`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="herald-csrf-token" content="${escapeHtml(cookies.csrfToken(req, res))}"><title>Herald</title>
<link rel="icon" type="image/svg+xml" href="${app}/favicon.svg">
<link rel="stylesheet" href="${app}/assets/${escapeHtml(style)}"><script type="module" src="${app}/assets/${escapeHtml(script)}"></script></head>
<body><div id="app"><p class="loading" role="status">Loading Herald…</p></div><noscript><p>Herald's app needs JavaScript. The REST API at /v1/rest and MCP at /mcp work without it.</p></noscript></body></html>`);
  });
  return router;
}
