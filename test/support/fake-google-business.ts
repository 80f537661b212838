import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Google OAuth and the Google Business Profile APIs as their documents describe them, for connector tests:
 * Google's OAuth 2.0 web-server guide (/o/oauth2/v2/auth with PKCE, offline access and prompt=consent, /token,
 * /tokeninfo); the Account Management API v1 (accounts.list: {accounts: [{name, accountName, type}], nextPageToken},
 * at most 20 a page); the Business Information API v1 (accounts.locations.list and locations.get, whose readMask is
 * required: {locations: [{name: "locations/..", title, storefrontAddress, metadata: {mapsUri}}], nextPageToken});
 * the My Business API v4 local posts (accounts.locations.localPosts create and list: the LocalPost resource with
 * name, summary, callToAction {actionType, url}, media [{mediaFormat, sourceUrl}], topicType, state, searchUrl,
 * createTime; list pages of at most 100); errors as AIP-193 describes them ({error: {code, message, status,
 * details}}, a ValidationError's errorDetails [{code, field, message}] for a refused field, ErrorInfo with reason and
 * metadata for quota); the usage limits page (requests per minute per API, 10 edits a minute per profile, 429
 * RESOURCE_EXHAUSTED). Each of Google's origins is its own server here, so a call to the wrong one finds nothing.
 */
export const ORIGINS = {
  accounts: 'https://accounts.google.com',
  oauth: 'https://oauth2.googleapis.com',
  accountManagement: 'https://mybusinessaccountmanagement.googleapis.com',
  information: 'https://mybusinessbusinessinformation.googleapis.com',
  posts: 'https://mybusiness.googleapis.com',
} as const;
type Origin = keyof typeof ORIGINS;

export const BUSINESS_SCOPE = 'https://www.googleapis.com/auth/business.manage';
const KNOWN_SCOPES = [BUSINESS_SCOPE, 'https://www.googleapis.com/auth/plus.business.manage'];
const ACTIONS_WITH_URL = ['BOOK', 'ORDER', 'SHOP', 'LEARN_MORE', 'SIGN_UP'];
const EDITS_PER_MINUTE = 10;

export interface FakeLocation {
  account: string;
  name: string;
  title: string;
  locality: string;
  mapsUri: string;
}

export interface FakeLocalPost {
  name: string;
  summary: string;
  topicType: string;
  languageCode?: string;
  callToAction?: { actionType: string; url?: string };
  media?: { mediaFormat: string; sourceUrl: string; googleUrl: string }[];
  state: string;
  searchUrl: string;
  createTime: string;
  updateTime: string;
}

export interface FakeGoogleBusiness {
  /** The local server standing for each of Google's origins. */
  urls: Record<Origin, string>;
  client: { id: string; secret: string; redirectUri: string };
  accounts: { name: string; accountName: string; type: string }[];
  locations: FakeLocation[];
  /** Local posts by location name, newest last as they were made. */
  posts: Map<string, FakeLocalPost[]>;
  /** "origin METHOD path" of every request, in order. */
  requests: string[];
  denyNext: boolean;
  /** The scopes the person leaves ticked at the next consent; all asked for when null. */
  grantOnly: string[] | null;
  /**
   * The project's requests a minute per API; 0 is a project Google has not approved Business Profile API access for.
   */
  quotaPerMinute: number;
  /** The next post made gets this state (REJECTED for a policy violation); LIVE otherwise. */
  nextPostState: string | null;
  /** The next call to a path ending with `suffix` answers this error instead of doing anything. */
  failNext(
    suffix: string,
    status: number,
    statusName: string,
    message: string,
    details?: unknown[],
    headers?: Record<string, string>,
  ): void;
  /** The next local post is made, then the connection breaks before the answer. */
  dropNextCreateAnswer(): void;
  /** The next local post is made and answered with an empty object (as a proxy cutting the body might). */
  emptyNextCreateAnswer(): void;
  /** A post made on the profile outside Herald; it counts against the profile's edits of this minute. */
  postExternally(location: string, summary: string, minutesAgo?: number): FakeLocalPost;
  /** A minute passes at Google: every per-minute window starts empty. */
  resetLimits(): void;
  /** Access tokens stop working (401); refresh tokens still do. */
  expireAccessTokens(): void;
  /** The person removed Herald's access: refresh tokens answer invalid_grant, access tokens 401. */
  revokeAll(): void;
  refreshes(): number;
  close(): Promise<void>;
}

function googleError(code: number, status: string, message: string, details?: unknown[]): unknown {
  return { error: { code, message, status, ...(details ? { details } : {}) } };
}

export async function startFakeGoogleBusiness(): Promise<FakeGoogleBusiness> {
  const servers = new Map<Origin, http.Server>();
  const urls = {} as Record<Origin, string>;
  const codes = new Map<string, { challenge: string; redirectUri: string; scope: string; offline: boolean }>();
  const accessTokens = new Map<string, { scope: string; expiresAt: number }>();
  const refreshTokens = new Map<string, { scope: string }>();
  const scripted = new Map<
    string,
    { status: number; name: string; message: string; details?: unknown[]; headers: Record<string, string> }
  >();
  const minuteCalls = new Map<string, number[]>();
  let dropCreate = false;
  let emptyCreate = false;
  let refreshes = 0;
  let postSeq = 1000;

  const fake: FakeGoogleBusiness = {
    urls,
    client: { id: 'herald-gbp.apps.googleusercontent.com', secret: 'GOCSPX-gbp-secret', redirectUri: '' },
    accounts: [
      { name: 'accounts/1100', accountName: 'Ana Baker', type: 'PERSONAL' },
      { name: 'accounts/2200', accountName: 'Bakeries Group', type: 'LOCATION_GROUP' },
    ],
    locations: [
      {
        account: 'accounts/1100',
        name: 'locations/501',
        title: 'Corner Bakery',
        locality: 'Springfield',
        mapsUri: 'https://maps.google.com/maps?cid=501',
      },
      {
        account: 'accounts/2200',
        name: 'locations/502',
        title: 'Corner Bakery Station',
        locality: 'Shelbyville',
        mapsUri: 'https://maps.google.com/maps?cid=502',
      },
    ],
    posts: new Map(),
    requests: [],
    denyNext: false,
    grantOnly: null,
    quotaPerMinute: 300,
    nextPostState: null,
    failNext(suffix, status, name, message, details, headers = {}) {
      scripted.set(suffix, { status, name, message, details, headers });
    },
    dropNextCreateAnswer() {
      dropCreate = true;
    },
    emptyNextCreateAnswer() {
      emptyCreate = true;
    },
    postExternally(location, summary, minutesAgo = 0) {
      overLimit(`edits ${location}`, Number.POSITIVE_INFINITY);
      return makePost(location, { summary, topicType: 'STANDARD' }, Date.now() - minutesAgo * 60_000);
    },
    resetLimits() {
      minuteCalls.clear();
    },
    expireAccessTokens() {
      accessTokens.clear();
    },
    revokeAll() {
      accessTokens.clear();
      refreshTokens.clear();
    },
    refreshes: () => refreshes,
    async close() {
      for (const server of servers.values()) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  };

  function makePost(location: string, body: any, at = Date.now()): FakeLocalPost {
    const account = fake.locations.find((l) => l.name === location)!.account;
    const id = String(postSeq++);
    const time = new Date(at).toISOString();
    const post: FakeLocalPost = {
      name: `${account}/${location}/localPosts/${id}`,
      summary: body.summary,
      topicType: body.topicType,
      ...(body.languageCode ? { languageCode: body.languageCode } : {}),
      ...(body.callToAction ? { callToAction: body.callToAction } : {}),
      ...(body.media
        ? {
            media: body.media.map((m: any) => ({
              ...m,
              googleUrl: `https://lh3.googleusercontent.com/p/${id}`,
            })),
          }
        : {}),
      state: fake.nextPostState ?? 'LIVE',
      searchUrl: `https://local.google.com/place?id=${location.split('/')[1]}&use=posts&lpsid=${id}`,
      createTime: time,
      updateTime: time,
    };
    fake.nextPostState = null;
    const list = fake.posts.get(location) ?? [];
    list.push(post);
    fake.posts.set(location, list);
    return post;
  }

  function issueAccessToken(scope: string) {
    const token = `ya29.${crypto.randomBytes(24).toString('base64url')}`;
    accessTokens.set(token, { scope, expiresAt: Date.now() + 3_599_000 });
    return { access_token: token, expires_in: 3599, scope, token_type: 'Bearer' };
  }

  /** Counts a call against a per-minute window; true when the window is already full. */
  function overLimit(key: string, limit: number): boolean {
    const now = Date.now();
    const recent = (minuteCalls.get(key) ?? []).filter((t) => t > now - 60_000);
    if (recent.length >= limit) {
      minuteCalls.set(key, recent);
      return true;
    }
    recent.push(now);
    minuteCalls.set(key, recent);
    return false;
  }

  function quotaError(service: string, metric: string, limit: number) {
    return googleError(
      429,
      'RESOURCE_EXHAUSTED',
      `Quota exceeded for quota metric '${metric}' and limit '${metric} per ` +
        `minute' of service '${service}' for consumer 'project_number:123456'.`,
      [
        {
          '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
          reason: 'RATE_LIMIT_EXCEEDED',
          domain: 'googleapis.com',
          metadata: {
            service,
            consumer: 'projects/123456',
            quota_metric: `${service}/default_requests`,
            quota_limit: 'defaultPerMinutePerProject',
            quota_limit_value: String(limit),
          },
        },
      ],
    );
  }

  function handle(origin: Origin, req: http.IncomingMessage, res: http.ServerResponse, body: Buffer) {
    const target = new URL(req.url ?? '/', urls[origin]);
    const path = target.pathname;
    fake.requests.push(`${origin} ${req.method} ${path}`);
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res
        .writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers })
        .end(payload === undefined ? '' : JSON.stringify(payload));
    };
    const notFound = () => send(404, googleError(404, 'NOT_FOUND', `Requested entity was not found.`));
    const script = [...scripted.keys()].find((suffix) => path.endsWith(suffix));
    if (script) {
      const s = scripted.get(script)!;
      scripted.delete(script);
      return send(s.status, googleError(s.status, s.name, s.message, s.details), s.headers);
    }
    const contentType = String(req.headers['content-type'] ?? '');
    const form = contentType.startsWith('application/x-www-form-urlencoded')
      ? Object.fromEntries(new URLSearchParams(body.toString('utf8')))
      : {};
    const params: Record<string, string> = { ...Object.fromEntries(target.searchParams), ...form };

    if (origin === 'accounts') {
      if (req.method !== 'GET' || path !== '/o/oauth2/v2/auth') return notFound();
      if (params.client_id !== fake.client.id)
        return void res.writeHead(400, { 'content-type': 'text/html' }).end('<p>Error 401: invalid_client</p>');
      if (params.redirect_uri !== fake.client.redirectUri)
        return void res.writeHead(400, { 'content-type': 'text/html' }).end('<p>Error 400: redirect_uri_mismatch</p>');
      const asked = String(params.scope ?? '').split(' ');
      if (params.response_type !== 'code' || asked.some((s) => !KNOWN_SCOPES.includes(s)))
        return void res.writeHead(400, { 'content-type': 'text/html' }).end('<p>Error 400: invalid_request</p>');
      if (params.code_challenge_method !== 'S256' || !params.code_challenge)
        return void res.writeHead(400, { 'content-type': 'text/html' }).end('<p>Error 400: invalid_request</p>');
      const back = new URL(params.redirect_uri);
      if (params.state) back.searchParams.set('state', params.state);
      if (fake.denyNext) {
        fake.denyNext = false;
        back.searchParams.set('error', 'access_denied');
      } else {
        const scope = (fake.grantOnly ?? asked).join(' ');
        fake.grantOnly = null;
        const code = `4/${crypto.randomBytes(16).toString('base64url')}`;
        codes.set(code, {
          challenge: params.code_challenge,
          redirectUri: params.redirect_uri,
          scope,
          offline: params.access_type === 'offline' && params.prompt === 'consent',
        });
        back.searchParams.set('code', code);
        back.searchParams.set('scope', scope);
      }
      return void res.writeHead(302, { location: back.toString() }).end();
    }

    if (origin === 'oauth') {
      if (req.method === 'GET' && path === '/tokeninfo') {
        const info = accessTokens.get(params.access_token ?? '');
        if (!info) return send(400, { error: 'invalid_token', error_description: 'Invalid Value' });
        return send(200, {
          azp: fake.client.id,
          aud: fake.client.id,
          scope: info.scope,
          exp: String(Math.floor(info.expiresAt / 1000)),
          expires_in: String(Math.floor((info.expiresAt - Date.now()) / 1000)),
          access_type: 'offline',
        });
      }
      if (req.method !== 'POST' || path !== '/token') return notFound();
      if (params.client_id !== fake.client.id || params.client_secret !== fake.client.secret)
        return send(401, { error: 'invalid_client', error_description: 'The OAuth client was not found.' });
      if (params.grant_type === 'authorization_code') {
        const granted = codes.get(params.code);
        codes.delete(params.code);
        if (!granted || granted.redirectUri !== params.redirect_uri)
          return send(400, { error: 'invalid_grant', error_description: 'Malformed auth code.' });
        const challenge = crypto
          .createHash('sha256')
          .update(String(params.code_verifier ?? ''))
          .digest('base64url');
        if (challenge !== granted.challenge)
          return send(400, { error: 'invalid_grant', error_description: 'Invalid code verifier.' });
        const answer: Record<string, unknown> = issueAccessToken(granted.scope);
        if (granted.offline) {
          const refresh = `1//${crypto.randomBytes(24).toString('base64url')}`;
          refreshTokens.set(refresh, { scope: granted.scope });
          answer.refresh_token = refresh;
        }
        return send(200, answer);
      }
      if (params.grant_type === 'refresh_token') {
        refreshes++;
        const known = refreshTokens.get(params.refresh_token);
        if (!known)
          return send(400, { error: 'invalid_grant', error_description: 'Token has been expired or revoked.' });
        return send(200, issueAccessToken(known.scope));
      }
      return send(400, {
        error: 'unsupported_grant_type',
        error_description: `Invalid grant_type: ${params.grant_type}`,
      });
    }

    // The APIs: a valid access token with the Business Profile scope, then the project's quota for this API.
    const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const grant = bearer ? accessTokens.get(bearer) : undefined;
    if (!grant || grant.expiresAt < Date.now()) {
      return send(
        401,
        googleError(
          401,
          'UNAUTHENTICATED',
          'Request had invalid authentication credentials. Expected OAuth 2 access token, ' +
            'login cookie or other valid authentication credential.',
        ),
      );
    }
    if (!grant.scope.split(' ').some((s) => KNOWN_SCOPES.includes(s))) {
      return send(
        403,
        googleError(403, 'PERMISSION_DENIED', 'Request had insufficient authentication scopes.', [
          {
            '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
            reason: 'ACCESS_TOKEN_SCOPE_INSUFFICIENT',
            domain: 'googleapis.com',
            metadata: { service: new URL(ORIGINS[origin]).host },
          },
        ]),
      );
    }
    const service = new URL(ORIGINS[origin]).host;
    if (fake.quotaPerMinute === 0 || overLimit(service, fake.quotaPerMinute)) {
      return send(429, quotaError(service, 'Requests', fake.quotaPerMinute));
    }

    if (origin === 'accountManagement') {
      if (req.method !== 'GET' || path !== '/v1/accounts') return notFound();
      const size = Math.min(20, Number(params.pageSize) || 20);
      const start = Number(params.pageToken ?? 0);
      const page = fake.accounts.slice(start, start + size);
      const next = start + size < fake.accounts.length ? String(start + size) : undefined;
      return send(200, { accounts: page, ...(next ? { nextPageToken: next } : {}) });
    }

    const locationView = (l: FakeLocation, mask: string[]) => ({
      name: l.name,
      ...(mask.includes('title') ? { title: l.title } : {}),
      ...(mask.includes('storefrontAddress') ? { storefrontAddress: { locality: l.locality } } : {}),
      ...(mask.includes('metadata') ? { metadata: { mapsUri: l.mapsUri } } : {}),
    });
    if (origin === 'information') {
      if (req.method !== 'GET') return notFound();
      if (!params.readMask) {
        return send(
          400,
          googleError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', [
            {
              '@type': 'type.googleapis.com/google.mybusiness.v4.ValidationError',
              errorDetails: [{ code: 1, field: 'read_mask', message: 'Field is required' }],
            },
          ]),
        );
      }
      const mask = params.readMask.split(',');
      const listing = /^\/v1\/(accounts\/[^/]+)\/locations$/.exec(path);
      if (listing) {
        const all = fake.locations.filter((l) => l.account === listing[1]);
        const size = Math.min(100, Number(params.pageSize) || 10);
        const start = Number(params.pageToken ?? 0);
        const next = start + size < all.length ? String(start + size) : undefined;
        return send(200, {
          locations: all.slice(start, start + size).map((l) => locationView(l, mask)),
          ...(next ? { nextPageToken: next } : {}),
        });
      }
      const one = /^\/v1\/(locations\/[^/]+)$/.exec(path);
      const location = one && fake.locations.find((l) => l.name === one[1]);
      if (!location) return notFound();
      return send(200, locationView(location, mask));
    }

    // origin === 'posts': v4 names a location with its account.
    const collection = /^\/v4\/(accounts\/[^/]+)\/(locations\/[^/]+)\/localPosts$/.exec(path);
    const location = collection && fake.locations.find((l) => l.name === collection[2]);
    if (!collection || !location) return notFound();
    if (location.account !== collection[1]) {
      return send(403, googleError(403, 'PERMISSION_DENIED', 'The caller does not have permission'));
    }
    if (req.method === 'GET') {
      // Newest first, as the Business Profile shows them.
      const all = [...(fake.posts.get(location.name) ?? [])].reverse();
      const size = Math.min(100, Number(params.pageSize) || 20);
      const start = Number(params.pageToken ?? 0);
      const next = start + size < all.length ? String(start + size) : undefined;
      return send(200, { localPosts: all.slice(start, start + size), ...(next ? { nextPageToken: next } : {}) });
    }
    if (req.method !== 'POST') return notFound();
    if (overLimit(`edits ${location.name}`, EDITS_PER_MINUTE)) {
      return send(429, quotaError(service, 'Edits', EDITS_PER_MINUTE));
    }
    let post: any;
    try {
      post = JSON.parse(body.toString('utf8'));
    } catch {
      return send(400, googleError(400, 'INVALID_ARGUMENT', 'Invalid JSON payload received.'));
    }
    const invalid = (field: string, message: string, code = 3) =>
      send(
        400,
        googleError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.', [
          {
            '@type': 'type.googleapis.com/google.mybusiness.v4.ValidationError',
            errorDetails: [{ code, field, message }],
          },
        ]),
      );
    if (!['STANDARD', 'EVENT', 'OFFER', 'ALERT'].includes(post.topicType)) return invalid('topic_type', 'Required');
    if (typeof post.summary !== 'string' || [...post.summary].length > 1500)
      return invalid('summary', 'Must be at most 1500 characters');
    const action = post.callToAction;
    if (action) {
      if (action.actionType === 'CALL' && action.url) return invalid('call_to_action.url', 'Must not be set', 2);
      if (ACTIONS_WITH_URL.includes(action.actionType) && !action.url)
        return invalid('call_to_action.url', 'Required', 1);
    }
    for (const m of post.media ?? []) {
      // Video in a local post is answered with a 500, not a validation error.
      if (m.mediaFormat === 'VIDEO') return send(500, googleError(500, 'INTERNAL', 'Internal error encountered.'));
      if (m.mediaFormat !== 'PHOTO' || typeof m.sourceUrl !== 'string')
        return invalid('media.source_url', 'Required', 1);
    }
    const made = makePost(location.name, post);
    if (dropCreate) {
      dropCreate = false;
      res.socket?.destroy();
      return;
    }
    if (emptyCreate) {
      emptyCreate = false;
      return send(200, {});
    }
    return send(200, made);
  }

  for (const origin of Object.keys(ORIGINS) as Origin[]) {
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => handle(origin, req, res, Buffer.concat(chunks)));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    servers.set(origin, server);
    urls[origin] = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }
  return fake;
}

/** NETWORK_ORIGIN_OVERRIDES pointing each of Google's origins at its server in the fake. */
export function googleBusinessOverrides(fake: FakeGoogleBusiness): Record<string, string> {
  return Object.fromEntries((Object.keys(ORIGINS) as Origin[]).map((origin) => [ORIGINS[origin], fake.urls[origin]]));
}
