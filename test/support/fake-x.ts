import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * X as its documents describe it (docs.x.com: fundamentals/authentication/oauth-2-0/user-access-token,
 * x-api/media/quickstart/media-upload-chunked, x-api/media/create-media-metadata, x-api/posts/creation-of-a-post,
 * x-api/posts/user-posts-timeline, fundamentals/rate-limits, fundamentals/counting-characters; xdevplatform/samples
 * "Media Upload/media_upload_v2.py"; NETWORKS.md), on loopback. One server plays x.com (the consent screen) and
 * api.x.com.
 *
 * It checks what X checks: the client, its registered callback URL and PKCE (S256) at consent and at the token
 * endpoint; HTTP Basic client authentication for this confidential client; refresh tokens only with
 * offline.access, rotated on every refresh (the old one stops working); bearer tokens (expired and revoked ones
 * answer 401), the scopes each endpoint needs; the weighted text limit (280, or 25,000 for Premium); media that
 * exist, belong to the poster and finished processing; at most 4 images, or 1 GIF or video, never mixed; media
 * segments of at most 5 MB with indexes 0..999, adding up to total_bytes at finalize; alt text of at most 1,000
 * characters; max_results between 5 and 100; duplicate text refused with X's 403. Every API answer carries
 * x-rate-limit-limit/-remaining/-reset (Unix seconds); X sends no Retry-After.
 *
 * The test plays the person at the consent screen: GET /i/oauth2/authorize answers as if they clicked "Authorize
 * app" (a 302 to the callback with a code), or "Cancel" when `denyNext` is set.
 */
export interface FakeXPost {
  id: string;
  authorId: string;
  /** As X shows it: links replaced by t.co links, and a post with media ends with the media's t.co link. */
  text: string;
  /** The text as posted (links shortened), which X's duplicate check compares. */
  typed: string;
  mediaKeys: string[];
  inReplyTo: string | null;
  createdAt: number;
  metrics: {
    retweet_count: number;
    reply_count: number;
    like_count: number;
    quote_count: number;
    bookmark_count: number;
    impression_count: number;
  };
}

export interface FakeXMedia {
  id: string;
  key: string;
  ownerId: string;
  category: string;
  mediaType: string;
  totalBytes: number;
  segments: Map<number, number>;
  state: 'uploading' | 'pending' | 'in_progress' | 'succeeded' | 'failed';
  pollsLeft: number;
  failProcessing: boolean;
  altText: string | null;
}

interface Token {
  userId: string;
  scopes: string[];
  expiresAt: number;
  revoked: boolean;
}

const SEGMENT_MAX = 5 * 1024 * 1024;
const CATEGORY_MAX: Record<string, number> = {
  tweet_image: 5 * 1024 * 1024,
  tweet_gif: 15 * 1024 * 1024,
  tweet_video: 512 * 1024 * 1024,
};
const KEY_PREFIX: Record<string, string> = { tweet_image: '3', tweet_gif: '16', tweet_video: '7' };
const KNOWN_SCOPES = [
  'tweet.read',
  'tweet.write',
  'users.read',
  'media.write',
  'offline.access',
  'follows.read',
  'like.write',
];
const DUPLICATE = 'You are not allowed to create a Tweet with duplicate content.';

export interface FakeX {
  url: string;
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  user: {
    id: string;
    username: string;
    name: string;
    subscription_type: string;
    verified_type: string;
    /** The user's public_metrics (x-api/users: the User object), followers_count among them. */
    public_metrics: { followers_count: number; following_count: number; tweet_count: number; listed_count: number };
  };
  posts: FakeXPost[];
  media: Map<string, FakeXMedia>;
  /** Every request, as "METHOD /path" (query left out). */
  requests: string[];
  /** Every refusal X itself made (not the scripted ones), as "STATUS METHOD /path detail". */
  refusals: string[];
  /** The size of every media segment received, in order. */
  segmentSizes: number[];
  denyNext: boolean;
  /** Seconds a new access token lives (X: 2 hours). */
  tokenLifetimeSeconds: number;
  /** STATUS polls a new GIF or video answers in_progress before succeeded. */
  processingPolls: number;
  checkAfterSecs: number;
  /** The next post spends the last of the user's 15-minute posting window. */
  spendPostWindow(): void;
  /** The next GIF or video fails processing. */
  failProcessingNext: boolean;
  /** The next request whose path starts with this gets this answer instead. */
  failNext(pathPrefix: string, status: number, body: unknown, headers?: Record<string, string>): void;
  /** The next request to this path is carried out, then the connection drops before the answer. */
  dropAnswerNext(path: string): void;
  expireTokens(): void;
  /** The person revoked the app: every access and refresh token stops working. */
  revokeAll(): void;
  postExternally(text: string, metrics?: Partial<FakeXPost['metrics']>, createdAt?: number): FakeXPost;
  /** Every access and refresh token X issued, to show none leaks. */
  issuedTokens(): string[];
  /** Access and refresh tokens still good. */
  liveTokens(): number;
  close(): Promise<void>;
}

function problem(status: number, title: string, detail: string, extra: Record<string, unknown> = {}) {
  return { title, detail, type: 'about:blank', status, ...extra };
}

/** X's counting (fundamentals/counting-characters): links 23, each emoji 2, code points outside the light ranges 2. */
function weighted(text: string): number {
  let length = 0;
  const rest = text.normalize('NFC').replace(/https?:\/\/\S+/g, () => {
    length += 23;
    return '';
  });
  const light = (c: number) =>
    c <= 0x10ff || (c >= 0x2000 && c <= 0x200d) || (c >= 0x2010 && c <= 0x201f) || (c >= 0x2032 && c <= 0x2037);
  for (const { segment } of new Intl.Segmenter('en', { granularity: 'grapheme' }).segment(rest)) {
    // Every emoji counts 2, whatever its sequence (skin tones, ZWJ families).
    if (/\p{Extended_Pictographic}/u.test(segment) && !light(segment.codePointAt(0)!)) length += 2;
    else for (const char of segment) length += light(char.codePointAt(0)!) ? 1 : 2;
  }
  return length;
}

export async function startFakeX(): Promise<FakeX> {
  const codes = new Map<string, { scopes: string[]; redirectUri: string; challenge: string }>();
  const accessTokens = new Map<string, Token>();
  const refreshTokens = new Map<string, Token>();
  const scripted: { prefix: string; status: number; body: unknown; headers: Record<string, string> }[] = [];
  const drops: string[] = [];
  const windows = new Map<string, { remaining: number; reset: number }>();
  let sequence = 1_860_000_000_000_000_000n;
  const next = () => String(++sequence);

  const fake: FakeX = {
    url: '',
    clientId: 'x-client',
    clientSecret: 'x-secret',
    redirectUris: [],
    user: {
      id: '2244994945',
      username: 'herald_dev',
      name: 'Herald Dev',
      subscription_type: 'None',
      verified_type: 'none',
      public_metrics: { followers_count: 1200, following_count: 80, tweet_count: 400, listed_count: 3 },
    },
    posts: [],
    media: new Map(),
    requests: [],
    refusals: [],
    segmentSizes: [],
    denyNext: false,
    tokenLifetimeSeconds: 7200,
    processingPolls: 1,
    checkAfterSecs: 1,
    failProcessingNext: false,
    failNext(prefix, status, body, headers = {}) {
      scripted.push({ prefix, status, body, headers });
    },
    dropAnswerNext(path) {
      drops.push(path);
    },
    spendPostWindow() {
      windows.set('POST /2/tweets', { remaining: 1, reset: Math.floor(Date.now() / 1000) + 900 });
    },
    expireTokens() {
      for (const token of accessTokens.values()) token.expiresAt = Date.now() - 1000;
    },
    revokeAll() {
      for (const token of [...accessTokens.values(), ...refreshTokens.values()]) token.revoked = true;
    },
    postExternally(text, metrics = {}, createdAt = Date.now()) {
      const post: FakeXPost = {
        id: next(),
        authorId: fake.user.id,
        text: shorten(text),
        typed: shorten(text),
        mediaKeys: [],
        inReplyTo: null,
        createdAt,
        metrics: {
          retweet_count: 0,
          reply_count: 0,
          like_count: 0,
          quote_count: 0,
          bookmark_count: 0,
          impression_count: 0,
          ...metrics,
        },
      };
      fake.posts.push(post);
      return post;
    },
    issuedTokens: () => [...accessTokens.keys(), ...refreshTokens.keys()],
    liveTokens: () =>
      [...accessTokens.values(), ...refreshTokens.values()].filter(
        (token) => !token.revoked && token.expiresAt > Date.now(),
      ).length,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  function shorten(text: string): string {
    return text.replace(
      /https?:\/\/\S+/g,
      (link) => `https://t.co/${crypto.createHash('sha1').update(link).digest('base64url').slice(0, 10)}`,
    );
  }

  function issue(userId: string, scopes: string[]) {
    const access = crypto.randomBytes(30).toString('base64url');
    const token: Token = { userId, scopes, expiresAt: Date.now() + fake.tokenLifetimeSeconds * 1000, revoked: false };
    accessTokens.set(access, token);
    const answer: Record<string, unknown> = {
      token_type: 'bearer',
      expires_in: fake.tokenLifetimeSeconds,
      access_token: access,
      scope: scopes.join(' '),
    };
    if (scopes.includes('offline.access')) {
      const refresh = crypto.randomBytes(30).toString('base64url');
      refreshTokens.set(refresh, { ...token, expiresAt: Number.MAX_SAFE_INTEGER });
      answer.refresh_token = refresh;
    }
    return answer;
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://fake');
      const path = url.pathname;
      fake.requests.push(`${req.method} ${path}`);
      const window = windows.get(`${req.method} ${path.replace(/\/\d{3,}/g, '/:id')}`);
      if (window && window.remaining === 0 && window.reset > Date.now() / 1000) {
        fake.refusals.push(`429 ${req.method} ${path} Too Many Requests`);
        res
          .writeHead(429, {
            'content-type': 'application/problem+json',
            'x-rate-limit-remaining': '0',
            'x-rate-limit-reset': String(window.reset),
          })
          .end(JSON.stringify(problem(429, 'Too Many Requests', 'Too Many Requests')));
        return;
      }
      const script = scripted.findIndex((s) => path.startsWith(s.prefix));
      if (script >= 0) {
        const [s] = scripted.splice(script, 1);
        res
          .writeHead(s.status, { 'content-type': 'application/problem+json', ...s.headers })
          .end(JSON.stringify(s.body));
        return;
      }
      const dropIndex = drops.indexOf(path);
      if (dropIndex >= 0) drops.splice(dropIndex, 1);
      const send = (status: number, json?: unknown, headers: Record<string, string> = {}) => {
        if (status >= 400)
          fake.refusals.push(
            `${status} ${req.method} ${path} ${(json as any)?.detail ?? (json as any)?.error_description ?? ''}`,
          );
        if (dropIndex >= 0) {
          req.socket.destroy();
          return;
        }
        const type = status >= 400 && !(json as any)?.error ? 'application/problem+json' : 'application/json';
        res
          .writeHead(status, {
            ...(json === undefined ? {} : { 'content-type': type }),
            ...limits(req.method ?? 'GET', path),
            ...headers,
          })
          .end(json === undefined ? '' : JSON.stringify(json));
      };
      route(req, url, body, send).catch((error) => send(500, problem(500, 'Internal Server Error', String(error))));
    });
  });

  /** Each endpoint's 15-minute window (fundamentals/rate-limits): POST /2/tweets 100 per user. */
  function limits(method: string, path: string): Record<string, string> {
    if (!path.startsWith('/2/') || path.startsWith('/2/oauth2/')) return {};
    const endpoint = `${method} ${path.replace(/\/\d{3,}/g, '/:id')}`;
    const limit = endpoint === 'POST /2/tweets' ? 100 : 1875;
    const now = Math.floor(Date.now() / 1000);
    let window = windows.get(endpoint);
    if (!window || window.reset <= now) window = { remaining: limit, reset: now + 900 };
    window.remaining = Math.max(0, window.remaining - 1);
    windows.set(endpoint, window);
    return {
      'x-rate-limit-limit': String(limit),
      'x-rate-limit-remaining': String(window.remaining),
      'x-rate-limit-reset': String(window.reset),
    };
  }

  type Send = (status: number, json?: unknown, headers?: Record<string, string>) => void;

  async function route(req: http.IncomingMessage, url: URL, body: Buffer, send: Send): Promise<void> {
    const path = url.pathname;
    if (req.method === 'GET' && path === '/i/oauth2/authorize') return authorize(url, send);
    if (req.method === 'POST' && path === '/2/oauth2/token') return token(req, body, send);
    if (req.method === 'POST' && path === '/2/oauth2/revoke') {
      if (!clientAuthenticated(req))
        return send(401, { error: 'unauthorized_client', error_description: 'Missing valid authorization header' });
      const t = new URLSearchParams(body.toString()).get('token') ?? '';
      const found = accessTokens.get(t) ?? refreshTokens.get(t);
      if (found) found.revoked = true;
      return send(200, { revoked: true });
    }

    const auth = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''));
    const t = auth ? accessTokens.get(auth[1]) : undefined;
    if (!t || t.revoked || t.expiresAt < Date.now()) return send(401, problem(401, 'Unauthorized', 'Unauthorized'));
    const needs = (...scopes: string[]) => {
      const missing = scopes.filter((s) => !t.scopes.includes(s));
      if (missing.length === 0) return true;
      send(
        403,
        problem(
          403,
          'Forbidden',
          `You are not permitted to perform this action. Missing scopes: ${missing.join(', ')}`,
        ),
      );
      return false;
    };
    const json = () => {
      if (!String(req.headers['content-type'] ?? '').startsWith('application/json')) return undefined;
      try {
        return JSON.parse(body.toString('utf8'));
      } catch {
        return undefined;
      }
    };
    const invalid = (message: string) =>
      send(400, {
        errors: [{ message }],
        title: 'Invalid Request',
        detail: 'One or more parameters to your request was invalid.',
        type: 'https://api.twitter.com/2/problems/invalid-request',
      });

    if (req.method === 'GET' && path === '/2/users/me') {
      if (!needs('users.read', 'tweet.read')) return;
      const fields = (url.searchParams.get('user.fields') ?? '').split(',');
      const u = fake.user;
      const data: Record<string, unknown> = { id: u.id, name: u.name, username: u.username };
      if (fields.includes('profile_image_url'))
        data.profile_image_url = `https://pbs.twimg.com/profile_images/${u.id}/normal.jpg`;
      if (fields.includes('subscription_type')) data.subscription_type = u.subscription_type;
      if (fields.includes('verified_type')) data.verified_type = u.verified_type;
      if (fields.includes('public_metrics')) data.public_metrics = u.public_metrics;
      return send(200, { data });
    }

    if (req.method === 'POST' && path === '/2/media/upload/initialize') {
      if (!needs('media.write')) return;
      const b = json();
      if (!b) return invalid('The request body must be JSON');
      const max = CATEGORY_MAX[b.media_category];
      if (!max) return invalid(`media_category must be one of ${Object.keys(CATEGORY_MAX).join(', ')}`);
      if (!Number.isInteger(b.total_bytes) || b.total_bytes <= 0)
        return invalid('total_bytes must be a positive integer');
      if (b.total_bytes > max) return invalid(`File size exceeds ${max} bytes for ${b.media_category}`);
      if (typeof b.media_type !== 'string' || !/^(image|video)\//.test(b.media_type))
        return invalid('media_type must be a MIME type');
      const id = next();
      const key = `${KEY_PREFIX[b.media_category]}_${id}`;
      fake.media.set(id, {
        id,
        key,
        ownerId: t.userId,
        category: b.media_category,
        mediaType: b.media_type,
        totalBytes: b.total_bytes,
        segments: new Map(),
        state: 'uploading',
        pollsLeft: fake.processingPolls,
        failProcessing: false,
        altText: null,
      });
      return send(200, { data: { id, media_key: key, expires_after_secs: 86400 } });
    }

    const step = /^\/2\/media\/upload\/(\d+)\/(append|finalize)$/.exec(path);
    if (req.method === 'POST' && step) {
      if (!needs('media.write')) return;
      const m = fake.media.get(step[1]);
      if (!m || m.ownerId !== t.userId)
        return send(404, problem(404, 'Not Found Error', `Could not find media with id: [${step[1]}].`));
      if (step[2] === 'append') {
        if (m.state !== 'uploading') return invalid('The media was already finalized');
        if (!String(req.headers['content-type'] ?? '').startsWith('multipart/form-data'))
          return invalid('APPEND takes multipart/form-data');
        const form = await new Response(new Uint8Array(body), {
          headers: { 'content-type': String(req.headers['content-type']) },
        }).formData();
        const index = Number(form.get('segment_index'));
        const media = form.get('media');
        if (!Number.isInteger(index) || index < 0 || index > 999)
          return invalid('segment_index must be an integer between 0 and 999');
        if (!(media instanceof Blob)) return invalid('The media field is required');
        if (media.size > SEGMENT_MAX) return invalid(`Segment size must be <= ${SEGMENT_MAX} bytes`);
        m.segments.set(index, media.size);
        fake.segmentSizes.push(media.size);
        return send(200, { data: { expires_at: Math.floor(Date.now() / 1000) + 86400 } });
      }
      const received = [...m.segments.values()].reduce((a, b) => a + b, 0);
      const indexes = [...m.segments.keys()].sort((a, b) => a - b);
      if (received !== m.totalBytes || indexes.some((n, i) => n !== i)) {
        return invalid(
          `Segments do not add up to provided total file size (received ${received} of ${m.totalBytes} bytes)`,
        );
      }
      if (m.category === 'tweet_image') {
        m.state = 'succeeded';
        return send(200, { data: { id: m.id, media_key: m.key, size: m.totalBytes, expires_after_secs: 86400 } });
      }
      m.state = 'pending';
      m.failProcessing = fake.failProcessingNext;
      fake.failProcessingNext = false;
      return send(200, {
        data: {
          id: m.id,
          media_key: m.key,
          size: m.totalBytes,
          expires_after_secs: 86400,
          processing_info: { state: 'pending', check_after_secs: fake.checkAfterSecs },
        },
      });
    }

    if (req.method === 'GET' && path === '/2/media/upload') {
      if (!needs('media.write')) return;
      if (url.searchParams.get('command') !== 'STATUS') return invalid('command must be STATUS');
      const m = fake.media.get(url.searchParams.get('media_id') ?? '');
      if (!m || m.ownerId !== t.userId) return send(404, problem(404, 'Not Found Error', 'Could not find the media'));
      if (m.state === 'pending' || m.state === 'in_progress') {
        if (m.pollsLeft-- > 0) m.state = 'in_progress';
        else m.state = m.failProcessing ? 'failed' : 'succeeded';
      }
      const info: Record<string, unknown> = { state: m.state };
      if (m.state === 'in_progress')
        Object.assign(info, { check_after_secs: fake.checkAfterSecs, progress_percent: 50 });
      if (m.state === 'failed') info.error = { code: 1, name: 'InvalidMedia', message: 'Unsupported video format' };
      return send(200, { data: { id: m.id, media_key: m.key, processing_info: info } });
    }

    if (req.method === 'POST' && path === '/2/media/metadata') {
      if (!needs('media.write')) return;
      const b = json();
      const m = fake.media.get(String(b?.id ?? ''));
      if (!m || m.ownerId !== t.userId)
        return send(404, problem(404, 'Not Found Error', `Could not find media with id: [${b?.id}].`));
      const text = b?.metadata?.alt_text?.text;
      if (typeof text !== 'string' || [...text].length > 1000)
        return invalid('alt_text.text must be a string of at most 1000 characters');
      m.altText = text;
      return send(200, { data: { id: m.id, associated_metadata: { alt_text: { text } } } });
    }

    if (req.method === 'POST' && path === '/2/tweets') {
      if (!needs('tweet.read', 'tweet.write', 'users.read')) return;
      const b = json();
      if (!b) return invalid('The request body must be JSON');
      const text = typeof b.text === 'string' ? b.text : '';
      const ids: string[] = b.media?.media_ids ?? [];
      if (!text && ids.length === 0) return invalid('Post text or media is required');
      const limit = ['Premium', 'PremiumPlus'].includes(fake.user.subscription_type) ? 25_000 : 280;
      if (weighted(text) > limit)
        return send(
          400,
          problem(
            400,
            'Invalid Request',
            'Your Tweet text is too long. For more information on how X counts characters, ' +
              'see https://docs.x.com/fundamentals/counting-characters',
          ),
        );
      const media: FakeXMedia[] = [];
      for (const id of ids) {
        const m = fake.media.get(String(id));
        if (!m || m.ownerId !== t.userId)
          return send(400, problem(400, 'Invalid Request', `Your media IDs are invalid.`));
        if (m.state !== 'succeeded')
          return send(400, problem(400, 'Invalid Request', `Your media ID ${id} is not ready: processing ${m.state}.`));
        media.push(m);
      }
      const categories = new Set(media.map((m) => m.category));
      if (ids.length > 4 || categories.size > 1 || (ids.length > 1 && !categories.has('tweet_image'))) {
        return send(
          400,
          problem(400, 'Invalid Request', 'Your media IDs are invalid: up to 4 images, or 1 GIF or video.'),
        );
      }
      const replyTo = b.reply?.in_reply_to_tweet_id;
      if (replyTo !== undefined && !fake.posts.some((p) => p.id === replyTo)) {
        return send(
          403,
          problem(403, 'Forbidden', 'You attempted to reply to a Tweet that is deleted or not visible to you.'),
        );
      }
      const typed = shorten(text);
      if (
        fake.posts.some((p) => p.authorId === t.userId && p.typed === typed && p.createdAt > Date.now() - 24 * 3600_000)
      )
        return send(403, problem(403, 'Forbidden', DUPLICATE));
      const id = next();
      const mediaLink = media.length > 0 ? `https://t.co/m${id.slice(-8)}` : '';
      const post: FakeXPost = {
        id,
        authorId: t.userId,
        text: [typed, mediaLink].filter(Boolean).join(' '),
        typed,
        mediaKeys: media.map((m) => m.key),
        inReplyTo: replyTo ?? null,
        createdAt: Date.now(),
        metrics: {
          retweet_count: 0,
          reply_count: 0,
          like_count: 0,
          quote_count: 0,
          bookmark_count: 0,
          impression_count: 0,
        },
      };
      fake.posts.push(post);
      return send(201, { data: { id: post.id, text: post.text, edit_history_tweet_ids: [post.id] } });
    }

    const timeline = /^\/2\/users\/(\d+)\/tweets$/.exec(path);
    if (req.method === 'GET' && timeline) {
      if (!needs('tweet.read', 'users.read')) return;
      const q = url.searchParams;
      const max = Number(q.get('max_results') ?? 10);
      if (!Number.isInteger(max) || max < 5 || max > 100)
        return invalid(`The \`max_results\` query parameter value [${q.get('max_results')}] is not between 5 and 100`);
      const since = q.get('start_time') ? Date.parse(q.get('start_time')!) : 0;
      if (Number.isNaN(since)) return invalid('start_time must be an RFC 3339 date-time');
      const exclude = (q.get('exclude') ?? '').split(',').filter(Boolean);
      if (exclude.some((e) => e !== 'replies' && e !== 'retweets'))
        return invalid(`exclude takes replies and retweets, not ${exclude.join(',')}`);
      const all = fake.posts
        .filter(
          (p) => p.authorId === timeline[1] && p.createdAt >= since && !(exclude.includes('replies') && p.inReplyTo),
        )
        .sort((a, b) => b.createdAt - a.createdAt || (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
      const start = q.get('pagination_token')
        ? Number(Buffer.from(q.get('pagination_token')!, 'base64url').toString())
        : 0;
      const page = all.slice(start, start + max);
      const fields = (q.get('tweet.fields') ?? '').split(',');
      const data = page.map((p) => ({
        id: p.id,
        text: p.text,
        edit_history_tweet_ids: [p.id],
        ...(fields.includes('created_at') ? { created_at: new Date(p.createdAt).toISOString() } : {}),
        ...(fields.includes('public_metrics') ? { public_metrics: p.metrics } : {}),
        ...(fields.includes('attachments') && p.mediaKeys.length > 0
          ? { attachments: { media_keys: p.mediaKeys } }
          : {}),
        ...(fields.includes('referenced_tweets') && p.inReplyTo
          ? { referenced_tweets: [{ type: 'replied_to', id: p.inReplyTo }] }
          : {}),
      }));
      const meta: Record<string, unknown> = { result_count: data.length };
      if (data.length > 0) Object.assign(meta, { newest_id: data[0].id, oldest_id: data[data.length - 1].id });
      if (start + max < all.length) meta.next_token = Buffer.from(String(start + max)).toString('base64url');
      return send(200, data.length > 0 ? { data, meta } : { meta });
    }

    return send(404, problem(404, 'Not Found Error', `Sorry, that page does not exist: ${path}`));
  }

  function authorize(url: URL, send: Send) {
    const q = url.searchParams;
    if (q.get('client_id') !== fake.clientId)
      return send(400, { error: 'invalid_request', error_description: 'Invalid client_id' });
    const redirectUri = q.get('redirect_uri') ?? '';
    if (!fake.redirectUris.includes(redirectUri))
      return send(400, {
        error: 'invalid_request',
        error_description: 'Invalid redirect_uri: it must match a callback URL registered for the app',
      });
    if (q.get('response_type') !== 'code')
      return send(400, { error: 'invalid_request', error_description: 'response_type must be code' });
    if (!q.get('code_challenge') || q.get('code_challenge_method') !== 'S256')
      return send(400, {
        error: 'invalid_request',
        error_description: 'code_challenge with code_challenge_method S256 is required',
      });
    if (!q.get('state')) return send(400, { error: 'invalid_request', error_description: 'state is required' });
    const scopes = (q.get('scope') ?? '').split(' ').filter(Boolean);
    const target = new URL(redirectUri);
    target.searchParams.set('state', q.get('state')!);
    if (scopes.some((s) => !KNOWN_SCOPES.includes(s))) {
      target.searchParams.set('error', 'invalid_scope');
    } else if (fake.denyNext) {
      fake.denyNext = false;
      target.searchParams.set('error', 'access_denied');
    } else {
      const code = crypto.randomBytes(24).toString('base64url');
      codes.set(code, { scopes, redirectUri, challenge: q.get('code_challenge')! });
      target.searchParams.set('code', code);
    }
    send(302, undefined, { location: target.toString() });
  }

  function clientAuthenticated(req: http.IncomingMessage): boolean {
    return (
      req.headers.authorization === `Basic ${Buffer.from(`${fake.clientId}:${fake.clientSecret}`).toString('base64')}`
    );
  }

  function token(req: http.IncomingMessage, body: Buffer, send: Send) {
    if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded'))
      return send(400, { error: 'invalid_request', error_description: 'A form body is required' });
    if (!clientAuthenticated(req))
      return send(401, { error: 'unauthorized_client', error_description: 'Missing valid authorization header' });
    const f = new URLSearchParams(body.toString('utf8'));
    if (f.get('grant_type') === 'authorization_code') {
      const code = codes.get(f.get('code') ?? '');
      codes.delete(f.get('code') ?? '');
      const verifier = f.get('code_verifier') ?? '';
      const challenge = crypto.createHash('sha256').update(verifier).digest('base64url');
      if (!code || code.redirectUri !== f.get('redirect_uri') || code.challenge !== challenge) {
        return send(400, {
          error: 'invalid_request',
          error_description: 'Value passed for the authorization code was invalid.',
        });
      }
      return send(200, issue(fake.user.id, code.scopes));
    }
    if (f.get('grant_type') === 'refresh_token') {
      const presented = f.get('refresh_token') ?? '';
      const old = refreshTokens.get(presented);
      if (!old || old.revoked)
        return send(400, { error: 'invalid_request', error_description: 'Value passed for the token was invalid.' });
      // Refresh tokens rotate: the one presented stops working.
      refreshTokens.delete(presented);
      return send(200, issue(old.userId, old.scopes));
    }
    return send(400, { error: 'unsupported_grant_type', error_description: 'grant_type not supported' });
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
