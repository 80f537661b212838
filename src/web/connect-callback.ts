import express from 'express';
import { finishConnect } from '../domain/networks/channel-connections.js';
import type { DomainDeps } from '../domain/deps.js';
import { HeraldError } from '../domain/errors.js';
import { browserBinding } from '../domain/sessions.js';
import { appBrowserSession } from '../http/browser-session.js';
import { escapeHtml } from '../http/html.js';

/**
 * `/connect/{network}/callback`: where a network sends the person back after its consent screen. A plain
 * page says what was connected, or why nothing was (denied, expired, refused); the state in the URL is
 * checked and spent by the domain, with the app sign-in this browser presents (a flow started in the app ends
 * only in its browser). The page loads nothing and is never cached.
 */
export function connectCallbackRouter(
  deps: DomainDeps,
  log: (message: string, error: unknown) => void,
): express.Router {
  const router = express.Router();
  const cookies = appBrowserSession(deps.config.baseUrl.startsWith('https:'));
  router.get('/connect/:network/callback', async (req, res) => {
    res.setHeader('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'");
    res.setHeader('cache-control', 'no-store');
    res.setHeader('referrer-policy', 'no-referrer');
    const params: Record<string, string | undefined> = {};
    for (const name of ['state', 'code', 'error', 'error_description']) {
      const value = req.query[name];
      if (typeof value === 'string') params[name] = value;
    }
    try {
      const signIn = cookies.signInToken(req);
      const outcome = await finishConnect(
        deps,
        String(req.params.network),
        params,
        signIn === undefined ? undefined : browserBinding(signIn),
      );
      const list = outcome.channels
        .map((c) => `<li><strong>${escapeHtml(c.displayName ?? c.name)}</strong> (${escapeHtml(c.handle)})</li>`)
        .join('');
      res
        .type('html')
        .send(
          page(
            'Connected',
            `<p>Herald can now publish to:</p><ul>${list}</ul>` +
              (outcome.warning ? `<p><strong>Note:</strong> ${escapeHtml(outcome.warning)}</p>` : ''),
          ),
        );
    } catch (error) {
      const known = error instanceof HeraldError && error.status < 500;
      if (!known) log('finishing a channel connection failed', error);
      const message =
        error instanceof HeraldError
          ? error.message
          : "Something went wrong on Herald's side; nothing was connected. Try again.";
      res
        .status(error instanceof HeraldError ? error.status : 500)
        .type('html')
        .send(page('Not connected', `<p>${escapeHtml(message)}</p>`));
    }
  });
  return router;
}

/**
 * The page a person lands on from the network's consent, often on a phone: readable at any width, a main landmark
 * for screen readers, and the way back to the app's channels (started there, or from an API client in a new tab).
 */
function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)} · Herald</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem}</style>
</head><body><main><h1>${escapeHtml(title)}</h1>
${body}
<p><a href="/app/channels">Go to your channels in Herald</a>, or close this page.</p>
</main></body></html>`;
}
