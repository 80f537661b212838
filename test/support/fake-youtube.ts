import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Google OAuth and the YouTube Data API v3 as their documents describe them, for connector tests: Google's OAuth 2.0
 * web-server guide (/o/oauth2/v2/auth, /token with PKCE, offline access and prompt=consent, /revoke, /tokeninfo),
 * the resumable upload guide (session in Location, chunks in multiples of 256 KiB with Content-Range, 308 with Range,
 * `bytes *\/total` status queries, 404 for an expired session), and the channels, videos, playlistItems and
 * commentThreads references with their error bodies ({error:{code, message, errors:[{domain, reason, message}]}}).
 * One server plays accounts.google.com, oauth2.googleapis.com and www.googleapis.com (tests point all three at it).
 */
export const UPLOAD_QUANTUM = 256 * 1024;
const UPLOAD_SCOPE = 'https://www.googleapis.com/auth/youtube.upload';
const FORCE_SSL = 'https://www.googleapis.com/auth/youtube.force-ssl';
const KNOWN_SCOPES = [
  UPLOAD_SCOPE,
  FORCE_SSL,
  'https://www.googleapis.com/auth/youtube',
  'https://www.googleapis.com/auth/youtube.readonly',
];

export interface FakeVideo {
  id: string;
  snippet: {
    publishedAt: string;
    channelId: string;
    title: string;
    description: string;
    tags?: string[];
    categoryId: string;
  };
  status: {
    uploadStatus: string;
    privacyStatus: string;
    publishAt?: string;
    selfDeclaredMadeForKids: boolean;
    failureReason?: string;
  };
  statistics: { viewCount: string; likeCount: string; favoriteCount: string; commentCount: string };
  bytes: number;
}

interface Session {
  id: string;
  token: string;
  total: number;
  contentType: string;
  resource: any;
  received: Buffer[];
  receivedBytes: number;
  video: FakeVideo | null;
}

interface Scripted {
  status: number;
  reason: string;
  message: string;
  domain: string;
  headers: Record<string, string>;
}

export interface FakeYouTube {
  url: string;
  client: { id: string; secret: string; redirectUri: string };
  /** The person's channel; subscribers is what channels.list answers as statistics.subscriberCount. */
  channel: { id: string; title: string; customUrl: string; uploads: string; subscribers: number };
  videos: FakeVideo[];
  comments: { id: string; videoId: string; text: string; publishedAt: string }[];
  /** "METHOD path" of every request, in order. */
  requests: string[];
  /** Each upload chunk's Content-Range and length, in order. */
  chunks: { range: string; length: number }[];
  denyNext: boolean;
  /** The scopes the person leaves ticked at the next consent (granular consent); all asked for when null. */
  grantOnly: string[] | null;
  /** The next token exchange sends no refresh token, as Google does for a repeat consent without prompt=consent. */
  withholdRefreshTokenNext: boolean;
  /** The next video finishes uploading, then fails processing with this failureReason (codec, conversion, ...). */
  failProcessingNext: string | null;
  /** The next call to `path` answers this Google error instead of doing anything. */
  failNext(
    path: string,
    status: number,
    reason: string,
    message: string,
    headers?: Record<string, string>,
    domain?: string,
  ): void;
  /** The next upload chunk: its first `keep` bytes arrive, then the connection breaks. */
  cutNextChunk(keep: number): void;
  /** The chunk that completes the next video: the video is made, then the connection breaks before the answer. */
  dropAnswerAfterLastChunk(): void;
  /** The next comment thread is made, then the connection breaks before the answer. */
  dropNextCommentAnswer(): void;
  /** Every open upload session expires (404). */
  expireSessions(): void;
  /** The session expires right after the next chunk that does not complete its video arrives. */
  expireSessionAfterNextChunk(): void;
  /** Access tokens stop working (401); refresh tokens still do. */
  expireAccessTokens(): void;
  /** The person removed Herald's access: refresh tokens answer invalid_grant, access tokens 401. */
  revokeAll(): void;
  addViews(videoId: string, views: number, likes: number): void;
  refreshTokens(): number;
  uploadsStarted(): number;
  close(): Promise<void>;
}

function googleError(status: number, reason: string, message: string, domain = 'global'): unknown {
  return { error: { code: status, message, errors: [{ message, domain, reason }] } };
}

export async function startFakeYouTube(): Promise<FakeYouTube> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const codes = new Map<
    string,
    { challenge: string; redirectUri: string; scope: string; offline: boolean; consent: boolean }
  >();
  const accessTokens = new Map<string, { scope: string; expiresAt: number }>();
  const refreshTokens = new Map<string, { scope: string }>();
  const sessions = new Map<string, Session>();
  const scripted = new Map<string, Scripted>();
  let cut: number | null = null;
  let dropLast = false;
  let dropComment = false;
  let expireAfterChunk = false;
  let uploadsStarted = 0;
  const newId = () => crypto.randomBytes(8).toString('base64url');

  const fake: FakeYouTube = {
    url,
    client: { id: 'herald-test.apps.googleusercontent.com', secret: 'GOCSPX-test-secret', redirectUri: '' },
    channel: {
      id: 'UCx7alice000000000000000',
      title: 'Alice Films',
      customUrl: '@alicefilms',
      uploads: 'UUx7alice000000000000000',
      subscribers: 0,
    },
    videos: [],
    comments: [],
    requests: [],
    chunks: [],
    denyNext: false,
    grantOnly: null,
    withholdRefreshTokenNext: false,
    failProcessingNext: null,
    failNext(path, status, reason, message, headers = {}, domain = 'youtube.quota') {
      scripted.set(path, { status, reason, message, headers, domain });
    },
    cutNextChunk(keep) {
      cut = keep;
    },
    dropAnswerAfterLastChunk() {
      dropLast = true;
    },
    dropNextCommentAnswer() {
      dropComment = true;
    },
    expireSessions() {
      sessions.clear();
    },
    expireSessionAfterNextChunk() {
      expireAfterChunk = true;
    },
    expireAccessTokens() {
      accessTokens.clear();
    },
    revokeAll() {
      accessTokens.clear();
      refreshTokens.clear();
    },
    addViews(videoId, views, likes) {
      const video = fake.videos.find((v) => v.id === videoId)!;
      video.statistics.viewCount = String(Number(video.statistics.viewCount) + views);
      video.statistics.likeCount = String(Number(video.statistics.likeCount) + likes);
    },
    refreshTokens: () => refreshTokens.size,
    uploadsStarted: () => uploadsStarted,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };

  function issueAccessToken(scope: string): {
    access_token: string;
    expires_in: number;
    scope: string;
    token_type: string;
  } {
    const token = `ya29.${crypto.randomBytes(24).toString('base64url')}`;
    accessTokens.set(token, { scope, expiresAt: Date.now() + 3_599_000 });
    return { access_token: token, expires_in: 3599, scope, token_type: 'Bearer' };
  }

  function makeVideo(session: Session): FakeVideo {
    const snippet = session.resource.snippet ?? {};
    const status = session.resource.status ?? {};
    const processing = fake.failProcessingNext;
    fake.failProcessingNext = null;
    const video: FakeVideo = {
      id: newId().slice(0, 11),
      snippet: {
        publishedAt: new Date().toISOString(),
        channelId: fake.channel.id,
        title: snippet.title,
        description: snippet.description ?? '',
        ...(snippet.tags ? { tags: snippet.tags } : {}),
        categoryId: snippet.categoryId ?? '22',
      },
      status: {
        uploadStatus: processing ? 'failed' : 'uploaded',
        privacyStatus: status.privacyStatus ?? 'public',
        selfDeclaredMadeForKids: status.selfDeclaredMadeForKids === true,
        ...(status.publishAt ? { publishAt: status.publishAt } : {}),
        ...(processing ? { failureReason: processing } : {}),
      },
      statistics: { viewCount: '0', likeCount: '0', favoriteCount: '0', commentCount: '0' },
      bytes: session.total,
    };
    fake.videos.unshift(video);
    return video;
  }

  const resource = (video: FakeVideo, parts: string[]) => ({
    kind: 'youtube#video',
    etag: crypto.createHash('md5').update(video.id).digest('hex'),
    id: video.id,
    ...Object.fromEntries(
      parts.filter((p) => p === 'snippet' || p === 'status' || p === 'statistics').map((p) => [p, (video as any)[p]]),
    ),
    ...(parts.includes('processingDetails')
      ? { processingDetails: { processingStatus: video.status.uploadStatus === 'failed' ? 'failed' : 'succeeded' } }
      : {}),
  });

  server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    const target = new URL(req.url ?? '/', url);
    const path = target.pathname;
    fake.requests.push(`${req.method} ${path}`);
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res
        .writeHead(status, { 'content-type': 'application/json; charset=UTF-8', ...headers })
        .end(payload === undefined ? '' : JSON.stringify(payload));
    };
    const contentRange = String(req.headers['content-range'] ?? '');
    const session =
      req.method === 'PUT' && path === '/upload/youtube/v3/videos'
        ? sessions.get(target.searchParams.get('upload_id') ?? '')
        : undefined;
    const chunkMatch = /^bytes (\d+)-(\d+)\/(\d+)$/.exec(contentRange);
    if (session && chunkMatch && cut !== null) {
      // Only part of the chunk arrives before the connection breaks: Google keeps what it received.
      const keep = cut;
      cut = null;
      let got = 0;
      req.on('data', (c: Buffer) => {
        const take = c.subarray(0, Math.max(0, keep - got));
        if (take.length > 0) {
          session.received.push(take);
          session.receivedBytes += take.length;
          got += take.length;
        }
        if (got >= keep) req.socket.destroy();
      });
      return;
    }
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const script = scripted.get(path);
      if (script) {
        scripted.delete(path);
        return send(
          script.status,
          googleError(script.status, script.reason, script.message, script.domain),
          script.headers,
        );
      }
      const contentType = String(req.headers['content-type'] ?? '');
      const form = contentType.startsWith('application/x-www-form-urlencoded')
        ? Object.fromEntries(new URLSearchParams(body.toString('utf8')))
        : {};
      const params: Record<string, string> = { ...Object.fromEntries(target.searchParams), ...form };
      const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
      const grant = bearer ? accessTokens.get(bearer) : undefined;
      const authorized = (scopes: string[]) => {
        if (!grant || grant.expiresAt < Date.now()) {
          send(401, {
            error: {
              code: 401,
              message:
                'Request had invalid authentication credentials. Expected OAuth 2 access token, ' +
                'login cookie or other valid authentication credential.',
              errors: [
                {
                  message: 'Invalid Credentials',
                  domain: 'global',
                  reason: 'authError',
                  location: 'Authorization',
                  locationType: 'header',
                },
              ],
              status: 'UNAUTHENTICATED',
            },
          });
          return false;
        }
        if (!scopes.some((s) => grant.scope.split(' ').includes(s))) {
          send(403, googleError(403, 'insufficientPermissions', 'Request had insufficient authentication scopes.'));
          return false;
        }
        return true;
      };

      if (req.method === 'GET' && path === '/o/oauth2/v2/auth') {
        if (params.client_id !== fake.client.id)
          return void res
            .writeHead(400, { 'content-type': 'text/html' })
            .end('<p>Error 401: invalid_client. The OAuth client was not found.</p>');
        if (params.redirect_uri !== fake.client.redirectUri)
          return void res
            .writeHead(400, { 'content-type': 'text/html' })
            .end('<p>Error 400: redirect_uri_mismatch</p>');
        const asked = String(params.scope ?? '').split(' ');
        if (params.response_type !== 'code' || asked.some((s) => !KNOWN_SCOPES.includes(s)))
          return void res.writeHead(400, { 'content-type': 'text/html' }).end('<p>Error 400: invalid_request</p>');
        if (params.code_challenge_method !== 'S256' || !params.code_challenge)
          return void res
            .writeHead(400, { 'content-type': 'text/html' })
            .end('<p>Error 400: invalid_request (code_challenge)</p>');
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
            offline: params.access_type === 'offline',
            consent: params.prompt === 'consent',
          });
          back.searchParams.set('code', code);
          back.searchParams.set('scope', scope);
        }
        return void res.writeHead(302, { location: back.toString() }).end();
      }
      if (req.method === 'POST' && path === '/token') {
        if (params.client_id !== fake.client.id || params.client_secret !== fake.client.secret)
          return send(401, { error: 'invalid_client', error_description: 'The OAuth client was not found.' });
        if (params.grant_type === 'authorization_code') {
          const granted = codes.get(params.code);
          codes.delete(params.code);
          if (!granted || granted.redirectUri !== params.redirect_uri)
            return send(400, { error: 'invalid_grant', error_description: 'Malformed auth code.' });
          if (
            crypto
              .createHash('sha256')
              .update(String(params.code_verifier ?? ''))
              .digest('base64url') !== granted.challenge
          ) {
            return send(400, { error: 'invalid_grant', error_description: 'Invalid code verifier.' });
          }
          const answer: Record<string, unknown> = issueAccessToken(granted.scope);
          // Google sends a refresh token for offline access; a repeat consent gets one only with prompt=consent.
          if (granted.offline && granted.consent && !fake.withholdRefreshTokenNext) {
            const refresh = `1//${crypto.randomBytes(24).toString('base64url')}`;
            refreshTokens.set(refresh, { scope: granted.scope });
            answer.refresh_token = refresh;
          }
          fake.withholdRefreshTokenNext = false;
          return send(200, answer);
        }
        if (params.grant_type === 'refresh_token') {
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
      if (req.method === 'POST' && path === '/revoke') {
        const token = params.token;
        if (!refreshTokens.delete(token) && !accessTokens.delete(token))
          return send(400, { error: 'invalid_token', error_description: 'Token expired or revoked' });
        return send(200, {});
      }
      if (req.method === 'GET' && path === '/tokeninfo') {
        const info = accessTokens.get(params.access_token ?? '');
        if (!info) return send(400, { error: 'invalid_token', error_description: 'Invalid Value' });
        const expiresIn = Math.floor((info.expiresAt - Date.now()) / 1000);
        return send(200, {
          azp: fake.client.id,
          aud: fake.client.id,
          scope: info.scope,
          exp: String(Math.floor(info.expiresAt / 1000)),
          expires_in: String(expiresIn),
          access_type: 'offline',
        });
      }
      if (req.method === 'GET' && path === '/youtube/v3/channels') {
        if (!authorized(KNOWN_SCOPES)) return;
        if (params.mine !== 'true' || !params.part)
          return send(
            400,
            googleError(
              400,
              'missingRequiredParameter',
              'No filter selected. Expected one of: mine, id, forHandle, ...',
              'youtube.parameter',
            ),
          );
        const parts = params.part.split(',');
        return send(200, {
          kind: 'youtube#channelListResponse',
          pageInfo: { totalResults: 1, resultsPerPage: 5 },
          items: [
            {
              kind: 'youtube#channel',
              id: fake.channel.id,
              ...(parts.includes('snippet')
                ? {
                    snippet: {
                      title: fake.channel.title,
                      customUrl: fake.channel.customUrl,
                      thumbnails: { default: { url: `${url}/avatars/alice.jpg`, width: 88, height: 88 } },
                    },
                  }
                : {}),
              ...(parts.includes('contentDetails')
                ? { contentDetails: { relatedPlaylists: { likes: '', uploads: fake.channel.uploads } } }
                : {}),
              // The channel resource's statistics: counts as strings (unsigned long), as YouTube sends them.
              ...(parts.includes('statistics')
                ? {
                    statistics: {
                      viewCount: '0',
                      subscriberCount: String(fake.channel.subscribers),
                      hiddenSubscriberCount: false,
                      videoCount: String(fake.videos.length),
                    },
                  }
                : {}),
            },
          ],
        });
      }
      if (req.method === 'POST' && path === '/upload/youtube/v3/videos') {
        if (!authorized([UPLOAD_SCOPE, FORCE_SSL, 'https://www.googleapis.com/auth/youtube'])) return;
        if (params.uploadType !== 'resumable')
          return send(400, googleError(400, 'invalidParameter', 'uploadType must be resumable here'));
        if (
          !String(params.part ?? '')
            .split(',')
            .includes('snippet')
        )
          return send(400, googleError(400, 'invalidPart', 'The part parameter must include snippet.', 'youtube.part'));
        const total = Number(req.headers['x-upload-content-length']);
        const type = String(req.headers['x-upload-content-type'] ?? '');
        if (!Number.isInteger(total) || total <= 0)
          return send(
            400,
            googleError(400, 'badContent', 'X-Upload-Content-Length must be the size of the video in bytes.'),
          );
        if (!type.startsWith('video/') && type !== 'application/octet-stream')
          return send(400, googleError(400, 'badContent', "Media type '" + type + "' is not supported."));
        let metadata: any;
        try {
          metadata = JSON.parse(body.toString('utf8'));
        } catch {
          return send(400, googleError(400, 'parseError', 'Parse Error'));
        }
        const title = metadata?.snippet?.title;
        if (typeof title !== 'string' || title.trim() === '')
          return send(
            400,
            googleError(
              400,
              'invalidTitle',
              'The request metadata specifies an invalid or empty video title.',
              'youtube.video',
            ),
          );
        if ([...title].length > 100 || /[<>]/.test(title))
          return send(
            400,
            googleError(400, 'invalidTitle', 'The request metadata specifies an invalid video title.', 'youtube.video'),
          );
        // youtube/v3/docs/videos, snippet.description: at most 5,000 bytes, and no < or >.
        const description = String(metadata.snippet.description ?? '');
        if (Buffer.byteLength(description, 'utf8') > 5000 || /[<>]/.test(description))
          return send(
            400,
            googleError(
              400,
              'invalidDescription',
              'The request metadata specifies an invalid video description.',
              'youtube.video',
            ),
          );
        const status = metadata.status ?? {};
        if (status.privacyStatus && !['public', 'private', 'unlisted'].includes(status.privacyStatus))
          return send(
            400,
            googleError(400, 'invalidVideoMetadata', 'The request metadata is invalid.', 'youtube.video'),
          );
        if (status.publishAt && status.privacyStatus !== 'private')
          return send(
            400,
            googleError(
              400,
              'invalidPublishAt',
              'The request metadata specifies an invalid scheduled publishing time.',
              'youtube.video',
            ),
          );
        const id = crypto.randomBytes(18).toString('base64url');
        sessions.set(id, {
          id,
          token: bearer!,
          total,
          contentType: type,
          resource: metadata,
          received: [],
          receivedBytes: 0,
          video: null,
        });
        uploadsStarted++;
        // Google names its own upload address; the test points that origin back at this fake.
        return send(200, undefined, {
          location:
            'https://www.googleapis.com/upload/youtube/v3/videos' +
            `?uploadType=resumable&part=snippet,status&upload_id=${id}`,
        });
      }
      if (req.method === 'PUT' && path === '/upload/youtube/v3/videos') {
        if (!session) return send(404, googleError(404, 'notFound', 'Not Found'));
        if (!authorized([UPLOAD_SCOPE, FORCE_SSL, 'https://www.googleapis.com/auth/youtube'])) return;
        const videoAnswer = (code: number) => send(code, resource(session.video!, ['snippet', 'status']));
        const rangeHeader: Record<string, string> =
          session.receivedBytes > 0 ? { range: `bytes=0-${session.receivedBytes - 1}` } : {};
        const query = /^bytes \*\/(\d+)$/.exec(contentRange);
        if (query) {
          if (Number(query[1]) !== session.total || body.length > 0)
            return send(400, googleError(400, 'badContent', 'Failed to parse Content-Range header.'));
          if (session.video) return videoAnswer(200);
          return send(308, undefined, rangeHeader);
        }
        if (!chunkMatch) return send(400, googleError(400, 'badContent', 'Failed to parse Content-Range header.'));
        const [first, last, total] = chunkMatch.slice(1).map(Number);
        fake.chunks.push({ range: contentRange, length: body.length });
        if (total !== session.total)
          return send(
            400,
            googleError(
              400,
              'badContent',
              `Content-Range total ${total} does not match X-Upload-Content-Length ${session.total}.`,
            ),
          );
        if (first !== session.receivedBytes)
          return send(
            400,
            googleError(
              400,
              'badContent',
              `Content-Range starts at ${first}, but ${session.receivedBytes} bytes were received.`,
            ),
          );
        if (last - first + 1 !== body.length)
          return send(
            400,
            googleError(
              400,
              'badContent',
              `Content-Range spans ${last - first + 1} bytes, but the body has ${body.length}.`,
            ),
          );
        const final = last === total - 1;
        if (!final && body.length % UPLOAD_QUANTUM !== 0)
          return send(
            400,
            googleError(400, 'badContent', 'Every chunk but the last must be a multiple of 256 KiB (262144 bytes).'),
          );
        session.received.push(body);
        session.receivedBytes += body.length;
        if (!final) {
          if (expireAfterChunk) {
            expireAfterChunk = false;
            sessions.delete(session.id);
          }
          return send(308, undefined, { range: `bytes=0-${session.receivedBytes - 1}` });
        }
        session.video = makeVideo(session);
        if (dropLast) {
          dropLast = false;
          req.socket.destroy();
          return;
        }
        return videoAnswer(201);
      }
      if (req.method === 'GET' && path === '/youtube/v3/videos') {
        if (!authorized(KNOWN_SCOPES)) return;
        const ids = String(params.id ?? '')
          .split(',')
          .filter((i) => i !== '');
        if (ids.length > 50) return send(400, googleError(400, 'tooManyIds', 'Too many ids', 'youtube.parameter'));
        const parts = String(params.part ?? '').split(',');
        return send(200, {
          kind: 'youtube#videoListResponse',
          items: fake.videos.filter((v) => ids.includes(v.id)).map((v) => resource(v, parts)),
        });
      }
      if (req.method === 'GET' && path === '/youtube/v3/playlistItems') {
        if (!authorized(KNOWN_SCOPES)) return;
        if (params.playlistId !== fake.channel.uploads)
          return send(
            404,
            googleError(
              404,
              'playlistNotFound',
              "The playlist identified with the request's playlistId parameter cannot be found.",
              'youtube.playlistItem',
            ),
          );
        const size = Math.min(50, Number(params.maxResults ?? 5));
        const start = params.pageToken ? Number(Buffer.from(params.pageToken, 'base64url').toString('utf8')) : 0;
        const page = fake.videos.slice(start, start + size);
        const more = start + size < fake.videos.length;
        return send(200, {
          kind: 'youtube#playlistItemListResponse',
          ...(more ? { nextPageToken: Buffer.from(String(start + size)).toString('base64url') } : {}),
          pageInfo: { totalResults: fake.videos.length, resultsPerPage: size },
          items: page.map((v) => ({
            kind: 'youtube#playlistItem',
            id: `PLI${v.id}`,
            contentDetails: { videoId: v.id, videoPublishedAt: v.snippet.publishedAt },
          })),
        });
      }
      if (req.method === 'POST' && path === '/youtube/v3/commentThreads') {
        if (!authorized([FORCE_SSL])) return;
        let thread: any;
        try {
          thread = JSON.parse(body.toString('utf8'));
        } catch {
          return send(400, googleError(400, 'parseError', 'Parse Error'));
        }
        const videoId = thread?.snippet?.videoId;
        const text = thread?.snippet?.topLevelComment?.snippet?.textOriginal;
        if (!fake.videos.some((v) => v.id === videoId))
          return send(
            404,
            googleError(
              404,
              'videoNotFound',
              'The video identified by the videoId parameter could not be found.',
              'youtube.commentThread',
            ),
          );
        if (typeof text !== 'string' || text === '')
          return send(
            400,
            googleError(
              400,
              'commentTextRequired',
              'The comment resource must contain a textOriginal.',
              'youtube.commentThread',
            ),
          );
        const id = `Ug${crypto.randomBytes(10).toString('hex')}`;
        const publishedAt = new Date().toISOString();
        fake.comments.push({ id, videoId, text, publishedAt });
        const video = fake.videos.find((v) => v.id === videoId)!;
        video.statistics.commentCount = String(Number(video.statistics.commentCount) + 1);
        if (dropComment) {
          dropComment = false;
          req.socket.destroy();
          return;
        }
        return send(200, {
          kind: 'youtube#commentThread',
          id,
          snippet: {
            channelId: fake.channel.id,
            videoId,
            topLevelComment: { kind: 'youtube#comment', id, snippet: { textOriginal: text, textDisplay: text } },
          },
        });
      }
      if (req.method === 'GET' && path === '/youtube/v3/commentThreads') {
        // commentThreads.list: part and exactly one filter are required; newest first with order=time.
        if (
          !authorized([
            FORCE_SSL,
            'https://www.googleapis.com/auth/youtube.readonly',
            'https://www.googleapis.com/auth/youtube',
          ])
        )
          return;
        const params = Object.fromEntries(target.searchParams);
        if (!params.part?.split(',').includes('snippet'))
          return send(
            400,
            googleError(
              400,
              'missingRequiredParameter',
              'No filter selected. Expected one of: allThreadsRelatedToChannelId, id, videoId',
              'youtube.parameter',
            ),
          );
        if (!params.videoId)
          return send(
            400,
            googleError(
              400,
              'missingRequiredParameter',
              'No filter selected. Expected one of: allThreadsRelatedToChannelId, id, videoId',
              'youtube.parameter',
            ),
          );
        if (!fake.videos.some((v) => v.id === params.videoId))
          return send(
            404,
            googleError(
              404,
              'videoNotFound',
              'The video identified by the videoId parameter could not be found.',
              'youtube.commentThread',
            ),
          );
        const size = Math.min(100, Number(params.maxResults ?? 20));
        const threads = fake.comments
          .filter((c) => c.videoId === params.videoId)
          .reverse()
          .slice(0, size);
        return send(200, {
          kind: 'youtube#commentThreadListResponse',
          pageInfo: { totalResults: threads.length, resultsPerPage: size },
          items: threads.map((c) => ({
            kind: 'youtube#commentThread',
            id: c.id,
            snippet: {
              channelId: fake.channel.id,
              videoId: c.videoId,
              canReply: true,
              totalReplyCount: 0,
              isPublic: true,
              topLevelComment: {
                kind: 'youtube#comment',
                id: c.id,
                snippet: {
                  authorChannelId: { value: fake.channel.id },
                  videoId: c.videoId,
                  textOriginal: c.text,
                  textDisplay: c.text,
                  publishedAt: c.publishedAt,
                },
              },
            },
          })),
        });
      }
      send(404, googleError(404, 'notFound', 'Not Found'));
    });
  });
  return fake;
}
