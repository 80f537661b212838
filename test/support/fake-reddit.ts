import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer } from 'ws';

/**
 * Reddit as its documents describe it (Reddit's OAuth2 wiki, the API reference for /api/submit, /api/comment,
 * /api/v1/me, /r/{sr}/about and the user listings; PRAW's media asset upload and gallery submission; prawcore's rate
 * limit headers; NETWORKS.md, Seven more networks), on loopback, one server for its three origins:
 * - www.reddit.com: /api/v1/authorize (the test plays the person: Allow, or Decline when `denyNext` is set),
 *   /api/v1/access_token (HTTP Basic for the app, 401 without it; authorization_code with duration=permanent
 *   grants a refresh token; refresh_token; invalid_grant as RFC 6749 says) and /api/v1/revoke_token (204);
 * - oauth.reddit.com: every call needs `Authorization: bearer` (401 with WWW-Authenticate otherwise) and answers
 *   X-Ratelimit-Used, X-Ratelimit-Remaining (a float) and X-Ratelimit-Reset (seconds to the window's end), and 429
 *   once the window's budget is spent; writes answer Reddit's envelope `{json: {errors: [[CODE, message, field]],
 *   data}}` with HTTP 200, reads a Thing (`{kind, data}`) or a Listing (`{kind: "Listing", data: {after, children}}`);
 * - the image post's socket (PRAW's submit_image): `{type: "success", payload: {redirect}}` once the image is
 *   processed, `{type: "failed"}` when it cannot be; a socket for an image still processing closes without a word;
 * - the media store (reddit-uploaded-media.s3-accelerate.amazonaws.com): a form upload with the lease's fields,
 *   201 with S3's XML PostResponse, or 400 EntityTooLarge with ProposedSize and MaxSizeAllowed.
 * It checks what Reddit checks: the subreddit (SUBREDDIT_NOEXIST), its submission type (NO_SELFS, NO_LINKS), a
 * required flair (SUBMIT_VALIDATION_FLAIR_REQUIRED), title and text lengths (TOO_LONG), a link already submitted
 * with resubmit false (ALREADY_SUB), an image URL it did not store, a gallery of fewer than 2 items.
 */
export const WWW_ORIGIN = 'https://www.reddit.com';
export const API_ORIGIN = 'https://oauth.reddit.com';
export const MEDIA_ORIGIN = 'https://reddit-uploaded-media.s3-accelerate.amazonaws.com';
/** The socket an image post's processing is told on (a wss: address; overridden as its https: origin). */
export const SOCKET_ORIGIN = 'https://ws-0.wss.redditmedia.com';

export interface FakeSubmission {
  id: string;
  name: string;
  subreddit: string;
  title: string;
  selftext: string;
  url: string;
  permalink: string;
  author: string;
  created_utc: number;
  is_self: boolean;
  post_hint?: string;
  score: number;
  upvote_ratio: number;
  num_comments: number;
  link_flair_template_id?: string;
  over_18: boolean;
  spoiler: boolean;
  gallery?: string[];
}

export interface FakeComment {
  id: string;
  name: string;
  body: string;
  link_id: string;
  parent_id: string;
  author: string;
  permalink: string;
  created_utc: number;
}

export interface FakeSubreddit {
  display_name: string;
  submission_type: 'any' | 'link' | 'self';
  flairRequired: boolean;
  private?: boolean;
}

export interface FakeReddit {
  url: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  user: { id: string; name: string };
  subreddits: FakeSubreddit[];
  submissions: FakeSubmission[];
  comments: FakeComment[];
  /** The media store's size cap, in bytes. */
  maxUploadBytes: number;
  denyNext: boolean;
  /** Requests per window (Reddit: 100 a minute per client, averaged over ten minutes). */
  budget: number;
  /** Requests already counted in the current window. */
  used: number;
  /** Seconds left in the current window, as X-Ratelimit-Reset says. */
  resetSeconds: number;
  /** Image posts stay in processing until finishProcessing(): the submission appears only then. */
  holdImages: boolean;
  /** The next image post fails processing: its socket says `failed` and no submission is made. */
  failImageNext: boolean;
  requests: string[];
  /** The User-Agent of every call to Reddit's API and token endpoints (not the person's browser). */
  userAgents: string[];
  /** Reddit's clock (epoch ms), for a test whose Herald runs on a pinned clock. */
  now: () => number;
  revoked: string[];
  /** The next call of this path answers this envelope's errors (HTTP 200), or an HTTP status with a body. */
  failNext(path: string, failure: { errors?: unknown[][]; status?: number; body?: unknown }): void;
  /** The next call of this path is carried out, then the connection drops before the answer. */
  dropAnswerNext(path: string): void;
  expireTokens(): void;
  refuseRefresh(): void;
  finishProcessing(): void;
  /** A submission by the account made outside Herald. */
  submitExternally(subreddit: string, title: string, counts?: Partial<FakeSubmission>): FakeSubmission;
  close(): Promise<void>;
}

const TITLE_LIMIT = 300;
const TEXT_LIMIT = 40_000;
const MEDIA_ACTION = '//reddit-uploaded-media.s3-accelerate.amazonaws.com';

export async function startFakeReddit(options: { redirectUri: string }): Promise<FakeReddit> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const codes = new Map<string, { redirectUri: string; scopes: string[]; permanent: boolean }>();
  const tokens = new Map<string, { scopes: string[]; expiresAt: number }>();
  const refreshTokens = new Map<string, string[]>();
  const leases = new Map<string, { key: string; stored: boolean; mimetype: string }>();
  const scripted = new Map<string, { errors?: unknown[][]; status?: number; body?: unknown }>();
  const dropped = new Set<string>();
  const processing: FakeSubmission[] = [];
  const failedImages = new Set<string>();
  let refreshRefused = false;
  let clock = 0;
  const newId = () => crypto.randomBytes(4).toString('hex').slice(0, 7);

  const fake: FakeReddit = {
    url,
    clientId: 'p-jcoLKBynTLew',
    clientSecret: crypto.randomBytes(15).toString('base64url'),
    redirectUri: options.redirectUri,
    user: { id: '1w72', name: 'acme_team' },
    subreddits: [
      { display_name: 'selfhosted', submission_type: 'any', flairRequired: false },
      { display_name: 'LinksOnly', submission_type: 'link', flairRequired: false },
      { display_name: 'Flaired', submission_type: 'any', flairRequired: true },
      { display_name: 'Secret', submission_type: 'any', flairRequired: false, private: true },
    ],
    submissions: [],
    comments: [],
    maxUploadBytes: 20 * 1024 * 1024,
    denyNext: false,
    budget: 600,
    used: 0,
    resetSeconds: 540,
    holdImages: false,
    failImageNext: false,
    requests: [],
    userAgents: [],
    now: () => Date.now(),
    revoked: [],
    failNext(path, failure) {
      scripted.set(path, failure);
    },
    dropAnswerNext(path) {
      dropped.add(path);
    },
    expireTokens() {
      for (const token of tokens.values()) token.expiresAt = 0;
    },
    refuseRefresh() {
      refreshRefused = true;
    },
    finishProcessing() {
      fake.submissions.push(...processing.splice(0));
    },
    submitExternally(subreddit, title, counts = {}) {
      clock = Math.max(clock, Math.floor(fake.now() / 1000)) + 1;
      const made = submission(subreddit, title, { selftext: '', isSelf: true });
      Object.assign(made, counts);
      fake.submissions.push(made);
      return made;
    },
    close: () =>
      new Promise((resolve) => {
        sockets.close();
        server.close(() => resolve());
      }),
  };

  function submission(sr: string, title: string, what: { selftext: string; isSelf: boolean; url?: string }) {
    const id = newId();
    const slug = title
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .slice(0, 50);
    const permalink = `/r/${sr}/comments/${id}/${slug}/`;
    const made: FakeSubmission = {
      id,
      name: `t3_${id}`,
      subreddit: sr,
      title,
      selftext: what.selftext,
      url: what.url ?? `https://www.reddit.com${permalink}`,
      permalink,
      author: fake.user.name,
      created_utc: Math.max(clock, Math.floor(fake.now() / 1000)),
      is_self: what.isSelf,
      score: 1,
      upvote_ratio: 1,
      num_comments: 0,
      over_18: false,
      spoiler: false,
    };
    return made;
  }

  server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const target = new URL(req.url ?? '/', url);
      const body = Buffer.concat(chunks);
      const path = target.pathname;
      fake.requests.push(`${req.method} ${path}`);
      if (path !== '/api/v1/authorize') fake.userAgents.push(String(req.headers['user-agent'] ?? ''));
      const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
        if (dropped.delete(path)) return req.socket.destroy();
        res
          .writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers })
          .end(payload === undefined ? undefined : JSON.stringify(payload));
      };

      if (req.method === 'GET' && path === '/api/v1/authorize') return authorize(target, res);
      if (req.method === 'POST' && path === '/api/v1/access_token') {
        const answer = tokenAnswer(form(body), req.headers.authorization);
        return send(answer.status, answer.body);
      }
      if (req.method === 'POST' && path === '/api/v1/revoke_token') {
        if (!appOf(req.headers.authorization)) return send(401, { message: 'Unauthorized', error: 401 });
        const token = form(body).token;
        fake.revoked.push(token);
        refreshTokens.delete(token);
        tokens.delete(token);
        return send(204, undefined);
      }
      if (req.method === 'POST' && path === '/' && String(req.headers['content-type']).startsWith('multipart/'))
        return mediaUpload(req.headers['content-type']!, body, res);

      const bearer = /^bearer (.+)$/i.exec(req.headers.authorization ?? '')?.[1];
      const token = bearer ? tokens.get(bearer) : undefined;
      if (!token || token.expiresAt <= Date.now()) {
        return send(
          401,
          { message: 'Unauthorized', error: 401 },
          { 'www-authenticate': 'Bearer realm="reddit", error="invalid_token"' },
        );
      }
      fake.used += 1;
      const remaining = Math.max(0, fake.budget - fake.used);
      const rate = {
        'x-ratelimit-used': String(fake.used),
        'x-ratelimit-remaining': remaining.toFixed(1),
        'x-ratelimit-reset': String(fake.resetSeconds),
      };
      if (fake.used > fake.budget) return send(429, { message: 'Too Many Requests', error: 429 }, rate);
      const script = scripted.get(path);
      if (script) {
        scripted.delete(path);
        if (script.status) return send(script.status, script.body ?? { message: 'error', error: script.status }, rate);
        return send(200, { json: { errors: script.errors ?? [] } }, rate);
      }
      const answer = api(req.method ?? 'GET', path, target, body, req.headers['content-type'] ?? '', token.scopes);
      send(answer.status, answer.body, rate);
    });
  });

  const sockets = new WebSocketServer({ noServer: true });
  server.on('upgrade', (req, socket, head) => {
    const id = /^\/rte_images\/([a-z0-9]+)/.exec(new URL(req.url ?? '/', url).pathname)?.[1] ?? '';
    fake.requests.push(`SOCKET /rte_images/${id}`);
    sockets.handleUpgrade(req, socket, head, (ws) => {
      // Reddit tells once the image is processed, a moment after the socket opens.
      setTimeout(() => {
        const done = fake.submissions.find((s) => s.id === id);
        if (failedImages.delete(id)) ws.send(JSON.stringify({ type: 'failed', payload: {} }));
        else if (done)
          ws.send(
            JSON.stringify({ type: 'success', payload: { redirect: `https://www.reddit.com${done.permalink}` } }),
          );
        ws.close();
      }, 50);
    });
  });

  function authorize(target: URL, res: http.ServerResponse) {
    const q = target.searchParams;
    const redirect = q.get('redirect_uri') ?? '';
    if (q.get('client_id') !== fake.clientId || redirect !== fake.redirectUri || q.get('response_type') !== 'code')
      return res.writeHead(400, { 'content-type': 'text/html' }).end('<p>bad request (reddit.com)</p>');
    const back = new URL(redirect);
    back.searchParams.set('state', q.get('state') ?? '');
    if (fake.denyNext) {
      fake.denyNext = false;
      back.searchParams.set('error', 'access_denied');
    } else {
      const code = crypto.randomBytes(15).toString('base64url');
      const scopes = (q.get('scope') ?? '').split(/[\s,]+/).filter(Boolean);
      codes.set(code, { redirectUri: redirect, scopes, permanent: q.get('duration') === 'permanent' });
      back.searchParams.set('code', code);
    }
    res.writeHead(302, { location: back.toString() }).end();
  }

  function appOf(authorization: string | undefined): boolean {
    const basic = /^Basic (.+)$/.exec(authorization ?? '')?.[1];
    if (!basic) return false;
    const [id, secret] = Buffer.from(basic, 'base64').toString('utf8').split(':');
    return id === fake.clientId && secret === fake.clientSecret;
  }

  function tokenAnswer(args: Record<string, string>, authorization: string | undefined) {
    if (!appOf(authorization)) return { status: 401, body: { message: 'Unauthorized', error: 401 } };
    const issue = (scopes: string[]) => {
      const accessToken = `${fake.user.id}-${crypto.randomBytes(15).toString('base64url')}`;
      tokens.set(accessToken, { scopes, expiresAt: Date.now() + 3_600_000 });
      return accessToken;
    };
    if (args.grant_type === 'authorization_code') {
      const code = codes.get(args.code);
      if (!code || code.redirectUri !== args.redirect_uri) return { status: 400, body: { error: 'invalid_grant' } };
      codes.delete(args.code);
      const refresh = code.permanent ? `${fake.user.id}-${crypto.randomBytes(15).toString('base64url')}` : undefined;
      if (refresh) refreshTokens.set(refresh, code.scopes);
      return {
        status: 200,
        body: {
          access_token: issue(code.scopes),
          token_type: 'bearer',
          expires_in: 3600,
          scope: code.scopes.join(' '),
          ...(refresh ? { refresh_token: refresh } : {}),
        },
      };
    }
    if (args.grant_type === 'refresh_token') {
      const scopes = refreshTokens.get(args.refresh_token);
      if (!scopes || refreshRefused) return { status: 400, body: { error: 'invalid_grant' } };
      return {
        status: 200,
        body: { access_token: issue(scopes), token_type: 'bearer', expires_in: 3600, scope: scopes.join(' ') },
      };
    }
    return { status: 400, body: { error: 'unsupported_grant_type' } };
  }

  function mediaUpload(contentType: string, body: Buffer, res: http.ServerResponse) {
    const parts = multipart(contentType, body);
    const key = parts.get('key')?.toString('utf8') ?? '';
    const lease = [...leases.values()].find((l) => l.key === key);
    const file = parts.get('file');
    const xml = (status: number, text: string) =>
      res.writeHead(status, { 'content-type': 'application/xml' }).end(`<?xml version="1.0" encoding="UTF-8"?>${text}`);
    if (!lease || !file)
      return xml(403, '<Error><Code>AccessDenied</Code><Message>Invalid according to Policy</Message></Error>');
    if (file.length > fake.maxUploadBytes) {
      return xml(
        400,
        '<Error><Code>EntityTooLarge</Code><Message>Your proposed upload exceeds the maximum allowed size</Message>' +
          `<ProposedSize>${file.length}</ProposedSize><MaxSizeAllowed>${fake.maxUploadBytes}</MaxSizeAllowed></Error>`,
      );
    }
    lease.stored = true;
    xml(
      201,
      `<PostResponse><Location>https:${MEDIA_ACTION}/${encodeURIComponent(key)}</Location>` +
        `<Bucket>reddit-uploaded-media</Bucket><Key>${key}</Key>` +
        `<ETag>"${crypto.createHash('md5').update(file).digest('hex')}"</ETag></PostResponse>`,
    );
  }

  function api(method: string, path: string, target: URL, body: Buffer, contentType: string, scopes: string[]) {
    const ok = (payload: unknown) => ({ status: 200, body: payload });
    const envelope = (errors: unknown[][], data?: unknown) => ok({ json: { errors, ...(data ? { data } : {}) } });
    const forbidden = { status: 403, body: { message: 'Forbidden', error: 403 } };
    const needs = (scope: string) => !scopes.includes(scope);
    const args = contentType.startsWith('application/json') ? JSON.parse(body.toString('utf8')) : form(body);

    if (method === 'GET' && path === '/api/v1/me') {
      if (needs('identity')) return forbidden;
      return ok({
        name: fake.user.name,
        id: fake.user.id,
        icon_img: 'https://styles.redditmedia.com/t5_1/icon.png?a=1&amp;b=2',
        is_suspended: false,
      });
    }
    const about = /^\/r\/([^/]+)\/about$/.exec(path);
    if (method === 'GET' && about) {
      const sr = subreddit(about[1]);
      if (!sr) return { status: 404, body: { message: 'Not Found', error: 404 } };
      if (sr.private) return { status: 403, body: { reason: 'private', message: 'Forbidden', error: 403 } };
      return ok({
        kind: 't5',
        data: {
          display_name: sr.display_name,
          submission_type: sr.submission_type,
          subreddit_type: 'public',
          user_is_banned: false,
        },
      });
    }
    if (method === 'POST' && path === '/api/media/asset.json') {
      if (needs('submit')) return forbidden;
      const assetId = crypto.randomBytes(8).toString('hex');
      const key = `rte_images/${assetId}/${args.filepath}`;
      leases.set(assetId, { key, stored: false, mimetype: args.mimetype });
      return ok({
        args: {
          action: MEDIA_ACTION,
          fields: [
            { name: 'acl', value: 'public-read' },
            { name: 'key', value: key },
            { name: 'X-Amz-Credential', value: 'AKIA/20261126/us-east-1/s3/aws4_request' },
            { name: 'X-Amz-Algorithm', value: 'AWS4-HMAC-SHA256' },
            { name: 'X-Amz-Date', value: '20261126T000000Z' },
            { name: 'success_action_status', value: '201' },
            { name: 'content-type', value: args.mimetype },
            { name: 'policy', value: 'eyJ...' },
            { name: 'X-Amz-Signature', value: 'abc123' },
          ],
        },
        asset: {
          asset_id: assetId,
          processing_state: 'incomplete',
          payload: { filepath: args.filepath },
          websocket_url: `wss://ws-0.wss.redditmedia.com/rte_images/${assetId}?m=x`,
        },
      });
    }
    if (method === 'POST' && (path === '/api/submit' || path === '/api/submit_gallery_post.json')) {
      if (needs('submit')) return forbidden;
      const sr = subreddit(String(args.sr ?? ''));
      if (!sr) return envelope([['SUBREDDIT_NOEXIST', "that subreddit doesn't exist", 'sr']]);
      const title = String(args.title ?? '');
      if (!title) return envelope([['NO_TEXT', 'we need something here', 'title']]);
      if ([...title].length > TITLE_LIMIT)
        return envelope([['TOO_LONG', `this is too long (max: ${TITLE_LIMIT})`, 'title']]);
      if (sr.flairRequired && !args.flair_id)
        return envelope([['SUBMIT_VALIDATION_FLAIR_REQUIRED', 'Your post must contain post flair.', 'flair']]);
      const flags = { over_18: String(args.nsfw) === 'true', spoiler: String(args.spoiler) === 'true' };
      if (path === '/api/submit_gallery_post.json') {
        const items = Array.isArray(args.items) ? args.items : [];
        if (items.length < 2) return envelope([['BAD_GALLERY', 'a gallery needs at least 2 items', 'items']]);
        if (items.some((item: any) => !leases.get(String(item.media_id))?.stored))
          return envelope([['MEDIA_UPLOAD_FAILED', 'media not found', 'items']]);
        if (sr.submission_type === 'self')
          return envelope([['NO_LINKS', "that subreddit doesn't allow link posts", 'sr']]);
        const made = submission(sr.display_name, title, { selftext: '', isSelf: false });
        made.gallery = items.map((item: any) => String(item.media_id));
        Object.assign(made, flags);
        fake.submissions.push(made);
        return envelope([], { id: made.name, url: `https://www.reddit.com/gallery/${made.id}` });
      }
      const kind = String(args.kind);
      if (kind === 'self') {
        if (sr.submission_type === 'link')
          return envelope([['NO_SELFS', "that subreddit doesn't allow text posts", 'sr']]);
        const text = String(args.text ?? '');
        if ([...text].length > TEXT_LIMIT)
          return envelope([['TOO_LONG', `this is too long (max: ${TEXT_LIMIT})`, 'text']]);
        const made = Object.assign(submission(sr.display_name, title, { selftext: text, isSelf: true }), flags);
        if (args.flair_id) made.link_flair_template_id = String(args.flair_id);
        fake.submissions.push(made);
        return envelope([], {
          url: `https://www.reddit.com${made.permalink}`,
          drafts_count: 0,
          id: made.id,
          name: made.name,
        });
      }
      if (kind === 'link' || kind === 'image') {
        if (sr.submission_type === 'self')
          return envelope([['NO_LINKS', "that subreddit doesn't allow link posts", 'sr']]);
        const link = String(args.url ?? '');
        if (!/^https?:\/\//.test(link)) return envelope([['BAD_URL', 'you should check that url', 'url']]);
        if (kind === 'link') {
          if (
            String(args.resubmit) === 'false' &&
            fake.submissions.some((s) => s.url === link && s.subreddit === sr.display_name)
          )
            return envelope([['ALREADY_SUB', 'that link has already been submitted', 'url']]);
          const made = Object.assign(
            submission(sr.display_name, title, { selftext: '', isSelf: false, url: link }),
            flags,
          );
          fake.submissions.push(made);
          return envelope([], {
            url: `https://www.reddit.com${made.permalink}`,
            drafts_count: 0,
            id: made.id,
            name: made.name,
          });
        }
        const key = decodeURIComponent(link.replace(`https:${MEDIA_ACTION}/`, ''));
        if (![...leases.values()].some((l) => l.key === key && l.stored))
          return envelope([['BAD_URL', 'you should check that url', 'url']]);
        const made = Object.assign(
          submission(sr.display_name, title, { selftext: '', isSelf: false, url: `https://i.redd.it/${newId()}.png` }),
          flags,
          { post_hint: 'image' },
        );
        if (fake.failImageNext) {
          fake.failImageNext = false;
          failedImages.add(made.id);
        } else (fake.holdImages ? processing : fake.submissions).push(made);
        return envelope([], {
          user_submitted_page: `https://www.reddit.com/user/${fake.user.name}/submitted/`,
          websocket_url: `wss://ws-0.wss.redditmedia.com/rte_images/${made.id}?m=x`,
        });
      }
      return envelope([['INVALID_OPTION', 'that option is not valid', 'kind']]);
    }
    if (method === 'POST' && path === '/api/comment') {
      if (needs('submit')) return forbidden;
      const parent = fake.submissions.find((s) => s.name === String(args.thing_id));
      if (!parent) return envelope([['INVALID_THING_ID', 'that thing does not exist', 'thing_id']]);
      const text = String(args.text ?? '');
      if (!text) return envelope([['NO_TEXT', 'we need something here', 'text']]);
      const id = newId();
      const made: FakeComment = {
        id,
        name: `t1_${id}`,
        body: text,
        link_id: parent.name,
        parent_id: parent.name,
        author: fake.user.name,
        permalink: `${parent.permalink}${id}/`,
        created_utc: Math.floor(fake.now() / 1000),
      };
      fake.comments.push(made);
      parent.num_comments += 1;
      return envelope([], { things: [{ kind: 't1', data: made }] });
    }
    const listing = /^\/user\/([^/]+)\/(submitted|comments)$/.exec(path);
    if (method === 'GET' && listing) {
      if (needs('history')) return forbidden;
      if (listing[1] !== fake.user.name)
        return ok({ kind: 'Listing', data: { after: null, dist: 0, children: [], before: null } });
      const all =
        listing[2] === 'submitted'
          ? [...fake.submissions].reverse().map((s) => ({ kind: 't3', data: s }))
          : [...fake.comments].reverse().map((c) => ({ kind: 't1', data: c }));
      const limit = Math.min(100, Number(target.searchParams.get('limit') ?? 25));
      const after = target.searchParams.get('after');
      const start = after ? all.findIndex((t) => t.data.name === after) + 1 : 0;
      const page = all.slice(start, start + limit);
      const more = start + limit < all.length;
      return ok({
        kind: 'Listing',
        data: { after: more ? page[page.length - 1].data.name : null, dist: page.length, children: page, before: null },
      });
    }
    return { status: 404, body: { message: 'Not Found', error: 404 } };
  }

  function subreddit(name: string): FakeSubreddit | undefined {
    return fake.subreddits.find((s) => s.display_name.toLowerCase() === name.toLowerCase());
  }

  return fake;
}

function form(body: Buffer): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(body.toString('utf8')));
}

/** A multipart/form-data body's fields by name (the file's bytes under its field's name). */
function multipart(contentType: string, body: Buffer): Map<string, Buffer> {
  const boundary = /boundary=([^;]+)/.exec(contentType)?.[1] ?? '';
  const fields = new Map<string, Buffer>();
  const marker = Buffer.from(`--${boundary}`);
  let at = body.indexOf(marker);
  while (at !== -1) {
    const next = body.indexOf(marker, at + marker.length);
    if (next === -1) break;
    const part = body.subarray(at + marker.length + 2, next - 2);
    const split = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, split).toString('utf8');
    const name = /name="([^"]+)"/.exec(head)?.[1];
    if (name) fields.set(name, part.subarray(split + 4));
    at = next;
  }
  return fields;
}
