import { NETWORK_CAPABILITIES } from '../../domain/networks/capabilities.js';
import {
  NetworkError,
  type AttemptLookup,
  type AuthorizationStart,
  type CommentLookup,
  type CommentRequest,
  type ConnectedAccount,
  type ConnectionCheck,
  type ConnectionMethod,
  type ConnectorChannel,
  type NetworkConnector,
  type NetworkPost,
  type OpenedCredentials,
  type PublishRequest,
  type PublishedPost,
  type Readiness,
  type RecentPostsPage,
} from '../../domain/networks/connector.js';
import {
  downloadMedia,
  retryAtFrom,
  type NetworkAnswer,
  type NetworkHttp,
  type NetworkHttpOptions,
  type NetworkRequest,
} from './network-http.js';
import { GOOGLE_AUTHORIZE_URL, GOOGLE_OAUTH, GOOGLE_TOKENINFO_URL } from './google-oauth.js';
import { OAuth2Client } from './oauth2-client.js';
import { YOUTUBE_CALL_COSTS, type QuotaBucket, type YouTubeQuota } from './youtube-quota.js';
import { ResumableUpload, SessionGone, UPLOAD_ORIGIN, type UploadFile } from './youtube-upload.js';

/**
 * YouTube through Google OAuth and the YouTube Data API v3 (NETWORKS.md; Google's OAuth web-server guide, resumable
 * upload guide, quota calculator and the videos, commentThreads, playlistItems and channels references).
 *
 * Rules kept here:
 * - consent asks for offline access with prompt=consent, so Google sends a refresh token every time; a consent that
 *   brings none, or leaves out the upload scope, connects nothing (a stored refresh token is never replaced by none);
 * - access tokens last about an hour: refreshed ahead of expiry and once on a 401, through the vault; Google's
 *   invalid_grant is reconnect_needed, with the reasons Google gives for it (revoked, six months unused, seven days
 *   while the app is in Testing);
 * - a post is one video, uploaded by the resumable protocol (youtube-upload.ts); its session is recorded with the
 *   attempt before the first byte, so an attempt whose outcome is unknown resumes that session or finds its video,
 *   and never uploads twice; a session gone with no video starts one new session;
 * - title, tags, category, privacy, made-for-kids and publishAt come from channelOptions; publishAt needs a private
 *   video (YouTube makes it public then);
 * - every call is charged to the project's daily quota first (youtube-quota.ts); quotaExceeded waits until
 *   midnight Pacific time, rateLimitExceeded and 5xx retry later, uploadLimitExceeded (the channel's own daily
 *   cap) waits for the next day; a missing permission needs a reconnect; before a post's slot its readiness is
 *   what the day's counts leave (an upload and its units), read without charging them;
 * - the first comment is a comment thread (youtube.force-ssl); live sync reads the uploads playlist and
 *   videos.list statistics, and the channel's statistics.subscriberCount (channels.list, one unit) as its audience.
 */
const REVOKE_URL = 'https://oauth2.googleapis.com/revoke';
const API = 'https://www.googleapis.com/youtube/v3';
const UPLOAD_SCOPE = 'https://www.googleapis.com/auth/youtube.upload';
const COMMENT_SCOPE = 'https://www.googleapis.com/auth/youtube.force-ssl';
const SCOPES = [UPLOAD_SCOPE, COMMENT_SCOPE];
/** Refreshed this long before Google's expiry, so no call starts with a token about to lapse. */
const REFRESH_AHEAD_MS = 5 * 60_000;
/** "People & Blogs", YouTube's default category for uploads that name none. */
const DEFAULT_CATEGORY = '22';
/** Leeway between Herald's clock and YouTube's when matching a video to an attempt. */
const CLOCK_SKEW_MS = 60_000;

export interface GoogleApp {
  clientId: string;
  clientSecret: string;
  youtubeChunkBytes: number;
}

interface YouTubeCredentials {
  accessToken: string;
  refreshToken: string;
  scope: string;
  channelId: string;
  uploadsPlaylist: string;
}

interface UploadHandle {
  session: string;
  videoUrl: string;
  bytes: number;
  contentType: string;
}

export class YouTubeNetwork implements NetworkConnector {
  readonly capabilities = NETWORK_CAPABILITIES.youtube;
  readonly connection: ConnectionMethod = { kind: 'oauth', fields: [] };

  constructor(
    private readonly http: NetworkHttp,
    private readonly media: NetworkHttpOptions,
    private readonly now: () => number,
    private readonly app: () => GoogleApp | undefined,
    private readonly quota: YouTubeQuota,
  ) {
    this.oauth = new OAuth2Client(http, GOOGLE_OAUTH, () => this.google(), now);
  }

  private readonly oauth: OAuth2Client;

  async readiness(): Promise<Readiness> {
    const project = this.google().clientId;
    const needs = [
      ['uploads', YOUTUBE_CALL_COSTS.videosInsert],
      ['units', YOUTUBE_CALL_COSTS.list],
    ] as const;
    for (const [bucket, needed] of needs) {
      if ((await this.quota.left(project, bucket)) < needed) {
        return { quotaSpent: { message: this.quota.spentMessage(bucket), until: this.quota.resetAt() } };
      }
    }
    return {};
  }

  configured(): boolean {
    return this.app() !== undefined;
  }

  async startAuthorization(input: {
    redirectUri: string;
    state: string;
    codeChallenge: string;
  }): Promise<AuthorizationStart> {
    const query = new URLSearchParams({
      client_id: this.google().clientId,
      redirect_uri: input.redirectUri,
      response_type: 'code',
      scope: SCOPES.join(' '),
      access_type: 'offline',
      prompt: 'consent',
      include_granted_scopes: 'true',
      state: input.state,
      code_challenge: input.codeChallenge,
      code_challenge_method: 'S256',
    });
    return { authorizationUrl: `${GOOGLE_AUTHORIZE_URL}?${query}`, keep: {} };
  }

  async finishAuthorization(input: {
    code: string;
    redirectUri: string;
    codeVerifier: string;
  }): Promise<ConnectedAccount[]> {
    const app = this.google();
    const token = await this.oauth.exchangeCode(input);
    const granted = token.scopes;
    if (!granted.includes(UPLOAD_SCOPE)) {
      throw new NetworkError(
        'permanent',
        'Google granted Herald no permission to upload videos: connect again and leave "Manage your YouTube videos" ' +
          'ticked',
      );
    }
    if (token.refreshToken === null) {
      throw new NetworkError(
        'permanent',
        'Google sent no refresh token, so Herald could not keep the channel connected: ' +
          'remove Herald at myaccount.google.com/permissions, then connect again',
      );
    }
    const accessToken = token.accessToken;
    await this.quota.spend(app.clientId, 'units', YOUTUBE_CALL_COSTS.list);
    const mine = await this.http.request(`${API}/channels?part=snippet,contentDetails&mine=true`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    if (mine.status !== 200) throw await this.failure(mine);
    const channel = mine.json?.items?.[0];
    if (!channel)
      throw new NetworkError(
        'permanent',
        'This Google account has no YouTube channel: create one at youtube.com, then connect again',
      );
    return [
      {
        networkAccountId: String(channel.id),
        handle: String(channel.snippet?.customUrl || channel.snippet?.title || channel.id),
        displayName: channel.snippet?.title ?? null,
        avatarUrl: channel.snippet?.thumbnails?.default?.url ?? null,
        credentials: {
          accessToken,
          refreshToken: token.refreshToken,
          scope: granted.join(' '),
          channelId: String(channel.id),
          uploadsPlaylist: String(channel.contentDetails?.relatedPlaylists?.uploads ?? ''),
        },
        expiresAt: token.expiresAt,
        textLimit: null,
      },
    ];
  }

  async refresh(channel: ConnectorChannel): Promise<void> {
    await this.refreshed(channel, (await channel.vault.read()).version);
  }

  async revoke(channel: ConnectorChannel): Promise<void> {
    const c = (await channel.vault.read()).credentials as unknown as YouTubeCredentials;
    const answer = await this.http.request(REVOKE_URL, { method: 'POST', form: { token: c.refreshToken } });
    // invalid_token: Google no longer knows the token, which is what revoking asks for.
    if (answer.status === 200 || answer.json?.error === 'invalid_token') return;
    throw new NetworkError(
      answer.status >= 500 ? 'retry_later' : 'permanent',
      `Google did not revoke the token (${answer.json?.error_description ?? `HTTP ${answer.status}`})`,
    );
  }

  async publish(request: PublishRequest): Promise<PublishedPost> {
    const app = this.google();
    if (request.videoUrls.length !== 1 || request.imageUrls.length > 0) {
      throw new NetworkError('permanent', 'A YouTube post is exactly one video, with no images');
    }
    const resource = videoResource(request.text, request.channelOptions ?? {});
    const videoUrl = request.videoUrls[0];
    await this.quota.spend(app.clientId, 'uploads', YOUTUBE_CALL_COSTS.videosInsert);
    const file = await downloadMedia(this.media, request.channel.accountId, videoUrl, this.media.maxBytes);
    for (let session = 1; ; session++) {
      const uri = await this.startSession(request.channel, resource, file);
      await request.recordHandle(
        JSON.stringify({
          session: uri,
          videoUrl,
          bytes: file.bytes.length,
          contentType: file.contentType,
        } satisfies UploadHandle),
      );
      try {
        return await this.settled(
          request.channel,
          await this.uploader(request.channel, uri, file.bytes.length).send(file, 0),
        );
      } catch (error) {
        if (!(error instanceof SessionGone)) throw error;
        if (session === 2) throw new NetworkError('retry_later', `${error.message}, twice in a row`);
        await this.quota.spend(app.clientId, 'uploads', YOUTUBE_CALL_COSTS.videosInsert);
      }
    }
  }

  async comment(request: CommentRequest): Promise<{ networkCommentId: string }> {
    const c = await this.credentials(request.channel);
    const answer = await this.call(
      request.channel,
      'units',
      YOUTUBE_CALL_COSTS.commentThreadsInsert,
      `${API}/commentThreads?part=snippet`,
      {
        method: 'POST',
        json: {
          snippet: {
            channelId: c.credentials.channelId,
            videoId: request.networkPostId,
            topLevelComment: { snippet: { textOriginal: request.text } },
          },
        },
      },
    );
    return { networkCommentId: String(answer.json.id) };
  }

  /** The channel's own newest top-level comment on the video with the text (commentThreads.list costs one unit). */
  async findComment(lookup: CommentLookup): Promise<{ networkCommentId: string } | undefined> {
    const c = await this.credentials(lookup.channel);
    const query = new URLSearchParams({
      part: 'snippet',
      videoId: lookup.networkPostId,
      maxResults: '100',
      order: 'time',
      textFormat: 'plainText',
    });
    const answer = await this.call(lookup.channel, 'units', YOUTUBE_CALL_COSTS.list, `${API}/commentThreads?${query}`);
    const match = ((answer.json?.items ?? []) as any[]).find((thread) => {
      const top = thread?.snippet?.topLevelComment?.snippet;
      return (
        top?.authorChannelId?.value === c.credentials.channelId && (top.textOriginal ?? top.textDisplay) === lookup.text
      );
    });
    return match ? { networkCommentId: String(match.id) } : undefined;
  }

  async findPublished(lookup: AttemptLookup): Promise<PublishedPost | undefined> {
    const handle = parseHandle(lookup.handle);
    if (handle) {
      try {
        const upload = this.uploader(lookup.channel, handle.session, handle.bytes);
        const state = await upload.ask();
        if ('video' in state) return await this.settled(lookup.channel, state.video);
        // Part of the video arrived and no video exists yet: the rest goes in the same session, so there is one video.
        const file = await downloadMedia(this.media, lookup.channel.accountId, handle.videoUrl, this.media.maxBytes);
        if (file.bytes.length !== handle.bytes) {
          throw new NetworkError(
            'permanent',
            `the video at ${handle.videoUrl} changed size during the upload (${handle.bytes} bytes ` +
              `then, ${file.bytes.length} now)`,
          );
        }
        return await this.settled(
          lookup.channel,
          await upload.send({ bytes: file.bytes, contentType: handle.contentType }, state.next),
        );
      } catch (error) {
        if (!(error instanceof SessionGone)) throw error;
      }
    }
    const recent = await this.recentPosts(lookup.channel, { cursor: null, limit: 25 });
    return recent.posts.find(
      (post) => post.publishedAt >= lookup.attemptedAt - CLOCK_SKEW_MS && post.text === lookup.text.trim(),
    );
  }

  async recentPosts(
    channel: ConnectorChannel,
    page: { cursor: string | null; limit: number },
  ): Promise<RecentPostsPage> {
    const c = await this.credentials(channel);
    const query = new URLSearchParams({
      part: 'contentDetails',
      playlistId: c.credentials.uploadsPlaylist,
      maxResults: String(Math.min(50, Math.max(1, page.limit))),
      ...(page.cursor ? { pageToken: page.cursor } : {}),
    });
    const listed = await this.call(channel, 'units', YOUTUBE_CALL_COSTS.list, `${API}/playlistItems?${query}`);
    const ids: string[] = (listed.json.items ?? []).map((item: any) => String(item.contentDetails?.videoId));
    const nextCursor = typeof listed.json.nextPageToken === 'string' ? listed.json.nextPageToken : null;
    if (ids.length === 0) return { posts: [], nextCursor };
    const videos = await this.call(
      channel,
      'units',
      YOUTUBE_CALL_COSTS.list,
      `${API}/videos?part=snippet,statistics&id=${ids.map(encodeURIComponent).join(',')}`,
    );
    const byId = new Map<string, any>((videos.json.items ?? []).map((video: any) => [String(video.id), video]));
    const posts: NetworkPost[] = ids.flatMap((id) => {
      const video = byId.get(id);
      if (!video) return [];
      const statistics = video.statistics ?? {};
      const count = (value: unknown) => (Number.isFinite(Number(value)) ? Number(value) : 0);
      return [
        {
          ...this.publishedOf(video),
          attemptKey: null,
          text: String(video.snippet?.description ?? ''),
          imageUrls: [],
          metrics: {
            views: count(statistics.viewCount),
            likes: count(statistics.likeCount),
            comments: count(statistics.commentCount),
            favorites: count(statistics.favoriteCount),
          },
        },
      ];
    });
    return { posts, nextCursor };
  }

  async audience(channel: ConnectorChannel): Promise<number | null> {
    const url = `${API}/channels?part=statistics&mine=true`;
    const mine = await this.call(channel, 'units', YOUTUBE_CALL_COSTS.list, url);
    // YouTube sends its counts as strings (unsigned long).
    const count = mine.json.items?.[0]?.statistics?.subscriberCount;
    return count === undefined ? null : Number(count);
  }

  async check(channel: ConnectorChannel): Promise<ConnectionCheck> {
    const c = await this.credentials(channel);
    const info = await this.http.request(
      `${GOOGLE_TOKENINFO_URL}?${new URLSearchParams({ access_token: c.credentials.accessToken })}`,
    );
    if (info.status !== 200)
      throw new NetworkError(
        'reconnect_needed',
        `Google does not accept the channel's access token (${info.json?.error_description ?? `HTTP ${info.status}`})`,
      );
    const grantedScopes = String(info.json?.scope ?? '')
      .split(' ')
      .filter((s) => s !== '');
    const mine = await this.call(channel, 'units', YOUTUBE_CALL_COSTS.list, `${API}/channels?part=snippet&mine=true`);
    const found = mine.json.items?.[0];
    const problems: string[] = [];
    if (!grantedScopes.includes(UPLOAD_SCOPE))
      problems.push(
        'Herald may not upload videos (youtube.upload was not granted): reconnect the channel and allow it.',
      );
    if (!grantedScopes.includes(COMMENT_SCOPE))
      problems.push(
        'Herald may not post first comments (youtube.force-ssl was not granted): reconnect the channel and allow it.',
      );
    if (!found) problems.push('The Google account has no YouTube channel any more.');
    else if (String(found.id) !== c.credentials.channelId)
      problems.push(
        `The token belongs to YouTube channel ${found.id}, not this channel's ${c.credentials.channelId}: ` +
          'reconnect with the right account.',
      );
    return {
      account: found ? String(found.snippet?.customUrl || found.snippet?.title || found.id) : channel.handle,
      grantedScopes,
      problems,
    };
  }

  private google(): GoogleApp {
    const app = this.app();
    if (!app)
      throw new NetworkError(
        'permanent',
        'This Herald has no Google app configured (GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET)',
      );
    return app;
  }

  /** The channel's credentials, refreshed first when the access token is about to expire. */
  private async credentials(
    channel: ConnectorChannel,
  ): Promise<OpenedCredentials & { credentials: YouTubeCredentials }> {
    const opened = await channel.vault.read();
    const fresh =
      opened.expiresAt !== null && opened.expiresAt < this.now() + REFRESH_AHEAD_MS
        ? await this.refreshed(channel, opened.version)
        : opened;
    return fresh as OpenedCredentials & { credentials: YouTubeCredentials };
  }

  private refreshed(channel: ConnectorChannel, version: number): Promise<OpenedCredentials> {
    return channel.vault.refresh(version, async (current) => {
      const c = current as unknown as YouTubeCredentials;
      const answer = await this.oauth.refresh(c.refreshToken);
      // Google sends a new refresh token only now and then; the stored one stays until it does.
      const renewed: YouTubeCredentials = {
        ...c,
        accessToken: answer.accessToken,
        refreshToken: answer.refreshToken ?? c.refreshToken,
        scope: answer.scopes.length > 0 ? answer.scopes.join(' ') : c.scope,
      };
      return { credentials: { ...renewed }, expiresAt: answer.expiresAt };
    });
  }

  private async authorization(channel: ConnectorChannel): Promise<Record<string, string>> {
    return { authorization: `Bearer ${(await this.credentials(channel)).credentials.accessToken}` };
  }

  /** One Data API call: charged to the quota first; a 401 refreshes the token once and calls again. */
  private async call(
    channel: ConnectorChannel,
    bucket: QuotaBucket,
    cost: number,
    url: string,
    request: NetworkRequest = {},
  ): Promise<NetworkAnswer> {
    const project = this.google().clientId;
    let opened = await this.credentials(channel);
    for (let tries = 1; ; tries++) {
      await this.quota.spend(project, bucket, cost);
      const answer = await this.http.request(url, {
        ...request,
        headers: { ...request.headers, authorization: `Bearer ${opened.credentials.accessToken}` },
      });
      if (answer.status >= 200 && answer.status < 300) return answer;
      if (answer.status !== 401 || tries === 2) throw await this.failure(answer);
      opened = (await this.refreshed(channel, opened.version)) as typeof opened;
    }
  }

  private async startSession(
    channel: ConnectorChannel,
    resource: Record<string, unknown>,
    file: UploadFile,
  ): Promise<string> {
    const answer = await this.withToken(channel, (authorization) =>
      this.http.request(`${UPLOAD_ORIGIN}/upload/youtube/v3/videos?uploadType=resumable&part=snippet,status`, {
        method: 'POST',
        headers: {
          ...authorization,
          'x-upload-content-length': String(file.bytes.length),
          'x-upload-content-type': file.contentType,
        },
        json: resource,
      }),
    );
    const location = answer.header('location');
    if (answer.status !== 200 || !location) throw await this.failure(answer);
    return location;
  }

  /** A call outside the quota's units (the upload's own bucket is charged once per video): a 401 refreshes once. */
  private async withToken(
    channel: ConnectorChannel,
    call: (authorization: Record<string, string>) => Promise<NetworkAnswer>,
  ): Promise<NetworkAnswer> {
    const opened = await this.credentials(channel);
    const answer = await call({ authorization: `Bearer ${opened.credentials.accessToken}` });
    if (answer.status !== 401) return answer;
    const renewed = await this.refreshed(channel, opened.version);
    return call({ authorization: `Bearer ${(renewed.credentials as unknown as YouTubeCredentials).accessToken}` });
  }

  private uploader(channel: ConnectorChannel, session: string, total: number): ResumableUpload {
    return new ResumableUpload(
      this.http,
      session,
      total,
      this.google().youtubeChunkBytes,
      () => this.authorization(channel),
      (answer) => this.failure(answer),
    );
  }

  /** The uploaded video as a published post; a video YouTube already refused or could not process fails the post. */
  private async settled(channel: ConnectorChannel, video: any): Promise<PublishedPost> {
    let status = video?.status;
    try {
      const read = await this.call(
        channel,
        'units',
        YOUTUBE_CALL_COSTS.list,
        `${API}/videos?part=status,processingDetails&id=${encodeURIComponent(String(video.id))}`,
      );
      status = read.json.items?.[0]?.status ?? status;
    } catch (error) {
      // The video exists whatever this read says; a failed read must not make the upload look undone.
      if (!(error instanceof NetworkError)) throw error;
    }
    if (status?.uploadStatus === 'failed') {
      throw new NetworkError(
        'permanent',
        `YouTube could not process the uploaded video (${status.failureReason ?? 'no reason given'}); ` +
          `video ${video.id} is left failed on the channel`,
      );
    }
    if (status?.uploadStatus === 'rejected') {
      throw new NetworkError(
        'permanent',
        `YouTube rejected the uploaded video (${status.rejectionReason ?? 'no reason given'})`,
      );
    }
    return this.publishedOf(video);
  }

  private publishedOf(video: any): PublishedPost {
    const at = Date.parse(video?.snippet?.publishedAt ?? '');
    return {
      networkPostId: String(video.id),
      permalinkUrl: `https://www.youtube.com/watch?v=${encodeURIComponent(String(video.id))}`,
      publishedAt: Number.isNaN(at) ? this.now() : at,
    };
  }

  /** A YouTube error answer as a NetworkError, by the reason Google gives in error.errors[0].reason. */
  private async failure(answer: NetworkAnswer): Promise<NetworkError> {
    const error = answer.json?.error;
    const reason: string =
      typeof error === 'object' ? String(error?.errors?.[0]?.reason ?? error?.status ?? '') : String(error ?? '');
    const message = String(
      (typeof error === 'object' ? error?.message : answer.json?.error_description) ?? `HTTP ${answer.status}`,
    ).replace(/<[^>]*>/g, '');
    const words = `YouTube answered HTTP ${answer.status}${reason ? ` ${reason}` : ''}: ${message}`;
    if (reason === 'quotaExceeded') return this.quota.exhaust(this.google().clientId, 'units');
    if (reason === 'uploadLimitExceeded')
      return new NetworkError('retry_later', `${words} (the channel's own daily upload limit)`, this.quota.resetAt());
    if (
      reason === 'rateLimitExceeded' ||
      reason === 'userRateLimitExceeded' ||
      answer.status === 429 ||
      answer.status >= 500
    ) {
      return new NetworkError('retry_later', words, retryAtFrom(answer, this.now()));
    }
    if (answer.status === 401) return new NetworkError('reconnect_needed', words);
    if (reason === 'insufficientPermissions' || reason === 'ACCESS_TOKEN_SCOPE_INSUFFICIENT') {
      return new NetworkError(
        'reconnect_needed',
        `${words}; reconnect the channel and allow every permission Herald asks for`,
      );
    }
    return new NetworkError('permanent', words);
  }
}

/** The video resource of videos.insert from the post's text and channelOptions. */
function videoResource(text: string, options: Record<string, unknown>): Record<string, unknown> {
  const publishAt = typeof options.publishAt === 'string' ? options.publishAt : undefined;
  if (publishAt !== undefined && Number.isNaN(Date.parse(publishAt))) {
    throw new NetworkError('permanent', `channelOptions.publishAt "${publishAt}" is not an ISO 8601 time`);
  }
  if (publishAt !== undefined && options.privacyStatus !== undefined && options.privacyStatus !== 'private') {
    throw new NetworkError(
      'permanent',
      'YouTube publishes at publishAt only a video uploaded as private: leave privacyStatus out or set it to "private"',
    );
  }
  const privacyStatus =
    publishAt !== undefined ? 'private' : typeof options.privacyStatus === 'string' ? options.privacyStatus : 'public';
  return {
    snippet: {
      title: String(options.title ?? ''),
      description: text,
      ...(Array.isArray(options.tags) ? { tags: options.tags.map(String) } : {}),
      categoryId: typeof options.categoryId === 'string' ? options.categoryId : DEFAULT_CATEGORY,
    },
    status: {
      privacyStatus,
      selfDeclaredMadeForKids: options.madeForKids === true,
      ...(publishAt !== undefined ? { publishAt: new Date(publishAt).toISOString() } : {}),
    },
  };
}

function parseHandle(raw: string | null): UploadHandle | undefined {
  if (!raw) return undefined;
  try {
    const handle = JSON.parse(raw) as UploadHandle;
    return typeof handle.session === 'string' && typeof handle.videoUrl === 'string' && Number.isInteger(handle.bytes)
      ? handle
      : undefined;
  } catch {
    return undefined;
  }
}
