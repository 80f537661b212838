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
  type PublishRequest,
  type PublishedPost,
  type RecentPostsPage,
  type RenewedCredentials,
} from '../../domain/networks/connector.js';
import { API, WWW, XApi, isDuplicate, permalink, said, type XCredentials } from './x-api.js';
import { XMedia } from './x-media.js';
import type { NetworkAnswer, NetworkHttp, NetworkHttpOptions } from './network-http.js';
import { OAuth2Client } from './oauth2-client.js';

/**
 * X (API v2; docs.x.com: fundamentals/authentication/oauth-2-0/user-access-token, x-api/posts/creation-of-a-post,
 * x-api/users/lookup, x-api/posts/user-posts-timeline, fundamentals/counting-characters; NETWORKS.md).
 *
 * Rules kept here:
 * - OAuth 2.0 with PKCE (S256); the operator's app is a confidential client, so the token endpoint gets HTTP Basic
 *   with X_CLIENT_ID:X_CLIENT_SECRET; `offline.access` asks for a refresh token: access tokens live 2 hours and are
 *   refreshed ahead of expiry or on a 401, storing the new refresh token every time (X rotates them);
 * - at connect the account's subscription is read: a Premium account may post up to the capabilities table's
 *   `accountLimit`, kept as the channel's text limit; every other account has the table's 280 weighted characters;
 * - a post is POST /2/tweets with its uploaded media (x-media.ts); a first comment is a reply to it, and so is each
 *   part of a thread (`reply.in_reply_to_tweet_id`, the part before it), found again by its text, time and the post it
 *   replies to;
 * - X keeps no idempotency key: the media ids are recorded with the attempt before the post call, and an unknown
 *   outcome is settled from the user's timeline by text (links compared as links: X rewrites them to t.co), time
 *   and media;
 * - X's 403 "duplicate content" means the same text is already on the account: when a post with that text was made
 *   since this Herald post was written (an earlier attempt whose answer was lost), the attempt is settled as
 *   published with that post, never tried again; otherwise it is refused with X's words. A first comment X calls a
 *   duplicate is settled the same way: the account's reply with that text to that post is the earlier try's;
 * - live sync reads the user's timeline with public metrics, without replies (first comments) and reposts, and the
 *   user's public_metrics.followers_count (x-api/users/lookup, GET /2/users/me) as the channel's audience;
 * - a lost answer to a media call is retried later: no post can have been made before the post call.
 */
const SCOPES = ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access'];
const PUBLISH_SCOPES = ['tweet.read', 'tweet.write', 'users.read', 'media.write'];
/** X's subscription types whose posts may be longer (x-api/users: subscription_type). */
const LONG_POST_SUBSCRIPTIONS = ['Premium', 'PremiumPlus'];
const REFRESH_AHEAD_MS = 5 * 60_000;
/** How far before an attempt's start its post may carry X's timestamp (clocks differ). */
const CLOCK_SKEW_MS = 60_000;
const USER_FIELDS = 'profile_image_url,subscription_type,verified_type';

/** The operator's X app (config.networks.apps.x). */
export interface XApp {
  clientId: string;
  clientSecret: string;
}

export class XNetwork implements NetworkConnector {
  readonly capabilities = NETWORK_CAPABILITIES.x;
  readonly connection: ConnectionMethod = { kind: 'oauth', fields: [] };

  private readonly api: XApi;
  private readonly uploads: XMedia;
  private readonly oauth: OAuth2Client;

  constructor(
    private readonly http: NetworkHttp,
    media: NetworkHttpOptions,
    private readonly now: () => number,
    private readonly app: XApp | undefined,
  ) {
    this.api = new XApi(http, now);
    this.uploads = new XMedia(this.api, media, this.capabilities);
    // X answers invalid_request to a refresh token it no longer takes (revoked, or already spent by rotation).
    this.oauth = new OAuth2Client(
      http,
      {
        name: 'X',
        tokenUrl: `${API}/2/oauth2/token`,
        clientAuth: 'basic',
        clientIdInBody: true,
        appSettings: 'X_CLIENT_ID and X_CLIENT_SECRET',
        reconnectErrors: ['invalid_request'],
      },
      () => this.requireApp(),
      now,
    );
  }

  configured(): boolean {
    return this.app !== undefined;
  }

  async startAuthorization(input: {
    redirectUri: string;
    state: string;
    codeChallenge: string;
  }): Promise<AuthorizationStart> {
    const app = this.requireApp();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: app.clientId,
      redirect_uri: input.redirectUri,
      scope: SCOPES.join(' '),
      state: input.state,
      code_challenge: input.codeChallenge,
      code_challenge_method: 'S256',
    });
    // The consent screen follows NETWORK_ORIGIN_OVERRIDES like every call, so a test's fake plays X for the browser
    // too.
    return { authorizationUrl: this.http.rewrite(`${WWW}/i/oauth2/authorize?${query}`), keep: {} };
  }

  async finishAuthorization(input: {
    code: string;
    redirectUri: string;
    codeVerifier: string;
  }): Promise<ConnectedAccount[]> {
    const token = await this.oauth.exchangeCode(input);
    const scopes = token.scopes;
    const missing = PUBLISH_SCOPES.filter((s) => !scopes.includes(s));
    if (missing.length > 0)
      throw new NetworkError(
        'permanent',
        `X did not grant ${missing.join(', ')}, which Herald needs to publish: check the app's permissions at ` +
          'developer.x.com, then connect again',
      );
    const probe: XCredentials = {
      accessToken: token.accessToken,
      refreshToken: token.refreshToken,
      userId: '',
      username: '',
      scopes,
    };
    const me = (await this.api.expect(probe, `/2/users/me?user.fields=${USER_FIELDS}`, {}, [200])).json?.data ?? {};
    const longPosts = LONG_POST_SUBSCRIPTIONS.includes(String(me.subscription_type));
    return [
      {
        networkAccountId: String(me.id),
        handle: String(me.username),
        displayName: me.name ?? null,
        avatarUrl: typeof me.profile_image_url === 'string' ? me.profile_image_url : null,
        credentials: { ...probe, userId: String(me.id), username: String(me.username) },
        expiresAt: token.expiresAt,
        textLimit: longPosts ? (this.capabilities.text.accountLimit ?? null) : null,
      },
    ];
  }

  async renewable(channel: ConnectorChannel): Promise<boolean> {
    return Boolean((await this.credentials(channel)).credentials.refreshToken);
  }

  async refresh(channel: ConnectorChannel): Promise<void> {
    await this.renewed(channel, (await this.credentials(channel)).version);
  }

  async revoke(channel: ConnectorChannel): Promise<void> {
    const c = (await this.credentials(channel)).credentials;
    for (const [token, hint] of [
      [c.refreshToken, 'refresh_token'],
      [c.accessToken, 'access_token'],
    ] as const) {
      if (!token) continue;
      const answer = await this.http.request(`${API}/2/oauth2/revoke`, {
        method: 'POST',
        headers: this.basic(),
        form: { token, token_type_hint: hint, client_id: this.requireApp().clientId },
      });
      if (answer.status !== 200)
        throw new NetworkError('permanent', `X did not revoke the ${hint.replace('_', ' ')} (${said(answer)})`);
    }
  }

  async publish(request: PublishRequest): Promise<PublishedPost> {
    const c = await this.fresh(request.channel);
    const altTexts = Array.isArray(request.channelOptions?.altText)
      ? (request.channelOptions.altText as unknown[])
      : [];
    const media: string[] = [];
    try {
      if (request.videoUrls.length > 0)
        media.push(await this.uploads.upload(c, request.channel.accountId, request.videoUrls[0], undefined));
      for (const [index, url] of request.imageUrls.entries()) {
        const alt = altTexts[index];
        media.push(
          await this.uploads.upload(
            c,
            request.channel.accountId,
            url,
            typeof alt === 'string' && alt.trim() ? alt : undefined,
          ),
        );
      }
    } catch (error) {
      // A lost answer to a media call made no post: the attempt can simply be made again.
      if (error instanceof NetworkError && error.kind === 'unknown_outcome')
        throw new NetworkError('retry_later', error.message);
      throw error;
    }
    await request.recordHandle(JSON.stringify({ media }));
    const reply = request.replyTo ? { reply: { in_reply_to_tweet_id: request.replyTo.parentNetworkPostId } } : {};
    const json = { text: request.text, ...(media.length > 0 ? { media: { media_ids: media } } : {}), ...reply };
    const answer = await this.api.call(c, '/2/tweets', { method: 'POST', json });
    await this.api.observeBudget(request.channel, answer);
    if (answer.status === 201) return this.made(c, answer);
    if (isDuplicate(answer)) {
      const parent = request.replyTo?.parentNetworkPostId;
      const earlier = await this.matching(c, request.text, request.postKey.createdAt, null, parent);
      if (earlier) return earlier;
    }
    throw this.api.classify(answer, c, true);
  }

  async comment(request: CommentRequest): Promise<{ networkCommentId: string }> {
    const c = await this.fresh(request.channel);
    const answer = await this.api.call(c, '/2/tweets', {
      method: 'POST',
      json: { text: request.text, reply: { in_reply_to_tweet_id: request.networkPostId } },
    });
    await this.api.observeBudget(request.channel, answer);
    if (answer.status === 201) return { networkCommentId: String(answer.json?.data?.id) };
    if (isDuplicate(answer)) {
      const earlier = await this.earlierReply(c, request.networkPostId, request.text);
      if (earlier) return { networkCommentId: earlier };
    }
    throw this.api.classify(answer, c, true);
  }

  /** This account's reply with this text to that post: an earlier try of the same first comment. */
  private async earlierReply(c: XCredentials, postId: string, text: string): Promise<string | undefined> {
    const query = new URLSearchParams({ max_results: '100', 'tweet.fields': 'referenced_tweets' });
    const answer = await this.api.expect(c, `/2/users/${encodeURIComponent(c.userId)}/tweets?${query}`, {}, [200]);
    const found = ((answer.json?.data ?? []) as any[]).find(
      (t) =>
        comparable(String(t.text ?? '')) === comparable(text) &&
        ((t.referenced_tweets ?? []) as { type: string; id: string }[]).some(
          (r) => r.type === 'replied_to' && r.id === postId,
        ),
    );
    return found ? String(found.id) : undefined;
  }

  async findComment(lookup: CommentLookup): Promise<{ networkCommentId: string } | undefined> {
    const found = await this.earlierReply(await this.fresh(lookup.channel), lookup.networkPostId, lookup.text);
    return found ? { networkCommentId: found } : undefined;
  }

  async findPublished(lookup: AttemptLookup): Promise<PublishedPost | undefined> {
    const c = await this.fresh(lookup.channel);
    const media = lookup.handle ? (JSON.parse(lookup.handle) as { media: string[] }).media : null;
    return this.matching(c, lookup.text, lookup.attemptedAt, media, lookup.replyTo?.parentNetworkPostId);
  }

  async recentPosts(
    channel: ConnectorChannel,
    page: { cursor: string | null; limit: number },
  ): Promise<RecentPostsPage> {
    const c = await this.fresh(channel);
    // Replies (first comments among them) and reposts are not the account's posts.
    const query = new URLSearchParams({
      max_results: String(Math.min(100, Math.max(5, page.limit))),
      'tweet.fields': 'created_at,public_metrics,attachments',
      exclude: 'replies,retweets',
    });
    if (page.cursor) query.set('pagination_token', page.cursor);
    const answer = await this.api.expect(c, `/2/users/${encodeURIComponent(c.userId)}/tweets?${query}`, {}, [200]);
    const posts: NetworkPost[] = ((answer.json?.data ?? []) as any[]).map((t) => {
      const m = t.public_metrics ?? {};
      return {
        networkPostId: String(t.id),
        permalinkUrl: permalink(c.username, String(t.id)),
        publishedAt: Date.parse(t.created_at),
        attemptKey: null,
        text: String(t.text ?? ''),
        imageUrls: [],
        metrics: {
          likes: m.like_count ?? 0,
          reposts: m.retweet_count ?? 0,
          replies: m.reply_count ?? 0,
          quotes: m.quote_count ?? 0,
          bookmarks: m.bookmark_count ?? 0,
          impressions: m.impression_count ?? 0,
        },
      };
    });
    return { posts, nextCursor: answer.json?.meta?.next_token ?? null };
  }

  async audience(channel: ConnectorChannel): Promise<number> {
    const c = await this.fresh(channel);
    const me = await this.api.expect(c, '/2/users/me?user.fields=public_metrics', {}, [200]);
    return Number(me.json?.data?.public_metrics?.followers_count);
  }

  async check(channel: ConnectorChannel): Promise<ConnectionCheck> {
    const c = await this.fresh(channel);
    const problems: string[] = [];
    const missing = SCOPES.filter((s) => !c.scopes.includes(s));
    if (missing.length > 0) {
      problems.push(
        `X did not grant ${missing.join(', ')}` +
          (missing.includes('offline.access')
            ? ' (without offline.access the token lapses after 2 hours and cannot be refreshed)'
            : '') +
          ': reconnect the channel and authorize every permission.',
      );
    }
    const me = await this.api.call(c, `/2/users/me?user.fields=${USER_FIELDS}`);
    if (me.status !== 200) {
      const error = this.api.classify(me, c);
      problems.push(
        `X refused the token (${error.message})` +
          `${error.kind === 'retry_later' ? ': try again later' : ': reconnect the channel'}.`,
      );
      return { account: `@${c.username}`, grantedScopes: c.scopes, problems };
    }
    const data = me.json?.data ?? {};
    if (String(data.id) !== c.userId)
      problems.push(`The token belongs to @${data.username}, not to @${c.username}: reconnect the channel.`);
    return { account: `@${data.username}`, grantedScopes: c.scopes, problems };
  }

  /**
   * A post of this account with this text (and media, where recorded), made no earlier than `since`; for a part of a
   * thread, one replying to the part before it.
   */
  private async matching(
    c: XCredentials,
    text: string,
    since: number,
    media: string[] | null,
    repliesTo?: string,
  ): Promise<PublishedPost | undefined> {
    const query = new URLSearchParams({
      max_results: '100',
      'tweet.fields': 'created_at,attachments,referenced_tweets',
      start_time: new Date(since - CLOCK_SKEW_MS).toISOString(),
    });
    const answer = await this.api.expect(c, `/2/users/${encodeURIComponent(c.userId)}/tweets?${query}`, {}, [200]);
    // X shows a post with media with the media's t.co link after the text.
    const wanted = [comparable(text), `${comparable(text)} <link>`.trim()];
    const found = ((answer.json?.data ?? []) as any[]).find((t) => {
      if (!wanted.includes(comparable(String(t.text ?? '')))) return false;
      const references = (t.referenced_tweets ?? []) as { type: string; id: string }[];
      const replied = references.find((r) => r.type === 'replied_to')?.id;
      if (repliesTo !== undefined && replied !== repliesTo) return false;
      if (!media) return true;
      const keys = ((t.attachments?.media_keys ?? []) as string[]).map((key) => key.split('_').pop());
      return keys.length === media.length && keys.every((id, index) => id === media[index]);
    });
    return found
      ? {
          networkPostId: String(found.id),
          permalinkUrl: permalink(c.username, String(found.id)),
          publishedAt: Date.parse(found.created_at),
        }
      : undefined;
  }

  private made(c: XCredentials, answer: NetworkAnswer): PublishedPost {
    const id = answer.json?.data?.id;
    if (!id) throw new NetworkError('unknown_outcome', "X answered 201 without the post's id");
    return { networkPostId: String(id), permalinkUrl: permalink(c.username, String(id)), publishedAt: this.now() };
  }

  private requireApp(): XApp {
    if (!this.app)
      throw new NetworkError('permanent', 'This Herald instance has no X app: set X_CLIENT_ID and X_CLIENT_SECRET');
    return this.app;
  }

  private basic(): Record<string, string> {
    const app = this.requireApp();
    return { authorization: `Basic ${Buffer.from(`${app.clientId}:${app.clientSecret}`).toString('base64')}` };
  }

  private async credentials(channel: ConnectorChannel) {
    const opened = await channel.vault.read();
    return { ...opened, credentials: opened.credentials as unknown as XCredentials };
  }

  /** The channel's credentials, refreshed first when they are about to lapse and X granted a refresh token. */
  private async fresh(channel: ConnectorChannel): Promise<XCredentials> {
    const opened = await this.credentials(channel);
    if (
      opened.credentials.refreshToken &&
      opened.expiresAt !== null &&
      opened.expiresAt < this.now() + REFRESH_AHEAD_MS
    ) {
      return this.renewed(channel, opened.version);
    }
    return opened.credentials;
  }

  private async renewed(channel: ConnectorChannel, version: number): Promise<XCredentials> {
    const after = await channel.vault.refresh(version, async (current): Promise<RenewedCredentials> => {
      const c = current as unknown as XCredentials;
      if (!c.refreshToken)
        throw new NetworkError(
          'reconnect_needed',
          "X's access token expired and X granted no refresh token (offline.access): connect the channel again",
        );
      const answer = await this.oauth.refresh(c.refreshToken);
      const renewed: XCredentials = {
        ...c,
        accessToken: answer.accessToken,
        refreshToken: answer.refreshToken ?? c.refreshToken,
        scopes: answer.scopes.length > 0 ? answer.scopes : c.scopes,
      };
      return { credentials: { ...renewed }, expiresAt: answer.expiresAt };
    });
    return after.credentials as unknown as XCredentials;
  }
}

/** Text as X shows it back: NFC, trimmed, every link alike (X rewrites links to t.co). */
function comparable(text: string): string {
  return text
    .normalize('NFC')
    .replace(/\b(?:https?:\/\/|www\.)\S+/g, '<link>')
    .trim();
}
