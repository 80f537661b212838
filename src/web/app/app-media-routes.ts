/**
 * The composer's uploads, called by its script with fetch: start a signed upload, then complete it once the
 * browser has PUT the file to the signed URL (the same flow as the MCP media tools, so the file is checked and
 * stored the same way). Answers are JSON; the session cookie and the CSRF token (header x-csrf-token) are required.
 */
import express, { type Request, type Response } from 'express';
import type { DomainDeps } from '../../domain/deps.js';
import { HeraldError, RateLimitedError } from '../../domain/errors.js';
import { consumeAppBudget } from '../../domain/rate-limits.js';
import { completeMediaUpload, createMediaUpload } from '../../domain/media/media-library.js';
import type { Principal } from '../../domain/principal.js';
import { resolveSession, sessionPrincipal } from '../../domain/sessions.js';
import type { browserSession } from '../../http/browser-session.js';

export function appMediaRouter(deps: DomainDeps, cookies: ReturnType<typeof browserSession>, app: string): express.Router {
  const router = express.Router();
  const json = express.json({ limit: 4096 });

  async function caller(req: Request, res: Response): Promise<Principal | undefined> {
    const user = await resolveSession(deps, cookies.signInToken(req));
    if (!user) {
      res.status(401).json({ message: 'Your session ended: sign in again, then add the file.' });
      return undefined;
    }
    try {
      await consumeAppBudget(deps, user);
    } catch (error) {
      if (!(error instanceof RateLimitedError)) throw error;
      res.status(429).set('retry-after', String(error.retryAfterSeconds)).json({ message: error.message });
      return undefined;
    }
    if (!cookies.csrfTokenMatches(req, req.get('x-csrf-token'))) {
      res.status(403).json({ message: 'This page expired: reload it, then add the file again.' });
      return undefined;
    }
    return sessionPrincipal(deps, user);
  }

  async function answer(res: Response, work: () => Promise<unknown>, status: number): Promise<void> {
    try {
      res.status(status).json(await work());
    } catch (error) {
      if (!(error instanceof HeraldError) || error.status >= 500) throw error;
      const detail = (error.details ?? []).map((d) => d.message).join(' ');
      res.status(error.status).json({ message: `${error.message}${detail ? `. ${detail}` : ''}` });
    }
  }

  router.post(`${app}/media/uploads`, json, async (req, res) => {
    const principal = await caller(req, res);
    if (!principal) return;
    const body = (req.body ?? {}) as Record<string, unknown>;
    await answer(res, () => createMediaUpload(deps, principal, {
      fileName: String(body.fileName ?? 'file'), contentType: String(body.contentType ?? ''), sizeBytes: Number(body.sizeBytes) || 0,
    }), 201);
  });

  router.post(`${app}/media/uploads/:uploadId/complete`, async (req, res) => {
    const principal = await caller(req, res);
    if (!principal) return;
    await answer(res, () => completeMediaUpload(deps, principal, { uploadId: String(req.params.uploadId) }), 200);
  });

  return router;
}
