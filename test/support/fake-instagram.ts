import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Instagram as Meta's documents describe it (developers.facebook.com/docs/instagram-platform:
 * instagram-api-with-instagram-login/business-login, reference/oauth-authorize, reference/access_token,
 * reference/refresh_access_token, content-publishing, instagram-graph-api/reference/ig-user/media,
 * ig-user/media_publish, ig-user/content_publishing_limit, ig-container, ig-media, ig-media/comments,
 * ig-media/insights, error-codes; graph-api/overview/rate-limiting (Business Use Case headers); NETWORKS.md), on
 * loopback. One server plays www.instagram.com (consent), api.instagram.com (the code exchange) and
 * graph.instagram.com (tokens and the Graph API) for Instagram Login, and www.facebook.com (the login dialog) and
 * graph.facebook.com for Facebook Login (facebook-login/guides/advanced/manual-flow, access-tokens/get-long-lived,
 * instagram-api-with-facebook-login/get-started: /me/accounts with instagram_business_account), where the Page's
 * token publishes for its linked Instagram account with the instagram_* permissions.
 *
 * It checks what Instagram checks: the app id, secret and registered redirect URL; instagram_business_basic among
 * the scopes; a versioned Graph path; the token (bearer header or access_token), answering code 190 for a bad,
 * expired (subcode 463) or revoked (subcode 458) one; the appsecret_proof when one is sent (the app requires it);
 * the permission each edge needs (code 10); the account in the path being the token's; captions within 2,200
 * characters; each media URL, which it downloads itself, answering with Meta's 9004/2207052 when the file is not
 * a JPEG image or an MP4/MOV video; carousels of 2 to 10 FINISHED items of the same account; media_publish only of a
 * FINISHED container (9007/2207027 before), once; stories kept apart from the feed's media (GET /{ig}/stories); the
 * account's 24-hour publishing quota (9/2207042); refresh only of an unexpired long-lived token at least 24 hours old.
 * Every Graph answer carries X-Business-Use-Case-Usage.
 *
 * The test plays the person at the consent screen: GET /oauth/authorize answers as if they allowed it (a 302 to
 * the redirect URL with a code), or denied it when `denyNext` is set.
 */
export interface FakeInstagramContainer {
  id: string;
  owner: string;
  mediaType: 'IMAGE' | 'VIDEO' | 'REELS' | 'STORIES' | 'CAROUSEL';
  url: string | null;
  caption: string;
  isCarouselItem: boolean;
  children: string[];
  shareToFeed: string | null;
  status: 'IN_PROGRESS' | 'FINISHED' | 'ERROR' | 'EXPIRED' | 'PUBLISHED';
  pollsLeft: number;
  failProcessing: boolean;
  /** The content type Meta saw when it downloaded the file. */
  downloadedType: string | null;
}

export interface FakeInstagramMedia {
  id: string;
  owner: string;
  caption: string;
  mediaType: string;
  container: string | null;
  timestamp: number;
  likes: number;
  comments: number;
  insights: Record<string, number>;
}

interface Token {
  /** Instagram Login's short- and long-lived tokens; Facebook Login's user and Page tokens. */
  kind: 'short' | 'long' | 'user' | 'page';
  app: 'instagram' | 'facebook';
  /**
   * Whose token: the Instagram account (an Instagram token, a Page token for its linked account) or the Facebook user.
   */
  user: string;
  scopes: string[];
  issuedAt: number;
  expiresAt: number;
  revoked: boolean;
}

export interface FakeInstagram {
  /** Plays www.instagram.com, api.instagram.com and graph.instagram.com. */
  url: string;
  /**
   * Plays www.facebook.com and graph.facebook.com: only Facebook
   * Login's tokens work there, and only Instagram Login's on `url`.
   */
  facebookUrl: string;
  appId: string;
  appSecret: string;
  redirectUris: string[];
  /** The professional account; followers_count is the IG User field of that name (instagram-api/reference/ig-user). */
  account: { appScopedId: string; userId: string; username: string; name: string; followers_count: number };
  /** Facebook Login's app, and the Pages the person manages: the first is linked to `account`. */
  facebook: {
    appId: string;
    appSecret: string;
    userId: string;
    pages: { id: string; name: string; linked: boolean }[];
  };
  /** The scopes the person grants (by default every one asked for). */
  grantOnly: string[] | null;
  denyNext: boolean;
  containers: Map<string, FakeInstagramContainer>;
  media: FakeInstagramMedia[];
  comments: { id: string; media: string; message: string }[];
  /** Every request, as "METHOD /path" (query left out). */
  requests: string[];
  /** Every refusal Instagram itself made (not the scripted ones), as "STATUS METHOD /path: message". */
  refusals: string[];
  versionsSeen: Set<string>;
  /** Posts the account may publish through the API in 24 hours (content_publishing_limit). */
  quotaTotal: number;
  /** Status polls a new container answers IN_PROGRESS before FINISHED. */
  processingPolls: number;
  /** The next video container ends in ERROR. */
  failProcessingNext: boolean;
  /** Moves the fake's own clock (token ages and expiries) forward. */
  advance(ms: number): void;
  now(): number;
  /** The next request whose path contains this gets this answer instead. */
  failNext(pathPart: string, status: number, body: unknown, headers?: Record<string, string>): void;
  /**
   * The next Graph call is throttled (code 80002) with access
   * back in this many minutes, as X-Business-Use-Case-Usage says.
   */
  throttleNext(minutes: number): void;
  /** The next request whose path contains this is carried out, then the connection drops before the answer. */
  dropAnswerNext(pathPart: string): void;
  expireTokens(): void;
  /** The person removed the app: every token is revoked. */
  revokeAll(): void;
  /** A post made in the Instagram app. */
  postExternally(
    caption: string,
    metrics?: { likes?: number; comments?: number; insights?: Record<string, number> },
  ): FakeInstagramMedia;
  close(): Promise<void>;
}

const LONG_LIFETIME_S = 60 * 24 * 3600;
const SHORT_LIFETIME_S = 3600;
const DAY_MS = 24 * 3600_000;
const KNOWN_SCOPES = [
  'instagram_business_basic',
  'instagram_business_content_publish',
  'instagram_business_manage_comments',
  'instagram_business_manage_insights',
  'instagram_business_manage_messages',
];
const INSIGHT_METRICS = ['reach', 'saved', 'shares', 'views', 'likes', 'comments', 'total_interactions'];

function graphError(message: string, code: number, extra: Record<string, unknown> = {}) {
  return {
    error: { message, type: 'OAuthException', code, ...extra, fbtrace_id: crypto.randomBytes(8).toString('base64url') },
  };
}

export async function startFakeInstagram(): Promise<FakeInstagram> {
  const codes = new Map<string, { scopes: string[]; redirectUri: string }>();
  const tokens = new Map<string, Token>();
  const scripted: { part: string; status: number; body: unknown; headers: Record<string, string> }[] = [];
  const drops: string[] = [];
  let throttleMinutes = 0;
  let offset = 0;
  let sequence = 17_900_000_000_000;
  const next = () => String(++sequence);
  const published: number[] = [];

  const fake: FakeInstagram = {
    url: '',
    facebookUrl: '',
    appId: '990602627938098',
    appSecret: 'ig-app-secret',
    redirectUris: [],
    account: {
      appScopedId: '26000000000001',
      userId: '17841400000000001',
      username: 'analytical.engines',
      name: 'Analytical Engines',
      followers_count: 0,
    },
    facebook: {
      appId: '442224939723604',
      appSecret: 'fb-app-secret',
      userId: '10150000000000001',
      pages: [
        { id: '104000000000001', name: 'Analytical Engines Ltd', linked: true },
        { id: '104000000000002', name: 'A Page without Instagram', linked: false },
      ],
    },
    grantOnly: null,
    denyNext: false,
    containers: new Map(),
    media: [],
    comments: [],
    requests: [],
    refusals: [],
    versionsSeen: new Set(),
    quotaTotal: 100,
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
    postExternally(caption, metrics = {}) {
      const made: FakeInstagramMedia = {
        id: next(),
        owner: fake.account.userId,
        caption,
        mediaType: 'IMAGE',
        container: null,
        timestamp: fake.now(),
        likes: metrics.likes ?? 0,
        comments: metrics.comments ?? 0,
        insights: metrics.insights ?? {},
      };
      fake.media.push(made);
      return made;
    },
    close: async () => {
      for (const server of [instagramServer, facebookServer]) {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    },
  };

  const iso = (at: number) => new Date(at).toISOString().replace(/\.\d{3}Z$/, '+0000');
  const issue = (kind: Token['kind'], scopes: string[], issuedAt = fake.now()) => {
    const app = kind === 'user' || kind === 'page' ? 'facebook' : 'instagram';
    const token = `${app === 'facebook' ? 'EAAG' : 'IGAA'}${crypto.randomBytes(24).toString('base64url')}`;
    const lifetime = kind === 'short' ? SHORT_LIFETIME_S : kind === 'page' ? 100 * 365 * 24 * 3600 : LONG_LIFETIME_S;
    tokens.set(token, {
      kind,
      app,
      user: kind === 'user' ? fake.facebook.userId : fake.account.userId,
      scopes,
      issuedAt,
      expiresAt: issuedAt + lifetime * 1000,
      revoked: false,
    });
    return token;
  };
  /** The Facebook Login name of an Instagram Login permission. */
  const scopeFor = (token: Token, scope: string) =>
    token.app === 'facebook' ? scope.replace('instagram_business_', 'instagram_') : scope;
  const tokenProblem = (token: Token | undefined) => {
    if (!token) return graphError('Invalid OAuth access token - Cannot parse access token', 190);
    if (token.revoked)
      return graphError(
        'Error validating access token: The user has not authorized application 990602627938098.',
        190,
        { error_subcode: 458 },
      );
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
          type: 'instagram',
          call_count: callCount,
          total_cputime: 1,
          total_time: 1,
          estimated_time_to_regain_access: minutes,
        },
      ],
    }),
  });

  async function download(url: string): Promise<{ ok: boolean; type: string }> {
    try {
      const answer = await fetch(url, { redirect: 'follow' });
      await answer.arrayBuffer();
      return { ok: answer.ok, type: (answer.headers.get('content-type') ?? '').split(';')[0].trim() };
    } catch {
      return { ok: false, type: '' };
    }
  }

  type Side = 'instagram' | 'facebook';
  const serve = (side: Side) => (req: http.IncomingMessage, res: http.ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const url = new URL(req.url ?? '/', 'http://fake');
      const path = url.pathname;
      fake.requests.push(`${side === 'facebook' ? 'facebook: ' : ''}${req.method} ${path}`);
      const send = (status: number, json?: unknown, headers: Record<string, string> = {}) => {
        if (status >= 400) fake.refusals.push(`${status} ${req.method} ${path}: ${JSON.stringify(json)}`);
        res
          .writeHead(status, { ...(json === undefined ? {} : { 'content-type': 'application/json' }), ...headers })
          .end(json === undefined ? '' : JSON.stringify(json));
      };
      const script = scripted.findIndex((s) => path.includes(s.part));
      if (script >= 0) {
        const [s] = scripted.splice(script, 1);
        res.writeHead(s.status, { 'content-type': 'application/json', ...s.headers }).end(JSON.stringify(s.body));
        return;
      }
      const drop = drops.findIndex((d) => path.includes(d));
      let answer = send;
      if (drop >= 0) {
        drops.splice(drop, 1);
        answer = () => req.socket.destroy();
      }
      route(side, req, url, body, answer).catch((error) =>
        send(500, graphError(`An unknown error has occurred: ${error}`, 1, { is_transient: true })),
      );
    });
  };
  const instagramServer = http.createServer(serve('instagram'));
  const facebookServer = http.createServer(serve('facebook'));

  async function route(
    side: Side,
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

    const dialog = /^\/v\d+\.\d+\/dialog\/oauth$/.test(path);
    if (req.method === 'GET' && dialog && side === 'facebook') {
      if (q.get('client_id') !== fake.facebook.appId) return send(400, graphError('Invalid App ID', 101));
      const redirectUri = q.get('redirect_uri') ?? '';
      if (!fake.redirectUris.includes(redirectUri))
        return send(
          400,
          graphError(
            'URL blocked: This redirect failed because the redirect ' +
              "URI is not whitelisted in the app's Client OAuth Settings.",
            191,
          ),
        );
      const target = new URL(redirectUri);
      if (q.get('state')) target.searchParams.set('state', q.get('state')!);
      if (fake.denyNext) {
        fake.denyNext = false;
        target.searchParams.set('error', 'access_denied');
        target.searchParams.set('error_code', '200');
        target.searchParams.set('error_description', 'Permissions error');
        target.searchParams.set('error_reason', 'user_denied');
      } else {
        const code = `AQD${crypto.randomBytes(16).toString('base64url')}`;
        codes.set(code, {
          scopes: fake.grantOnly ?? (q.get('scope') ?? '').split(/[ ,]+/).filter(Boolean),
          redirectUri,
        });
        target.searchParams.set('code', code);
      }
      return send(302, undefined, { location: `${target}#_=_` });
    }
    if (req.method === 'GET' && side === 'facebook' && /^\/v\d+\.\d+\/oauth\/access_token$/.test(path)) {
      if (q.get('client_id') !== fake.facebook.appId || q.get('client_secret') !== fake.facebook.appSecret)
        return send(400, graphError('Error validating client secret.', 1, { type: 'OAuthException' }));
      if (q.get('grant_type') === 'fb_exchange_token') {
        const short = tokens.get(q.get('fb_exchange_token') ?? '');
        const problem = tokenProblem(short);
        if (problem) return send(400, problem);
        return send(200, {
          access_token: issue('user', short!.scopes),
          token_type: 'bearer',
          expires_in: LONG_LIFETIME_S,
        });
      }
      const code = codes.get(q.get('code') ?? '');
      codes.delete(q.get('code') ?? '');
      if (!code) return send(400, graphError('This authorization code has been used.', 100, { error_subcode: 36009 }));
      if (code.redirectUri !== q.get('redirect_uri'))
        return send(
          400,
          graphError(
            'Error validating verification code. ' +
              'Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request',
            100,
            { error_subcode: 36008 },
          ),
        );
      const shortToken = issue('user', code.scopes);
      tokens.get(shortToken)!.expiresAt = fake.now() + 2 * 3600_000;
      return send(200, { access_token: shortToken, token_type: 'bearer', expires_in: 7200 });
    }

    if (req.method === 'GET' && side === 'instagram' && path === '/oauth/authorize') {
      if (q.get('client_id') !== fake.appId)
        return send(400, { error_type: 'OAuthException', code: 400, error_message: 'Invalid platform app' });
      const redirectUri = q.get('redirect_uri') ?? '';
      if (!fake.redirectUris.includes(redirectUri))
        return send(400, { error_type: 'OAuthException', code: 400, error_message: 'Invalid redirect_uri' });
      if (q.get('response_type') !== 'code')
        return send(400, { error_type: 'OAuthException', code: 400, error_message: 'Invalid response_type' });
      const scopes = (q.get('scope') ?? '').split(/[ ,]+/).filter(Boolean);
      if (!scopes.includes('instagram_business_basic'))
        return send(400, {
          error_type: 'OAuthException',
          code: 400,
          error_message: 'Invalid scope: instagram_business_basic is required',
        });
      const unknown = scopes.find((s) => !KNOWN_SCOPES.includes(s));
      if (unknown)
        return send(400, { error_type: 'OAuthException', code: 400, error_message: `Invalid scope: ${unknown}` });
      const target = new URL(redirectUri);
      if (q.get('state')) target.searchParams.set('state', q.get('state')!);
      if (fake.denyNext) {
        fake.denyNext = false;
        target.searchParams.set('error', 'access_denied');
        target.searchParams.set('error_reason', 'user_denied');
        target.searchParams.set('error_description', 'The user denied your request.');
      } else {
        const code = `AQB${crypto.randomBytes(16).toString('base64url')}`;
        codes.set(code, { scopes: fake.grantOnly ?? scopes, redirectUri });
        target.searchParams.set('code', code);
      }
      // Instagram appends #_ to the redirect; the browser keeps the fragment to itself.
      return send(302, undefined, { location: `${target}#_` });
    }

    if (req.method === 'POST' && side === 'instagram' && path === '/oauth/access_token') {
      if (params.get('client_id') !== fake.appId || params.get('client_secret') !== fake.appSecret) {
        return send(400, { error_type: 'OAuthException', code: 400, error_message: 'Invalid client_secret' });
      }
      if (params.get('grant_type') !== 'authorization_code')
        return send(400, { error_type: 'OAuthException', code: 400, error_message: 'Invalid grant_type' });
      const code = codes.get(params.get('code') ?? '');
      codes.delete(params.get('code') ?? '');
      if (!code)
        return send(400, {
          error_type: 'OAuthException',
          code: 400,
          error_message: 'This authorization code has been used',
        });
      if (code.redirectUri !== params.get('redirect_uri'))
        return send(400, {
          error_type: 'OAuthException',
          code: 400,
          error_message:
            'Error validating verification code. ' +
            'Please make sure your redirect_uri is identical to the one you used in the OAuth dialog request',
        });
      return send(200, {
        data: [
          {
            access_token: issue('short', code.scopes),
            user_id: fake.account.appScopedId,
            permissions: code.scopes.join(','),
          },
        ],
      });
    }

    if (req.method === 'GET' && side === 'instagram' && path === '/access_token') {
      if (q.get('grant_type') !== 'ig_exchange_token') return send(400, graphError('Unsupported grant_type', 100));
      if (q.get('client_secret') !== fake.appSecret)
        return send(400, graphError('Error validating client secret.', 101));
      const short = tokens.get(q.get('access_token') ?? '');
      const problem = tokenProblem(short);
      if (problem) return send(400, problem);
      if (short!.kind !== 'short') return send(400, graphError('The access token must be a short-lived token', 100));
      const long = issue('long', short!.scopes);
      return send(200, { access_token: long, token_type: 'bearer', expires_in: LONG_LIFETIME_S });
    }

    if (req.method === 'GET' && side === 'instagram' && path === '/refresh_access_token') {
      if (q.get('grant_type') !== 'ig_refresh_token') return send(400, graphError('Unsupported grant_type', 100));
      const current = tokens.get(q.get('access_token') ?? '');
      const problem = tokenProblem(current);
      if (problem) return send(400, problem);
      if (current!.kind !== 'long') return send(400, graphError('Only long-lived tokens can be refreshed', 100));
      if (fake.now() - current!.issuedAt < DAY_MS)
        return send(400, graphError('The access token must be at least 24 hours old to be refreshed', 100));
      const renewed = issue('long', current!.scopes);
      return send(200, { access_token: renewed, token_type: 'bearer', expires_in: LONG_LIFETIME_S });
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
    const found = tokens.get(raw);
    // Each Graph host knows only its own login's tokens.
    const token = found?.app === side ? found : undefined;
    const problem = tokenProblem(token);
    if (problem) return send(400, problem);
    const proof = q.get('appsecret_proof');
    if (
      proof !== null &&
      proof !==
        crypto
          .createHmac('sha256', token!.app === 'facebook' ? fake.facebook.appSecret : fake.appSecret)
          .update(raw)
          .digest('hex')
    ) {
      return send(
        400,
        graphError('Invalid appsecret_proof provided in the API argument', 100, { type: 'GraphMethodException' }),
      );
    }
    if (throttleMinutes > 0) {
      const minutes = throttleMinutes;
      throttleMinutes = 0;
      return send(
        400,
        graphError('There have been too many calls to this Instagram account. Wait a bit and try again.', 80002),
        usage(100, minutes),
      );
    }
    const ok = (json: unknown) => send(200, json, usage(3, 0));
    const needs = (scope: string) => {
      if (token!.scopes.includes(scopeFor(token!, scope))) return true;
      send(403, graphError('(#10) Application does not have permission for this action', 10));
      return false;
    };
    const ownAccount = (id: string) => {
      if (id === token!.user) return true;
      send(
        400,
        graphError(`Unsupported request - method type: ${req.method}`, 100, {
          error_subcode: 33,
          type: 'GraphMethodException',
        }),
      );
      return false;
    };

    if (token!.kind === 'user') {
      if (req.method === 'GET' && parts[0] === 'me' && parts[1] === 'permissions') {
        return ok({ data: token!.scopes.map((permission) => ({ permission, status: 'granted' })) });
      }
      if (req.method === 'GET' && parts[0] === 'me' && parts[1] === 'accounts') {
        if (!token!.scopes.includes('pages_show_list'))
          return send(403, graphError('(#10) Application does not have permission for this action', 10));
        return ok({
          data: fake.facebook.pages.map((page) => ({
            id: page.id,
            name: page.name,
            access_token: issue('page', token!.scopes),
            ...(page.linked
              ? {
                  instagram_business_account: {
                    id: fake.account.userId,
                    username: fake.account.username,
                    name: fake.account.name,
                  },
                }
              : {}),
          })),
          paging: { cursors: { before: 'QVFI', after: 'QVFJ' } },
        });
      }
    }
    if (token!.app === 'facebook' && parts[0] === 'me')
      return send(400, graphError('(#100) Tried accessing nonexisting field on node type (Page)', 100));

    if (req.method === 'GET' && parts[0] === 'me' && parts.length === 1) {
      return ok({
        id: fake.account.appScopedId,
        user_id: fake.account.userId,
        username: fake.account.username,
        name: fake.account.name,
        account_type: 'BUSINESS',
        profile_picture_url: 'https://scontent.cdninstagram.com/ada.jpg',
      });
    }

    if (parts[1] === 'content_publishing_limit' && req.method === 'GET') {
      if (!ownAccount(parts[0]) || !needs('instagram_business_content_publish')) return;
      const since = fake.now() - DAY_MS;
      return ok({
        data: [
          {
            quota_usage: published.filter((at) => at > since).length,
            config: { quota_total: fake.quotaTotal, quota_duration: 86400 },
          },
        ],
      });
    }

    if (parts[1] === 'media' && req.method === 'POST') {
      if (!ownAccount(parts[0]) || !needs('instagram_business_content_publish')) return;
      const caption = params.get('caption') ?? '';
      if ([...caption].length > 2200)
        return send(400, graphError('Param caption must be at most 2200 characters long.', 100));
      if ((caption.match(/#[^\s#]+/g) ?? []).length > 30)
        return send(400, graphError('The caption has more than 30 hashtags.', 100, { error_subcode: 2207035 }));
      const mediaType = params.get('media_type') ?? 'IMAGE';
      const isCarouselItem = params.get('is_carousel_item') === 'true';
      const container: FakeInstagramContainer = {
        id: next(),
        owner: parts[0],
        mediaType: mediaType as FakeInstagramContainer['mediaType'],
        url: null,
        caption,
        isCarouselItem,
        children: [],
        shareToFeed: params.get('share_to_feed'),
        status: 'IN_PROGRESS',
        pollsLeft: fake.processingPolls,
        failProcessing: false,
        downloadedType: null,
      };
      if (mediaType === 'CAROUSEL') {
        const children = (params.get('children') ?? '').split(',').filter(Boolean);
        if (children.length < 2 || children.length > 10)
          return send(
            400,
            graphError('The carousel must have between 2 and 10 children.', 100, { error_subcode: 2207022 }),
          );
        for (const id of children) {
          const child = fake.containers.get(id);
          if (!child || child.owner !== parts[0] || !child.isCarouselItem)
            return send(400, graphError(`Invalid carousel child ${id}`, 100, { error_subcode: 2207022 }));
          if (child.status !== 'FINISHED')
            return send(
              400,
              graphError('The media is not ready for publishing, please wait for a moment', 9007, {
                error_subcode: 2207027,
              }),
            );
        }
        container.children = children;
      } else {
        if (!['IMAGE', 'VIDEO', 'REELS', 'STORIES'].includes(mediaType))
          return send(400, graphError(`The media type ${mediaType} is not supported`, 100, { error_subcode: 2207023 }));
        const video = params.get('video_url');
        const image = params.get('image_url');
        if (mediaType === 'VIDEO' && !isCarouselItem)
          return send(
            400,
            graphError('The VIDEO media type is no longer supported: use REELS', 100, { error_subcode: 2207023 }),
          );
        if ((mediaType === 'VIDEO' || mediaType === 'REELS') && !video)
          return send(400, graphError('The parameter video_url is required', 100));
        if (mediaType === 'IMAGE' && !image) return send(400, graphError('The parameter image_url is required', 100));
        if (mediaType === 'STORIES' && !image === !video)
          return send(400, graphError('A story needs image_url or video_url', 100));
        container.url = video ?? image;
        const got = await download(container.url!);
        container.downloadedType = got.type;
        const fits = video ? ['video/mp4', 'video/quicktime'].includes(got.type) : got.type === 'image/jpeg';
        if (!got.ok || !fits) {
          return send(
            400,
            graphError('Only photo or video can be accepted as media type.', 9004, {
              error_subcode: 2207052,
              error_user_title: 'Media download has failed.',
              error_user_msg: `The media could not be fetched from this uri: ${container.url}`,
            }),
          );
        }
        if (!video) container.pollsLeft = 0;
        if (video && fake.failProcessingNext) {
          fake.failProcessingNext = false;
          container.failProcessing = true;
        }
      }
      if (container.pollsLeft === 0) container.status = 'FINISHED';
      fake.containers.set(container.id, container);
      return ok({ id: container.id });
    }

    if (parts[1] === 'media_publish' && req.method === 'POST') {
      if (!ownAccount(parts[0]) || !needs('instagram_business_content_publish')) return;
      const container = fake.containers.get(params.get('creation_id') ?? '');
      if (!container || container.owner !== parts[0] || container.isCarouselItem)
        return send(400, graphError('Media ID is not available', 9007, { error_subcode: 2207006 }));
      if (container.status === 'IN_PROGRESS')
        return send(
          400,
          graphError('The media is not ready for publishing, please wait for a moment', 9007, {
            error_subcode: 2207027,
          }),
        );
      if (container.status !== 'FINISHED')
        return send(400, graphError('Media ID is not available', 9007, { error_subcode: 2207006 }));
      const since = fake.now() - DAY_MS;
      if (published.filter((at) => at > since).length >= fake.quotaTotal) {
        return send(
          400,
          graphError('Application request limit reached', 9, {
            error_subcode: 2207042,
            error_user_title: 'Cannot publish more posts',
            error_user_msg:
              'You reached maximum number of posts that is allowed to be published by Content Publishing API.',
          }),
        );
      }
      container.status = 'PUBLISHED';
      published.push(fake.now());
      const made: FakeInstagramMedia = {
        id: next(),
        owner: parts[0],
        caption: container.caption,
        mediaType:
          container.mediaType === 'CAROUSEL'
            ? 'CAROUSEL_ALBUM'
            : container.mediaType === 'REELS'
              ? 'VIDEO'
              : container.mediaType,
        container: container.id,
        timestamp: fake.now(),
        likes: 0,
        comments: 0,
        insights: {},
      };
      fake.media.push(made);
      return ok({ id: made.id });
    }

    if (parts[1] === 'media' && req.method === 'GET') {
      if (!ownAccount(parts[0])) return;
      const limit = Math.min(100, Number(q.get('limit') ?? 25));
      const all = fake.media
        .filter((m) => m.owner === parts[0] && m.mediaType !== 'STORIES')
        .sort((a, b) => b.timestamp - a.timestamp || Number(b.id) - Number(a.id));
      const start = q.get('after') ? Number(Buffer.from(q.get('after')!, 'base64url').toString()) : 0;
      const page = all.slice(start, start + limit);
      const more = start + limit < all.length;
      const cursor = (at: number) => Buffer.from(String(at)).toString('base64url');
      return ok({
        data: page.map((m) => ({
          id: m.id,
          caption: m.caption,
          media_type: m.mediaType,
          media_url: `https://scontent.cdninstagram.com/${m.id}.jpg`,
          permalink: `https://www.instagram.com/p/${m.id}/`,
          timestamp: iso(m.timestamp),
          like_count: m.likes,
          comments_count: m.comments,
        })),
        paging: {
          cursors: { before: cursor(start), after: cursor(start + page.length) },
          ...(more
            ? {
                next:
                  `https://graph.instagram.com/${versioned[1]}/${parts[0]}/media` +
                  `?after=${cursor(start + page.length)}`,
              }
            : {}),
        },
      });
    }

    if (parts[1] === 'stories' && req.method === 'GET') {
      if (!ownAccount(parts[0])) return;
      const live = fake.media.filter(
        (m) => m.owner === parts[0] && m.mediaType === 'STORIES' && m.timestamp > fake.now() - DAY_MS,
      );
      return ok({
        data: live.map((m) => ({
          id: m.id,
          permalink: `https://www.instagram.com/stories/${fake.account.username}/${m.id}/`,
          timestamp: iso(m.timestamp),
        })),
      });
    }

    if (parts[1] === 'comments' && req.method === 'GET') {
      // ig-media/comments: the media's comments, newest first, with the fields asked for (id and text by default).
      if (!needs('instagram_business_manage_comments')) return;
      const media = fake.media.find((m) => m.id === parts[0] && m.owner === token!.user);
      if (!media)
        return send(
          400,
          graphError(`Unsupported get request. Object with ID '${parts[0]}' does not exist`, 100, {
            error_subcode: 33,
            type: 'GraphMethodException',
          }),
        );
      const fields = (q.get('fields') ?? 'id,text').split(',');
      const all: Record<string, (c: { id: string; message: string }) => unknown> = {
        id: (c) => c.id,
        text: (c) => c.message,
        username: () => fake.account.username,
        timestamp: () => iso(fake.now()),
      };
      const data = fake.comments
        .filter((c) => c.media === media.id)
        .reverse()
        .map((c) => Object.fromEntries(fields.filter((f) => all[f]).map((f) => [f, all[f](c)])));
      return ok({ data });
    }

    if (parts[1] === 'comments' && req.method === 'POST') {
      if (!needs('instagram_business_manage_comments')) return;
      const media = fake.media.find((m) => m.id === parts[0] && m.owner === token!.user);
      if (!media)
        return send(
          400,
          graphError(`Unsupported post request. Object with ID '${parts[0]}' does not exist`, 100, {
            error_subcode: 33,
            type: 'GraphMethodException',
          }),
        );
      const message = params.get('message');
      if (!message) return send(400, graphError('The parameter message is required', 100));
      const comment = { id: next(), media: media.id, message };
      fake.comments.push(comment);
      media.comments++;
      return ok({ id: comment.id });
    }

    if (parts[1] === 'insights' && req.method === 'GET') {
      if (!needs('instagram_business_manage_insights')) return;
      const media = fake.media.find((m) => m.id === parts[0] && m.owner === token!.user);
      if (!media)
        return send(
          400,
          graphError(`Unsupported get request. Object with ID '${parts[0]}' does not exist`, 100, {
            error_subcode: 33,
            type: 'GraphMethodException',
          }),
        );
      const metrics = (q.get('metric') ?? '').split(',').filter(Boolean);
      const unknown = metrics.find((m) => !INSIGHT_METRICS.includes(m));
      if (unknown || metrics.length === 0)
        return send(
          400,
          graphError(`(#100) metric[0] must be one of the following values: ${INSIGHT_METRICS.join(', ')}`, 100),
        );
      return ok({
        data: metrics.map((name) => ({
          name,
          period: 'lifetime',
          values: [{ value: media.insights[name] ?? 0 }],
          title: name,
          id: `${media.id}/insights/${name}/lifetime`,
        })),
      });
    }

    if (req.method === 'GET' && parts.length === 1 && parts[0] === token!.user) {
      const asked = (q.get('fields') ?? '').split(',');
      return ok({
        id: fake.account.userId,
        username: fake.account.username,
        name: fake.account.name,
        ...(asked.includes('followers_count') ? { followers_count: fake.account.followers_count } : {}),
      });
    }
    if (req.method === 'GET' && parts.length === 1) {
      const container = fake.containers.get(parts[0]);
      if (container && container.owner === token!.user) {
        if (container.status === 'IN_PROGRESS') {
          if (container.pollsLeft > 0) container.pollsLeft--;
          if (container.pollsLeft === 0) container.status = container.failProcessing ? 'ERROR' : 'FINISHED';
        }
        const fields = (q.get('fields') ?? 'id').split(',');
        const answer: Record<string, unknown> = { id: container.id };
        if (fields.includes('status_code')) answer.status_code = container.status;
        if (fields.includes('status')) {
          answer.status =
            container.status === 'ERROR'
              ? 'Error: Media upload has failed with error code 2207026'
              : container.status === 'FINISHED'
                ? 'Finished: Media has been uploaded and it is ready to be published.'
                : container.status;
        }
        return ok(answer);
      }
      const media = fake.media.find((m) => m.id === parts[0] && m.owner === token!.user);
      if (media)
        return ok({
          id: media.id,
          permalink: `https://www.instagram.com/p/${media.id}/`,
          timestamp: iso(media.timestamp),
          caption: media.caption,
          media_type: media.mediaType,
        });
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

  for (const server of [instagramServer, facebookServer])
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(instagramServer.address() as AddressInfo).port}`;
  fake.facebookUrl = `http://127.0.0.1:${(facebookServer.address() as AddressInfo).port}`;
  return fake;
}
