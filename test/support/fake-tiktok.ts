import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * TikTok's Open API as its documentation describes it (developers.tiktok.com: login-kit-manage-user-access-tokens,
 * oauth-user-access-token-management, tiktok-api-v2-error-handling, tiktok-api-v2-rate-limit,
 * content-posting-api-reference-query-creator-info, -reference-direct-post, -reference-upload-video,
 * -reference-photo-post, -media-transfer-guide, -reference-get-video-status, tiktok-api-v2-video-list,
 * tiktok-api-v2-get-user-info), on loopback. It knows nothing of Herald. It plays three hosts: www.tiktok.com (the
 * consent screen), open.tiktokapis.com (the API) and open-upload.tiktokapis.com (where chunks are PUT); the test maps
 * each real origin to this server.
 *
 * What it checks, as TikTok does: the app's client_key, secret and registered redirect URI; the codes (single use,
 * bound to the redirect URI); bearer tokens (expired or revoked: 401 access_token_invalid) and their scopes (401
 * scope_not_authorized); `Content-Type: application/json; charset=UTF-8` on JSON calls; the privacy level among the
 * creator's options (403 privacy_level_option_mismatch); the chunk rules of the media transfer guide (5-64 MB
 * chunks, total_chunk_count = floor(video_size / chunk_size), the last chunk taking the trailing bytes up to 128 MB,
 * a file under 5 MB whole, 1-1,000 chunks: 400 invalid_params); each PUT's Content-Range and Content-Length, in
 * order (206 until the last, 201 then); photos pulled only from a verified URL prefix (403 url_ownership_unverified);
 * init limited to 6 a minute per token, status/fetch to 30 (429 rate_limit_exceeded, no reset header).
 * Refresh tokens rotate: a refresh answers a new one and the spent one stops working.
 *
 * Every answer is TikTok's envelope `{ data, error: { code, message, log_id } }`, with code "ok" on success; an
 * asynchronous failure is status FAILED with a fail_reason while error.code stays "ok". A photo post's images are
 * pulled after content/init, and one that is not JPEG or WebP (media transfer guide, image restrictions) ends the
 * post FAILED with file_format_check_failed, as TikTok's get-post-status reference names it.
 */
export const CONSENT_ORIGIN = 'https://www.tiktok.com';
export const API_ORIGIN = 'https://open.tiktokapis.com';
export const UPLOAD_ORIGIN = 'https://open-upload.tiktokapis.com';

const MB = 1024 * 1024;
const ALL_SCOPES = [
  'user.info.basic',
  'user.info.profile',
  'user.info.stats',
  'video.publish',
  'video.upload',
  'video.list',
];

export interface FakeCreator {
  open_id: string;
  union_id: string;
  username: string;
  display_name: string;
  avatar_url: string;
  privacy_level_options: string[];
  comment_disabled: boolean;
  duet_disabled: boolean;
  stitch_disabled: boolean;
  max_video_post_duration_sec: number;
  /** The user's follower_count (get-user-info), a field of the user.info.stats scope. */
  follower_count: number;
}

export interface FakePublish {
  publish_id: string;
  /** The endpoint it began at: direct video, inbox video, or photos. */
  kind: 'video' | 'inbox_video' | 'photo';
  post_mode: 'DIRECT_POST' | 'MEDIA_UPLOAD';
  post_info: Record<string, any>;
  source_info: Record<string, any>;
  status: 'PROCESSING_UPLOAD' | 'PROCESSING_DOWNLOAD' | 'SEND_TO_USER_INBOX' | 'PUBLISH_COMPLETE' | 'FAILED';
  fail_reason?: string;
  uploaded_bytes: number;
  downloaded_bytes: number;
  /** The PUTs it received, as their Content-Range headers. */
  ranges: string[];
  /** The video bytes as received, in order. */
  bytes: Buffer[];
  /** Status fetches left before processing ends. */
  pollsLeft: number;
  /** A photo post's images as TikTok found them when it pulled them: their formats, once every one arrived. */
  pulledFormats?: string[];
  post_id: string | null;
}

export interface FakeVideo {
  id: string;
  title: string;
  video_description: string;
  create_time: number;
  share_url: string;
  cover_image_url: string;
  duration: number;
  like_count: number;
  comment_count: number;
  share_count: number;
  view_count: number;
  privacy_level: string;
}

interface Token {
  openId: string;
  scopes: string[];
  expiresAt: number;
  revoked: boolean;
}

export interface FakeTikTok {
  url: string;
  clientKey: string;
  clientSecret: string;
  redirectUri: string;
  creator: FakeCreator;
  publishes: FakePublish[];
  videos: FakeVideo[];
  /** Every request, as "METHOD /path". */
  requests: string[];
  /** URL prefixes the app verified in TikTok's developer portal (photos are pulled only from these). */
  verifiedPrefixes: string[];
  /** The person's answer at the consent screen: deny, or grant only some of the scopes asked. */
  denyNext: boolean;
  grantOnly: string[] | null;
  /** Status fetches a publish stays in processing before it ends. */
  processingPolls: number;
  /** access_token lifetime, and refresh_token lifetime, as the token endpoint reports them (seconds). */
  expiresIn: number;
  refreshExpiresIn: number;
  /** The next request to this path is answered with TikTok's error envelope. */
  failNext(path: string, status: number, code: string, message: string): void;
  /** The next request to this path is carried out, then the connection drops before the answer. */
  dropAnswerNext(path: string): void;
  /** The next upload's processing ends FAILED with this fail_reason (error.code stays "ok"). */
  failProcessingNext(failReason: string): void;
  /** Every access token expires now (refresh tokens still work). */
  expireAccessTokens(): void;
  /** The person removed the app in TikTok: every token, access and refresh, stops working. */
  revokeAll(): void;
  /** A video the creator posted in the TikTok app. */
  postExternally(
    title: string,
    metrics?: Partial<Pick<FakeVideo, 'like_count' | 'comment_count' | 'share_count' | 'view_count'>>,
    createdAt?: Date,
  ): FakeVideo;
  /** Refresh tokens handed out and spent, for assertions on rotation. */
  refreshTokens(): { live: number; spent: number };
  close(): Promise<void>;
}

export async function startFakeTikTok(options: {
  clientKey?: string;
  clientSecret?: string;
  redirectUri: string;
}): Promise<FakeTikTok> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const creator: FakeCreator = {
    open_id: '-000QzdCw9UB9cXnNSb3FZ7J2HnD5HuGnsk',
    union_id: 'c9f6e7f2-union',
    username: 'alice.makes',
    display_name: 'Alice Makes',
    avatar_url: `${url}/avatar/alice.jpeg`,
    privacy_level_options: ['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY'],
    comment_disabled: false,
    duet_disabled: false,
    stitch_disabled: true,
    max_video_post_duration_sec: 600,
    follower_count: 0,
  };
  const codes = new Map<string, { redirectUri: string; scopes: string[] }>();
  const tokens = new Map<string, Token>();
  const refresh = new Map<string, { openId: string; scopes: string[]; spent: boolean; revoked: boolean }>();
  const publishes: FakePublish[] = [];
  const videos: FakeVideo[] = [];
  const requests: string[] = [];
  const scripted = new Map<string, { status: number; code: string; message: string }>();
  const dropped = new Set<string>();
  const failures: string[] = [];
  const calls = new Map<string, number[]>();
  let nextVideoId = 7_300_000_000_000_000_000n;

  const fake: FakeTikTok = {
    url,
    clientKey: options.clientKey ?? 'awx1q2w3e4r5t6y7',
    clientSecret: options.clientSecret ?? 'sec-5f4dcc3b5aa765d61d8327deb882cf99',
    redirectUri: options.redirectUri,
    creator,
    publishes,
    videos,
    requests,
    verifiedPrefixes: [],
    denyNext: false,
    grantOnly: null,
    processingPolls: 1,
    expiresIn: 86_400,
    refreshExpiresIn: 31_536_000,
    failNext(path, status, code, message) {
      scripted.set(path, { status, code, message });
    },
    dropAnswerNext(path) {
      dropped.add(path);
    },
    failProcessingNext(reason) {
      failures.push(reason);
    },
    expireAccessTokens() {
      for (const token of tokens.values()) token.expiresAt = 0;
    },
    revokeAll() {
      for (const token of tokens.values()) token.revoked = true;
      for (const r of refresh.values()) r.revoked = true;
    },
    postExternally(title, metrics = {}, createdAt = new Date()) {
      return addVideo(title, 'PUBLIC_TO_EVERYONE', Math.floor(createdAt.getTime() / 1000), metrics);
    },
    refreshTokens() {
      const all = [...refresh.values()];
      return { live: all.filter((r) => !r.spent && !r.revoked).length, spent: all.filter((r) => r.spent).length };
    },
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };

  function addVideo(title: string, privacy: string, createTime: number, metrics: Partial<FakeVideo> = {}): FakeVideo {
    const id = String(++nextVideoId);
    const video: FakeVideo = {
      id,
      title,
      video_description: title,
      create_time: createTime,
      share_url:
        `https://www.tiktok.com/@${creator.username}/video/${id}` +
        `?utm_campaign=tt4d_open_api&utm_source=${fake.clientKey}`,
      cover_image_url: `${url}/cover/${id}.jpeg`,
      duration: 12,
      like_count: metrics.like_count ?? 0,
      comment_count: metrics.comment_count ?? 0,
      share_count: metrics.share_count ?? 0,
      view_count: metrics.view_count ?? 0,
      privacy_level: privacy,
    };
    videos.push(video);
    return video;
  }

  function issueTokens(openId: string, scopes: string[]) {
    const accessToken = `act.${crypto.randomBytes(24).toString('base64url')}`;
    const refreshToken = `rft.${crypto.randomBytes(24).toString('base64url')}`;
    tokens.set(accessToken, { openId, scopes, expiresAt: Date.now() + fake.expiresIn * 1000, revoked: false });
    refresh.set(refreshToken, { openId, scopes, spent: false, revoked: false });
    return {
      access_token: accessToken,
      expires_in: fake.expiresIn,
      open_id: openId,
      refresh_expires_in: fake.refreshExpiresIn,
      refresh_token: refreshToken,
      scope: scopes.join(','),
      token_type: 'Bearer',
    };
  }

  /** TikTok's one-minute sliding window per token and endpoint. */
  function overLimit(key: string, limit: number): boolean {
    const now = Date.now();
    const recent = (calls.get(key) ?? []).filter((at) => now - at < 60_000);
    recent.push(now);
    calls.set(key, recent);
    return recent.length > limit;
  }

  /** What TikTok expects of a FILE_UPLOAD's source_info (media transfer guide, "Chunk restrictions"). */
  function chunkProblem(source: Record<string, any>): string | undefined {
    const { video_size: size, chunk_size: chunk, total_chunk_count: count } = source;
    if (![size, chunk, count].every((n) => Number.isInteger(n) && n > 0))
      return 'video_size, chunk_size and total_chunk_count must be positive integers';
    if (size < 5 * MB)
      return chunk === size && count === 1
        ? undefined
        : 'a video under 5 MB must be uploaded whole: chunk_size equal to video_size, total_chunk_count 1';
    if (chunk < 5 * MB || chunk > 64 * MB) return 'chunk_size must be between 5 MB and 64 MB';
    if (count !== Math.floor(size / chunk))
      return 'total_chunk_count must be video_size divided by chunk_size, rounded down';
    if (count < 1 || count > 1000) return 'total_chunk_count must be between 1 and 1000';
    if (size > 64 * MB && count < 2) return 'a video over 64 MB must be uploaded in more than one chunk';
    if (size - (count - 1) * chunk > 128 * MB) return 'the final chunk may hold at most 128 MB';
    return undefined;
  }

  server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const target = new URL(req.url ?? '/', url);
      const path = target.pathname;
      requests.push(`${req.method} ${path}`);
      const logId = crypto.randomBytes(10).toString('hex').toUpperCase();
      const send = (status: number, payload: unknown) => {
        if (dropped.delete(path)) {
          req.socket.destroy();
          return;
        }
        res
          .writeHead(status, { 'content-type': 'application/json; charset=UTF-8', 'x-tt-logid': logId })
          .end(payload === undefined ? '' : JSON.stringify(payload));
      };
      const envelope = (status: number, data: unknown, code = 'ok', message = '') =>
        send(status, { data, error: { code, message, log_id: logId } });
      const refuse = (status: number, code: string, message: string) => envelope(status, {}, code, message);

      const script = scripted.get(path);
      if (script) {
        scripted.delete(path);
        return refuse(script.status, script.code, script.message);
      }

      if (req.method === 'GET' && path === '/v2/auth/authorize/') {
        const q = Object.fromEntries(target.searchParams);
        if (q.client_key !== fake.clientKey)
          return void res
            .writeHead(400, { 'content-type': 'text/html' })
            .end('<p>client_key: this app does not exist</p>');
        if (q.redirect_uri !== fake.redirectUri)
          return void res
            .writeHead(400, { 'content-type': 'text/html' })
            .end('<p>redirect_uri: not registered for this app</p>');
        const asked = String(q.scope ?? '')
          .split(',')
          .filter(Boolean);
        if (q.response_type !== 'code' || asked.length === 0 || asked.some((s) => !ALL_SCOPES.includes(s))) {
          return void res
            .writeHead(400, { 'content-type': 'text/html' })
            .end('<p>scope or response_type is invalid</p>');
        }
        const back = new URL(q.redirect_uri);
        if (q.state) back.searchParams.set('state', q.state);
        if (fake.denyNext) {
          fake.denyNext = false;
          back.searchParams.set('error', 'access_denied');
          back.searchParams.set('error_description', 'The user denied the request');
        } else {
          const granted = fake.grantOnly ? asked.filter((s) => fake.grantOnly!.includes(s)) : asked;
          const code = crypto.randomBytes(16).toString('base64url');
          codes.set(code, { redirectUri: q.redirect_uri, scopes: granted });
          back.searchParams.set('code', code);
          back.searchParams.set('scopes', granted.join(','));
        }
        return void res.writeHead(302, { location: back.toString() }).end();
      }

      if (req.method === 'POST' && path === '/v2/oauth/token/') {
        if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) {
          return send(400, {
            error: 'invalid_request',
            error_description: 'Content-Type must be application/x-www-form-urlencoded.',
            log_id: logId,
          });
        }
        const form = Object.fromEntries(new URLSearchParams(body.toString('utf8')));
        if (form.client_key !== fake.clientKey || form.client_secret !== fake.clientSecret) {
          return send(401, {
            error: 'invalid_client',
            error_description: 'Client key or secret is incorrect.',
            log_id: logId,
          });
        }
        if (form.grant_type === 'authorization_code') {
          const grant = codes.get(form.code);
          codes.delete(form.code);
          if (!grant || grant.redirectUri !== form.redirect_uri)
            return send(400, {
              error: 'invalid_grant',
              error_description: 'Authorization code is expired.',
              log_id: logId,
            });
          return send(200, issueTokens(creator.open_id, grant.scopes));
        }
        if (form.grant_type === 'refresh_token') {
          const old = refresh.get(form.refresh_token);
          if (!old || old.spent || old.revoked)
            return send(400, {
              error: 'invalid_grant',
              error_description: 'Refresh token is invalid or expired.',
              log_id: logId,
            });
          old.spent = true;
          return send(200, issueTokens(old.openId, old.scopes));
        }
        return send(400, {
          error: 'unsupported_grant_type',
          error_description: 'The grant type is not supported.',
          log_id: logId,
        });
      }

      if (req.method === 'POST' && path === '/v2/oauth/revoke/') {
        const form = Object.fromEntries(new URLSearchParams(body.toString('utf8')));
        if (form.client_key !== fake.clientKey || form.client_secret !== fake.clientSecret) {
          return send(401, {
            error: 'invalid_client',
            error_description: 'Client key or secret is incorrect.',
            log_id: logId,
          });
        }
        if (tokens.has(form.token)) fake.revokeAll();
        return send(200, undefined);
      }

      if (req.method === 'PUT' && path === '/upload/') {
        const publish = publishes.find(
          (p) =>
            p.publish_id === target.searchParams.get('upload_id') &&
            target.searchParams.get('upload_token') === uploadToken(p),
        );
        if (!publish) return refuse(404, 'invalid_params', 'upload_url is unknown or expired');
        if (publish.status !== 'PROCESSING_UPLOAD' || publish.ranges.length >= publish.source_info.total_chunk_count)
          return refuse(400, 'invalid_file_upload', 'the upload is already complete');
        const type = String(req.headers['content-type'] ?? '');
        if (!['video/mp4', 'video/quicktime', 'video/webm'].includes(type))
          return refuse(
            400,
            'invalid_file_upload',
            `Content-Type ${type || '(none)'} is not video/mp4, video/quicktime or video/webm`,
          );
        const range = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(String(req.headers['content-range'] ?? ''));
        if (!range)
          return refuse(
            400,
            'invalid_file_upload',
            'Content-Range must be bytes {FIRST_BYTE}-{LAST_BYTE}/{TOTAL_BYTE_LENGTH}',
          );
        const [first, last, total] = range.slice(1).map(Number);
        const { video_size: size, chunk_size: chunk, total_chunk_count: count } = publish.source_info;
        const index = publish.ranges.length;
        const expectedLast = index === count - 1 ? size - 1 : first + chunk - 1;
        if (total !== size || first !== publish.uploaded_bytes || last !== expectedLast) {
          return refuse(
            416,
            'invalid_file_upload',
            `chunk ${index + 1} of ${count} must be bytes ${publish.uploaded_bytes}-${expectedLast}/${size}`,
          );
        }
        if (Number(req.headers['content-length']) !== body.length || body.length !== last - first + 1)
          return refuse(400, 'invalid_file_upload', 'Content-Length does not match the chunk');
        publish.ranges.push(String(req.headers['content-range']));
        publish.bytes.push(body);
        publish.uploaded_bytes += body.length;
        if (publish.ranges.length < count) return send(206, undefined);
        finishUpload(publish);
        return send(201, undefined);
      }

      // Everything below is the API, behind a bearer token.
      const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
      const token = bearer ? tokens.get(bearer) : undefined;
      if (!bearer || !token || token.revoked || token.expiresAt <= Date.now()) {
        return refuse(401, 'access_token_invalid', 'The access token is invalid or not found in the request.');
      }
      const needScope = (...scopes: string[]) => {
        if (scopes.some((s) => token.scopes.includes(s))) return true;
        refuse(
          401,
          'scope_not_authorized',
          `The user did not authorize the scope required for completing this request (${scopes.join(' or ')}).`,
        );
        return false;
      };
      let json: Record<string, any> = {};
      if (req.method === 'POST') {
        if (
          String(req.headers['content-type'] ?? '')
            .replace(/\s/g, '')
            .toLowerCase() !== 'application/json;charset=utf-8' &&
          path.startsWith('/v2/post/')
        ) {
          return refuse(400, 'invalid_params', 'Content-Type must be application/json; charset=UTF-8');
        }
        try {
          json = body.length > 0 ? JSON.parse(body.toString('utf8')) : {};
        } catch {
          return refuse(400, 'invalid_params', 'The request body is not JSON.');
        }
      }

      if (req.method === 'GET' && path === '/v2/user/info/') {
        const fields = String(target.searchParams.get('fields') ?? '')
          .split(',')
          .filter(Boolean);
        if (fields.length === 0) return refuse(400, 'invalid_params', 'fields is required');
        if (!needScope('user.info.basic')) return;
        if (
          fields.some((f) => ['username', 'bio_description', 'profile_deep_link', 'is_verified'].includes(f)) &&
          !needScope('user.info.profile')
        )
          return;
        const stats = ['follower_count', 'following_count', 'likes_count', 'video_count'];
        if (fields.some((f) => stats.includes(f)) && !needScope('user.info.stats')) return;
        const all: Record<string, unknown> = {
          follower_count: creator.follower_count,
          open_id: creator.open_id,
          union_id: creator.union_id,
          avatar_url: creator.avatar_url,
          display_name: creator.display_name,
          username: creator.username,
        };
        return envelope(200, { user: Object.fromEntries(fields.filter((f) => f in all).map((f) => [f, all[f]])) });
      }

      if (req.method === 'POST' && path === '/v2/post/publish/creator_info/query/') {
        if (!needScope('video.publish')) return;
        const { open_id: _o, union_id: _u, follower_count: _f, username, display_name, avatar_url, ...rest } = creator;
        return envelope(200, {
          creator_avatar_url: avatar_url,
          creator_username: username,
          creator_nickname: display_name,
          ...rest,
        });
      }

      if (
        req.method === 'POST' &&
        (path === '/v2/post/publish/video/init/' ||
          path === '/v2/post/publish/inbox/video/init/' ||
          path === '/v2/post/publish/content/init/')
      ) {
        const photo = path === '/v2/post/publish/content/init/';
        const inbox = path === '/v2/post/publish/inbox/video/init/' || (photo && json.post_mode === 'MEDIA_UPLOAD');
        if (!needScope(inbox ? 'video.upload' : 'video.publish')) return;
        if (overLimit(`${bearer}:${path}`, 6))
          return refuse(429, 'rate_limit_exceeded', 'The API rate limit was exceeded. Please try again later.');
        const source = json.source_info ?? {};
        const info = json.post_info ?? {};
        if (photo) {
          if (json.media_type !== 'PHOTO' || !['DIRECT_POST', 'MEDIA_UPLOAD'].includes(json.post_mode))
            return refuse(400, 'invalid_params', 'media_type must be PHOTO and post_mode DIRECT_POST or MEDIA_UPLOAD');
          if (source.source !== 'PULL_FROM_URL')
            return refuse(400, 'invalid_params', 'photos take source PULL_FROM_URL only');
          const images: unknown[] = Array.isArray(source.photo_images) ? source.photo_images : [];
          if (images.length < 1 || images.length > 35)
            return refuse(400, 'invalid_params', 'photo_images must hold 1 to 35 URLs');
          if (
            !Number.isInteger(source.photo_cover_index) ||
            source.photo_cover_index < 0 ||
            source.photo_cover_index >= images.length
          )
            return refuse(400, 'invalid_params', 'photo_cover_index must index photo_images');
          if (
            images.some((u) => typeof u !== 'string' || !fake.verifiedPrefixes.some((prefix) => u.startsWith(prefix)))
          ) {
            return refuse(
              403,
              'url_ownership_unverified',
              'The domain or URL prefix of the photo URLs is not verified for this app.',
            );
          }
          if (typeof info.title === 'string' && [...info.title].length > 90)
            return refuse(400, 'invalid_params', 'title is longer than 90 characters');
          if (typeof info.description === 'string' && [...info.description].length > 4000)
            return refuse(400, 'invalid_params', 'description is longer than 4000 characters');
        } else if (source.source === 'FILE_UPLOAD') {
          const problem = chunkProblem(source);
          if (problem) return refuse(400, 'invalid_params', problem);
        } else {
          return refuse(
            400,
            'invalid_params',
            "source must be FILE_UPLOAD or PULL_FROM_URL (Herald's fake takes FILE_UPLOAD for videos)",
          );
        }
        const direct = !inbox;
        if (direct) {
          if (!creator.privacy_level_options.includes(info.privacy_level)) {
            return refuse(
              403,
              'privacy_level_option_mismatch',
              `privacy_level ${info.privacy_level ?? '(none)'} is not among the creator's privacy_level_options.`,
            );
          }
          // Direct post reference, post_info.title: "The video caption ... max 2200 UTF-16 runes".
          if (!photo && typeof info.title === 'string' && info.title.length > 2200)
            return refuse(400, 'invalid_params', 'title is longer than 2200 characters');
          if (creator.comment_disabled && info.disable_comment === false)
            return refuse(400, 'invalid_params', 'comments are off for this creator: disable_comment must be true');
        }
        const publish: FakePublish = {
          publish_id: `${photo ? 'p_pub_url' : 'v_pub_file'}~v2-1.${crypto.randomBytes(9).toString('hex')}`,
          kind: photo ? 'photo' : inbox ? 'inbox_video' : 'video',
          post_mode: direct ? 'DIRECT_POST' : 'MEDIA_UPLOAD',
          post_info: info,
          source_info: source,
          status: photo ? 'PROCESSING_DOWNLOAD' : 'PROCESSING_UPLOAD',
          uploaded_bytes: 0,
          downloaded_bytes: 0,
          ranges: [],
          bytes: [],
          pollsLeft: fake.processingPolls,
          post_id: null,
        };
        publishes.push(publish);
        if (photo) {
          void pullPhotos(publish).then(() => {
            if (publish.pollsLeft <= 0) settle(publish);
          });
          return envelope(200, { publish_id: publish.publish_id });
        }
        return envelope(200, {
          publish_id: publish.publish_id,
          upload_url:
            `${UPLOAD_ORIGIN}/upload/?upload_id=${encodeURIComponent(publish.publish_id)}` +
            `&upload_token=${uploadToken(publish)}`,
        });
      }

      if (req.method === 'POST' && path === '/v2/post/publish/status/fetch/') {
        if (!needScope('video.publish', 'video.upload')) return;
        if (overLimit(`${bearer}:status`, 30))
          return refuse(429, 'rate_limit_exceeded', 'The API rate limit was exceeded. Please try again later.');
        const publish = publishes.find((p) => p.publish_id === json.publish_id);
        if (!publish) return refuse(400, 'invalid_params', 'publish_id does not exist');
        const arrived =
          publish.kind === 'photo'
            ? publish.pulledFormats !== undefined
            : publish.ranges.length === publish.source_info.total_chunk_count;
        if (
          (publish.status === 'PROCESSING_DOWNLOAD' || publish.status === 'PROCESSING_UPLOAD') &&
          arrived &&
          publish.pollsLeft-- <= 0
        )
          settle(publish);
        // The post id is an int64 written as a bare JSON number, as TikTok writes it: past 2^53, a plain JSON.parse
        // rounds it to another id.
        const data = JSON.stringify({
          status: publish.status,
          ...(publish.fail_reason ? { fail_reason: publish.fail_reason } : {}),
          publicaly_available_post_id: '@IDS@',
          uploaded_bytes: publish.uploaded_bytes,
          downloaded_bytes: publish.downloaded_bytes,
        }).replace('"@IDS@"', `[${publish.post_id ?? ''}]`);
        if (dropped.delete(path)) return void req.socket.destroy();
        return void res
          .writeHead(200, { 'content-type': 'application/json; charset=UTF-8', 'x-tt-logid': logId })
          .end(`{"data":${data},"error":{"code":"ok","message":"","log_id":"${logId}"}}`);
      }

      if (req.method === 'POST' && path === '/v2/video/list/') {
        if (!needScope('video.list')) return;
        const fields = String(target.searchParams.get('fields') ?? '')
          .split(',')
          .filter(Boolean);
        if (fields.length === 0) return refuse(400, 'invalid_params', 'fields is required');
        const max = json.max_count ?? 10;
        if (!Number.isInteger(max) || max < 1 || max > 20)
          return refuse(400, 'invalid_params', 'max_count must be between 1 and 20');
        // The cursor is a UTC Unix time in milliseconds: videos created before it.
        const cursor = json.cursor ?? Number.MAX_SAFE_INTEGER;
        const listed = videos
          .filter((v) => v.privacy_level !== 'SELF_ONLY' && v.create_time * 1000 < cursor)
          .sort((a, b) => b.create_time - a.create_time || (BigInt(b.id) > BigInt(a.id) ? 1 : -1));
        const page = listed.slice(0, max);
        return envelope(200, {
          videos: page.map((v) => Object.fromEntries(fields.filter((f) => f in v).map((f) => [f, (v as any)[f]]))),
          cursor: page.length > 0 ? page[page.length - 1].create_time * 1000 : cursor,
          has_more: listed.length > page.length,
        });
      }

      refuse(404, 'invalid_params', `${req.method} ${path} is not an endpoint`);
    });
  });

  function uploadToken(publish: FakePublish): string {
    return crypto.createHash('sha256').update(`upload:${publish.publish_id}`).digest('hex').slice(0, 24);
  }

  /** The last chunk arrived: processing ends after `pollsLeft` status fetches. */
  function finishUpload(publish: FakePublish): void {
    if (publish.pollsLeft <= 0) settle(publish);
  }

  /**
   * Pulls a photo post's images as TikTok does after content/init, reading each one's format from its first bytes
   * (media transfer guide, image restrictions: JPEG and WebP only); an image that cannot be fetched counts as none.
   */
  async function pullPhotos(publish: FakePublish): Promise<void> {
    const formats: string[] = [];
    for (const image of publish.source_info.photo_images as string[]) {
      const bytes = await fetch(image).then(
        async (r) => (r.ok ? Buffer.from(await r.arrayBuffer()) : Buffer.alloc(0)),
        () => Buffer.alloc(0),
      );
      if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) formats.push('jpeg');
      else if (
        bytes.subarray(0, 4).toString('latin1') === 'RIFF' &&
        bytes.subarray(8, 12).toString('latin1') === 'WEBP'
      )
        formats.push('webp');
      else if (bytes.subarray(1, 4).toString('latin1') === 'PNG') formats.push('png');
      else formats.push('unknown');
    }
    publish.pulledFormats = formats;
  }

  function settle(publish: FakePublish): void {
    if (publish.pulledFormats?.some((format) => format !== 'jpeg' && format !== 'webp')) {
      publish.status = 'FAILED';
      publish.fail_reason = 'file_format_check_failed';
      return;
    }
    const reason = failures.shift();
    if (reason) {
      publish.status = 'FAILED';
      publish.fail_reason = reason;
      return;
    }
    if (publish.post_mode === 'MEDIA_UPLOAD') {
      publish.status = 'SEND_TO_USER_INBOX';
      return;
    }
    if (publish.kind === 'photo')
      publish.downloaded_bytes = (publish.source_info.photo_images as unknown[]).length * 1024;
    const privacy = String(publish.post_info.privacy_level);
    const title = String(
      publish.kind === 'photo'
        ? (publish.post_info.description ?? publish.post_info.title ?? '')
        : (publish.post_info.title ?? ''),
    );
    const video = addVideo(title, privacy, Math.floor(Date.now() / 1000));
    publish.status = 'PUBLISH_COMPLETE';
    // Private posts are made but get no public id (get-video-status: publicaly_available_post_id).
    publish.post_id = privacy === 'SELF_ONLY' ? null : video.id;
  }

  return fake;
}
