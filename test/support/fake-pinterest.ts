import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Pinterest's API v5 as its OpenAPI description (pinterest/api-description v5/openapi.yaml: oauth/token, user_account,
 * boards, boards/{board_id}/pins, pins, media, media/{media_id}) and developers.pinterest.com's authentication,
 * rate-limit and video Pin guides describe it, on loopback. It knows nothing of Herald. It plays three hosts:
 * www.pinterest.com (the consent screen), api.pinterest.com (the API) and the media upload bucket that
 * POST /v5/media names as upload_url; the test maps each real origin to this server.
 *
 * What it checks, as Pinterest does: the app's client id and registered redirect URI at consent, and its id and secret
 * by HTTP Basic at the token endpoint (401 `{code: 2, message: "Authentication failed."}` otherwise); codes (single
 * use, bound to the redirect URI); bearer tokens (expired or revoked: 401 code 2) and the scopes each operation's
 * `security` names (403 code 29); a JSON body on JSON calls; PinCreate's limits (title 100, description 800, alt_text
 * 500, link 2,048; a numeric board_id the account owns, else 404 "Board not found."); an image_url it can fetch as an
 * image (else 400 "Sorry we could not fetch the image."); a video_id whose upload succeeded; the upload's multipart
 * form carrying every upload_parameters field unchanged, before the file (S3 answers 403 AccessDenied in XML
 * otherwise, 204 on success). Each answer carries x-ratelimit-limit, x-ratelimit-remaining and x-ratelimit-reset
 * (seconds until the one-minute window of the operation's category, org_read or org_write, resets; the header names
 * follow Pinterest's responses, the window the rate-limit page's per-minute Standard limits); past the limit it
 * answers 429 `{code: 8}` (unsure: the description names no code for it).
 *
 * A video upload is `registered` until its file arrives, then `processing` for `processingPolls` reads, then
 * `succeeded` (or `failed`, when scripted).
 */
export const CONSENT_ORIGIN = 'https://www.pinterest.com';
export const API_ORIGIN = 'https://api.pinterest.com';
export const UPLOAD_ORIGIN = 'https://pinterest-media-upload.s3-accelerate.amazonaws.com';

const ALL_SCOPES = [
  'ads:read',
  'boards:read',
  'boards:write',
  'boards:read_secret',
  'boards:write_secret',
  'pins:read',
  'pins:write',
  'pins:read_secret',
  'pins:write_secret',
  'user_accounts:read',
];

export interface FakeBoard {
  id: string;
  name: string;
  description: string;
  privacy: 'PUBLIC' | 'PROTECTED' | 'SECRET';
}

export interface FakePin {
  id: string;
  created_at: string;
  board_id: string;
  title: string | null;
  description: string | null;
  link: string | null;
  alt_text: string | null;
  media_source: Record<string, any>;
  /** The bytes Pinterest fetched or was sent for it. */
  bytes: number;
  metrics: Record<string, number>;
}

export interface FakeMedia {
  media_id: string;
  status: 'registered' | 'processing' | 'succeeded' | 'failed';
  upload_parameters: Record<string, string>;
  /** The form fields of the upload, in the order received. */
  fields: string[];
  bytes: Buffer;
  contentType: string;
  pollsLeft: number;
  fails: boolean;
}

interface Token {
  scopes: string[];
  expiresAt: number;
  revoked: boolean;
}

export interface FakePinterest {
  url: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  /** The account (user_account/get); follower_count is answered as the account's followers. */
  user: { id: string; username: string; business_name: string; profile_image: string; follower_count: number };
  boards: FakeBoard[];
  pins: FakePin[];
  media: FakeMedia[];
  /** Every request, as "METHOD /path". */
  requests: string[];
  /** The JSON bodies of POST /v5/pins, as received. */
  pinBodies: Record<string, any>[];
  /** The person's answer at the consent screen: deny, or grant only some of the scopes asked. */
  denyNext: boolean;
  grantOnly: string[] | null;
  /** Status reads a video stays `processing` after its upload. */
  processingPolls: number;
  /** Calls a token may make per minute in each rate-limit category. */
  limits: { org_read: number; org_write: number };
  /** access_token and refresh_token lifetimes the token endpoint reports (seconds). */
  expiresIn: number;
  refreshExpiresIn: number;
  /** The next request to this path is answered with Pinterest's error body. */
  failNext(path: string, status: number, code: number, message: string): void;
  /** The next request to this path is carried out, then the connection drops before the answer. */
  dropAnswerNext(path: string): void;
  /** The next video upload's processing ends `failed`. */
  failProcessingNext(): void;
  /** Every access token expires now (refresh tokens still work). */
  expireAccessTokens(): void;
  /** The person removed the app's access: every token, access and refresh, stops working. */
  revokeAll(): void;
  /** A Pin the person made in the Pinterest app. */
  pinExternally(boardId: string, description: string, metrics?: Record<string, number>, createdAt?: Date): FakePin;
  /** The granted scopes of a live access token, for assertions. */
  scopesOf(accessToken: string): string[] | undefined;
  close(): Promise<void>;
}

export async function startFakePinterest(options: { redirectUri: string }): Promise<FakePinterest> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const codes = new Map<string, { redirectUri: string; scopes: string[] }>();
  const tokens = new Map<string, Token>();
  const refresh = new Map<string, { scopes: string[]; spent: boolean; revoked: boolean }>();
  const scripted = new Map<string, { status: number; code: number; message: string }>();
  const dropped = new Set<string>();
  const windows = new Map<string, { start: number; count: number }>();
  let failProcessing = false;
  let nextId = 1_130_000_000_000_000_000n;
  const id = () => String(++nextId);

  const fake: FakePinterest = {
    url,
    clientId: '1484362',
    clientSecret: 'b5f7c8d9e0a1f2b3c4d5e6f7a8b9c0d1e2f3a4b5',
    redirectUri: options.redirectUri,
    user: {
      id: '549755885175',
      username: 'alicemakes',
      business_name: 'Alice Makes',
      profile_image: `${url}/avatar/alice.jpg`,
      follower_count: 10,
    },
    boards: [
      { id: '549755885176', name: 'Recipes', description: 'Things to cook', privacy: 'PUBLIC' },
      { id: '549755885177', name: 'Travel', description: '', privacy: 'SECRET' },
    ],
    pins: [],
    media: [],
    requests: [],
    pinBodies: [],
    denyNext: false,
    grantOnly: null,
    processingPolls: 1,
    limits: { org_read: 1000, org_write: 100 },
    expiresIn: 2_592_000,
    refreshExpiresIn: 5_184_000,
    failNext(path, status, code, message) {
      scripted.set(path, { status, code, message });
    },
    dropAnswerNext(path) {
      dropped.add(path);
    },
    failProcessingNext() {
      failProcessing = true;
    },
    expireAccessTokens() {
      for (const token of tokens.values()) token.expiresAt = 0;
    },
    revokeAll() {
      for (const token of tokens.values()) token.revoked = true;
      for (const r of refresh.values()) r.revoked = true;
    },
    pinExternally(boardId, description, metrics = {}, createdAt = new Date()) {
      return addPin(
        { board_id: boardId, description, media_source: { source_type: 'image_url', url: `${url}/external.jpg` } },
        0,
        createdAt,
        metrics,
      );
    },
    scopesOf(accessToken) {
      return tokens.get(accessToken)?.scopes;
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };

  function addPin(
    body: Record<string, any>,
    bytes: number,
    createdAt = new Date(),
    metrics: Record<string, number> = {},
  ): FakePin {
    const pin: FakePin = {
      id: id(),
      created_at: createdAt.toISOString().replace(/\.\d{3}Z$/, '+00:00'),
      board_id: body.board_id,
      title: body.title ?? null,
      description: body.description ?? null,
      link: body.link ?? null,
      alt_text: body.alt_text ?? null,
      media_source: body.media_source,
      bytes,
      metrics: { impression: 0, save: 0, pin_click: 0, outbound_click: 0, reaction: 0, comment: 0, ...metrics },
    };
    fake.pins.push(pin);
    return pin;
  }

  function pinJson(pin: FakePin, withMetrics: boolean) {
    const { bytes: _b, metrics, media_source: source, ...rest } = pin;
    const video = source.source_type === 'video_id';
    return {
      ...rest,
      board_owner: { username: fake.user.username },
      board_section_id: null,
      is_owner: true,
      creative_type: video ? 'VIDEO' : 'REGULAR',
      media: video
        ? { media_type: 'video', cover_image_url: `${url}/cover/${pin.id}.jpg`, duration: 12000 }
        : {
            media_type: 'image',
            images: {
              '150x150': { width: 150, height: 150, url: `${url}/i/150x150/${pin.id}.jpg` },
              '600x': { width: 600, height: 600, url: `${url}/i/600x/${pin.id}.jpg` },
            },
          },
      pin_metrics: withMetrics
        ? {
            '90d': {
              pin_click: metrics.pin_click,
              impression: metrics.impression,
              clickthrough: metrics.outbound_click,
            },
            lifetime_metrics: { ...metrics },
          }
        : null,
    };
  }

  function issueTokens(scopes: string[], responseType: string) {
    const accessToken = `pina_${crypto.randomBytes(24).toString('base64url')}`;
    const refreshToken = `pinr_${crypto.randomBytes(24).toString('base64url')}`;
    tokens.set(accessToken, { scopes, expiresAt: Date.now() + fake.expiresIn * 1000, revoked: false });
    refresh.set(refreshToken, { scopes, spent: false, revoked: false });
    return {
      access_token: accessToken,
      refresh_token: refreshToken,
      response_type: responseType,
      token_type: 'bearer',
      expires_in: fake.expiresIn,
      refresh_token_expires_in: fake.refreshExpiresIn,
      refresh_token_expires_at: Math.floor(Date.now() / 1000) + fake.refreshExpiresIn,
      scope: scopes.join(','),
    };
  }

  /** Counts a call in its category's one-minute window; answers the budget headers. */
  function budget(key: string, category: 'org_read' | 'org_write'): { headers: Record<string, string>; over: boolean } {
    const now = Date.now();
    let window = windows.get(`${key}:${category}`);
    if (!window || now - window.start >= 60_000) window = { start: now, count: 0 };
    window.count++;
    windows.set(`${key}:${category}`, window);
    const limit = fake.limits[category];
    return {
      over: window.count > limit,
      headers: {
        'x-ratelimit-limit': String(limit),
        'x-ratelimit-remaining': String(Math.max(0, limit - window.count)),
        'x-ratelimit-reset': String(Math.max(1, Math.ceil((window.start + 60_000 - now) / 1000))),
      },
    };
  }

  async function fetchImage(imageUrl: string): Promise<number | undefined> {
    try {
      const answer = await fetch(imageUrl.replace(API_ORIGIN, url), { signal: AbortSignal.timeout(5_000) });
      const type = answer.headers.get('content-type') ?? '';
      if (answer.status !== 200 || !type.startsWith('image/')) return undefined;
      return (await answer.arrayBuffer()).byteLength;
    } catch {
      return undefined;
    }
  }

  server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => void handle(req, res, Buffer.concat(chunks)));
  });

  async function handle(req: http.IncomingMessage, res: http.ServerResponse, body: Buffer): Promise<void> {
    const target = new URL(req.url ?? '/', url);
    const path = target.pathname;
    fake.requests.push(`${req.method} ${path}`);
    let extra: Record<string, string> = {};
    const send = (status: number, payload: unknown) => {
      if (dropped.delete(path)) {
        req.socket.destroy();
        return;
      }
      res
        .writeHead(status, {
          'content-type': 'application/json',
          'x-pinterest-rid': crypto.randomBytes(8).toString('hex'),
          ...extra,
        })
        .end(payload === undefined ? '' : JSON.stringify(payload));
    };
    const refuse = (status: number, code: number, message: string) => send(status, { code, message });

    const script = scripted.get(path);
    if (script) {
      scripted.delete(path);
      return refuse(script.status, script.code, script.message);
    }

    if (req.method === 'GET' && path === '/oauth/') {
      const q = Object.fromEntries(target.searchParams);
      if (q.client_id !== fake.clientId)
        return void res.writeHead(400, { 'content-type': 'text/html' }).end('<p>Invalid client_id</p>');
      if (q.redirect_uri !== fake.redirectUri)
        return void res
          .writeHead(400, { 'content-type': 'text/html' })
          .end("<p>redirect_uri does not match the app's registered redirect URIs</p>");
      const asked = String(q.scope ?? '')
        .split(',')
        .filter(Boolean);
      if (q.response_type !== 'code' || asked.length === 0 || asked.some((s) => !ALL_SCOPES.includes(s))) {
        return void res.writeHead(400, { 'content-type': 'text/html' }).end('<p>scope or response_type is invalid</p>');
      }
      const back = new URL(q.redirect_uri);
      if (q.state) back.searchParams.set('state', q.state);
      if (fake.denyNext) {
        fake.denyNext = false;
        back.searchParams.set('error', 'access_denied');
        back.searchParams.set('error_description', 'The user declined access');
      } else {
        const granted = fake.grantOnly ? asked.filter((s) => fake.grantOnly!.includes(s)) : asked;
        const code = crypto.randomBytes(16).toString('hex');
        codes.set(code, { redirectUri: q.redirect_uri, scopes: granted });
        back.searchParams.set('code', code);
      }
      return void res.writeHead(302, { location: back.toString() }).end();
    }

    if (req.method === 'POST' && path === '/v5/oauth/token') {
      const basic = /^Basic (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
      if (!basic || Buffer.from(basic, 'base64').toString('utf8') !== `${fake.clientId}:${fake.clientSecret}`)
        return refuse(401, 2, 'Authentication failed.');
      if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded'))
        return refuse(400, 1, 'Content-Type must be application/x-www-form-urlencoded.');
      const form = Object.fromEntries(new URLSearchParams(body.toString('utf8')));
      if (form.grant_type === 'authorization_code') {
        const grant = codes.get(form.code);
        codes.delete(form.code);
        if (!grant || grant.redirectUri !== form.redirect_uri)
          return refuse(400, 1, 'Invalid authorization code or redirect_uri.');
        return send(200, issueTokens(grant.scopes, 'authorization_code'));
      }
      if (form.grant_type === 'refresh_token') {
        const old = refresh.get(form.refresh_token);
        if (!old || old.spent || old.revoked) return refuse(400, 1, 'Invalid refresh token.');
        old.spent = true;
        return send(200, issueTokens(old.scopes, 'refresh_token'));
      }
      return refuse(400, 1, `grant_type ${form.grant_type ?? '(none)'} is not supported.`);
    }

    if (req.method === 'POST' && path === '/') {
      // The media upload bucket: an S3 POST policy upload.
      const s3 = (status: number, code: string, message: string) =>
        void res
          .writeHead(status, { 'content-type': 'application/xml' })
          .end(
            `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`,
          );
      let form: FormData;
      try {
        form = await new Response(new Uint8Array(body), {
          headers: { 'content-type': String(req.headers['content-type'] ?? '') },
        }).formData();
      } catch {
        return s3(400, 'MalformedPOSTRequest', 'The body of your POST request is not well-formed multipart/form-data.');
      }
      const names = [...form.keys()];
      const media = fake.media.find((m) => m.upload_parameters.key === form.get('key'));
      if (!media)
        return s3(403, 'AccessDenied', 'Invalid according to Policy: Policy Condition failed: ["eq", "$key", ...]');
      const missing = Object.entries(media.upload_parameters).find(([name, value]) => form.get(name) !== value);
      if (missing)
        return s3(
          403,
          'AccessDenied',
          `Invalid according to Policy: Policy Condition failed: ["eq", "$${missing[0]}", ...]`,
        );
      if (names.indexOf('file') !== names.length - 1)
        return s3(400, 'InvalidArgument', 'POST requires exactly one file upload per request, after the other fields.');
      const file = form.get('file');
      if (!(file instanceof Blob))
        return s3(400, 'InvalidArgument', 'POST requires exactly one file upload per request.');
      if (media.status !== 'registered') return s3(403, 'AccessDenied', 'The upload was already made.');
      media.fields = names;
      media.bytes = Buffer.from(await file.arrayBuffer());
      media.contentType = file.type;
      media.status = 'processing';
      media.pollsLeft = fake.processingPolls;
      media.fails = failProcessing;
      failProcessing = false;
      if (dropped.delete(path)) return void req.socket.destroy();
      return void res.writeHead(204).end();
    }

    // Everything below is the API, behind a bearer token.
    const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
    const token = bearer ? tokens.get(bearer) : undefined;
    if (!bearer || !token || token.revoked || token.expiresAt <= Date.now())
      return refuse(401, 2, 'Authentication failed.');
    const category = req.method === 'GET' ? 'org_read' : 'org_write';
    const spent = budget(bearer, category);
    extra = spent.headers;
    if (spent.over) return refuse(429, 8, 'You have exceeded your rate limit. Try again later.');
    const needScopes = (...scopes: string[]) => {
      if (scopes.every((s) => token.scopes.includes(s))) return true;
      refuse(403, 29, 'You are not permitted to access that resource.');
      return false;
    };
    let json: Record<string, any> = {};
    if (req.method === 'POST') {
      if (!String(req.headers['content-type'] ?? '').startsWith('application/json'))
        return refuse(415, 1, 'Content-Type must be application/json.');
      try {
        json = body.length > 0 ? JSON.parse(body.toString('utf8')) : {};
      } catch {
        return refuse(400, 1, 'The request body is not JSON.');
      }
    }
    const pageSize = Number(target.searchParams.get('page_size') ?? 25);
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 250)
      return refuse(400, 1, 'page_size must be between 1 and 250.');
    const paged = <T>(items: T[]) => {
      const from = Number(target.searchParams.get('bookmark') ?? 0) || 0;
      const page = items.slice(from, from + pageSize);
      return { items: page, bookmark: from + pageSize < items.length ? String(from + pageSize) : null };
    };
    const newestFirst = (pins: FakePin[]) =>
      [...pins].sort(
        (a, b) => Date.parse(b.created_at) - Date.parse(a.created_at) || Number(BigInt(b.id) - BigInt(a.id)),
      );
    const withMetrics = target.searchParams.get('pin_metrics') === 'true';

    if (req.method === 'GET' && path === '/v5/user_account') {
      if (!needScopes('user_accounts:read')) return;
      return send(200, {
        ...fake.user,
        account_type: 'BUSINESS',
        board_count: fake.boards.length,
        pin_count: fake.pins.length,
        following_count: 3,
        monthly_views: 163,
        website_url: '',
        about: '',
      });
    }

    if (req.method === 'GET' && path === '/v5/boards') {
      if (!needScopes('boards:read')) return;
      const visible = fake.boards.filter((b) => b.privacy !== 'SECRET' || token.scopes.includes('boards:read_secret'));
      return send(
        200,
        paged(
          visible.map((b) => ({
            ...b,
            owner: { username: fake.user.username },
            pin_count: fake.pins.filter((p) => p.board_id === b.id).length,
          })),
        ),
      );
    }

    const boardPins = /^\/v5\/boards\/([^/]+)\/pins$/.exec(path);
    if (req.method === 'GET' && boardPins) {
      if (!needScopes('boards:read', 'pins:read')) return;
      if (!fake.boards.some((b) => b.id === boardPins[1])) return refuse(404, 404, 'Board not found.');
      return send(
        200,
        paged(newestFirst(fake.pins.filter((p) => p.board_id === boardPins[1])).map((p) => pinJson(p, withMetrics))),
      );
    }

    if (req.method === 'GET' && path === '/v5/pins') {
      if (!needScopes('pins:read')) return;
      return send(200, paged(newestFirst(fake.pins).map((p) => pinJson(p, withMetrics))));
    }

    if (req.method === 'POST' && path === '/v5/pins') {
      if (!needScopes('boards:read', 'boards:write', 'pins:read', 'pins:write')) return;
      fake.pinBodies.push(json);
      const tooLong = (
        [
          ['title', 100],
          ['description', 800],
          ['alt_text', 500],
          ['link', 2048],
        ] as const
      ).find(([field, max]) => typeof json[field] === 'string' && [...json[field]].length > max);
      if (tooLong) return refuse(400, 1, `Invalid parameters: ${tooLong[0]} is longer than ${tooLong[1]} characters.`);
      if (typeof json.board_id !== 'string' || !/^\d+$/.test(json.board_id))
        return refuse(400, 1, 'Invalid parameters: board_id must be a string of digits.');
      if (!fake.boards.some((b) => b.id === json.board_id)) return refuse(404, 404, 'Board not found.');
      const source = json.media_source ?? {};
      let bytes = 0;
      if (source.source_type === 'image_url') {
        const fetched = typeof source.url === 'string' ? await fetchImage(source.url) : undefined;
        if (fetched === undefined) return refuse(400, 1, 'Sorry we could not fetch the image.');
        bytes = fetched;
      } else if (source.source_type === 'video_id') {
        const media = fake.media.find((m) => m.media_id === source.media_id);
        if (!media) return refuse(404, 404, 'Media not found.');
        if (media.status !== 'succeeded')
          return refuse(400, 1, `Media ${media.media_id} is not ready: its status is ${media.status}.`);
        bytes = media.bytes.length;
      } else {
        return refuse(400, 1, 'Invalid parameters: media_source.source_type is required.');
      }
      return send(201, pinJson(addPin(json, bytes), false));
    }

    if (req.method === 'POST' && path === '/v5/media') {
      if (!needScopes('pins:read', 'pins:write')) return;
      if (json.media_type !== 'video') return refuse(400, 1, 'Invalid parameters: media_type must be video.');
      const mediaId = id();
      const media: FakeMedia = {
        media_id: mediaId,
        status: 'registered',
        upload_parameters: {
          'x-amz-date': '20261123T090000Z',
          'x-amz-signature': crypto.randomBytes(32).toString('hex'),
          'x-amz-security-token': crypto.randomBytes(24).toString('base64'),
          'x-amz-algorithm': 'AWS4-HMAC-SHA256',
          key: `uploads/11/aa/22/3:video:${fake.user.id}:${mediaId}`,
          policy: Buffer.from(JSON.stringify({ expiration: new Date(Date.now() + 3_600_000).toISOString() })).toString(
            'base64',
          ),
          'x-amz-credential': 'ASIA6QZJ64OPIKV7FRVX/20261123/us-east-1/s3/aws4_request',
          'Content-Type': 'multipart/form-data',
        },
        fields: [],
        bytes: Buffer.alloc(0),
        contentType: '',
        pollsLeft: 0,
        fails: false,
      };
      fake.media.push(media);
      return send(201, {
        media_id: mediaId,
        media_type: 'video',
        upload_url: `${UPLOAD_ORIGIN}/`,
        upload_parameters: media.upload_parameters,
      });
    }

    const mediaRead = /^\/v5\/media\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && mediaRead) {
      if (!needScopes('pins:read')) return;
      const media = fake.media.find((m) => m.media_id === mediaRead[1]);
      if (!media) return refuse(404, 404, 'Media not found.');
      if (media.status === 'processing') {
        if (media.pollsLeft > 0) media.pollsLeft--;
        else media.status = media.fails ? 'failed' : 'succeeded';
      }
      return send(200, { media_id: media.media_id, media_type: 'video', status: media.status });
    }

    return refuse(404, 404, `No route for ${req.method} ${path}.`);
  }

  return fake;
}
