/**
 * Herald's icon for browser tabs: a speech bubble with a spark, in the app's ink and accent. One SVG serves the
 * app's page (linked from it) and /favicon.ico, which browsers ask for on their own, so neither answers 404.
 * It is a fixed image: no script, served under a CSP that would not run one anyway.
 */
import type { Request, Response } from 'express';

export const FAVICON_SVG = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32">
<rect width="32" height="32" rx="7" fill="#1d2430"/>
<path fill="#fff"
 d="M7 9.5A2.5 2.5 0 0 1 9.5 7h13A2.5 2.5 0 0 1 25 9.5v9a2.5 2.5 0 0 1-2.5 2.5H14l-5 4v-4h.5A2.5 2.5 0 0 1 7 18.5z"/>
<path d="M16.5 9.5l-3.5 5.5h3l-1 4.5 4.5-6h-3l1-4z" fill="#1a56b0"/>
</svg>
`;

export function sendFavicon(_req: Request, res: Response): void {
  res.setHeader('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'");
  res.setHeader('x-content-type-options', 'nosniff');
  res.setHeader('cache-control', 'public, max-age=86400');
  res.type('image/svg+xml').send(FAVICON_SVG);
}
