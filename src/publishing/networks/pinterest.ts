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
  type OpenedCredentials,
  type PublishRequest,
  type PublishedPost,
  type RecentPostsPage,
} from '../../domain/networks/connector.js';
import {
  downloadMedia,
  observeBudget,
  type NetworkAnswer,
  type NetworkHttp,
  type NetworkHttpOptions,
  type NetworkRequest,
} from './network-http.js';
import { OAuth2Client, type TokenGrant } from './oauth2-client.js';
import { classify, multipart, pinPost, pinUrl, tokenRefusal } from './pinterest-wire.js';

/**
 * Pinterest, through API v5 (pinterest/api-description v5/openapi.yaml: oauth/token, user_account/get, boards/list,
 * boards/list_pins, pins/create, pins/list, media/create, media/get; developers.pinterest.com authentication and
 * content-apps guides; NETWORKS.md).
 *
 * Rules kept here:
 * - the operator's app (PINTEREST_APP_ID, PINTEREST_APP_SECRET) signs the person in through Pinterest's consent; the
 *   token endpoint takes the app by HTTP Basic; continuous_refresh asks for the refresh token apps made before
 *   September 2025 must opt into (it is the only kind for newer apps); lifetimes are read from each answer, and a
 *   refresh that answers a new refresh token replaces the old one; a refused refresh means reconnecting;
 * - a Pin goes on the board in channelOptions.boardId, with the text as its description and channelOptions title,
 *   link and altText; an image is pulled by Pinterest from the post's URL (Herald's public media URL for uploaded
 *   media); a video is registered (POST /v5/media), sent to the returned upload URL with its form fields, and
 *   waited for until Pinterest says `succeeded` (`failed` is permanent) before the Pin names it by media_id;
 * - Pinterest keeps no idempotency key: the board (and the media id) is the attempt's handle, recorded before the
 *   Pin is created, and an unknown outcome is settled by the board's recent Pins (the same description or title,
 *   made after the attempt started); everything before the Pin's creation makes nothing a person sees, so an answer
 *   lost there is retried;
 * - answers whose `x-ratelimit-remaining` is 0 pause the channel until `x-ratelimit-reset`;
 * - Pinterest has no comment API: first comments are refused when a post is written (capabilities.firstCommentRefused);
 * - Pinterest revokes only system users' tokens (oauth/token/revoke), so disconnecting revokes nothing there;
 * - live sync reads the account's Pins with their metrics, and the account's follower_count (user_account/get) as
 *   the channel's audience.
 */
const SCOPES = ['boards:read', 'boards:write', 'pins:read', 'pins:write', 'user_accounts:read'];
const API = 'https://api.pinterest.com';
const CONSENT = 'https://www.pinterest.com/oauth/';
/** Refresh this long before the access token's end, so no call is made with a token about to lapse. */
const REFRESH_AHEAD_MS = 5 * 60_000;
/** A refresh token this close to its end is reported by herald network check. */
const REFRESH_WARNING_MS = 7 * 24 * 60 * 60_000;
/** Waits between reads of a video's processing status; after the last, the attempt is retried later. */
const MEDIA_WAITS_MS = [
  1_000, 2_000, 3_000, 5_000, 5_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000, 10_000,
];
/** How far before the attempt a Pin found on the board may be dated (the two clocks differ). */
const CLOCK_SLACK_MS = 60_000;

interface PinterestCredentials {
  accessToken: string;
  refreshToken: string;
  refreshExpiresAt?: number;
  userId: string;
  username: string;
  scopes: string[];
}

export interface PinterestApp {
  clientId: string;
  clientSecret: string;
}

/** What an attempt records before the Pin is created: where to look for it. */
interface PinHandle {
  boardId: string;
  mediaId?: string;
}

export class PinterestNetwork implements NetworkConnector {
  readonly capabilities = NETWORK_CAPABILITIES.pinterest;
  readonly connection: ConnectionMethod = { kind: 'oauth', fields: [] };

  constructor(
    private readonly http: NetworkHttp,
    private readonly media: NetworkHttpOptions,
    private readonly now: () => number,
    private readonly app: PinterestApp | undefined,
  ) {
    this.oauth = new OAuth2Client(
      http,
      {
        name: 'Pinterest',
        tokenUrl: `${API}/v5/oauth/token`,
        clientAuth: 'basic',
        appSettings: 'PINTEREST_APP_ID and PINTEREST_APP_SECRET',
        refusal: tokenRefusal,
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
      client_id: this.requireApp().clientId,
      redirect_uri: input.redirectUri,
      response_type: 'code',
      scope: SCOPES.join(','),
      state: input.state,
    });
    return { authorizationUrl: `${CONSENT}?${query}`, keep: {} };
  }

  async finishAuthorization(input: { code: string; redirectUri: string }): Promise<ConnectedAccount[]> {
    const code = { code: input.code, redirectUri: input.redirectUri, extra: { continuous_refresh: 'true' } };
    const granted = this.tokenAnswer(await this.oauth.exchangeCode(code));
    if (!granted.refreshToken)
      throw new NetworkError(
        'permanent',
        'Pinterest granted no refresh token: check the app at developers.pinterest.com',
      );
    const user = await this.call(granted.accessToken, 'GET', '/v5/user_account');
    const username = String(user.username ?? user.id);
    return [
      {
        networkAccountId: String(user.id),
        handle: username,
        displayName: typeof user.business_name === 'string' && user.business_name ? user.business_name : username,
        avatarUrl: typeof user.profile_image === 'string' ? user.profile_image : null,
        credentials: {
          ...granted.credentials,
          refreshToken: granted.refreshToken,
          userId: String(user.id),
          username,
        } satisfies PinterestCredentials,
        expiresAt: granted.expiresAt,
        textLimit: null,
      },
    ];
  }

  async refresh(channel: ConnectorChannel): Promise<void> {
    await this.refreshed(channel, (await channel.vault.read()).version);
  }

  async publish(request: PublishRequest): Promise<PublishedPost> {
    const options = request.channelOptions ?? {};
    if (typeof options.boardId !== 'string' || !options.boardId)
      throw new NetworkError('permanent', 'A Pin needs a board: set channelOptions.boardId');
    const handle: PinHandle = { boardId: options.boardId };
    const pin: Record<string, unknown> = { board_id: options.boardId };
    if (request.text.trim()) pin.description = request.text;
    if (typeof options.title === 'string' && options.title) pin.title = options.title;
    if (typeof options.link === 'string' && options.link) pin.link = options.link;
    const [video] = request.videoUrls;
    if (video) {
      handle.mediaId = await this.uploadVideo(request.channel, video);
      pin.media_source = { source_type: 'video_id', media_id: handle.mediaId, cover_image_key_frame_time: 1 };
    } else {
      const [image] = request.imageUrls;
      if (!image) throw new NetworkError('permanent', 'A Pin needs an image or a video');
      if (typeof options.altText === 'string' && options.altText) pin.alt_text = options.altText;
      pin.media_source = { source_type: 'image_url', url: image };
    }
    await request.recordHandle(JSON.stringify(handle));
    const made = await this.api(request.channel, 'POST', '/v5/pins', pin, false);
    return {
      networkPostId: String(made.id),
      permalinkUrl: pinUrl(String(made.id)),
      publishedAt: Date.parse(String(made.created_at)) || this.now(),
    };
  }

  async comment(_request: CommentRequest): Promise<{ networkCommentId: string }> {
    throw new NetworkError('permanent', `Pinterest ${this.capabilities.firstCommentRefused}`);
  }

  async findPublished(lookup: AttemptLookup): Promise<PublishedPost | undefined> {
    const handle = parseHandle(lookup.handle);
    const text = lookup.text.trim();
    const path = handle
      ? `/v5/boards/${encodeURIComponent(handle.boardId)}/pins?page_size=25`
      : '/v5/pins?page_size=25';
    const page = await this.api(lookup.channel, 'GET', path, undefined, true);
    // A handle says whether the attempt pinned a video (it names the media) or an image: a Pin of the other kind is not
    // it.
    const pins = (Array.isArray(page.items) ? (page.items as any[]) : []).filter(
      (pin) => !handle || (pin.media?.media_type === 'video') === (handle.mediaId !== undefined),
    );
    const found = pins
      .map(pinPost)
      .find((pin) => pin.publishedAt >= lookup.attemptedAt - CLOCK_SLACK_MS && pin.text.trim() === text);
    return (
      found && { networkPostId: found.networkPostId, permalinkUrl: found.permalinkUrl, publishedAt: found.publishedAt }
    );
  }

  async recentPosts(
    channel: ConnectorChannel,
    page: { cursor: string | null; limit: number },
  ): Promise<RecentPostsPage> {
    const query = new URLSearchParams({
      page_size: String(Math.min(100, Math.max(1, page.limit))),
      pin_metrics: 'true',
    });
    if (page.cursor) query.set('bookmark', page.cursor);
    const data = await this.api(channel, 'GET', `/v5/pins?${query}`, undefined, true);
    const pins: any[] = Array.isArray(data.items) ? data.items : [];
    return {
      posts: pins.map(pinPost),
      nextCursor: typeof data.bookmark === 'string' && data.bookmark ? data.bookmark : null,
    };
  }

  async audience(channel: ConnectorChannel): Promise<number> {
    return Number((await this.api(channel, 'GET', '/v5/user_account', undefined, true)).follower_count);
  }

  /**
   * Verifies the token, the account and the scopes, and lists the account's boards in `account` (an operator picks
   * a channelOptions.boardId from them).
   */
  async check(channel: ConnectorChannel): Promise<ConnectionCheck> {
    const opened = await this.fresh(channel);
    const c = opened.credentials as unknown as PinterestCredentials;
    const problems: string[] = [];
    const user = await this.api(channel, 'GET', '/v5/user_account', undefined, true);
    if (String(user.id) !== c.userId)
      problems.push(
        `The token belongs to Pinterest account ${user.username ?? user.id}, ` +
          `not the channel's ${c.username}: reconnect the channel with the right account.`,
      );
    const missing = SCOPES.filter((scope) => !c.scopes.includes(scope));
    if (missing.length > 0)
      problems.push(
        `The account did not grant ${missing.join(', ')}: reconnect the channel and allow every permission Herald ` +
          'asks for.',
      );
    let boards: any[] = [];
    if (c.scopes.includes('boards:read')) {
      const listed = await this.api(channel, 'GET', '/v5/boards?page_size=100', undefined, true);
      boards = Array.isArray(listed.items) ? listed.items : [];
      if (boards.length === 0)
        problems.push(
          'The account has no boards: create one on Pinterest, since every Pin goes on a board ' +
            '(channelOptions.boardId).',
        );
    }
    if (c.refreshExpiresAt !== undefined && c.refreshExpiresAt < this.now() + REFRESH_WARNING_MS) {
      problems.push(
        `The refresh token expires ${new Date(c.refreshExpiresAt).toISOString()}: reconnect the channel before then.`,
      );
    }
    const listing = boards.map((b) => `"${b.name}" ${b.id}`).join(', ');
    return {
      account: listing ? `${user.username} (boards: ${listing})` : String(user.username),
      grantedScopes: c.scopes,
      problems,
    };
  }

  /** Registers a video, sends its file with the upload's form fields, and waits until Pinterest has processed it. */
  private async uploadVideo(channel: ConnectorChannel, url: string): Promise<string> {
    // The file is read whole before it is sent: NETWORK_MAX_RESPONSE_BYTES bounds it below Pinterest's own cap.
    const file = await downloadMedia(
      this.media,
      channel.accountId,
      url,
      Math.min(this.capabilities.media.kinds.video?.maxBytes ?? Infinity, this.media.maxBytes),
    );
    const registered = await this.api(channel, 'POST', '/v5/media', { media_type: 'video' }, true);
    const mediaId = String(registered.media_id);
    const fields: Record<string, string> = {};
    for (const [name, value] of Object.entries(registered.upload_parameters ?? {})) fields[name] = String(value);
    const form = multipart(fields, { bytes: file.bytes, contentType: file.contentType, name: `video-${mediaId}` });
    let answer: NetworkAnswer;
    try {
      answer = await this.http.request(String(registered.upload_url), {
        method: 'POST',
        headers: { 'content-type': form.contentType },
        body: form.body,
      });
    } catch (error) {
      // No Pin names this media yet: a lost upload made nothing a person sees.
      if (error instanceof NetworkError && error.kind === 'unknown_outcome')
        throw new NetworkError('retry_later', `${error.message} (the video upload; no Pin was made)`);
      throw error;
    }
    if (answer.status < 200 || answer.status >= 300) {
      throw new NetworkError(
        answer.status >= 500 ? 'retry_later' : 'permanent',
        `Pinterest's media upload refused the video (HTTP ${answer.status}${uploadError(answer.body)})`,
      );
    }
    for (const wait of MEDIA_WAITS_MS) {
      const media = await this.api(channel, 'GET', `/v5/media/${encodeURIComponent(mediaId)}`, undefined, true);
      if (media.status === 'succeeded') return mediaId;
      if (media.status === 'failed')
        throw new NetworkError('permanent', `Pinterest could not process the video (media ${mediaId}: status failed)`);
      await this.http.pause(wait);
    }
    throw new NetworkError(
      'retry_later',
      `Pinterest was still processing the video (media ${mediaId}); no Pin was made yet`,
    );
  }

  /** A call with a fresh token; a 401 refreshes once and makes the call again (a 401 did nothing). */
  private async api(
    channel: ConnectorChannel,
    method: 'GET' | 'POST',
    path: string,
    json: unknown,
    read: boolean,
  ): Promise<any> {
    let opened = await this.fresh(channel);
    let answer = await this.send(opened, method, path, json, read);
    if (answer.status === 401) {
      opened = await this.refreshed(channel, opened.version);
      answer = await this.send(opened, method, path, json, read);
      if (answer.status === 401) throw new NetworkError('reconnect_needed', classify(answer, this.now()).message);
    }
    await observeBudget(channel, answer, this.now());
    if (answer.status < 200 || answer.status >= 300) {
      const failed = classify(answer, this.now());
      const missing = SCOPES.filter(
        (scope) => !(opened.credentials as unknown as PinterestCredentials).scopes.includes(scope),
      );
      // Pinterest's 403 does not say whether a scope or the resource was refused: a grant short of Herald's scopes is
      // the one a reconnect mends.
      if (answer.status === 403 && missing.length > 0) {
        throw new NetworkError(
          'reconnect_needed',
          `${failed.message}. The account did not grant ${missing.join(', ')}: ` +
            'reconnect the channel and allow every permission',
        );
      }
      throw failed;
    }
    return answer.json ?? {};
  }

  /** `read` calls (and registering media) make nothing a person sees: a lost answer is retried, not reconciled. */
  private async send(
    opened: OpenedCredentials,
    method: 'GET' | 'POST',
    path: string,
    json: unknown,
    read: boolean,
  ): Promise<NetworkAnswer> {
    const c = opened.credentials as unknown as PinterestCredentials;
    const request: NetworkRequest = { method, headers: { authorization: `Bearer ${c.accessToken}` } };
    if (json !== undefined) request.json = json;
    try {
      return await this.http.request(`${API}${path}`, request);
    } catch (error) {
      if (read && error instanceof NetworkError && error.kind === 'unknown_outcome')
        throw new NetworkError('retry_later', error.message);
      throw error;
    }
  }

  /** The same as `api` for a token Herald holds outside a channel (while connecting). */
  private async call(accessToken: string, method: 'GET' | 'POST', path: string): Promise<any> {
    const answer = await this.send(
      { credentials: { accessToken }, version: 0, expiresAt: null },
      method,
      path,
      undefined,
      true,
    );
    if (answer.status < 200 || answer.status >= 300) throw classify(answer, this.now());
    return answer.json ?? {};
  }

  private async fresh(channel: ConnectorChannel): Promise<OpenedCredentials> {
    const opened = await channel.vault.read();
    if (opened.expiresAt !== null && opened.expiresAt < this.now() + REFRESH_AHEAD_MS)
      return this.refreshed(channel, opened.version);
    return opened;
  }

  private refreshed(channel: ConnectorChannel, version: number): Promise<OpenedCredentials> {
    return channel.vault.refresh(version, async (current) => {
      const c = current as unknown as PinterestCredentials;
      const renewed = this.tokenAnswer(await this.oauth.refresh(c.refreshToken));
      const credentials: PinterestCredentials = {
        ...c,
        ...renewed.credentials,
        refreshToken: renewed.refreshToken ?? c.refreshToken,
      };
      if (!renewed.refreshToken) credentials.refreshExpiresAt = c.refreshExpiresAt;
      return { credentials: { ...credentials }, expiresAt: renewed.expiresAt };
    });
  }

  /** The token as the channel keeps it, with the refresh token apart: a refresh may answer none (the old one stays). */
  private tokenAnswer(token: TokenGrant) {
    const { accessToken, refreshExpiresAt, scopes } = token;
    return {
      accessToken,
      refreshToken: token.refreshToken ?? undefined,
      expiresAt: token.expiresAt,
      credentials: { accessToken, scopes, ...(refreshExpiresAt ? { refreshExpiresAt } : {}) },
    };
  }

  private requireApp(): PinterestApp {
    if (!this.app)
      throw new NetworkError(
        'permanent',
        'This Herald has no Pinterest app: its operator must set PINTEREST_APP_ID and PINTEREST_APP_SECRET',
      );
    return this.app;
  }
}

function parseHandle(handle: string | null): PinHandle | undefined {
  if (!handle) return undefined;
  try {
    const parsed = JSON.parse(handle);
    return typeof parsed?.boardId === 'string' ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** S3's XML error names the rule the upload broke (EntityTooLarge, AccessDenied, ...). */
function uploadError(body: Buffer): string {
  const code = /<Code>([^<]+)<\/Code>/.exec(body.toString('utf8'))?.[1];
  return code ? ` ${code}` : '';
}
