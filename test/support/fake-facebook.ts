import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Facebook Login and the Graph API for Pages as Meta's documents describe them, on loopback:
 * facebook-login guides (manual flow: /{version}/dialog/oauth, its redirect with code or with
 * error=access_denied&error_reason=user_denied; /oauth/access_token for the code, then grant_type=fb_exchange_token
 * for a long-lived token), graph-api (versioned paths, field expansion, `{error:{message,type,code,error_subcode,
 * fbtrace_id}}` bodies, securing requests: appsecret_proof, rate limiting: X-App-Usage and X-Business-Use-Case-Usage
 * with estimated_time_to_regain_access), the Pages API (/me/accounts with Page tokens, /{page}/feed with message, link
 * or attached_media, /{page}/photos with url and published=false, /{page}/published_posts), the video API
 * (/{page}/videos with file_url, the video's status while Meta processes it), comments (/{object}/comments with
 * message and attachment_url), page post insights (deprecated metrics refused), and /debug_token. NETWORKS.md.
 * One server plays www.facebook.com and graph.facebook.com.
 *
 * It checks what Meta checks: the app, its registered redirect URL and the scopes it may ask for; the Graph version
 * in every path; bearer tokens (expired: 190/463, revoked: 190/458, unknown: 190) and their appsecret_proof (the
 * app requires one); the permission each call needs (#200/#10); that a Page's token acts only on that Page; the
 * media URLs it is given (it fetches them itself: photos JPEG or PNG under 4 MB, videos video/*); attached photos
 * that are this Page's and unpublished; and a feed post's duplicate text (#506).
 *
 * The test plays the person at the dialog: GET /{version}/dialog/oauth answers as if they clicked Continue with
 * every Page (`grantPages` narrows them, `declineScopes` unticks permissions), or Cancel when `denyNext` is set.
 */
export interface FakeFacebookPost {
  id: string;
  pageId: string;
  message: string;
  link?: string;
  /** The photo ids attached (attached_media), in order. */
  photos: string[];
  createdTime: number;
  reactions: number;
  shares: number;
  /** post_total_media_view_unique. */
  views: number;
}

export interface FakeFacebookPhoto {
  id: string;
  pageId: string;
  url: string;
  published: boolean;
  attachedTo: string | null;
}

export interface FakeFacebookVideo {
  id: string;
  pageId: string;
  description: string;
  fileUrl: string;
  bytes: number;
  createdTime: number;
  pollsLeft: number;
  failProcessing: boolean;
}

export interface FakeFacebookComment {
  id: string;
  objectId: string;
  message: string;
  /** Graph's format, 2026-11-23T08:00:00+0000. */
  createdTime: string;
  attachmentUrl?: string;
}

interface Token {
  kind: 'user' | 'page';
  /** The user's id, or the Page's. */
  subject: string;
  userId: string;
  scopes: string[];
  expiresAt: number | null;
  revoked: boolean;
  longLived: boolean;
}

const KNOWN_SCOPES = [
  'public_profile',
  'email',
  'pages_show_list',
  'pages_manage_posts',
  'pages_read_engagement',
  'pages_manage_engagement',
  'pages_manage_metadata',
  'read_insights',
  'business_management',
  'publish_video',
  'instagram_basic',
  'instagram_content_publish',
];
const DEPRECATED_METRICS = [
  'post_impressions',
  'post_impressions_unique',
  'post_impressions_organic_unique',
  'post_engaged_users',
];
const VALID_METRICS = [
  'post_total_media_view_unique',
  'post_media_view',
  'post_clicks',
  'post_reactions_by_type_total',
];
const SHORT_LIVED_S = 2 * 3600;
const LONG_LIVED_S = 60 * 24 * 3600;
const PHOTO_MAX_BYTES = 4 * 1024 * 1024;

export interface FakeFacebook {
  url: string;
  appId: string;
  appSecret: string;
  redirectUris: string[];
  /** Versions Meta still serves; an older one in a path is refused here (Meta would upgrade it silently). */
  versions: string[];
  user: { id: string; name: string };
  /** The Pages; followers_count is the Page field of that name (graph-api/reference/page), 0 unless set. */
  pages: { id: string; name: string; followers_count?: number }[];
  /** The Pages the person ticks at the dialog (ids); every Page when null. */
  grantPages: string[] | null;
  /** Permissions the person unticks at the dialog. */
  declineScopes: string[];
  denyNext: boolean;
  posts: FakeFacebookPost[];
  photos: FakeFacebookPhoto[];
  videos: FakeFacebookVideo[];
  comments: FakeFacebookComment[];
  /** Every request, as "METHOD /path" (version and query left out). */
  requests: string[];
  /** Every refusal Meta itself made (not the scripted ones), as "STATUS METHOD /path: message". */
  refusals: string[];
  versionsSeen: Set<string>;
  /** Status reads a new video answers `processing` before `ready`. */
  processingPolls: number;
  failVideoProcessingNext: boolean;
  /** Seconds Meta says until a long-lived user token's data access ends (debug_token's data_access_expires_at). */
  dataAccessSeconds: number;
  /** X-App-Usage on every answer: the app's share of its hourly budget spent, in percent. */
  appUsage: { call_count: number; total_cputime: number; total_time: number };
  /** The next request whose unversioned path starts with this gets this answer instead. */
  failNext(pathPrefix: string, status: number, error: Record<string, unknown>, headers?: Record<string, string>): void;
  /** The next request to this unversioned path is carried out, then the connection drops before the answer. */
  dropAnswerNext(methodAndPath: string): void;
  /** Every Page token expires (the user tokens stay good). */
  expirePageTokens(): void;
  /** The long-lived user tokens expire too. */
  expireUserTokens(): void;
  /** The person removed the app: every token is revoked. */
  revokeAll(): void;
  /** A post made on Facebook itself. */
  postExternally(
    pageId: string,
    message: string,
    stats?: Partial<Pick<FakeFacebookPost, 'reactions' | 'shares' | 'views'>>,
  ): FakeFacebookPost;
  close(): Promise<void>;
}

export function graphError(message: string, code: number, type = 'OAuthException', subcode?: number) {
  return {
    error: {
      message,
      type,
      code,
      ...(subcode !== undefined ? { error_subcode: subcode } : {}),
      fbtrace_id: crypto.randomBytes(8).toString('base64url'),
    },
  };
}

export async function startFakeFacebook(): Promise<FakeFacebook> {
  const codes = new Map<string, { scopes: string[]; redirectUri: string; pages: string[] }>();
  const tokens = new Map<string, Token>();
  const pageGrants = new Map<string, string[]>();
  const scripted: { prefix: string; status: number; body: unknown; headers: Record<string, string> }[] = [];
  const drops: string[] = [];
  let sequence = 100_000;
  const next = () => String(++sequence);

  const fake: FakeFacebook = {
    url: '',
    appId: '1234567890',
    appSecret: 'meta-app-secret',
    redirectUris: [],
    versions: ['v22.0', 'v23.0', 'v24.0'],
    user: { id: '10160000000000001', name: 'Grace Hopper' },
    pages: [
      { id: '501', name: 'Compilers Weekly' },
      { id: '502', name: 'Harbor Bakery' },
    ],
    grantPages: null,
    declineScopes: [],
    denyNext: false,
    posts: [],
    photos: [],
    videos: [],
    comments: [],
    requests: [],
    refusals: [],
    versionsSeen: new Set(),
    processingPolls: 1,
    failVideoProcessingNext: false,
    dataAccessSeconds: 90 * 24 * 3600,
    appUsage: { call_count: 1, total_cputime: 1, total_time: 1 },
    failNext(prefix, status, error, headers = {}) {
      scripted.push({ prefix, status, body: { error: { fbtrace_id: 'Atrace', ...error } }, headers });
    },
    dropAnswerNext(methodAndPath) {
      drops.push(methodAndPath);
    },
    expirePageTokens() {
      for (const token of tokens.values()) if (token.kind === 'page') token.expiresAt = Date.now() - 1000;
    },
    expireUserTokens() {
      for (const token of tokens.values()) if (token.kind === 'user') token.expiresAt = Date.now() - 1000;
    },
    revokeAll() {
      for (const token of tokens.values()) token.revoked = true;
    },
    postExternally(pageId, message, stats = {}) {
      const post: FakeFacebookPost = {
        id: `${pageId}_${next()}`,
        pageId,
        message,
        photos: [],
        createdTime: Date.now(),
        reactions: 0,
        shares: 0,
        views: 0,
        ...stats,
      };
      fake.posts.push(post);
      return post;
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };

  function issue(
    kind: Token['kind'],
    subject: string,
    userId: string,
    scopes: string[],
    lifetimeS: number | null,
    longLived: boolean,
  ): string {
    const value = `EAA${crypto.randomBytes(24).toString('base64url')}`;
    tokens.set(value, {
      kind,
      subject,
      userId,
      scopes,
      expiresAt: lifetimeS === null ? null : Date.now() + lifetimeS * 1000,
      revoked: false,
      longLived,
    });
    return value;
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://fake');
      const versioned = /^\/(v\d+\.\d+)(\/.*)$/.exec(url.pathname);
      const path = versioned ? versioned[2] : url.pathname;
      fake.requests.push(`${req.method} ${path}`);
      const send = (status: number, json?: unknown, headers: Record<string, string> = {}) => {
        if (status >= 400)
          fake.refusals.push(`${status} ${req.method} ${path}: ${(json as any)?.error?.message ?? ''}`);
        res
          .writeHead(status, {
            ...(json === undefined ? {} : { 'content-type': 'application/json; charset=UTF-8' }),
            'x-fb-trace-id': crypto.randomBytes(6).toString('base64url'),
            'x-app-usage': JSON.stringify(fake.appUsage),
            ...headers,
          })
          .end(json === undefined ? '' : JSON.stringify(json));
      };
      const script = scripted.findIndex((s) => path.startsWith(s.prefix));
      if (script >= 0) {
        const [s] = scripted.splice(script, 1);
        res
          .writeHead(s.status, { 'content-type': 'application/json; charset=UTF-8', ...s.headers })
          .end(JSON.stringify(s.body));
        return;
      }
      const dropIndex = drops.indexOf(`${req.method} ${path}`);
      if (dropIndex >= 0) drops.splice(dropIndex, 1);
      const reply =
        dropIndex >= 0
          ? ((() => {
              req.socket.destroy();
            }) as typeof send)
          : send;
      if (!versioned)
        return send(400, graphError('Unknown path components: a Graph path starts with its version', 2500));
      fake.versionsSeen.add(versioned[1]);
      if (!fake.versions.includes(versioned[1]))
        return send(
          400,
          graphError(
            `(#2635) You are calling a deprecated version of the Graph API (${versioned[1]}). ` +
              'Please update to a current version.',
            2635,
          ),
        );
      route(req, url, path, Buffer.concat(chunks), reply).catch((error) =>
        send(500, graphError(String(error), 1, 'OAuthException')),
      );
    });
  });

  async function route(
    req: http.IncomingMessage,
    url: URL,
    path: string,
    body: Buffer,
    send: (status: number, json?: unknown, headers?: Record<string, string>) => void,
  ) {
    const q = url.searchParams;
    const params = parseBody(req, body);

    if (req.method === 'GET' && path === '/dialog/oauth') {
      if (q.get('client_id') !== fake.appId) return send(400, graphError('Invalid App ID', 101));
      const redirectUri = q.get('redirect_uri') ?? '';
      if (!fake.redirectUris.includes(redirectUri)) {
        return send(
          400,
          graphError(
            'URL blocked: This redirect failed because the redirect ' +
              "URI is not whitelisted in the app's Client OAuth Settings.",
            191,
          ),
        );
      }
      const scopes = (q.get('scope') ?? '').split(',').filter(Boolean);
      const invalid = scopes.filter((s) => !KNOWN_SCOPES.includes(s));
      if (invalid.length > 0) return send(400, graphError(`Invalid Scopes: ${invalid.join(', ')}`, 100));
      const target = new URL(redirectUri);
      if (q.get('state')) target.searchParams.set('state', q.get('state')!);
      if (fake.denyNext) {
        fake.denyNext = false;
        target.searchParams.set('error_reason', 'user_denied');
        target.searchParams.set('error', 'access_denied');
        target.searchParams.set('error_description', 'Permissions error.');
      } else {
        const code = `AQ${crypto.randomBytes(20).toString('base64url')}`;
        codes.set(code, {
          scopes: scopes.filter((s) => !fake.declineScopes.includes(s)),
          redirectUri,
          pages: fake.grantPages ?? fake.pages.map((p) => p.id),
        });
        target.searchParams.set('code', code);
      }
      return send(302, undefined, { location: target.toString() });
    }

    if (req.method === 'GET' && path === '/oauth/access_token') {
      if (q.get('client_id') !== fake.appId || q.get('client_secret') !== fake.appSecret) {
        return send(400, graphError('Error validating client secret.', 1, 'OAuthException'));
      }
      if (q.get('grant_type') === 'fb_exchange_token') {
        const short = tokens.get(q.get('fb_exchange_token') ?? '');
        if (!short || short.revoked || (short.expiresAt !== null && short.expiresAt < Date.now())) {
          return send(
            400,
            graphError('Error validating access token: The session is invalid.', 190, 'OAuthException', 460),
          );
        }
        const long = issue('user', short.subject, short.userId, short.scopes, LONG_LIVED_S, true);
        pageGrants.set(long, pageGrants.get(q.get('fb_exchange_token')!) ?? []);
        return send(200, { access_token: long, token_type: 'bearer', expires_in: LONG_LIVED_S });
      }
      const code = codes.get(q.get('code') ?? '');
      if (!code) return send(400, graphError('This authorization code has been used.', 100, 'OAuthException', 36009));
      codes.delete(q.get('code')!);
      if (code.redirectUri !== q.get('redirect_uri')) {
        return send(
          400,
          graphError(
            'Error validating verification code. ' +
              'Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request',
            100,
            'OAuthException',
            36008,
          ),
        );
      }
      const token = issue('user', fake.user.id, fake.user.id, code.scopes, SHORT_LIVED_S, false);
      pageGrants.set(token, code.pages);
      return send(200, { access_token: token, token_type: 'bearer', expires_in: SHORT_LIVED_S });
    }

    if (req.method === 'GET' && path === '/debug_token') {
      if (req.headers.authorization !== `Bearer ${fake.appId}|${fake.appSecret}`)
        return send(
          400,
          graphError(
            '(#100) You must provide an app access token, ' +
              'or a user access token that is an owner or developer of the app',
            100,
          ),
        );
      if (!validProof(req, q, `${fake.appId}|${fake.appSecret}`))
        return send(
          400,
          graphError('Invalid appsecret_proof provided in the API argument', 100, 'GraphMethodException'),
        );
      const token = tokens.get(q.get('input_token') ?? '');
      const problem = token
        ? tokenProblem(token)
        : graphError('Invalid OAuth access token - Cannot parse access token', 190).error;
      return send(200, {
        data: {
          app_id: fake.appId,
          type: token?.kind === 'page' ? 'PAGE' : 'USER',
          application: 'Herald',
          is_valid: !problem,
          expires_at: token?.expiresAt ? Math.floor(token.expiresAt / 1000) : 0,
          data_access_expires_at: Math.floor(Date.now() / 1000) + fake.dataAccessSeconds,
          ...(token?.kind === 'page' ? { profile_id: token.subject } : {}),
          ...(problem
            ? { error: { code: problem.code, message: problem.message, subcode: problem.error_subcode } }
            : {}),
          scopes: token?.scopes ?? [],
          user_id: token?.userId,
        },
      });
    }

    // Everything else is the Graph API proper: a bearer token with its appsecret_proof.
    const header = String(req.headers.authorization ?? '');
    const value = header.startsWith('Bearer ') ? header.slice(7) : (q.get('access_token') ?? '');
    if (!value)
      return send(
        400,
        graphError('An active access token must be used to query information about the current user.', 2500),
      );
    const token = tokens.get(value);
    if (!token) return send(400, graphError('Invalid OAuth access token - Cannot parse access token', 190));
    const problem = tokenProblem(token);
    if (problem) return send(400, { error: problem });
    if (!q.get('appsecret_proof'))
      return send(
        400,
        graphError('API calls from the server require an appsecret_proof argument', 100, 'GraphMethodException'),
      );
    if (!validProof(req, q, value))
      return send(400, graphError('Invalid appsecret_proof provided in the API argument', 100, 'GraphMethodException'));
    const need = (...scopes: string[]) => {
      const missing = scopes.filter((s) => !token.scopes.includes(s));
      if (missing.length === 0) return false;
      send(403, graphError(`(#200) This call requires the ${missing.join(', ')} permission(s)`, 200));
      return true;
    };
    const asPage = (pageId: string) => {
      if (token.kind === 'page' && token.subject === pageId) return false;
      send(
        403,
        graphError(
          '(#200) If posting to a page, requires both pages_read_engagement and ' +
            'pages_manage_posts as an admin with sufficient administrative permission',
          200,
        ),
      );
      return true;
    };
    const fields = (q.get('fields') ?? '').split(',').map((f) => f.split(/[.{]/)[0]);

    if (req.method === 'GET' && path === '/me') {
      const name = token.kind === 'page' ? fake.pages.find((p) => p.id === token.subject)?.name : fake.user.name;
      return send(200, { id: token.subject, name });
    }

    if (req.method === 'GET' && path === '/me/accounts') {
      if (token.kind !== 'user')
        return send(400, graphError('(#100) Tried accessing nonexisting field (accounts) on node type (Page)', 100));
      if (need('pages_show_list')) return;
      const granted = pageGrants.get(value) ?? [];
      const all = fake.pages.filter((p) => granted.includes(p.id));
      const limit = Math.min(Number(q.get('limit') ?? 25), 100);
      const start = Number(q.get('after') ? Buffer.from(q.get('after')!, 'base64url').toString() : 0);
      const slice = all.slice(start, start + limit);
      const data = slice.map((p) => ({
        id: p.id,
        name: p.name,
        category: 'Media',
        tasks: ['ADVERTISE', 'ANALYZE', 'CREATE_CONTENT', 'MESSAGING', 'MODERATE', 'MANAGE'],
        access_token: issue(
          'page',
          p.id,
          token.userId,
          token.scopes,
          token.longLived ? null : SHORT_LIVED_S,
          token.longLived,
        ),
        picture: { data: { url: `https://scontent.xx.fbcdn.net/${p.id}.jpg`, is_silhouette: false } },
      }));
      const after = Buffer.from(String(start + slice.length)).toString('base64url');
      return send(200, {
        data,
        paging: {
          cursors: { before: Buffer.from(String(start)).toString('base64url'), after },
          ...(start + slice.length < all.length
            ? { next: `https://graph.facebook.com/me/accounts?after=${after}` }
            : {}),
        },
      });
    }

    const node = /^\/([^/]+)(?:\/([a-z_]+))?$/.exec(path);
    if (!node) return send(400, graphError(`Unknown path components: ${path}`, 2500));
    const [, id, edge] = node;
    const page = fake.pages.find((p) => p.id === id);

    if (req.method === 'GET' && page && !edge) {
      if (token.kind === 'user' && q.get('fields') === 'access_token') {
        if (!(pageGrants.get(value) ?? []).includes(id))
          return send(403, graphError('(#10) You do not have sufficient permissions to access this Page', 10));
        return send(200, {
          access_token: issue(
            'page',
            id,
            token.userId,
            token.scopes,
            token.longLived ? null : SHORT_LIVED_S,
            token.longLived,
          ),
          id,
        });
      }
      // A Page's followers_count (graph-api/reference/page) is read with pages_read_engagement.
      if (fields.includes('followers_count') && need('pages_read_engagement')) return;
      return send(200, {
        id,
        name: page.name,
        ...(fields.includes('followers_count') ? { followers_count: page.followers_count ?? 0 } : {}),
      });
    }

    if (req.method === 'POST' && page && edge === 'photos') {
      if (asPage(id) || need('pages_manage_posts', 'pages_read_engagement')) return;
      const source = String(params.url ?? '');
      if (!source) return send(400, graphError('(#324) Requires upload file', 324));
      const file = await fetchMedia(source);
      if (!file || !/^image\/(jpeg|png)$/.test(file.type) || file.bytes > PHOTO_MAX_BYTES) {
        return send(400, graphError('(#324) Missing or invalid image file', 324));
      }
      const published = !(params.published === false || params.published === 'false');
      const photo: FakeFacebookPhoto = { id: next(), pageId: id, url: source, published, attachedTo: null };
      fake.photos.push(photo);
      if (published) {
        const post = fake.postExternally(id, String(params.message ?? params.caption ?? ''));
        post.photos = [photo.id];
        photo.attachedTo = post.id;
        return send(200, { id: photo.id, post_id: post.id });
      }
      return send(200, { id: photo.id });
    }

    if (req.method === 'POST' && page && edge === 'feed') {
      if (asPage(id) || need('pages_manage_posts', 'pages_read_engagement')) return;
      const message = typeof params.message === 'string' ? params.message : '';
      const attached = Array.isArray(params.attached_media) ? (params.attached_media as { media_fbid?: string }[]) : [];
      const link = typeof params.link === 'string' ? params.link : undefined;
      if (!message && !link && attached.length === 0)
        return send(400, graphError('(#100) Missing message or attachment', 100));
      for (const [index, item] of attached.entries()) {
        const photo = fake.photos.find((p) => p.id === String(item?.media_fbid));
        if (!photo || photo.pageId !== id || photo.published || photo.attachedTo) {
          return send(
            400,
            graphError(`(#100) param attached_media[${index}] has invalid media_fbid ${item?.media_fbid}`, 100),
          );
        }
      }
      const last = fake.posts.filter((p) => p.pageId === id).at(-1);
      if (message && !link && attached.length === 0 && last && last.message === message && last.photos.length === 0) {
        return send(400, graphError('(#506) Duplicate status message', 506));
      }
      const post = fake.postExternally(id, message);
      post.link = link;
      post.photos = attached.map((a) => String(a.media_fbid));
      for (const photo of fake.photos) if (post.photos.includes(photo.id)) photo.attachedTo = post.id;
      return send(200, { id: post.id });
    }

    if (req.method === 'POST' && page && edge === 'videos') {
      if (asPage(id) || need('pages_manage_posts', 'pages_read_engagement')) return;
      const source = String(params.file_url ?? '');
      if (!source)
        return send(400, graphError('(#100) Either file_url, source or upload_phase must be specified', 100));
      const file = await fetchMedia(source);
      if (!file?.type.startsWith('video/'))
        return send(
          400,
          graphError(
            'There was a problem uploading your video file. Please try again with another file.',
            6000,
            'OAuthException',
            1363030,
          ),
        );
      const video: FakeFacebookVideo = {
        id: next(),
        pageId: id,
        description: String(params.description ?? ''),
        fileUrl: source,
        bytes: file.bytes,
        createdTime: Date.now(),
        pollsLeft: fake.processingPolls,
        failProcessing: fake.failVideoProcessingNext,
      };
      fake.failVideoProcessingNext = false;
      fake.videos.push(video);
      return send(200, { id: video.id });
    }

    if (req.method === 'GET' && page && (edge === 'published_posts' || edge === 'videos')) {
      if (asPage(id) || need('pages_read_engagement')) return;
      const metrics = /insights\.metric\(([^)]*)\)/.exec(q.get('fields') ?? '')?.[1]?.split(',') ?? [];
      const wrong = metrics.find((m) => DEPRECATED_METRICS.includes(m) || !VALID_METRICS.includes(m));
      if (wrong) return send(400, graphError('(#100) The value must be a valid insights metric', 100));
      if (metrics.length > 0 && need('read_insights')) return;
      const since = q.get('since') ? Number(q.get('since')) * 1000 : 0;
      const limit = Math.min(Number(q.get('limit') ?? 25), 100);
      const start = Number(q.get('after') ? Buffer.from(q.get('after')!, 'base64url').toString() : 0);
      const all =
        edge === 'videos'
          ? fake.videos
              .filter((v) => v.pageId === id && v.createdTime >= since)
              .reverse()
              .map((v) => videoNode(v, fields))
          : fake.posts
              .filter((p) => p.pageId === id && p.createdTime >= since)
              .reverse()
              .map((p) => postNode(p, fields, metrics));
      const slice = all.slice(start, start + limit);
      const after = Buffer.from(String(start + slice.length)).toString('base64url');
      return send(200, {
        data: slice,
        paging: {
          cursors: { before: Buffer.from(String(start)).toString('base64url'), after },
          ...(start + slice.length < all.length
            ? { next: `https://graph.facebook.com/${id}/${edge}?after=${after}` }
            : {}),
        },
      });
    }

    const post = fake.posts.find((p) => p.id === id);
    const video = fake.videos.find((v) => v.id === id);
    const object = post ?? video;
    const missing = () =>
      send(
        400,
        graphError(
          `Unsupported ${req.method === 'GET' ? 'get' : 'post'} request. Object with ID '${id}' does not exist, ` +
            'cannot be loaded due to missing permissions, or does not support this operation.',
          100,
          'GraphMethodException',
          33,
        ),
      );
    if (!object || asPage(object.pageId)) return object ? undefined : missing();

    if (req.method === 'GET' && !edge) {
      if (post) return send(200, postNode(post, fields, []));
      if (video!.pollsLeft > 0) video!.pollsLeft--;
      return send(200, videoNode(video!, fields));
    }

    if (req.method === 'GET' && edge === 'comments') {
      // /{object-id}/comments: a Page token sees each comment's `from`; reverse_chronological puts the newest first.
      if (need('pages_read_engagement')) return;
      const list = fake.comments.filter((c) => c.objectId === id);
      if (q.get('order') === 'reverse_chronological') list.reverse();
      const limit = Math.min(100, Number(q.get('limit') ?? 25));
      const page = fake.pages.find((p) => p.id === object.pageId);
      return send(200, {
        data: list.slice(0, limit).map((c) => ({
          id: c.id,
          message: c.message,
          created_time: c.createdTime,
          from: { id: object.pageId, name: page?.name ?? '' },
        })),
        paging: { cursors: { before: 'QVFIUk', after: 'QVFIUl' } },
        summary: { order: q.get('order') ?? 'chronological', total_count: list.length, can_comment: true },
      });
    }

    if (req.method === 'POST' && edge === 'comments') {
      if (need('pages_manage_engagement', 'pages_read_engagement')) return;
      const message = typeof params.message === 'string' ? params.message : '';
      const attachmentUrl = typeof params.attachment_url === 'string' ? params.attachment_url : undefined;
      if (!message && !attachmentUrl) return send(400, graphError('(#100) Missing message or attachment', 100));
      if (attachmentUrl) {
        const file = await fetchMedia(attachmentUrl);
        if (!file?.type.startsWith('image/'))
          return send(400, graphError('(#100) The attachment_url could not be fetched or is not an image', 100));
      }
      const comment: FakeFacebookComment = {
        id: `${id.split('_').pop()}_${next()}`,
        objectId: id,
        message,
        createdTime: graphTime(Date.now()),
        ...(attachmentUrl ? { attachmentUrl } : {}),
      };
      fake.comments.push(comment);
      return send(200, { id: comment.id });
    }

    return missing();
  }

  function postNode(p: FakeFacebookPost, fields: string[], metrics: string[]) {
    const node: Record<string, unknown> = { id: p.id };
    const all: Record<string, unknown> = {
      message: p.message || undefined,
      created_time: graphTime(p.createdTime),
      permalink_url: `https://www.facebook.com/${p.pageId}/posts/pfbid0${p.id.split('_')[1]}`,
      full_picture: p.photos.length > 0 ? `https://scontent.xx.fbcdn.net/${p.photos[0]}.jpg` : undefined,
      shares: p.shares > 0 ? { count: p.shares } : undefined,
      reactions: { data: [], summary: { total_count: p.reactions, viewer_reaction: 'NONE' } },
      comments: {
        data: [],
        summary: {
          order: 'ranked',
          total_count: fake.comments.filter((c) => c.objectId === p.id).length,
          can_comment: true,
        },
      },
      attachments:
        p.photos.length === 0
          ? undefined
          : {
              data: [
                p.photos.length === 1
                  ? {
                      media_type: 'photo',
                      type: 'photo',
                      target: { id: p.photos[0], url: `https://www.facebook.com/photo.php?fbid=${p.photos[0]}` },
                    }
                  : {
                      media_type: 'album',
                      type: 'album',
                      subattachments: {
                        data: p.photos.map((id) => ({
                          media_type: 'photo',
                          type: 'photo',
                          target: { id, url: `https://www.facebook.com/photo.php?fbid=${id}` },
                        })),
                      },
                    },
              ],
            },
      insights: {
        data: metrics.map((name) => ({
          name,
          period: 'lifetime',
          values: [{ value: name === 'post_total_media_view_unique' ? p.views : 0 }],
          id: `${p.id}/insights/${name}/lifetime`,
        })),
      },
    };
    for (const field of fields) if (all[field] !== undefined) node[field] = all[field];
    return node;
  }

  function videoNode(v: FakeFacebookVideo, fields: string[]) {
    const processing = v.pollsLeft > 0;
    const failed = !processing && v.failProcessing;
    const all: Record<string, unknown> = {
      description: v.description || undefined,
      created_time: graphTime(v.createdTime),
      permalink_url: `/${v.pageId}/videos/${v.id}/`,
      status: {
        video_status: processing ? 'processing' : failed ? 'error' : 'ready',
        uploading_phase: { status: 'complete', bytes_transferred: v.bytes },
        processing_phase: failed
          ? {
              status: 'error',
              errors: [{ code: 1363008, message: 'Video Processing Error: the video codec is not supported' }],
            }
          : { status: processing ? 'in_progress' : 'complete' },
        publishing_phase: {
          status: processing || failed ? 'not_started' : 'complete',
          publish_status: processing || failed ? 'not_published' : 'published',
        },
      },
    };
    const node: Record<string, unknown> = { id: v.id };
    for (const field of fields) if (all[field] !== undefined) node[field] = all[field];
    return node;
  }

  function tokenProblem(token: Token) {
    if (token.revoked)
      return graphError(
        'Error validating access token: The user has not authorized application 1234567890.',
        190,
        'OAuthException',
        458,
      ).error;
    if (token.expiresAt !== null && token.expiresAt < Date.now()) {
      return graphError(
        `Error validating access token: Session has expired on ${new Date(token.expiresAt).toUTCString()}.`,
        190,
        'OAuthException',
        463,
      ).error;
    }
    return undefined;
  }

  function validProof(_req: http.IncomingMessage, q: URLSearchParams, accessToken: string) {
    return q.get('appsecret_proof') === crypto.createHmac('sha256', fake.appSecret).update(accessToken).digest('hex');
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

/** Graph's own time format: 2026-11-23T08:30:00+0000. */
function graphTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, '+0000');
}

/** Meta takes a form or a JSON body for a POST. */
function parseBody(req: http.IncomingMessage, body: Buffer): Record<string, unknown> {
  const type = String(req.headers['content-type'] ?? '');
  if (body.length === 0) return {};
  if (type.startsWith('application/json')) return JSON.parse(body.toString('utf8'));
  return Object.fromEntries(new URLSearchParams(body.toString('utf8')));
}

/** Meta fetches the media it is given by URL itself. */
async function fetchMedia(url: string): Promise<{ type: string; bytes: number } | undefined> {
  try {
    const answer = await fetch(url);
    if (!answer.ok) return undefined;
    return {
      type: (answer.headers.get('content-type') ?? '').split(';')[0].trim(),
      bytes: (await answer.arrayBuffer()).byteLength,
    };
  } catch {
    return undefined;
  }
}
