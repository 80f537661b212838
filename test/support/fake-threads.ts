import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Threads as Meta's documents describe it (developers.facebook.com/docs/threads: get-started/get-access-tokens-and-
 * permissions, get-started/long-lived-tokens, posts (containers, carousels, media specifications),
 * reference/publishing, troubleshooting (container status and its error messages, threads_publishing_limit),
 * retrieve-and-discover-posts/retrieve-posts, reference/insights, reference/debug (debug_token), overview (rate
 * limiting); graph-api error handling and rate limiting for the error object and the usage headers; NETWORKS.md),
 * on loopback. One server plays threads.net (the Authorization Window) and graph.threads.net.
 *
 * It checks what Threads checks: the app id, secret and registered redirect URL, response_type=code, threads_basic
 * among the known scopes; the code used once with the same redirect URL; the short-lived token exchanged once it
 * is valid, a long-lived token refreshed only when unexpired and at least 24 hours old; a versioned path; the
 * token (bearer header or access_token), answering code 190 for a bad, revoked (subcode 458) or expired (subcode
 * 463) one; the permission each edge needs (code 10); the user in the path being the token's; text within 500
 * characters, each emoji counted as its UTF-8 bytes (threads/posts, Limitations); each media URL, which it downloads
 * itself (JPEG or PNG images; MP4 or MOV videos, else the container ends in ERROR with FAILED_DOWNLOADING_VIDEO);
 * carousels of 2 to 20 FINISHED items of the same user; threads_publish only of a FINISHED container (code 24, "Media
 * Not Found", before), once; the profile's 250 posts a rolling 24 h. A container may reply to a post (`reply_to_id`,
 * NETWORKS.md; a post that does not exist is refused, code 100); a published reply is listed at /{user}/replies with
 * `replied_to` and `root_post`, not among /{user}/threads (retrieve-and-manage-replies; which permission the replies
 * edge needs is unsure, so it asks for none beyond the token). Every Graph answer carries X-Business-Use-Case-Usage.
 *
 * The test plays the person at the consent screen: GET /oauth/authorize answers as if they allowed it (a 302 to
 * the redirect URL with a code), or denied it when `denyNext` is set.
 */
export interface FakeThreadsContainer {
  id: string;
  owner: string;
  mediaType: 'TEXT' | 'IMAGE' | 'VIDEO' | 'CAROUSEL';
  url: string | null;
  text: string;
  isCarouselItem: boolean;
  children: string[];
  status: 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'EXPIRED' | 'PUBLISHED';
  errorMessage: string | null;
  pollsLeft: number;
  failProcessing: boolean;
  /** The content type Threads saw when it downloaded the file. */
  downloadedType: string | null;
  /** The post this container replies to (reply_to_id). */
  replyTo: string | null;
}

export interface FakeThreadsPost {
  id: string;
  owner: string;
  text: string;
  /** TEXT_POST, IMAGE, VIDEO, CAROUSEL_ALBUM or REPOST_FACADE. */
  mediaType: string;
  container: string | null;
  /** The post it replies to, and the first post of that conversation; null for a post of its own. */
  repliedTo: string | null;
  rootPost: string | null;
  timestamp: number;
  insights: Record<string, number>;
}

interface Token {
  kind: 'short' | 'long';
  user: string;
  scopes: string[];
  issuedAt: number;
  expiresAt: number;
  revoked: boolean;
}

export interface FakeThreads {
  url: string;
  appId: string;
  appSecret: string;
  redirectUris: string[];
  /** The profile; followers is what user insights (threads_insights) answer as followers_count. */
  account: { userId: string; username: string; name: string; followers: number };
  /** The scopes the person grants (by default every one asked for). */
  grantOnly: string[] | null;
  denyNext: boolean;
  containers: Map<string, FakeThreadsContainer>;
  posts: FakeThreadsPost[];
  /** Every request, as "METHOD /path" (query left out). */
  requests: string[];
  /** Every refusal Threads itself made (not the scripted ones), as "STATUS METHOD /path: message". */
  refusals: string[];
  versionsSeen: Set<string>;
  /** Posts the profile may publish through the API in 24 hours (threads_publishing_limit). */
  quotaTotal: number;
  /** Status polls a new video container answers IN_PROGRESS before FINISHED. */
  processingPolls: number;
  /** The next video container ends in ERROR (FAILED_PROCESSING_VIDEO). */
  failProcessingNext: boolean;
  advance(ms: number): void;
  now(): number;
  /** The next request whose path ends with this gets this answer instead. */
  failNext(pathPart: string, status: number, body: unknown, headers?: Record<string, string>): void;
  /**
   * The next Graph call is throttled (code 4) with access back in this many minutes, as X-Business-Use-Case-Usage says.
   */
  throttleNext(minutes: number): void;
  /** The next request whose path ends with this is carried out, then the connection drops before the answer. */
  dropAnswerNext(pathPart: string): void;
  expireTokens(): void;
  /** The person removed the app: every token is revoked. */
  revokeAll(): void;
  /** A post made in the Threads app. */
  postExternally(text: string, insights?: Record<string, number>, mediaType?: string): FakeThreadsPost;
  close(): Promise<void>;
}

const LONG_LIFETIME_S = 5_183_944;
const SHORT_LIFETIME_S = 3600;
const DAY_MS = 24 * 3600_000;
const KNOWN_SCOPES = [
  'threads_basic',
  'threads_content_publish',
  'threads_read_replies',
  'threads_manage_replies',
  'threads_manage_insights',
];
const INSIGHT_METRICS = ['views', 'likes', 'replies', 'reposts', 'quotes', 'shares'];
/** The user insights metrics (reference/insights: GET /{threads-user-id}/threads_insights). */
const USER_INSIGHT_METRICS = ['views', 'likes', 'replies', 'reposts', 'quotes', 'clicks', 'followers_count'];
const TEXT_LIMIT = 500;
const GRAPHEMES = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * threads/posts, Limitations: "Text posts are limited to 500
 * characters. Emojis are counted as the number of UTF-8 bytes."
 */
function threadsLength(text: string): number {
  let length = 0;
  for (const { segment } of GRAPHEMES.segment(text)) {
    length += /\p{Extended_Pictographic}|\p{Regional_Indicator}/u.test(segment)
      ? Buffer.byteLength(segment, 'utf8')
      : [...segment].length;
  }
  return length;
}

function graphError(message: string, code: number, extra: Record<string, unknown> = {}) {
  return {
    error: { message, type: 'OAuthException', code, ...extra, fbtrace_id: crypto.randomBytes(8).toString('base64url') },
  };
}

function oauthError(message: string) {
  return { error_type: 'OAuthException', code: 400, error_message: message };
}

export async function startFakeThreads(): Promise<FakeThreads> {
  const codes = new Map<string, { scopes: string[]; redirectUri: string }>();
  const tokens = new Map<string, Token>();
  const scripted: { part: string; status: number; body: unknown; headers: Record<string, string> }[] = [];
  const drops: string[] = [];
  let throttleMinutes = 0;
  let offset = 0;
  let sequence = 18_000_000_000_000;
  const next = () => String(++sequence);
  const published: number[] = [];

  const fake: FakeThreads = {
    url: '',
    appId: '990602627938098',
    appSecret: 'threads-app-secret',
    redirectUris: [],
    account: {
      userId: '17841405793187218',
      username: 'analytical.engines',
      name: 'Analytical Engines',
      followers: 0,
    },
    grantOnly: null,
    denyNext: false,
    containers: new Map(),
    posts: [],
    requests: [],
    refusals: [],
    versionsSeen: new Set(),
    quotaTotal: 250,
    processingPolls: 1,
    failProcessingNext: false,
    advance(ms) {
      offset += ms;
    },
    now: () => Date.now() + offset,
    failNext(part, status, body, headers = {}) {
      scripted.push({ part, status, body, headers });
    },
    throttleNext(minutes) {
      throttleMinutes = minutes;
    },
    dropAnswerNext(part) {
      drops.push(part);
    },
    expireTokens() {
      for (const token of tokens.values()) token.expiresAt = fake.now() - 1000;
    },
    revokeAll() {
      for (const token of tokens.values()) token.revoked = true;
    },
    postExternally(text, insights = {}, mediaType = 'TEXT_POST') {
      const made: FakeThreadsPost = {
        id: next(),
        owner: fake.account.userId,
        text,
        mediaType,
        container: null,
        repliedTo: null,
        rootPost: null,
        timestamp: fake.now(),
        insights,
      };
      fake.posts.push(made);
      return made;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  const iso = (at: number) => new Date(at).toISOString().replace(/\.\d{3}Z$/, '+0000');
  const issue = (kind: Token['kind'], scopes: string[]) => {
    const token = `TH${crypto.randomBytes(24).toString('base64url')}`;
    const lifetime = kind === 'short' ? SHORT_LIFETIME_S : LONG_LIFETIME_S;
    tokens.set(token, {
      kind,
      user: fake.account.userId,
      scopes,
      issuedAt: fake.now(),
      expiresAt: fake.now() + lifetime * 1000,
      revoked: false,
    });
    return token;
  };
  const tokenProblem = (token: Token | undefined) => {
    if (!token) return graphError('Invalid OAuth access token - Cannot parse access token', 190);
    if (token.revoked)
      return graphError(`Error validating access token: The user has not authorized application ${fake.appId}.`, 190, {
        error_subcode: 458,
      });
    if (token.expiresAt < fake.now()) {
      return graphError(
        `Error validating access token: Session has expired on ${new Date(token.expiresAt).toUTCString()}. ` +
          `The current time is ${new Date(fake.now()).toUTCString()}.`,
        190,
        { error_subcode: 463 },
      );
    }
    return undefined;
  };
  const usage = (callCount: number, minutes: number) => ({
    'x-business-use-case-usage': JSON.stringify({
      [fake.account.userId]: [
        {
          type: 'threads',
          call_count: callCount,
          total_cputime: 1,
          total_time: 1,
          estimated_time_to_regain_access: minutes,
        },
      ],
    }),
  });
  const inDay = () => published.filter((at) => at > fake.now() - DAY_MS).length;

  async function download(url: string): Promise<{ ok: boolean; type: string }> {
    try {
      const answer = await fetch(url, { redirect: 'follow' });
      await answer.arrayBuffer();
      return { ok: answer.ok, type: (answer.headers.get('content-type') ?? '').split(';')[0].trim() };
    } catch {
      return { ok: false, type: '' };
    }
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://fake');
      const path = url.pathname;
      fake.requests.push(`${req.method} ${path}`);
      const send = (status: number, json?: unknown, headers: Record<string, string> = {}) => {
        if (status >= 400) fake.refusals.push(`${status} ${req.method} ${path}: ${JSON.stringify(json)}`);
        res
          .writeHead(status, { ...(json === undefined ? {} : { 'content-type': 'application/json' }), ...headers })
          .end(json === undefined ? '' : JSON.stringify(json));
      };
      const script = scripted.findIndex((s) => path.endsWith(s.part));
      if (script >= 0) {
        const [s] = scripted.splice(script, 1);
        res.writeHead(s.status, { 'content-type': 'application/json', ...s.headers }).end(JSON.stringify(s.body));
        return;
      }
      const drop = drops.findIndex((d) => path.endsWith(d));
      let answer = send;
      if (drop >= 0) {
        drops.splice(drop, 1);
        answer = () => req.socket.destroy();
      }
      route(req, url, body, answer).catch((error) =>
        send(500, graphError(`An unknown error has occurred: ${error}`, 1, { is_transient: true })),
      );
    });
  });

  async function route(
    req: http.IncomingMessage,
    url: URL,
    body: Buffer,
    send: (status: number, json?: unknown, headers?: Record<string, string>) => void,
  ) {
    const path = url.pathname;
    const q = url.searchParams;
    const params = new URLSearchParams(q);
    if ((req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
      for (const [k, v] of new URLSearchParams(body.toString('utf8'))) params.set(k, v);
    }

    if (req.method === 'GET' && path === '/oauth/authorize') {
      if (q.get('client_id') !== fake.appId) return send(400, oauthError('Invalid platform app'));
      const redirectUri = q.get('redirect_uri') ?? '';
      if (!fake.redirectUris.includes(redirectUri)) return send(400, oauthError('Invalid redirect_uri'));
      if (q.get('response_type') !== 'code') return send(400, oauthError('Invalid response_type'));
      const scopes = (q.get('scope') ?? '').split(/[ ,]+/).filter(Boolean);
      if (!scopes.includes('threads_basic')) return send(400, oauthError('Invalid scope: threads_basic is required'));
      const unknown = scopes.find((s) => !KNOWN_SCOPES.includes(s));
      if (unknown) return send(400, oauthError(`Invalid scope: ${unknown}`));
      const target = new URL(redirectUri);
      if (q.get('state')) target.searchParams.set('state', q.get('state')!);
      if (fake.denyNext) {
        fake.denyNext = false;
        target.searchParams.set('error', 'access_denied');
        target.searchParams.set('error_reason', 'user_denied');
        target.searchParams.set('error_description', 'The user denied your request');
      } else {
        const code = `AQB${crypto.randomBytes(16).toString('base64url')}`;
        codes.set(code, { scopes: fake.grantOnly ?? scopes, redirectUri });
        target.searchParams.set('code', code);
      }
      // Threads appends #_ to the redirect; the browser keeps the fragment to itself.
      return send(302, undefined, { location: `${target}#_` });
    }

    if (req.method === 'POST' && path === '/oauth/access_token') {
      if (params.get('client_id') !== fake.appId || params.get('client_secret') !== fake.appSecret)
        return send(400, oauthError('Invalid client_secret'));
      if (params.get('grant_type') !== 'authorization_code') return send(400, oauthError('Invalid grant_type'));
      const code = codes.get(params.get('code') ?? '');
      codes.delete(params.get('code') ?? '');
      if (!code) return send(400, oauthError('Matching code was not found or was already used'));
      if (code.redirectUri !== params.get('redirect_uri'))
        return send(
          400,
          oauthError(
            'Error validating verification code. ' +
              'Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request',
          ),
        );
      return send(200, { access_token: issue('short', code.scopes), user_id: Number(fake.account.userId) });
    }

    if (req.method === 'GET' && path === '/access_token') {
      if (q.get('grant_type') !== 'th_exchange_token') return send(400, graphError('Unsupported grant_type', 100));
      if (q.get('client_secret') !== fake.appSecret)
        return send(400, graphError('Error validating client secret.', 101));
      const short = tokens.get(q.get('access_token') ?? '');
      const problem = tokenProblem(short);
      if (problem) return send(400, problem);
      if (short!.kind !== 'short') return send(400, graphError('The access token must be a short-lived token', 100));
      return send(200, {
        access_token: issue('long', short!.scopes),
        token_type: 'bearer',
        expires_in: LONG_LIFETIME_S,
      });
    }

    if (req.method === 'GET' && path === '/refresh_access_token') {
      if (q.get('grant_type') !== 'th_refresh_token') return send(400, graphError('Unsupported grant_type', 100));
      const current = tokens.get(q.get('access_token') ?? '');
      const problem = tokenProblem(current);
      if (problem) return send(400, problem);
      if (current!.kind !== 'long') return send(400, graphError('Only long-lived tokens can be refreshed', 100));
      if (fake.now() - current!.issuedAt < DAY_MS)
        return send(400, graphError('The access token must be at least 24 hours old to be refreshed', 100));
      if (!current!.scopes.includes('threads_basic'))
        return send(403, graphError('(#10) Application does not have permission for this action', 10));
      return send(200, {
        access_token: issue('long', current!.scopes),
        token_type: 'bearer',
        expires_in: LONG_LIFETIME_S,
      });
    }

    const versioned = /^\/(v\d+\.\d+)\/(.+)$/.exec(path);
    if (!versioned) return send(400, graphError(`Unknown path components: ${path}`, 2500));
    fake.versionsSeen.add(versioned[1]);
    const parts = versioned[2].split('/');

    const auth = req.headers.authorization;
    const raw = auth?.startsWith('Bearer ') ? auth.slice(7) : q.get('access_token');
    if (!raw)
      return send(
        400,
        graphError('An active access token must be used to query information about the current user.', 2500),
      );
    const token = tokens.get(raw);
    const problem = tokenProblem(token);
    if (problem) return send(400, problem);
    if (throttleMinutes > 0) {
      const minutes = throttleMinutes;
      throttleMinutes = 0;
      return send(400, graphError('Application request limit reached', 4, { is_transient: true }), usage(100, minutes));
    }
    const ok = (json: unknown) => send(200, json, usage(3, 0));
    const needs = (scope: string) => {
      if (token!.scopes.includes(scope)) return true;
      send(403, graphError('(#10) Application does not have permission for this action', 10));
      return false;
    };
    const ownUser = (id: string) => {
      if (id === token!.user || id === 'me') return true;
      send(
        400,
        graphError(`Unsupported request - method type: ${req.method}`, 100, {
          error_subcode: 33,
          type: 'GraphMethodException',
        }),
      );
      return false;
    };
    const pick = (all: Record<string, unknown>, fallback: string) => {
      // Graph answers carry the object's id whatever fields were asked for.
      const fields = ['id', ...(q.get('fields') ?? fallback).split(',')];
      return Object.fromEntries(fields.filter((f) => all[f] !== undefined).map((f) => [f, all[f]]));
    };
    const postFields = (p: FakeThreadsPost) => ({
      id: p.id,
      media_product_type: 'THREADS',
      media_type: p.mediaType,
      permalink: `https://www.threads.net/@${fake.account.username}/post/${p.id}`,
      owner: { id: p.owner },
      username: fake.account.username,
      text: p.text,
      timestamp: iso(p.timestamp),
      shortcode: p.id,
      is_quote_post: false,
      is_reply: p.repliedTo !== null,
      ...(p.repliedTo ? { replied_to: { id: p.repliedTo }, root_post: { id: p.rootPost } } : {}),
      ...(p.mediaType === 'IMAGE' ? { media_url: `https://scontent.cdninstagram.com/t51/${p.id}.jpg` } : {}),
    });

    if (req.method === 'GET' && parts[0] === 'debug_token' && parts.length === 1) {
      const inspected = tokens.get(q.get('input_token') ?? '');
      if (!inspected) return send(400, graphError('Invalid input_token', 100));
      return ok({
        data: {
          type: 'USER',
          application: 'Herald',
          data_access_expires_at: Math.floor((inspected.issuedAt + 90 * DAY_MS) / 1000),
          expires_at: Math.floor(inspected.expiresAt / 1000),
          is_valid: !inspected.revoked && inspected.expiresAt > fake.now(),
          issued_at: Math.floor(inspected.issuedAt / 1000),
          scopes: inspected.scopes,
          user_id: inspected.user,
        },
      });
    }

    if (req.method === 'GET' && parts.length === 1 && (parts[0] === 'me' || parts[0] === token!.user)) {
      return ok(
        pick(
          {
            id: fake.account.userId,
            username: fake.account.username,
            name: fake.account.name,
            threads_profile_picture_url: 'https://scontent.cdninstagram.com/ada.jpg',
            threads_biography: 'Engines',
          },
          'id',
        ),
      );
    }

    if (parts[1] === 'threads_publishing_limit' && req.method === 'GET') {
      if (!ownUser(parts[0])) return;
      return ok({
        data: [
          pick(
            {
              quota_usage: inDay(),
              config: { quota_total: fake.quotaTotal, quota_duration: 86400 },
              reply_quota_usage: 0,
              reply_config: { quota_total: 1000, quota_duration: 86400 },
            },
            'quota_usage',
          ),
        ],
      });
    }

    if (parts[1] === 'threads' && req.method === 'POST') {
      if (!ownUser(parts[0]) || !needs('threads_content_publish')) return;
      const mediaType = params.get('media_type') ?? '';
      if (!['TEXT', 'IMAGE', 'VIDEO', 'CAROUSEL'].includes(mediaType))
        return send(
          400,
          graphError(
            '(#100) The parameter media_type is required and must be one of TEXT, IMAGE, VIDEO, CAROUSEL',
            100,
          ),
        );
      const text = params.get('text') ?? '';
      if (threadsLength(text) > TEXT_LIMIT)
        return send(400, graphError(`(#100) Param text must be at most ${TEXT_LIMIT} characters long.`, 100));
      const isCarouselItem = params.get('is_carousel_item') === 'true';
      const container: FakeThreadsContainer = {
        id: next(),
        owner: token!.user,
        mediaType: mediaType as FakeThreadsContainer['mediaType'],
        url: null,
        text,
        isCarouselItem,
        children: [],
        status: 'FINISHED',
        errorMessage: null,
        pollsLeft: 0,
        failProcessing: false,
        downloadedType: null,
        replyTo: params.get('reply_to_id'),
      };
      if (container.replyTo !== null && !fake.posts.some((p) => p.id === container.replyTo)) {
        return send(
          400,
          graphError(`(#100) Param reply_to_id ${container.replyTo} is not a valid media to reply to`, 100),
        );
      }
      if (mediaType === 'TEXT') {
        if (!text) return send(400, graphError('(#100) The parameter text is required for media_type TEXT', 100));
        if (isCarouselItem) return send(400, graphError('(#100) A carousel item must be an IMAGE or a VIDEO', 100));
      } else if (mediaType === 'CAROUSEL') {
        const children = (params.get('children') ?? '').split(',').filter(Boolean);
        if (children.length < 2 || children.length > 20)
          return send(400, graphError('(#100) A carousel must have between 2 and 20 children', 100));
        for (const id of children) {
          const child = fake.containers.get(id);
          if (!child || child.owner !== token!.user || !child.isCarouselItem)
            return send(400, graphError(`(#100) Invalid carousel child ${id}`, 100));
          if (child.status !== 'FINISHED')
            return send(
              400,
              graphError('The requested resource does not exist', 24, {
                error_subcode: 4279009,
                error_user_title: 'Media Not Found',
              }),
            );
        }
        container.children = children;
      } else {
        const media = mediaType === 'IMAGE' ? params.get('image_url') : params.get('video_url');
        if (!media)
          return send(
            400,
            graphError(
              `(#100) The parameter ${mediaType === 'IMAGE' ? 'image_url' : 'video_url'} ` +
                `is required for media_type ${mediaType}`,
              100,
            ),
          );
        container.url = media;
        const got = await download(media);
        container.downloadedType = got.type;
        if (mediaType === 'IMAGE') {
          if (!got.ok || !['image/jpeg', 'image/png'].includes(got.type)) {
            return send(
              400,
              graphError('Only photo or video can be accepted as media type.', 100, {
                error_subcode: 2207052,
                error_user_title: 'Media download has failed.',
                error_user_msg: `The media could not be fetched from this uri: ${media}`,
              }),
            );
          }
        } else {
          container.status = 'IN_PROGRESS';
          container.pollsLeft = fake.processingPolls;
          if (!got.ok || !['video/mp4', 'video/quicktime'].includes(got.type))
            container.errorMessage = 'FAILED_DOWNLOADING_VIDEO';
          else if (fake.failProcessingNext) container.errorMessage = 'FAILED_PROCESSING_VIDEO';
          fake.failProcessingNext = false;
          if (container.pollsLeft === 0) container.status = container.errorMessage ? 'ERROR' : 'FINISHED';
        }
      }
      fake.containers.set(container.id, container);
      return ok({ id: container.id });
    }

    if (parts[1] === 'threads_publish' && req.method === 'POST') {
      if (!ownUser(parts[0]) || !needs('threads_content_publish')) return;
      const container = fake.containers.get(params.get('creation_id') ?? '');
      if (
        !container ||
        container.owner !== token!.user ||
        container.isCarouselItem ||
        container.status !== 'FINISHED'
      ) {
        return send(
          400,
          graphError('The requested resource does not exist', 24, {
            error_subcode: 4279009,
            error_user_title: 'Media Not Found',
            error_user_msg: 'The media with the ID was not found.',
          }),
        );
      }
      if (inDay() >= fake.quotaTotal)
        return send(
          400,
          graphError('Application request limit reached', 4, {
            error_user_msg: 'The profile has published the most posts the API allows in 24 hours.',
          }),
        );
      container.status = 'PUBLISHED';
      published.push(fake.now());
      const made: FakeThreadsPost = {
        id: next(),
        owner: token!.user,
        text: container.text,
        container: container.id,
        timestamp: fake.now(),
        insights: {},
        repliedTo: container.replyTo,
        rootPost:
          container.replyTo && (fake.posts.find((p) => p.id === container.replyTo)?.rootPost ?? container.replyTo),
        mediaType:
          container.mediaType === 'TEXT'
            ? 'TEXT_POST'
            : container.mediaType === 'CAROUSEL'
              ? 'CAROUSEL_ALBUM'
              : container.mediaType,
      };
      fake.posts.push(made);
      return ok({ id: made.id });
    }

    if ((parts[1] === 'threads' || parts[1] === 'replies') && req.method === 'GET') {
      if (!ownUser(parts[0])) return;
      const limit = Math.min(100, Number(q.get('limit') ?? 25));
      const replies = parts[1] === 'replies';
      const all = fake.posts
        .filter((p) => p.owner === token!.user && (p.repliedTo !== null) === replies)
        .sort((a, b) => b.timestamp - a.timestamp || Number(b.id) - Number(a.id));
      const start = q.get('after') ? Number(Buffer.from(q.get('after')!, 'base64url').toString()) : 0;
      const page = all.slice(start, start + limit);
      const cursor = (at: number) => Buffer.from(String(at)).toString('base64url');
      const more = start + limit < all.length;
      return ok({
        data: page.map((p) => pick(postFields(p), 'id')),
        paging: {
          cursors: { before: cursor(start), after: cursor(start + page.length) },
          ...(more
            ? {
                next:
                  `https://graph.threads.net/${versioned[1]}/${parts[0]}/${parts[1]}` +
                  `?after=${cursor(start + page.length)}`,
              }
            : {}),
        },
      });
    }

    if (parts[1] === 'threads_insights' && req.method === 'GET') {
      // User insights: a total metric (followers_count) answers total_value, not values by day.
      if (!ownUser(parts[0]) || !needs('threads_manage_insights')) return;
      const metrics = (q.get('metric') ?? '').split(',').filter(Boolean);
      if (metrics.length === 0 || metrics.some((m) => !USER_INSIGHT_METRICS.includes(m)))
        return send(
          400,
          graphError(`(#100) metric must be one of the following values: ${USER_INSIGHT_METRICS.join(', ')}`, 100),
        );
      return ok({
        data: metrics.map((name) => ({
          name,
          period: 'day',
          title: name,
          description: name,
          total_value: { value: name === 'followers_count' ? fake.account.followers : 0 },
          id: `${fake.account.userId}/insights/${name}/day`,
        })),
      });
    }

    if (parts[1] === 'insights' && req.method === 'GET') {
      if (!needs('threads_manage_insights')) return;
      const post = fake.posts.find((p) => p.id === parts[0] && p.owner === token!.user);
      if (!post)
        return send(
          400,
          graphError(`Unsupported get request. Object with ID '${parts[0]}' does not exist`, 100, {
            error_subcode: 33,
            type: 'GraphMethodException',
          }),
        );
      const metrics = (q.get('metric') ?? '').split(',').filter(Boolean);
      if (metrics.length === 0 || metrics.some((m) => !INSIGHT_METRICS.includes(m)))
        return send(
          400,
          graphError(`(#100) metric must be one of the following values: ${INSIGHT_METRICS.join(', ')}`, 100),
        );
      return ok({
        data: metrics.map((name) => ({
          name,
          period: 'lifetime',
          values: [{ value: post.insights[name] ?? 0 }],
          title: name,
          description: name,
          id: `${post.id}/insights/${name}/lifetime`,
        })),
      });
    }

    if (req.method === 'GET' && parts.length === 1) {
      const container = fake.containers.get(parts[0]);
      if (container && container.owner === token!.user) {
        if (container.status === 'IN_PROGRESS') {
          if (container.pollsLeft > 0) container.pollsLeft--;
          if (container.pollsLeft === 0) container.status = container.errorMessage ? 'ERROR' : 'FINISHED';
        }
        return ok(
          pick(
            {
              id: container.id,
              status: container.status,
              ...(container.status === 'ERROR' ? { error_message: container.errorMessage } : {}),
            },
            'id',
          ),
        );
      }
      const post = fake.posts.find((p) => p.id === parts[0] && p.owner === token!.user);
      if (post) return ok(pick(postFields(post), 'id'));
      return send(
        400,
        graphError(
          `Unsupported get request. Object with ID '${parts[0]}' does not exist, ` +
            'cannot be loaded due to missing permissions, or does not support this operation.',
          100,
          { error_subcode: 33, type: 'GraphMethodException' },
        ),
      );
    }

    return send(400, graphError(`Unknown path components: /${versioned[2]}`, 2500));
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
