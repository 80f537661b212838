/**
 * The web app at /app, for the people on a team: sign in with the same accounts as the OAuth pages, see
 * the posts, open a post (attempts, error, permalink, approve or reject),
 * the member's API keys (shown once, revocable) and connected OAuth apps, and the webhook endpoints (secret shown once;
 * a banner on every page while Herald has one disabled).
 *
 * Rules kept here (the rest are the domain's, called as the REST API calls them):
 * - every page but sign-in needs a session; without one the person is sent to sign in, and back after;
 * - every POST carries the CSRF token of the app's cookie pair (http/browser-session.ts);
 * - sign-out ends the server-side session, so a copied cookie stops working;
 * - a domain refusal is shown on the page, next to the field it names; never a stack trace.
 */
import crypto from 'node:crypto';
import express, { type Request, type Response } from 'express';
import { approvePost, rejectPost } from '../../domain/approvals/approvals.js';
import type { DomainDeps } from '../../domain/deps.js';
import { listChannels } from '../../domain/directory.js';
import { HeraldError, RateLimitedError, ValidationError } from '../../domain/errors.js';
import { signIn } from '../../domain/oauth/sign-in.js';
import { consumeAppBudget } from '../../domain/rate-limits.js';
import { updatePost } from '../../domain/posts/update-post.js';
import { settleUnconfirmed } from '../../domain/posts/unconfirmed-posts.js';
import { inAppCalendarUrl } from '../../domain/calendars/shareable-calendars.js';
import { moveScheduledPost, teamWeek } from '../../domain/calendars/team-calendar.js';
import { checkTimezone } from '../../domain/calendars/calendar-entries.js';
import { dateKey, localDateOf } from '../../domain/zoned-time.js';
import { getPost } from '../../domain/posts/get-post.js';
import type { Principal } from '../../domain/principal.js';
import { endSession, resolveSession, sessionPrincipal, startSession } from '../../domain/sessions.js';
import { appBrowserSession } from '../../http/browser-session.js';
import { formBody } from '../../http/request-body.js';
import { listWebhooks } from '../../domain/webhooks/webhook-endpoints.js';
import { getPostHistory } from '../../domain/posts/post-history.js';
import { spaRouter } from './spa.js';
import { postPage, signInPage, slowDownPage, weekPage, type PageContext } from './app-pages.js';

const APP = '/app';

interface Visitor {
  principal: Principal;
  context: PageContext;
}

export function appRouter(deps: DomainDeps): express.Router {
  const router = express.Router();
  const cookies = appBrowserSession(deps.config.baseUrl.startsWith('https:'));
  const form = formBody({ limit: 256 * 1024 });

  function context(req: Request, res: Response): PageContext {
    return { csrf: cookies.csrfToken(req, res), nonce: crypto.randomBytes(16).toString('base64') };
  }

  function send(res: Response, page: string, nonce: string, status = 200): void {
    res.setHeader('content-security-policy', `default-src 'none'; style-src 'unsafe-inline'; script-src 'nonce-${nonce}'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`);
    res.setHeader('cache-control', 'no-store');
    res.status(status).type('html').send(page);
  }

  /** The signed-in person, or a redirect to sign in (answered here) when there is none. */
  async function visitor(req: Request, res: Response): Promise<Visitor | undefined> {
    const user = await resolveSession(deps, cookies.signInToken(req));
    if (!user) {
      res.redirect(303, `${APP}/sign-in`);
      return undefined;
    }
    try {
      await consumeAppBudget(deps, user);
    } catch (error) {
      if (!(error instanceof RateLimitedError)) throw error;
      const ctx = context(req, res);
      res.setHeader('retry-after', String(error.retryAfterSeconds));
      send(res, slowDownPage(ctx, `You are going faster than this Herald allows for one person (${deps.config.appRequestsPerMinute} pages and forms a minute): wait ${error.retryAfterSeconds} seconds, then go on.`), ctx.nonce, 429);
      return undefined;
    }
    const principal = await sessionPrincipal(deps, user);
    const person = await deps.repos.accounts.getUser(user.accountId, user.userId);
    const manages = principal.scopes.includes('manage_team');
    const banners = manages
      ? (await listWebhooks(deps, principal)).filter((e) => !e.enabled).map((e) => `Herald disabled the webhook endpoint ${e.url}: ${e.disabledReason ?? 'it kept failing'}. Fix the receiver, then enable it again.`)
      : [];
    for (const channel of await listChannels(deps, principal)) {
      if (channel.status === 'needs_reconnect') {
        banners.push(`The ${channel.network} channel ${channel.displayName ?? channel.name} needs reconnecting (${channel.statusReason ?? 'the network refused its credentials'}): its posts fail until it is reconnected on the Channels page.`);
      }
    }
    return { principal, context: { ...context(req, res), signedIn: { email: person?.email ?? '', manages }, banners } };
  }

  function checked(req: Request, res: Response): boolean {
    if (cookies.csrfTokenMatches(req, req.body?.csrf_token)) return true;
    const ctx = context(req, res);
    send(res, signInPage(ctx, { problem: 'This form expired; please try again.' }), ctx.nonce, 403);
    return false;
  }

  router.get('/', (_req, res) => res.redirect(302, APP));

  router.get(`${APP}/sign-in`, async (req, res) => {
    if (await resolveSession(deps, cookies.signInToken(req))) return res.redirect(303, APP);
    const ctx = context(req, res);
    send(res, signInPage(ctx), ctx.nonce);
  });

  router.post(`${APP}/sign-in`, ...form, async (req, res) => {
    if (!checked(req, res)) return;
    const email = typeof req.body.email === 'string' ? req.body.email : '';
    const result = await signIn(deps, email, typeof req.body.password === 'string' ? req.body.password : '', req.ip ?? 'unknown');
    if ('refused' in result) {
      const ctx = context(req, res);
      const problem = result.refused === 'wrong_credentials'
        ? 'The email or password is not right.'
        : `Too many attempts; try again in ${result.retryAfterMinutes} minutes.`;
      return send(res, signInPage(ctx, { email, problem }), ctx.nonce, result.refused === 'wrong_credentials' ? 401 : 429);
    }
    const session = await startSession(deps, { accountId: result.user.accountId, userId: result.user.id });
    cookies.setSignIn(res, session.token);
    res.redirect(303, APP);
  });

  router.post(`${APP}/sign-out`, ...form, async (req, res) => {
    if (!checked(req, res)) return;
    await endSession(deps, cookies.signInToken(req));
    cookies.clearSignIn(res);
    res.redirect(303, `${APP}/sign-in`);
  });

  router.get(`${APP}/posts/:postId`, async (req, res) => {
    const v = await visitor(req, res);
    if (!v) return;
    const post = await getPost(deps, v.principal, String(req.params.postId));
    const channels = await listChannels(deps, v.principal);
    const history = post.isLivePost ? [] : await getPostHistory(deps, v.principal, post.id);
    const people = new Map<string, string>();
    for (const actor of new Set(history.flatMap((event) => (event.actorUserId ? [event.actorUserId] : [])))) {
      const user = await deps.repos.accounts.getUser(v.principal.accountId, actor);
      people.set(actor, user?.name || user?.email || 'a former member');
    }
    const changes = history.map((event) => ({ ...event, actor: event.actorUserId ? people.get(event.actorUserId)! : 'Herald' }));
    send(res, postPage(v.context, post, channels.find((c) => c.id === post.channelId), v.principal.scopes.includes('manage_team'), changes), v.context.nonce);
  });

  router.post(`${APP}/posts/:postId/approve`, ...form, async (req, res) => {
    const v = await visitor(req, res);
    if (!v || !checked(req, res)) return;
    await approvePost(deps, v.principal, String(req.params.postId));
    res.redirect(303, `${APP}/posts/${encodeURIComponent(String(req.params.postId))}`);
  });

  router.post(`${APP}/posts/:postId/reject`, ...form, async (req, res) => {
    const v = await visitor(req, res);
    if (!v || !checked(req, res)) return;
    await rejectPost(deps, v.principal, String(req.params.postId), String(req.body.reason ?? ''));
    res.redirect(303, `${APP}/posts/${encodeURIComponent(String(req.params.postId))}`);
  });

  router.post(`${APP}/posts/:postId/retry`, ...form, async (req, res) => {
    const v = await visitor(req, res);
    if (!v || !checked(req, res)) return;
    // An update without a time puts a failed post back in line to go out now (update-post.ts).
    await updatePost(deps, v.principal, String(req.params.postId), {});
    res.redirect(303, `${APP}/posts/${encodeURIComponent(String(req.params.postId))}`);
  });

  router.post(`${APP}/posts/:postId/settle`, ...form, async (req, res) => {
    const v = await visitor(req, res);
    if (!v || !checked(req, res)) return;
    const postId = String(req.params.postId);
    await settleUnconfirmed(deps, v.principal, postId, req.body.published === 'yes'
      ? { published: true, permalinkUrl: typeof req.body.permalinkUrl === 'string' ? req.body.permalinkUrl : undefined }
      : { published: false });
    res.redirect(303, `${APP}/posts/${encodeURIComponent(postId)}`);
  });

  router.get(`${APP}/calendar`, async (req, res) => {
    const v = await visitor(req, res);
    if (!v) return;
    const week = await teamWeek(deps, v.principal, { date: typeof req.query.date === 'string' ? req.query.date : undefined, timezone: typeof req.query.tz === 'string' ? req.query.tz : undefined });
    const movedId = typeof req.query.moved === 'string' ? req.query.moved : undefined;
    const moved = movedId && typeof req.query.from === 'string' ? { postId: movedId, from: req.query.from, text: (await getPost(deps, v.principal, movedId)).text } : undefined;
    send(res, weekPage(v.context, week, moved), v.context.nonce);
  });

  router.post(`${APP}/posts/:postId/move`, ...form, async (req, res) => {
    const v = await visitor(req, res);
    if (!v || !checked(req, res)) return;
    const postId = String(req.params.postId);
    const timezone = String(req.body.timezone || 'UTC');
    const at = typeof req.body.at === 'string' ? Date.parse(req.body.at) : NaN;
    const { post, from } = await moveScheduledPost(deps, v.principal, postId, Number.isNaN(at) ? { day: String(req.body.day ?? ''), timezone } : { at });
    const day = dateKey(localDateOf(Date.parse(post.dateTime!), checkTimezone(timezone)));
    // Undoing a move is a move back; it offers no undo of its own.
    const undo = Number.isNaN(at) ? `&moved=${encodeURIComponent(postId)}&from=${encodeURIComponent(new Date(from).toISOString())}` : '';
    res.redirect(303, `${APP}/calendar?date=${day}&tz=${encodeURIComponent(timezone)}${undo}`);
  });

  router.get(`${APP}/calendar/all`, async (req, res) => {
    const v = await visitor(req, res);
    if (!v) return;
    const view = req.query.view === 'week' || req.query.view === 'list' ? req.query.view : 'month';
    const { url } = await inAppCalendarUrl(deps, v.principal, { view, includeDrafts: true, includeLivePosts: true });
    res.redirect(303, url);
  });

  // Last: every /app address the routes above do not answer is the single-page app's.
  router.use(spaRouter(deps, cookies, APP));
  return router;
}




