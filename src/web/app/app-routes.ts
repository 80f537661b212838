/**
 * The web app at /app, for the people on a team: sign in with the same accounts as the OAuth pages, and
 * compose for several channels; every other page is the single-page app's (spa.ts).
 *
 * Rules kept here (the rest are the domain's, called as the REST API calls them):
 * - every page but sign-in needs a session; without one the person is sent to sign in, and back after;
 * - every POST carries the CSRF token of the app's cookie pair (http/browser-session.ts);
 * - sign-out ends the server-side session, so a copied cookie stops working;
 * - a domain refusal is shown on the page, next to the field it names; never a stack trace.
 */
import crypto from 'node:crypto';
import express, { type Request, type Response } from 'express';
import type { DomainDeps } from '../../domain/deps.js';
import { listChannels } from '../../domain/directory.js';
import { HeraldError, RateLimitedError, ValidationError } from '../../domain/errors.js';
import { NETWORK_CAPABILITIES } from '../../domain/networks/capabilities.js';
import { signIn } from '../../domain/oauth/sign-in.js';
import { createPosts } from '../../domain/posts/create-posts.js';
import { generateImage, generatePost, rewrite, suggestHashtags } from '../../domain/ai/ai-helpers.js';
import { applyLabels, listLabels } from '../../domain/labels/labels.js';
import { consumeAppBudget, consumeWriteBudgetForAi } from '../../domain/rate-limits.js';
import { updatePost } from '../../domain/posts/update-post.js';
import { checkTimezone } from '../../domain/calendars/calendar-entries.js';
import { wallClockToUtc } from '../../domain/zoned-time.js';
import type { Principal } from '../../domain/principal.js';
import { endSession, resolveSession, sessionPrincipal, startSession } from '../../domain/sessions.js';
import { appBrowserSession } from '../../http/browser-session.js';
import { formBody } from '../../http/request-body.js';
import { listWebhooks } from '../../domain/webhooks/webhook-endpoints.js';
import { appMediaRouter } from './app-media-routes.js';
import { spaRouter } from './spa.js';
import { composePage, signInPage, slowDownPage, type ComposeForm, type PageContext } from './app-pages.js';

const APP = '/app';

interface Visitor {
  principal: Principal;
  context: PageContext;
}

export function appRouter(deps: DomainDeps): express.Router {
  const router = express.Router();
  const cookies = appBrowserSession(deps.config.baseUrl.startsWith('https:'));
  const form = formBody({ limit: 256 * 1024 });
  router.use(appMediaRouter(deps, cookies, APP));

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

  router.get(`${APP}/compose`, async (req, res) => {
    const v = await visitor(req, res);
    if (!v) return;
    send(res, composePage(v.context, await listChannels(deps, v.principal), await listLabels(deps, v.principal), NETWORK_CAPABILITIES), v.context.nonce);
  });

  router.post(`${APP}/compose`, ...form, async (req, res) => {
    const v = await visitor(req, res);
    if (!v || !checked(req, res)) return;
    const options: Record<string, Record<string, string>> = {};
    const textByChannel: Record<string, string> = {};
    for (const [field, value] of Object.entries(req.body as Record<string, unknown>)) {
      const match = /^option\.([a-z]+)\.([A-Za-z]+)$/.exec(field);
      if (match && typeof value === 'string' && value !== '') (options[match[1]] ??= {})[match[2]] = value;
      const own = /^textFor\.(.+)$/.exec(field);
      if (own && typeof value === 'string' && value.trim() !== '') textByChannel[own[1]] = value;
    }
    const input: ComposeForm = {
      text: String(req.body.text ?? ''),
      channelIds: ([] as unknown[]).concat(req.body.channelIds ?? []).map(String),
      when: String(req.body.when ?? 'now'),
      dateTime: String(req.body.dateTime ?? ''),
      timezone: String(req.body.timezone ?? 'UTC') || 'UTC',
      options,
      firstComment: String(req.body.firstComment ?? ''),
      textByChannel,
      media: ([] as unknown[]).concat(req.body.mediaIds ?? []).map((id, i) => ({ id: String(id), url: String(([] as unknown[]).concat(req.body.mediaUrls ?? [])[i] ?? ''), altText: String(([] as unknown[]).concat(req.body.altText ?? [])[i] ?? '') })),
      labelIds: ([] as unknown[]).concat(req.body.labelIds ?? []).map(String),
      prompt: String(req.body.prompt ?? ''),
    };
    const channels = await listChannels(deps, v.principal);
    const labels = await listLabels(deps, v.principal);
    if (typeof req.body.assist === 'string') {
      // An AI helper rewrites the draft in place; nothing is saved until the person saves.
      try {
        await consumeWriteBudgetForAi(deps, v.principal);
        const firstNetwork = channels.find((c) => input.channelIds!.includes(c.id))?.network;
        if (req.body.assist === 'draft' || req.body.assist === 'image') {
          if (input.prompt!.trim() === '') throw new ValidationError('Describe what to write or draw first.', [{ path: 'prompt', message: 'Describe what to write or draw first.' }]);
          if (req.body.assist === 'draft') {
            const answer = await generatePost(deps, v.principal, { prompt: input.prompt!, network: firstNetwork });
            input.text = answer.variants[0].text;
            input.assisted = `Drafted for ${answer.network} (${answer.variants[0].characters} of ${answer.maxCharacters} characters) by ${answer.provider}.`;
          } else {
            const image = await generateImage(deps, v.principal, { prompt: input.prompt! });
            input.media = [...input.media!, { id: image.data.id, url: image.data.url, altText: input.prompt!.slice(0, 1500) }];
            input.assisted = `Image made by ${image.provider} and added to the media; check its alt text.`;
          }
        } else if (req.body.assist === 'hashtags') {
          const { hashtags, provider } = await suggestHashtags(deps, v.principal, { text: input.text! });
          input.text = `${input.text!.trimEnd()}\n\n${hashtags.join(' ')}`;
          input.assisted = `Hashtags suggested by ${provider}.`;
        } else {
          const network = String(req.body.assist).replace(/^rewrite:/, '');
          const answer = await rewrite(deps, v.principal, { text: input.text!, instruction: `Fit this post to ${network}.`, network });
          input.text = answer.text;
          input.assisted = `Rewritten to fit ${network} (${answer.characters} of ${answer.maxCharacters} characters) by ${answer.provider}.`;
        }
        return send(res, composePage(v.context, channels, labels, NETWORK_CAPABILITIES, input), v.context.nonce);
      } catch (error) {
        if (!(error instanceof HeraldError) || error.status >= 500) throw error;
        const path = error instanceof ValidationError && error.details?.[0]?.path === 'prompt' ? 'prompt' : 'text';
        return send(res, composePage(v.context, channels, labels, NETWORK_CAPABILITIES, input, [{ path, message: error.message }]), v.context.nonce, error.status);
      }
    }
    try {
      // The REST and MCP schemas ask for at least one channel; a form can be sent with none ticked.
      if (input.channelIds!.length === 0) throw new ValidationError('Choose at least one channel.', [{ path: 'channelIds', message: 'Choose at least one channel to publish to.' }]);
      const body: Record<string, unknown> = { channelIds: input.channelIds, text: input.text };
      // Only the chosen channels' own texts: one typed for a channel then unticked is not an error.
      const own = Object.fromEntries(Object.entries(textByChannel).filter(([id]) => input.channelIds!.includes(id)));
      if (Object.keys(own).length > 0) body.textByChannel = own;
      if (input.media!.length > 0) body.mediaIds = input.media!.map((m) => m.id);
      if (input.firstComment!.trim() !== '') body.firstComment = { text: input.firstComment };
      if (input.when === 'draft') body.saveAsDraft = true;
      if (input.when === 'queue') body.addToQueue = true;
      if (input.when === 'schedule') {
        body.isScheduled = true;
        body.dateTime = new Date(localToUtc(input.dateTime!, input.timezone!)).toISOString();
      }
      const chosen = channels.filter((c) => input.channelIds!.includes(c.id));
      const channelOptions = withAltText(optionsFor(chosen.map((c) => c.network), options), chosen.map((c) => c.network), input.media!.map((m) => m.altText));
      // channelOptions apply on update (SPEC); the ones a network requires are checked before it publishes.
      const created = await createPosts(deps, v.principal, { ...body, ...(channelOptions ? { saveAsDraft: true } : {}) } as unknown as Parameters<typeof createPosts>[2], 'app');
      if (channelOptions) {
        const timing = input.when === 'draft' ? { saveAsDraft: true } : input.when === 'schedule' ? { isScheduled: true, dateTime: body.dateTime } : input.when === 'queue' ? { addToQueue: true } : { isScheduled: false };
        for (const post of created) await updatePost(deps, v.principal, post.id, { channelOptions, ...timing } as Parameters<typeof updatePost>[3]);
      }
      if (input.labelIds!.length > 0) for (const post of created) await applyLabels(deps, v.principal, post.id, input.labelIds!);
      res.redirect(303, `${APP}/posts/${encodeURIComponent(created[0].id)}`);
    } catch (error) {
      if (!(error instanceof HeraldError) || error.status >= 500) throw error;
      const problems = error instanceof ValidationError && error.details?.length ? error.details : [{ path: '', message: error.message }];
      send(res, composePage(v.context, channels, labels, NETWORK_CAPABILITIES, input, problems), v.context.nonce, error.status);
    }
  });

  // Last: every /app address the routes above do not answer is the single-page app's.
  router.use(spaRouter(deps, cookies, APP));
  return router;
}

/** The typed option fields of the chosen networks as one channelOptions object, or undefined when none were given. */
function optionsFor(networks: readonly string[], raw: Record<string, Record<string, string>>): Record<string, unknown> | undefined {
  const options: Record<string, unknown> = {};
  for (const network of new Set(networks)) {
    for (const rule of NETWORK_CAPABILITIES[network]?.channelOptions ?? []) {
      const value = raw[network]?.[rule.name];
      if (value === undefined) continue;
      options[rule.name] = rule.type === 'boolean' ? value === 'true' : rule.type === 'string[]' ? value.split(',').map((v) => v.trim()).filter(Boolean) : value;
    }
  }
  return Object.keys(options).length > 0 ? options : undefined;
}


/** Alt texts typed beside the media, in their order, as the `altText` option of the chosen networks that take one. */
function withAltText(options: Record<string, unknown> | undefined, networks: readonly string[], altTexts: readonly string[]): Record<string, unknown> | undefined {
  const takesAltText = networks.some((network) => NETWORK_CAPABILITIES[network]?.channelOptions.some((rule) => rule.name === 'altText'));
  if (!takesAltText || altTexts.every((text) => text.trim() === '')) return options;
  return { ...options, altText: altTexts.map((text) => text.trim()) };
}

/** A datetime-local value ("2030-01-07T09:30") in `timezone`, as a UTC instant; a 400 naming the field otherwise. */
function localToUtc(value: string, timezone: string): number {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(value);
  if (!match) throw new ValidationError('Choose the date and time to publish at.', [{ path: 'dateTime', message: 'Choose the date and time to publish at.' }]);
  const [, y, mo, d, h, mi] = match.map(Number);
  // The problem is shown beside the date and time, where the zone is typed.
  return wallClockToUtc(checkTimezone(timezone, 'dateTime'), Date.UTC(y, mo - 1, d, h, mi));
}
