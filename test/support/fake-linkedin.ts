import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * LinkedIn as its documents describe it (learn.microsoft.com/linkedin: shared/authentication/authorization-code-flow,
 * programmatic-refresh-tokens, token-introspection, shared/api-guide/concepts/error-handling and versioning;
 * community-management/shares/posts-api, images-api, videos-api, multiimage-post-api, comments-api,
 * organizations/organization-access-control-by-role, organization-share-statistics; NETWORKS.md), on loopback.
 * One server plays both www.linkedin.com (consent, tokens, upload URLs) and api.linkedin.com.
 *
 * It checks what LinkedIn checks: the client and its registered redirect URL, the scopes the app's products
 * allow, bearer tokens (expired and revoked ones answer 401 with their own codes), the scope each call needs,
 * the `LinkedIn-Version` header (a missing one is a 400, a retired one the 426 NONEXISTENT_VERSION) and
 * `X-Restli-Protocol-Version: 2.0.0` on every versioned call, URNs encoded in paths and List(...) parameters,
 * uploads of the exact declared byte ranges, finalize with every part's ETag in order, media owned by the
 * post's author and AVAILABLE, 2 to 20 images in a multi-image post, and 3,000 characters of commentary.
 * The commentary is little text (community-management/shares/little-text-format): every reserved character
 * `| { } @ [ ] ( ) < > # \ * _ ~` escaped with a backslash unless it belongs to an element (a mention
 * `@[name](urn)`, a hashtag `#tag`, the template `{hashtag|#|tag}`). LinkedIn cuts a post short at an unescaped
 * one; the fake refuses it with a 422 instead, so no test passes on a post people would see cut.
 *
 * The test plays the member at the consent screen: GET /oauth/v2/authorization answers as if they clicked
 * "Allow" (a 302 to the redirect URL with a code), or "Cancel" when `denyNext` is set.
 */
/** One little element at a time: an escaped character, a mention, a hashtag template or element, or plain text. */
const LITTLE_ELEMENT = new RegExp(
  [
    /\\[|{}@[\]()<>#\\*_~]/.source,
    /@\[[^\]]*\]\(urn:li:(?:person|organization):[^)]+\)/.source,
    /\{hashtag\|\\?[#＃]\|[^}|]+\}/.source,
    /#[\p{L}\p{N}]+/u.source,
    /[^|{}@[\]()<>#\\*_~]/.source,
  ].join('|'),
  'suy',
);

/** Where the little text holds a reserved character outside any element, or undefined when it holds none. */
function unescapedReserved(little: string): number | undefined {
  LITTLE_ELEMENT.lastIndex = 0;
  while (LITTLE_ELEMENT.lastIndex < little.length) {
    const at = LITTLE_ELEMENT.lastIndex;
    if (!LITTLE_ELEMENT.test(little)) return at;
  }
  return undefined;
}

/** What a person sees of little text: escapes undone, a mention shown as its name, a hashtag template as #tag. */
export function shownText(little: string): string {
  return little.replace(
    /\\(.)|@\[([^\]]*)\]\([^)]+\)|\{hashtag\|\\?([#＃])\|([^}|]+)\}/gsu,
    (_, escaped, name, sign, tag) => escaped ?? name ?? `${sign}${tag}`,
  );
}

export interface FakeLinkedInPost {
  id: string;
  author: string;
  commentary: string;
  visibility: string;
  distribution: { feedDistribution: string };
  lifecycleState: string;
  content?: { media?: { id: string; altText?: string }; multiImage?: { images: { id: string; altText?: string }[] } };
  createdAt: number;
  publishedAt: number;
  lastModifiedAt: number;
  /** Not a post field: what organizationalEntityShareStatistics answers for it. */
  stats: { likeCount: number; commentCount: number; shareCount: number; impressionCount: number; clickCount: number };
}

export interface FakeLinkedInComment {
  id: string;
  actor: string;
  object: string;
  message: { text: string };
  content?: { entity: { image: string } }[];
}

interface Token {
  scopes: string[];
  expiresAt: number;
  revoked: boolean;
  createdAt: number;
}

interface Asset {
  urn: string;
  owner: string;
  status: 'WAITING_UPLOAD' | 'PROCESSING' | 'AVAILABLE' | 'PROCESSING_FAILED';
  /** GET polls still answering PROCESSING. */
  pollsLeft: number;
  bytes: number;
  parts: { uploadUrl: string; firstByte: number; lastByte: number; etag: string | null }[];
  failProcessing: boolean;
}

export const VIDEO_PART_BYTES = 4 * 1024 * 1024;
const TOKEN_LIFETIME_S = 60 * 24 * 3600;
const REFRESH_LIFETIME_S = 365 * 24 * 3600;

export interface FakeLinkedIn {
  url: string;
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
  /** Scopes the app's products allow (Share on LinkedIn, Sign In with OpenID Connect, Community Management). */
  productScopes: string[];
  /** Whether LinkedIn grants this app refresh tokens (approved partners only). */
  grantRefreshTokens: boolean;
  /** How long a new access token lives (LinkedIn: 60 days). */
  tokenLifetimeSeconds: number;
  /** Versions older than this answer 426 NONEXISTENT_VERSION. */
  oldestActiveVersion: string;
  member: { sub: string; name: string; picture: string };
  /** The Pages the member administers; followers is what networkSizes answers as their firstDegreeSize. */
  organizations: { id: string; localizedName: string; vanityName: string; role: string; followers?: number }[];
  posts: FakeLinkedInPost[];
  comments: FakeLinkedInComment[];
  /** Every request, as "METHOD /path" (query left out). */
  requests: string[];
  /** Every refusal LinkedIn itself made (not the scripted ones), as "STATUS METHOD /path". */
  refusals: string[];
  /** The LinkedIn-Version of every versioned call. */
  versionsSeen: Set<string>;
  /** The uploaded bytes of each image and video, by URN. */
  uploads: Map<string, number>;
  denyNext: boolean;
  /** Polls a new image or video answers PROCESSING before AVAILABLE. */
  processingPolls: number;
  /** The next video's processing ends in PROCESSING_FAILED. */
  failVideoProcessingNext: boolean;
  /** The next request whose path starts with this gets this answer instead. */
  failNext(pathPrefix: string, status: number, body: unknown, headers?: Record<string, string>): void;
  /** The next request to this path is carried out, then the connection drops before the answer. */
  dropAnswerNext(path: string): void;
  /** Every access token expires (refresh tokens stay good). */
  expireTokens(): void;
  /** The member removed the app: every access and refresh token is revoked. */
  revokeAll(): void;
  /** A post made on LinkedIn itself. */
  postExternally(author: string, commentary: string, stats?: Partial<FakeLinkedInPost['stats']>): FakeLinkedInPost;
  tokens(): number;
  close(): Promise<void>;
}

function restliError(status: number, code: string, message: string, serviceErrorCode?: number) {
  return { status, ...(serviceErrorCode !== undefined ? { serviceErrorCode } : {}), code, message };
}

export async function startFakeLinkedIn(
  options: { clientId?: string; clientSecret?: string } = {},
): Promise<FakeLinkedIn> {
  const codes = new Map<string, { scopes: string[]; redirectUri: string }>();
  const accessTokens = new Map<string, Token>();
  const refreshTokens = new Map<string, Token>();
  const assets = new Map<string, Asset>();
  const scripted: { prefix: string; status: number; body: unknown; headers: Record<string, string> }[] = [];
  const drops: string[] = [];
  let sequence = 7_000_000;
  const next = () => String(++sequence);

  const fake: FakeLinkedIn = {
    url: '',
    clientId: options.clientId ?? 'li-client',
    clientSecret: options.clientSecret ?? 'li-secret',
    redirectUris: [],
    productScopes: [
      'openid',
      'profile',
      'email',
      'w_member_social',
      'w_organization_social',
      'r_organization_social',
      'rw_organization_admin',
    ],
    grantRefreshTokens: false,
    tokenLifetimeSeconds: TOKEN_LIFETIME_S,
    oldestActiveVersion: '202501',
    member: { sub: 'Xy12AbCd', name: 'Ada Lovelace', picture: 'https://media.licdn.com/ada.jpg' },
    organizations: [
      {
        id: '2414183',
        localizedName: 'Analytical Engines Ltd',
        vanityName: 'analytical-engines',
        role: 'ADMINISTRATOR',
      },
    ],
    posts: [],
    comments: [],
    requests: [],
    versionsSeen: new Set(),
    refusals: [],
    uploads: new Map(),
    denyNext: false,
    processingPolls: 1,
    failVideoProcessingNext: false,
    failNext(prefix, status, body, headers = {}) {
      scripted.push({ prefix, status, body, headers });
    },
    dropAnswerNext(path) {
      drops.push(path);
    },
    expireTokens() {
      for (const token of accessTokens.values()) token.expiresAt = Date.now() - 1000;
    },
    revokeAll() {
      for (const token of [...accessTokens.values(), ...refreshTokens.values()]) token.revoked = true;
    },
    postExternally(author, commentary, stats = {}) {
      const at = Date.now();
      const post: FakeLinkedInPost = {
        id: `urn:li:share:${next()}`,
        author,
        commentary,
        visibility: 'PUBLIC',
        distribution: { feedDistribution: 'MAIN_FEED' },
        lifecycleState: 'PUBLISHED',
        createdAt: at,
        publishedAt: at,
        lastModifiedAt: at,
        stats: { likeCount: 0, commentCount: 0, shareCount: 0, impressionCount: 0, clickCount: 0, ...stats },
      };
      fake.posts.push(post);
      return post;
    },
    tokens: () => [...accessTokens.values()].filter((t) => !t.revoked && t.expiresAt > Date.now()).length,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const memberUrn = () => `urn:li:person:${fake.member.sub}`;
  const administered = (urn: string) =>
    fake.organizations.some((o) => `urn:li:organization:${o.id}` === urn && o.role === 'ADMINISTRATOR');

  function issueTokens(scopes: string[]) {
    const access = `AQ${crypto.randomBytes(24).toString('base64url')}`;
    const now = Date.now();
    accessTokens.set(access, {
      scopes,
      expiresAt: now + fake.tokenLifetimeSeconds * 1000,
      revoked: false,
      createdAt: now,
    });
    const answer: Record<string, unknown> = {
      access_token: access,
      expires_in: fake.tokenLifetimeSeconds,
      scope: scopes.join(','),
      token_type: 'Bearer',
    };
    if (fake.grantRefreshTokens) {
      const refresh = `AQR${crypto.randomBytes(24).toString('base64url')}`;
      refreshTokens.set(refresh, {
        scopes,
        expiresAt: now + REFRESH_LIFETIME_S * 1000,
        revoked: false,
        createdAt: now,
      });
      Object.assign(answer, { refresh_token: refresh, refresh_token_expires_in: REFRESH_LIFETIME_S });
    }
    return answer;
  }

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const rawUrl = req.url ?? '/';
      const url = new URL(rawUrl, 'http://fake');
      const path = url.pathname;
      fake.requests.push(`${req.method} ${path}`);
      const send = (status: number, json?: unknown, headers: Record<string, string> = {}) => {
        if (status >= 400) fake.refusals.push(`${status} ${req.method} ${path}`);
        const payload = json === undefined ? '' : JSON.stringify(json);
        res
          .writeHead(status, {
            ...(json === undefined ? {} : { 'content-type': 'application/json' }),
            'x-li-uuid': crypto.randomUUID(),
            ...headers,
          })
          .end(payload);
      };
      const script = scripted.findIndex((s) => path.startsWith(s.prefix));
      if (script >= 0) {
        const [s] = scripted.splice(script, 1);
        res.writeHead(s.status, { 'content-type': 'application/json', ...s.headers }).end(JSON.stringify(s.body));
        return;
      }
      const dropIndex = drops.indexOf(path);
      const answer =
        dropIndex >= 0
          ? (() => {
              drops.splice(dropIndex, 1);
              return () => req.socket.destroy();
            })()
          : undefined;
      try {
        route(req, url, rawUrl, body, answer ? ((() => answer()) as typeof send) : send);
      } catch (error) {
        send(500, restliError(500, 'INTERNAL_SERVER_ERROR', String(error)));
      }
    });
  });

  function route(
    req: http.IncomingMessage,
    url: URL,
    rawUrl: string,
    body: Buffer,
    send: (status: number, json?: unknown, headers?: Record<string, string>) => void,
  ) {
    const path = url.pathname;
    const form = () => new URLSearchParams(body.toString('utf8'));
    const json = () => JSON.parse(body.toString('utf8') || '{}');

    if (req.method === 'GET' && path === '/oauth/v2/authorization') {
      const q = url.searchParams;
      if (q.get('client_id') !== fake.clientId)
        return send(400, { error: 'invalid_request', error_description: 'Invalid client_id' });
      const redirectUri = q.get('redirect_uri') ?? '';
      if (!fake.redirectUris.includes(redirectUri))
        return send(400, {
          error: 'invalid_request',
          error_description: 'The redirect_uri does not match the registered value',
        });
      if (q.get('response_type') !== 'code')
        return send(400, { error: 'invalid_request', error_description: 'response_type must be code' });
      const target = new URL(redirectUri);
      const state = q.get('state');
      if (state) target.searchParams.set('state', state);
      const scopes = (q.get('scope') ?? '').split(/[ ,]+/).filter(Boolean);
      const unknown = scopes.find((s) => !fake.productScopes.includes(s));
      if (unknown) {
        target.searchParams.set('error', 'unauthorized_scope_error');
        target.searchParams.set('error_description', `Scope "${unknown}" is not authorized for your application`);
      } else if (fake.denyNext) {
        fake.denyNext = false;
        target.searchParams.set('error', 'user_cancelled_authorize');
        target.searchParams.set('error_description', 'The user cancelled the authorization');
      } else {
        const code = `AQC${crypto.randomBytes(16).toString('base64url')}`;
        codes.set(code, { scopes, redirectUri });
        target.searchParams.set('code', code);
      }
      res(302, target.toString());
      return;
    }
    function res(status: number, location: string) {
      send(status, undefined, { location });
    }

    if (req.method === 'POST' && path === '/oauth/v2/accessToken') {
      if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded'))
        return send(400, { error: 'invalid_request', error_description: 'A form body is required' });
      const f = form();
      if (f.get('client_id') !== fake.clientId || f.get('client_secret') !== fake.clientSecret) {
        return send(401, { error: 'invalid_client', error_description: 'Client authentication failed' });
      }
      if (f.get('grant_type') === 'authorization_code') {
        const code = codes.get(f.get('code') ?? '');
        codes.delete(f.get('code') ?? '');
        if (!code || code.redirectUri !== f.get('redirect_uri')) {
          return send(400, {
            error: 'invalid_request',
            error_description:
              'Unable to retrieve access token: ' +
              'appid/redirect uri/code verifier does not match authorization code. Or authorization code expired.',
          });
        }
        return send(200, issueTokens(code.scopes));
      }
      if (f.get('grant_type') === 'refresh_token') {
        const token = refreshTokens.get(f.get('refresh_token') ?? '');
        if (!token || token.revoked || token.expiresAt < Date.now()) {
          return send(400, {
            error: 'invalid_request',
            error_description: 'The provided authorization grant or refresh token is invalid, expired or revoked.',
          });
        }
        // A refresh gives a new access token; the refresh token keeps its original expiry (it is not extended by use).
        const access = `AQ${crypto.randomBytes(24).toString('base64url')}`;
        accessTokens.set(access, {
          scopes: token.scopes,
          expiresAt: Date.now() + TOKEN_LIFETIME_S * 1000,
          revoked: false,
          createdAt: Date.now(),
        });
        return send(200, {
          access_token: access,
          expires_in: TOKEN_LIFETIME_S,
          refresh_token: f.get('refresh_token'),
          refresh_token_expires_in: Math.floor((token.expiresAt - Date.now()) / 1000),
          scope: token.scopes.join(','),
        });
      }
      return send(400, { error: 'unsupported_grant_type', error_description: 'Unsupported grant_type' });
    }

    if (req.method === 'POST' && (path === '/oauth/v2/introspectToken' || path === '/oauth/v2/revoke')) {
      const f = form();
      if (f.get('client_id') !== fake.clientId || f.get('client_secret') !== fake.clientSecret)
        return send(401, { error: 'invalid_client', error_description: 'Client authentication failed' });
      const token = accessTokens.get(f.get('token') ?? '');
      if (path === '/oauth/v2/revoke') {
        if (token) token.revoked = true;
        return send(200);
      }
      if (!token || token.revoked || token.expiresAt < Date.now()) return send(200, { active: false });
      return send(200, {
        active: true,
        client_id: fake.clientId,
        authorized_at: Math.floor(token.createdAt / 1000),
        created_at: Math.floor(token.createdAt / 1000),
        status: 'active',
        expires_at: Math.floor(token.expiresAt / 1000),
        scope: token.scopes.join(','),
        auth_type: '3L',
      });
    }

    if (req.method === 'PUT' && path.startsWith('/dms-uploads/')) {
      if (!bearer(req)) return send(401, restliError(401, 'INVALID_ACCESS_TOKEN', 'Invalid access token', 65600));
      for (const asset of assets.values()) {
        const part = asset.parts.find((p) => new URL(p.uploadUrl).pathname === path);
        if (!part) continue;
        const expected = part.lastByte - part.firstByte + 1;
        if (part.lastByte >= 0 && body.length !== expected)
          return send(
            400,
            restliError(400, 'BAD_REQUEST', `Expected ${expected} bytes for this part, received ${body.length}`),
          );
        part.etag = `/ambry-video/signedId/${crypto.createHash('md5').update(body).digest('hex')}`;
        fake.uploads.set(asset.urn, (fake.uploads.get(asset.urn) ?? 0) + body.length);
        if (asset.urn.startsWith('urn:li:image:')) asset.status = 'PROCESSING';
        return send(asset.urn.startsWith('urn:li:image:') ? 201 : 200, undefined, { etag: part.etag });
      }
      return send(404, restliError(404, 'NOT_FOUND', 'Upload URL not found or expired'));
    }

    if (path === '/v2/userinfo' && req.method === 'GET') {
      const token = bearer(req);
      const refused = tokenProblem(token);
      if (refused) return send(refused.status, refused);
      if (!token!.scopes.includes('openid'))
        return send(
          403,
          restliError(403, 'ACCESS_DENIED', 'Not enough permissions to access: userinfo.GET.NO_VERSION', 100),
        );
      return send(200, {
        sub: fake.member.sub,
        name: fake.member.name,
        given_name: 'Ada',
        family_name: 'Lovelace',
        picture: fake.member.picture,
        locale: { country: 'GB', language: 'en' },
      });
    }

    if (!path.startsWith('/rest/')) return send(404, restliError(404, 'NOT_FOUND', `No resource at ${path}`));

    // Versioned API: the headers first, then the token, then the resource.
    const version = String(req.headers['linkedin-version'] ?? '');
    fake.versionsSeen.add(version);
    if (!version)
      return send(
        400,
        restliError(
          400,
          'VERSION_MISSING',
          'A version must be present. Please specify a version by adding the LinkedIn-Version header.',
        ),
      );
    if (!/^\d{6}(\.\d{2})?$/.test(version) || version.slice(0, 6) < fake.oldestActiveVersion) {
      return send(426, restliError(426, 'NONEXISTENT_VERSION', `Requested version ${version} is not active`));
    }
    if (req.headers['x-restli-protocol-version'] !== '2.0.0')
      return send(400, restliError(400, 'BAD_REQUEST', 'X-Restli-Protocol-Version 2.0.0 is required by this client'));
    const token = bearer(req);
    const refused = tokenProblem(token);
    if (refused) return send(refused.status, refused);
    const need = (scope: string, what: string) => {
      if (token!.scopes.includes(scope)) return false;
      send(403, restliError(403, 'ACCESS_DENIED', `Not enough permissions to access: ${what}`, 100));
      return true;
    };
    const canWriteAs = (author: string) => {
      if (author === memberUrn()) return !need('w_member_social', 'partnerApiPostsExternal.CREATE.20251001');
      if (!administered(author)) {
        send(403, restliError(403, 'ACCESS_DENIED', `Member is not an administrator of ${author}`, 100));
        return false;
      }
      return !need('w_organization_social', 'partnerApiPostsExternal.CREATE.20251001');
    };

    if (req.method === 'GET' && path === '/rest/organizationAcls') {
      if (need('rw_organization_admin', 'organizationAcls.FINDER-roleAssignee.20251001')) return;
      if (url.searchParams.get('q') !== 'roleAssignee')
        return send(400, restliError(400, 'BAD_REQUEST', 'Unsupported finder'));
      const role = url.searchParams.get('role');
      const elements = fake.organizations
        .filter((o) => !role || o.role === role)
        .map((o) => ({
          roleAssignee: memberUrn(),
          state: 'APPROVED',
          role: o.role,
          organization: `urn:li:organization:${o.id}`,
        }));
      return send(200, { paging: { start: 0, count: 10, links: [], total: elements.length }, elements });
    }

    const orgMatch = /^\/rest\/organizations\/(\d+)$/.exec(path);
    if (req.method === 'GET' && orgMatch) {
      if (need('rw_organization_admin', 'organizations.GET.20251001')) return;
      const org = fake.organizations.find((o) => o.id === orgMatch[1]);
      if (!org) return send(404, restliError(404, 'NOT_FOUND', `Organization ${orgMatch[1]} not found`));
      return send(200, { id: Number(org.id), localizedName: org.localizedName, vanityName: org.vanityName });
    }

    if (req.method === 'POST' && (path === '/rest/images' || path === '/rest/videos')) {
      const action = url.searchParams.get('action');
      const kind = path === '/rest/images' ? 'image' : 'video';
      const request = json();
      if (action === 'initializeUpload') {
        const init = request.initializeUploadRequest ?? {};
        if (typeof init.owner !== 'string')
          return send(
            422,
            restliError(
              422,
              'UNPROCESSABLE_ENTITY',
              '/initializeUploadRequest/owner :: field is required but not found and has no default value',
            ),
          );
        if (!canWriteAs(init.owner)) return;
        const id = `D4E${next()}`;
        const urn = `urn:li:${kind}:${id}`;
        const expires = Date.now() + 24 * 3600_000;
        if (kind === 'image') {
          const uploadUrl = `https://www.linkedin.com/dms-uploads/sp/${id}/image`;
          // An image is one PUT of any length: its part has no range (lastByte -1).
          assets.set(urn, {
            urn,
            owner: init.owner,
            status: 'WAITING_UPLOAD',
            pollsLeft: fake.processingPolls,
            bytes: 0,
            parts: [{ uploadUrl, firstByte: 0, lastByte: -1, etag: null }],
            failProcessing: false,
          });
          return send(200, { value: { uploadUrlExpiresAt: expires, uploadUrl, image: urn } });
        }
        const size = Number(init.fileSizeBytes);
        if (!Number.isInteger(size) || size <= 0)
          return send(
            422,
            restliError(422, 'UNPROCESSABLE_ENTITY', '/initializeUploadRequest/fileSizeBytes :: field is required'),
          );
        const parts = [];
        for (let first = 0, n = 0; first < size; first += VIDEO_PART_BYTES, n++) {
          parts.push({
            uploadUrl: `https://www.linkedin.com/dms-uploads/sp/${id}/part-${n}`,
            firstByte: first,
            lastByte: Math.min(size, first + VIDEO_PART_BYTES) - 1,
            etag: null,
          });
        }
        const failProcessing = fake.failVideoProcessingNext;
        fake.failVideoProcessingNext = false;
        assets.set(urn, {
          urn,
          owner: init.owner,
          status: 'WAITING_UPLOAD',
          pollsLeft: fake.processingPolls,
          bytes: size,
          parts,
          failProcessing,
        });
        return send(200, {
          value: {
            uploadUrlsExpireAt: expires,
            video: urn,
            uploadToken: '',
            uploadInstructions: parts.map((p) => ({
              uploadUrl: p.uploadUrl,
              firstByte: p.firstByte,
              lastByte: p.lastByte,
            })),
          },
        });
      }
      if (action === 'finalizeUpload' && kind === 'video') {
        const fin = request.finalizeUploadRequest ?? {};
        const asset = assets.get(fin.video);
        if (!asset) return send(404, restliError(404, 'NOT_FOUND', `Video ${fin.video} not found`));
        const etags = asset.parts.map((p) => p.etag);
        if (etags.some((e) => e === null))
          return send(400, restliError(400, 'BAD_REQUEST', 'Not all parts of the video were uploaded'));
        if (JSON.stringify(fin.uploadedPartIds) !== JSON.stringify(etags))
          return send(400, restliError(400, 'BAD_REQUEST', 'uploadedPartIds do not match the uploaded parts'));
        if (fin.uploadToken !== '') return send(400, restliError(400, 'BAD_REQUEST', 'Invalid uploadToken'));
        asset.status = 'PROCESSING';
        return send(200);
      }
      return send(400, restliError(400, 'BAD_REQUEST', `Unsupported action ${action}`));
    }

    const assetMatch = /^\/rest\/(images|videos)\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && assetMatch) {
      const urn = decodeURIComponent(assetMatch[2]);
      if (urn === assetMatch[2])
        return send(400, restliError(400, 'BAD_REQUEST', 'The URN in the path must be URL-encoded'));
      const asset = assets.get(urn);
      if (!asset) return send(404, restliError(404, 'NOT_FOUND', `${urn} not found`));
      if (asset.status === 'PROCESSING') {
        if (asset.pollsLeft > 0) asset.pollsLeft--;
        else asset.status = asset.failProcessing ? 'PROCESSING_FAILED' : 'AVAILABLE';
      }
      return send(200, {
        id: urn,
        owner: asset.owner,
        status: asset.status,
        ...(asset.status === 'PROCESSING_FAILED'
          ? { processingFailureReason: "The video's codec is not supported" }
          : {}),
      });
    }

    if (req.method === 'POST' && path === '/rest/posts') {
      const post = json();
      if (typeof post.author !== 'string')
        return send(
          422,
          restliError(
            422,
            'UNPROCESSABLE_ENTITY',
            '/author :: field is required but not found and has no default value',
          ),
        );
      if (!canWriteAs(post.author)) return;
      if (typeof post.commentary !== 'string' || [...post.commentary].length > 3000) {
        return send(
          422,
          restliError(422, 'UNPROCESSABLE_ENTITY', '/commentary :: length of commentary must be at most 3000'),
        );
      }
      const unescaped = unescapedReserved(post.commentary);
      if (unescaped !== undefined) {
        return send(
          422,
          restliError(
            422,
            'UNPROCESSABLE_ENTITY',
            `/commentary :: reserved character "${post.commentary[unescaped]}" at ${unescaped} is not escaped`,
          ),
        );
      }
      if (post.visibility !== 'PUBLIC' && post.visibility !== 'CONNECTIONS')
        return send(422, restliError(422, 'UNPROCESSABLE_ENTITY', '/visibility :: invalid value'));
      if (post.distribution?.feedDistribution !== 'MAIN_FEED' || post.lifecycleState !== 'PUBLISHED') {
        return send(
          422,
          restliError(422, 'UNPROCESSABLE_ENTITY', '/distribution/feedDistribution and /lifecycleState are required'),
        );
      }
      const ids: string[] = post.content?.media
        ? [post.content.media.id]
        : (post.content?.multiImage?.images ?? []).map((i: { id: string }) => i.id);
      if (post.content?.multiImage && (ids.length < 2 || ids.length > 20)) {
        return send(
          422,
          restliError(
            422,
            'UNPROCESSABLE_ENTITY',
            `/content/multiImage/images :: a multiImage post takes 2 to 20 images, not ${ids.length}`,
          ),
        );
      }
      for (const id of ids) {
        const asset = assets.get(id);
        if (!asset || asset.owner !== post.author)
          return send(422, restliError(422, 'UNPROCESSABLE_ENTITY', `Media ${id} is not owned by ${post.author}`));
        if (asset.status !== 'AVAILABLE')
          return send(
            422,
            restliError(422, 'UNPROCESSABLE_ENTITY', `Media ${id} is in ${asset.status} state, not AVAILABLE`),
          );
      }
      const at = Date.now();
      const urn = `urn:li:share:${next()}`;
      fake.posts.push({
        id: urn,
        author: post.author,
        commentary: post.commentary,
        visibility: post.visibility,
        distribution: post.distribution,
        lifecycleState: post.lifecycleState,
        content: post.content,
        createdAt: at,
        publishedAt: at,
        lastModifiedAt: at,
        stats: { likeCount: 0, commentCount: 0, shareCount: 0, impressionCount: 0, clickCount: 0 },
      });
      return send(201, undefined, { 'x-restli-id': urn });
    }

    if (req.method === 'GET' && path === '/rest/posts') {
      if (url.searchParams.get('q') !== 'author')
        return send(400, restliError(400, 'BAD_REQUEST', 'Unsupported finder'));
      const author = url.searchParams.get('author') ?? '';
      if (!/[?&]author=urn%3Ali%3A/i.test(rawUrl))
        return send(400, restliError(400, 'BAD_REQUEST', 'The author URN must be URL-encoded'));
      if (author === memberUrn()) {
        if (need('r_member_social', 'partnerApiPostsExternal.FINDER-author.20251001')) return;
      } else {
        if (!administered(author))
          return send(403, restliError(403, 'ACCESS_DENIED', `Member is not an administrator of ${author}`, 100));
        if (need('r_organization_social', 'partnerApiPostsExternal.FINDER-author.20251001')) return;
      }
      const start = Number(url.searchParams.get('start') ?? 0);
      const count = Math.min(100, Number(url.searchParams.get('count') ?? 10));
      const all = fake.posts
        .filter((p) => p.author === author)
        .sort((a, b) => b.lastModifiedAt - a.lastModifiedAt || b.id.localeCompare(a.id));
      const page = all.slice(start, start + count).map(({ stats: _stats, ...p }) => p);
      return send(200, { paging: { start, count, links: [], total: all.length }, elements: page });
    }

    const commentMatch = /^\/rest\/socialActions\/([^/]+)\/comments$/.exec(path);
    if (req.method === 'GET' && commentMatch) {
      // Comments API, "Retrieve comments on shares": r_organization_social
      // for a Page's posts, r_member_social for a member's.
      const target = decodeURIComponent(commentMatch[1]);
      const post = fake.posts.find((p) => p.id === target);
      if (!post) return send(404, restliError(404, 'NOT_FOUND', `${target} not found`));
      if (
        need(
          post.author.startsWith('urn:li:organization:') ? 'r_organization_social' : 'r_member_social',
          'socialActions.comments.GET_ALL.20251001',
        )
      )
        return;
      const count = Math.min(100, Number(url.searchParams.get('count') ?? 10));
      const elements = fake.comments
        .filter((c) => c.object === target)
        .slice(0, count)
        .map((c) => ({
          actor: c.actor,
          object: c.object,
          message: c.message,
          ...(c.content ? { content: c.content } : {}),
          id: c.id.replace(/^.*,(\d+)\)$/, '$1'),
          commentUrn: c.id,
        }));
      return send(200, { paging: { start: 0, count, links: [], total: elements.length }, elements });
    }
    if (req.method === 'POST' && commentMatch) {
      const target = decodeURIComponent(commentMatch[1]);
      if (target === commentMatch[1])
        return send(400, restliError(400, 'BAD_REQUEST', 'The URN in the path must be URL-encoded'));
      const comment = json();
      if (!fake.posts.some((p) => p.id === target))
        return send(404, restliError(404, 'NOT_FOUND', `${target} not found`));
      if (comment.object !== target || typeof comment.message?.text !== 'string')
        return send(422, restliError(422, 'UNPROCESSABLE_ENTITY', '/object and /message/text are required'));
      if (!canWriteAs(comment.actor)) return;
      for (const item of comment.content ?? []) {
        const asset = assets.get(item?.entity?.image);
        if (asset?.status !== 'AVAILABLE')
          return send(422, restliError(422, 'UNPROCESSABLE_ENTITY', `Image ${item?.entity?.image} is not AVAILABLE`));
      }
      const id = next();
      const urn = `urn:li:comment:(${target},${id})`;
      fake.comments.push({
        id: urn,
        actor: comment.actor,
        object: target,
        message: comment.message,
        ...(comment.content ? { content: comment.content } : {}),
      });
      const post = fake.posts.find((p) => p.id === target)!;
      post.stats.commentCount++;
      return send(
        201,
        { id, object: target, actor: comment.actor, message: comment.message, commentUrn: urn },
        { 'x-restli-id': urn },
      );
    }

    if (req.method === 'GET' && path === '/rest/organizationalEntityShareStatistics') {
      if (need('rw_organization_admin', 'organizationalEntityShareStatistics.FINDER-organizationalEntity.20251001'))
        return;
      const entity = url.searchParams.get('organizationalEntity') ?? '';
      if (url.searchParams.get('q') !== 'organizationalEntity' || !administered(entity)) {
        return send(403, restliError(403, 'ACCESS_DENIED', `Member is not an administrator of ${entity}`, 100));
      }
      const listed = (name: string) => {
        const raw = /List\(([^)]*)\)/.exec(url.searchParams.get(name) ?? '')?.[1];
        return raw ? raw.split(',') : [];
      };
      if (/List\(urn:li/.test(rawUrl))
        return send(400, restliError(400, 'BAD_REQUEST', 'URNs inside List() must be URL-encoded'));
      const shares = listed('shares').map(decodeURIComponent);
      const elements = fake.posts
        .filter((p) => p.author === entity && shares.includes(p.id))
        .map((p) => ({
          organizationalEntity: entity,
          share: p.id,
          totalShareStatistics: { ...p.stats, uniqueImpressionsCount: p.stats.impressionCount, engagement: 0 },
        }));
      return send(200, { paging: { start: 0, count: 10, links: [] }, elements });
    }

    // An organization's follower count (community-management organizations/follower-statistics): the network size
    // of the organization URN, URL-encoded in the path, for the edge COMPANY_FOLLOWED_BY_MEMBER.
    const size = /^\/rest\/networkSizes\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && size) {
      if (/^\/rest\/networkSizes\/urn:/.test(rawUrl))
        return send(400, restliError(400, 'BAD_REQUEST', 'The URN in the path must be URL-encoded'));
      const entity = decodeURIComponent(size[1]);
      if (url.searchParams.get('edgeType') !== 'COMPANY_FOLLOWED_BY_MEMBER')
        return send(400, restliError(400, 'BAD_REQUEST', 'edgeType must be COMPANY_FOLLOWED_BY_MEMBER'));
      if (need('rw_organization_admin', 'networkSizes.GET.20251001')) return;
      const organization = fake.organizations.find((o) => `urn:li:organization:${o.id}` === entity);
      if (!organization || !administered(entity))
        return send(403, restliError(403, 'ACCESS_DENIED', `Member is not an administrator of ${entity}`, 100));
      return send(200, { firstDegreeSize: organization.followers ?? 0 });
    }

    send(404, restliError(404, 'NOT_FOUND', `No resource at ${req.method} ${path}`));
  }

  function bearer(req: http.IncomingMessage): (Token & { value: string }) | undefined | null {
    const header = String(req.headers.authorization ?? '');
    if (!header.startsWith('Bearer ')) return undefined;
    const value = header.slice(7);
    const token = accessTokens.get(value);
    return token ? { ...token, value } : null;
  }

  function tokenProblem(token: ReturnType<typeof bearer>) {
    if (token === undefined) return restliError(401, 'EMPTY_ACCESS_TOKEN', 'Empty oauth2_access_token', 65604);
    if (token === null) return restliError(401, 'INVALID_ACCESS_TOKEN', 'Invalid access token', 65600);
    if (token.revoked)
      return restliError(
        401,
        'REVOKED_ACCESS_TOKEN',
        'The token used in the request has been revoked by the user',
        65602,
      );
    if (token.expiresAt < Date.now())
      return restliError(401, 'EXPIRED_ACCESS_TOKEN', 'The token used in the request has expired', 65601);
    return undefined;
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}
