import { NETWORK_CAPABILITIES } from '../../domain/networks/capabilities.js';
import {
  NetworkError,
  type AttemptLookup,
  type AuthorizationStart,
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
  type RecentPostsPage,
} from '../../domain/networks/connector.js';
import {
  downloadMedia,
  type NetworkAnswer,
  type NetworkHttp,
  type NetworkHttpOptions,
  type NetworkRequest,
} from './network-http.js';
import { OAuth2Client, type TokenGrant } from './oauth2-client.js';
import {
  chunkPlan,
  chunkRange,
  classify,
  envelope,
  publishStatus,
  videoSeconds,
  type PublishStatus,
} from './tiktok-wire.js';

/**
 * TikTok, through the Content Posting API (developers.tiktok.com: login-kit-web, oauth-user-access-token-management,
 * content-posting-api-reference-query-creator-info, -direct-post, -upload-video, -photo-post, -media-transfer-guide,
 * -get-video-status, tiktok-api-v2-video-list; NETWORKS.md).
 *
 * Rules kept here:
 * - the operator's app (TIKTOK_CLIENT_KEY, TIKTOK_CLIENT_SECRET) signs the person in through TikTok's consent; a
 *   server-side web app sends no PKCE (TikTok asks it of mobile and desktop apps only);
 * - tokens rotate: every refresh answers a new refresh token, stored with the new access token through the vault
 *   (one refresh per version); both lifetimes are read from each answer (expires_in, refresh_expires_in), never
 *   assumed; a refused refresh (invalid_grant) means reconnecting;
 * - before each direct post the creator's info is read: the chosen privacy level must be one the account offers
 *   now (else a permanent error naming the ones it offers), comments, duets and stitches the creator turned off
 *   stay off, and a video longer than the creator's maximum is refused before any upload;
 * - a video goes by FILE_UPLOAD in chunks cut by the media transfer guide's rules (capabilities.chunkedUpload), PUT in
 *   order with Content-Range; photos go by PULL_FROM_URL from their URLs (Herald's public media URLs, whose prefix
 *   the operator verifies at TikTok); channelOptions.draft sends either to the creator's inbox (video.upload)
 *   instead of posting;
 * - the publish_id is the attempt's handle, recorded before the call that can make the post (the last chunk; for
 *   photos the init itself, whose lost answer is looked up on the account's videos); status/fetch is polled until
 *   PUBLISH_COMPLETE, SEND_TO_USER_INBOX for a draft, or FAILED, which arrives with error.code "ok" and a
 *   fail_reason and is permanent; an attempt whose answer was lost before any byte could make a post (a video's
 *   init, a chunk before the last) is retried, since TikTok posts nothing it has not received whole;
 * - TikTok has no comment API: first comments are refused when a post is written (capabilities.firstCommentRefused);
 * - the channel's audience is the user's follower_count (tiktok-api-v2-get-user-info), a field of the
 *   user.info.stats scope: asked at connect beside the publishing ones, read only where the person granted it (a
 *   call without it would be refused as a missing permission), and no audience otherwise.
 */
const SCOPES = ['user.info.basic', 'video.publish', 'video.upload', 'video.list'];
const STATS_SCOPE = 'user.info.stats';
const API = 'https://open.tiktokapis.com';
const CONSENT = 'https://www.tiktok.com/v2/auth/authorize/';
/** Refresh this long before the access token's end, so no call is made with a token about to lapse. */
const REFRESH_AHEAD_MS = 5 * 60_000;
/** A refresh token this close to its end is reported by herald network check. */
const REFRESH_WARNING_MS = 7 * 24 * 60 * 60_000;
/**
 * Waits between status fetches (status/fetch allows 30 a minute); after the last, the outcome is settled by a lookup.
 */
const STATUS_WAITS_MS = [
  1_000, 2_000, 3_000, 5_000, 5_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000,
  10_000, 10_000, 10_000,
];
/** Status fetches a lookup of an unknown outcome makes before leaving the post unconfirmed for the next sync. */
const LOOKUP_POLLS = 3;
const VIDEO_FIELDS =
  'id,title,video_description,create_time,share_url,cover_image_url,like_count,comment_count,share_count,view_count';

interface TikTokCredentials {
  accessToken: string;
  refreshToken: string;
  /** When TikTok said the refresh token ends; a person must reconnect by then. */
  refreshExpiresAt?: number;
  openId: string;
  username: string;
  scopes: string[];
}

interface Creator {
  creator_username: string;
  privacy_level_options: string[];
  comment_disabled: boolean;
  duet_disabled: boolean;
  stitch_disabled: boolean;
  max_video_post_duration_sec: number;
}

export interface TikTokApp {
  clientId: string;
  clientSecret: string;
}

export class TikTokNetwork implements NetworkConnector {
  readonly capabilities = NETWORK_CAPABILITIES.tiktok;
  readonly connection: ConnectionMethod = { kind: 'oauth', fields: [] };

  constructor(
    private readonly http: NetworkHttp,
    private readonly media: NetworkHttpOptions,
    private readonly now: () => number,
    private readonly app: TikTokApp | undefined,
  ) {
    this.oauth = new OAuth2Client(
      http,
      {
        name: 'TikTok',
        tokenUrl: `${API}/v2/oauth/token/`,
        clientAuth: 'body',
        clientIdField: 'client_key',
        appSettings: 'TIKTOK_CLIENT_KEY and TIKTOK_CLIENT_SECRET',
      },
      () => this.requireApp(),
      now,
    );
  }

  private readonly oauth: OAuth2Client;

  configured(): boolean {
    return this.app !== undefined;
  }

  async startAuthorization(input: { redirectUri: string; state: string }): Promise<AuthorizationStart> {
    const query = new URLSearchParams({
      client_key: this.requireApp().clientId,
      scope: [...SCOPES, STATS_SCOPE].join(','),
      response_type: 'code',
      redirect_uri: input.redirectUri,
      state: input.state,
    });
    return { authorizationUrl: `${CONSENT}?${query}`, keep: {} };
  }

  async finishAuthorization(input: { code: string; redirectUri: string }): Promise<ConnectedAccount[]> {
    const token = await this.oauth.exchangeCode({ code: input.code, redirectUri: input.redirectUri });
    const granted = this.tokenAnswer(token);
    const user = await this.call(granted.accessToken, 'GET', '/v2/user/info/?fields=open_id,avatar_url,display_name');
    const { open_id: openId, display_name: displayName, avatar_url: avatarUrl } = user.user ?? {};
    let username = String(displayName ?? openId);
    if (granted.scopes.includes('video.publish'))
      username =
        (await this.call(granted.accessToken, 'POST', '/v2/post/publish/creator_info/query/', {})).creator_username ??
        username;
    return [
      {
        networkAccountId: String(openId),
        handle: `@${username}`,
        displayName: typeof displayName === 'string' ? displayName : null,
        avatarUrl: typeof avatarUrl === 'string' ? avatarUrl : null,
        credentials: { ...granted.credentials, openId: String(openId), username } satisfies TikTokCredentials,
        expiresAt: granted.expiresAt,
        textLimit: null,
      },
    ];
  }

  async refresh(channel: ConnectorChannel): Promise<void> {
    await this.refreshed(channel, (await channel.vault.read()).version);
  }

  async revoke(channel: ConnectorChannel): Promise<void> {
    const app = this.requireApp();
    const c = await this.credentials(channel);
    const answer = await this.http.request(`${API}/v2/oauth/revoke/`, {
      method: 'POST',
      form: { client_key: app.clientId, client_secret: app.clientSecret, token: c.accessToken },
    });
    if (answer.status !== 200)
      throw new NetworkError(
        'permanent',
        `TikTok did not revoke the token (HTTP ${answer.status} ${answer.json?.error ?? ''})`.trim(),
      );
  }

  async publish(request: PublishRequest): Promise<PublishedPost> {
    const options = request.channelOptions ?? {};
    const draft = options.draft === true;
    const creator = draft ? undefined : await this.creator(request.channel, String(options.privacyLevel ?? ''));
    const postInfo = (text: Record<string, string>) => ({
      ...text,
      privacy_level: options.privacyLevel,
      disable_comment: options.disableComment === true || Boolean(creator?.comment_disabled),
      ...(request.videoUrls.length > 0
        ? {
            disable_duet: options.disableDuet === true || Boolean(creator?.duet_disabled),
            disable_stitch: options.disableStitch === true || Boolean(creator?.stitch_disabled),
          }
        : {}),
    });
    if (request.videoUrls.length > 0) {
      const publishId = await this.uploadVideo(request, creator, draft ? undefined : postInfo({ title: request.text }));
      return this.settled(request.channel, publishId, 'video', await this.waitForStatus(request.channel, publishId));
    }
    const init = await this.api(request.channel, 'POST', '/v2/post/publish/content/init/', {
      post_info: {
        ...postInfo({ description: request.text }),
        ...(typeof options.title === 'string' ? { title: options.title } : {}),
        auto_add_music: true,
      },
      source_info: { source: 'PULL_FROM_URL', photo_cover_index: 0, photo_images: request.imageUrls },
      post_mode: draft ? 'MEDIA_UPLOAD' : 'DIRECT_POST',
      media_type: 'PHOTO',
    });
    const publishId = String(init.publish_id);
    await request.recordHandle(publishId);
    return this.settled(request.channel, publishId, 'photo', await this.waitForStatus(request.channel, publishId));
  }

  async comment(_request: CommentRequest): Promise<{ networkCommentId: string }> {
    throw new NetworkError('permanent', `TikTok ${this.capabilities.firstCommentRefused}`);
  }

  async findPublished(lookup: AttemptLookup): Promise<PublishedPost | undefined> {
    if (lookup.handle) {
      let status: PublishStatus | undefined;
      try {
        status = await this.waitForStatus(lookup.channel, lookup.handle, STATUS_WAITS_MS.slice(0, LOOKUP_POLLS));
      } catch (error) {
        // Still processing, or FAILED: not (yet) a post; a later sync asks again.
        if (error instanceof NetworkError && (error.kind === 'unknown_outcome' || error.kind === 'permanent'))
          return undefined;
        throw error;
      }
      return this.settled(lookup.channel, lookup.handle, lookup.handle.startsWith('p_') ? 'photo' : 'video', status);
    }
    const text = lookup.text.trim();
    const { posts } = await this.recentPosts(lookup.channel, { cursor: null, limit: 20 });
    return posts.find((post) => post.publishedAt >= lookup.attemptedAt - 60_000 && post.text.trim() === text);
  }

  async recentPosts(
    channel: ConnectorChannel,
    page: { cursor: string | null; limit: number },
  ): Promise<RecentPostsPage> {
    const maxCount = Math.min(20, Math.max(1, page.limit));
    const data = await this.api(
      channel,
      'POST',
      `/v2/video/list/?fields=${VIDEO_FIELDS}`,
      { max_count: maxCount, ...(page.cursor ? { cursor: Number(page.cursor) } : {}) },
      true,
    );
    const videos: any[] = Array.isArray(data.videos) ? data.videos : [];
    const posts: NetworkPost[] = videos.map((v) => ({
      networkPostId: String(v.id),
      permalinkUrl: String(v.share_url),
      publishedAt: Number(v.create_time) * 1000,
      attemptKey: null,
      text: String(v.video_description || v.title || ''),
      imageUrls: typeof v.cover_image_url === 'string' ? [v.cover_image_url] : [],
      metrics: {
        likes: Number(v.like_count ?? 0),
        comments: Number(v.comment_count ?? 0),
        shares: Number(v.share_count ?? 0),
        views: Number(v.view_count ?? 0),
      },
    }));
    return { posts, nextCursor: data.has_more === true && data.cursor !== undefined ? String(data.cursor) : null };
  }

  async audience(channel: ConnectorChannel): Promise<number | null> {
    if (!(await this.credentials(channel)).scopes.includes(STATS_SCOPE)) return null;
    const data = await this.api(channel, 'GET', '/v2/user/info/?fields=open_id,follower_count', undefined, true);
    return Number(data.user?.follower_count);
  }

  async check(channel: ConnectorChannel): Promise<ConnectionCheck> {
    const opened = await this.fresh(channel);
    const c = opened.credentials as unknown as TikTokCredentials;
    const problems: string[] = [];
    const user = await this.api(channel, 'GET', '/v2/user/info/?fields=open_id,display_name', undefined, true);
    if (user.user?.open_id !== c.openId)
      problems.push(
        `The token belongs to TikTok account ${user.user?.open_id}, not the channel's ${c.openId}: ` +
          'reconnect the channel with the right account.',
      );
    const missing = SCOPES.filter((scope) => !c.scopes.includes(scope));
    if (missing.length > 0)
      problems.push(
        `The account did not grant ${missing.join(', ')}: reconnect the channel and allow every permission (and ` +
          'check the app has these scopes approved at TikTok).',
      );
    if (c.scopes.includes('video.publish')) {
      try {
        const creator = await this.api(channel, 'POST', '/v2/post/publish/creator_info/query/', {}, true);
        if (
          Array.isArray(creator.privacy_level_options) &&
          creator.privacy_level_options.every((level: string) => level === 'SELF_ONLY')
        ) {
          problems.push(
            'TikTok offers this account SELF_ONLY only: until TikTok audits the app, every post is private.',
          );
        }
      } catch (error) {
        if (!(error instanceof NetworkError)) throw error;
        problems.push(`TikTok refuses to let this account post now (${error.message}).`);
      }
    }
    if (c.refreshExpiresAt !== undefined && c.refreshExpiresAt - this.now() < REFRESH_WARNING_MS) {
      problems.push(
        `The connection ends ${new Date(c.refreshExpiresAt).toISOString()} (TikTok's refresh token expires): ` +
          'reconnect the channel before then.',
      );
    }
    return { account: `@${c.username}`, grantedScopes: c.scopes, problems };
  }

  /** Reads the creator's info and checks the chosen privacy level against the options the account offers now. */
  private async creator(channel: ConnectorChannel, privacyLevel: string): Promise<Creator> {
    const creator = (await this.api(channel, 'POST', '/v2/post/publish/creator_info/query/', {}, true)) as Creator;
    const offered = Array.isArray(creator.privacy_level_options) ? creator.privacy_level_options : [];
    if (!offered.includes(privacyLevel)) {
      throw new NetworkError(
        'permanent',
        `TikTok does not offer privacy level ${privacyLevel || '(none)'} to @${creator.creator_username} now; ` +
          `it offers ${offered.join(', ')}: set channelOptions.privacyLevel to one of them`,
      );
    }
    return creator;
  }

  /** Sends the video in chunks; answers the publish_id, recorded before the last chunk, which makes the post. */
  private async uploadVideo(
    request: PublishRequest,
    creator: Creator | undefined,
    postInfo: Record<string, unknown> | undefined,
  ): Promise<string> {
    const maxBytes = Math.min(this.media.maxBytes, this.capabilities.media.kinds.video?.maxBytes ?? Infinity);
    const file = await downloadMedia(this.media, request.channel.accountId, request.videoUrls[0], maxBytes);
    const seconds = videoSeconds(file.bytes);
    if (creator && seconds !== undefined && seconds > creator.max_video_post_duration_sec) {
      throw new NetworkError(
        'permanent',
        `TikTok lets @${creator.creator_username} post videos of up to ${creator.max_video_post_duration_sec} s; ` +
          `this one runs ${Math.round(seconds)} s`,
      );
    }
    const size = file.bytes.length;
    const plan = chunkPlan(size, this.capabilities.chunkedUpload!);
    const source = {
      source: 'FILE_UPLOAD',
      video_size: size,
      chunk_size: plan.chunkSize,
      total_chunk_count: plan.count,
    };
    // An init whose answer is lost made nothing: TikTok posts no video before it has every byte.
    const init = await this.api(
      request.channel,
      'POST',
      postInfo ? '/v2/post/publish/video/init/' : '/v2/post/publish/inbox/video/init/',
      { ...(postInfo ? { post_info: postInfo } : {}), source_info: source },
      true,
    );
    const publishId = String(init.publish_id);
    await request.recordHandle(publishId);
    for (let index = 0; index < plan.count; index++) {
      const { first, last } = chunkRange(size, plan, index);
      const final = index === plan.count - 1;
      let answer: NetworkAnswer;
      try {
        answer = await this.http.request(String(init.upload_url), {
          method: 'PUT',
          headers: { 'content-type': file.contentType, 'content-range': `bytes ${first}-${last}/${size}` },
          body: file.bytes.subarray(first, last + 1),
        });
      } catch (error) {
        if (error instanceof NetworkError && error.kind === 'unknown_outcome' && !final)
          throw new NetworkError(
            'retry_later',
            `${error.message} (chunk ${index + 1} of ${plan.count}; TikTok posts nothing incomplete)`,
          );
        throw error;
      }
      if (answer.status < 200 || answer.status >= 300) {
        const failed = classify(answer, this.now(), this.capabilities);
        throw final && failed.kind === 'retry_later' ? new NetworkError('unknown_outcome', failed.message) : failed;
      }
    }
    return publishId;
  }

  private async waitForStatus(
    channel: ConnectorChannel,
    publishId: string,
    waits = STATUS_WAITS_MS,
  ): Promise<PublishStatus> {
    for (const wait of waits) {
      const status = publishStatus(
        await this.authorized(channel, 'POST', '/v2/post/publish/status/fetch/', { publish_id: publishId }, true),
      );
      if (status.status === 'PUBLISH_COMPLETE' || status.status === 'SEND_TO_USER_INBOX') return status;
      if (status.status === 'FAILED')
        throw new NetworkError(
          'permanent',
          `TikTok could not publish the post: ${status.failReason ?? 'no reason given'} (status FAILED)`,
        );
      await this.http.pause(wait);
    }
    throw new NetworkError(
      'unknown_outcome',
      `TikTok was still processing publish ${publishId} after ${waits.reduce((a, b) => a + b, 0) / 1000} s`,
    );
  }

  private async settled(
    channel: ConnectorChannel,
    publishId: string,
    kind: 'video' | 'photo',
    status: PublishStatus,
  ): Promise<PublishedPost> {
    const { username } = await this.credentials(channel);
    const profile = `https://www.tiktok.com/@${encodeURIComponent(username)}`;
    const [postId] = status.postIds;
    // A private post or a draft has no public id: the publish_id names it, and the profile is where it shows.
    if (!postId) return { networkPostId: publishId, permalinkUrl: profile, publishedAt: this.now() };
    return { networkPostId: postId, permalinkUrl: `${profile}/${kind}/${postId}`, publishedAt: this.now() };
  }

  /** A call with the channel's token; answers `data` of an "ok" envelope, else the classified failure. */
  private async api(
    channel: ConnectorChannel,
    method: 'GET' | 'POST',
    path: string,
    json?: unknown,
    read = false,
  ): Promise<any> {
    const answer = await this.authorized(channel, method, path, json, read);
    return envelope(answer).data;
  }

  /**
   * Makes a call with a fresh token; an access_token_invalid answer refreshes once and makes the call again (a 401
   * did nothing). `read` calls change nothing at TikTok, so a lost answer is retried rather than reconciled.
   */
  private async authorized(
    channel: ConnectorChannel,
    method: 'GET' | 'POST',
    path: string,
    json: unknown,
    read: boolean,
  ): Promise<NetworkAnswer> {
    let opened = await this.fresh(channel);
    let answer = await this.send(opened, method, path, json, read);
    if (envelope(answer).code === 'access_token_invalid') {
      opened = await this.refreshed(channel, opened.version);
      answer = await this.send(opened, method, path, json, read);
      if (envelope(answer).code === 'access_token_invalid')
        throw new NetworkError('reconnect_needed', classify(answer, this.now(), this.capabilities).message);
    }
    if (!envelope(answer).ok) throw classify(answer, this.now(), this.capabilities);
    return answer;
  }

  private async send(
    opened: OpenedCredentials,
    method: 'GET' | 'POST',
    path: string,
    json: unknown,
    read: boolean,
  ): Promise<NetworkAnswer> {
    const c = opened.credentials as unknown as TikTokCredentials;
    const request: NetworkRequest = { method, headers: { authorization: `Bearer ${c.accessToken}` } };
    if (json !== undefined) {
      request.headers!['content-type'] = 'application/json; charset=UTF-8';
      request.body = Buffer.from(JSON.stringify(json), 'utf8');
    }
    try {
      return await this.http.request(`${API}${path}`, request);
    } catch (error) {
      if (read && error instanceof NetworkError && error.kind === 'unknown_outcome')
        throw new NetworkError('retry_later', error.message);
      throw error;
    }
  }

  /** The same call as `authorized` for a token Herald holds outside a channel (while connecting). */
  private async call(accessToken: string, method: 'GET' | 'POST', path: string, json?: unknown): Promise<any> {
    const answer = await this.send(
      { credentials: { accessToken }, version: 0, expiresAt: null },
      method,
      path,
      json,
      true,
    );
    if (!envelope(answer).ok) throw classify(answer, this.now(), this.capabilities);
    return envelope(answer).data;
  }

  private async fresh(channel: ConnectorChannel): Promise<OpenedCredentials> {
    const opened = await channel.vault.read();
    if (opened.expiresAt !== null && opened.expiresAt < this.now() + REFRESH_AHEAD_MS)
      return this.refreshed(channel, opened.version);
    return opened;
  }

  private refreshed(channel: ConnectorChannel, version: number): Promise<OpenedCredentials> {
    return channel.vault.refresh(version, async (current) => {
      const c = current as unknown as TikTokCredentials;
      const renewed = this.tokenAnswer(await this.oauth.refresh(c.refreshToken));
      return {
        credentials: { ...c, ...renewed.credentials } satisfies TikTokCredentials,
        expiresAt: renewed.expiresAt,
      };
    });
  }

  /** The pair with their lifetimes as the channel keeps them; TikTok always rotates, so none is refused. */
  private tokenAnswer(token: TokenGrant) {
    if (token.refreshToken === null) {
      throw new NetworkError('permanent', 'TikTok answered a token without a refresh token');
    }
    const { accessToken, refreshToken, refreshExpiresAt, scopes } = token;
    return {
      accessToken,
      scopes,
      expiresAt: token.expiresAt,
      credentials: { accessToken, refreshToken, scopes, ...(refreshExpiresAt ? { refreshExpiresAt } : {}) },
    };
  }

  private async credentials(channel: ConnectorChannel): Promise<TikTokCredentials> {
    return (await channel.vault.read()).credentials as unknown as TikTokCredentials;
  }

  private requireApp(): TikTokApp {
    if (!this.app)
      throw new NetworkError(
        'permanent',
        'This Herald has no TikTok app: its operator must set TIKTOK_CLIENT_KEY and TIKTOK_CLIENT_SECRET',
      );
    return this.app;
  }
}
