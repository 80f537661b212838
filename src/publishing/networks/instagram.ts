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
  type Readiness,
  type PublishedPost,
  type RecentPostsPage,
  type RenewedCredentials,
} from '../../domain/networks/connector.js';
import { facebookLongLivedToken } from './facebook-login.js';
import { appSecretProof, graphTokenRefusal } from './meta-graph.js';
import { OAuth2Client } from './oauth2-client.js';
import { buildContainer, containerStatus, kindOf, type InstagramKind } from './instagram-containers.js';
import {
  GRAPH_HOSTS,
  InstagramGraph,
  instagramTime,
  type InstagramCredentials,
  type InstagramLogin,
} from './instagram-graph.js';
import type { NetworkHttp } from './network-http.js';

/**
 * Instagram professional accounts, through either of Meta's logins (developers.facebook.com/docs/instagram-platform:
 * instagram-api-with-instagram-login/business-login, reference/refresh_access_token, instagram-api-with-facebook-login,
 * content-publishing, ig-user/content_publishing_limit, ig-media/comments, ig-media/insights; NETWORKS.md).
 *
 * Rules kept here:
 * - `login` chooses the consent: `instagram` (default; Business Login for Instagram, INSTAGRAM_APP_ID) or `facebook`
 *   (Facebook Login for an Instagram account linked to a Page, FACEBOOK_APP_ID); a reconnect keeps the channel's;
 * - Instagram Login: the code is exchanged at api.instagram.com for a one-hour token, at once exchanged for a
 *   60-day one (ig_exchange_token); a token at least 24 h old is refreshed (ig_refresh_token) once under 30 days
 *   remain, through the vault; an expired one cannot be refreshed, so Meta's refusal asks for a reconnect;
 * - Facebook Login: the long-lived user token gives each Page's token, which does not expire; every Page with an
 *   instagram_business_account is a channel;
 * - before a post the account's content_publishing_limit is read: a spent quota is retried in an hour, since the
 *   window is a rolling 24 h, rather than spending containers Meta would refuse to publish; the same reading is the
 *   channel's readiness before a post's slot (a rehearsal, domain/posts/preflight.ts);
 * - the container id (with the post's kind) is the attempt's handle, recorded before media_publish, the one call
 *   that makes the post; an unknown outcome is settled by the container: PUBLISHED means the post is the account's
 *   recent media with the caption made since the attempt began (a story, which has no caption and is not among
 *   the media, the account's first story since then); any other status, or no handle (media_publish was never
 *   called), means not published;
 * - a first comment is POST /{media}/comments; live sync reads /{ig}/media with like and comment counts, and
 *   the media's insights where the person granted them, and the account's followers_count (the IG User's field,
 *   on either login) as the channel's audience.
 */
const INSTAGRAM_SCOPES = [
  'instagram_business_basic',
  'instagram_business_content_publish',
  'instagram_business_manage_comments',
  'instagram_business_manage_insights',
];
const FACEBOOK_SCOPES = [
  'instagram_basic',
  'instagram_content_publish',
  'instagram_manage_comments',
  'instagram_manage_insights',
  'pages_show_list',
  'pages_read_engagement',
];
const NEEDED: Record<InstagramLogin, string[]> = {
  instagram: ['instagram_business_basic', 'instagram_business_content_publish'],
  facebook: ['instagram_basic', 'instagram_content_publish', 'pages_read_engagement'],
};
const INSIGHTS_SCOPE: Record<InstagramLogin, string> = {
  instagram: 'instagram_business_manage_insights',
  facebook: 'instagram_manage_insights',
};
const INSIGHT_METRICS = ['reach', 'saved', 'shares', 'views'];
const MEDIA_FIELDS = 'id,caption,media_type,media_url,permalink,timestamp,like_count,comments_count';
const DAY_MS = 24 * 3600_000;
/** Instagram refreshes only tokens at least a day old. */
const REFRESH_MIN_AGE_MS = DAY_MS;
const REFRESH_WHEN_LEFT_MS = 30 * DAY_MS;
const QUOTA_RETRY_MS = 3600_000;
const FIND_WINDOW_MS = 60_000;
const CONSENT = {
  instagram: 'https://www.instagram.com/oauth/authorize',
  facebook: 'https://www.facebook.com',
} as const;
const TOKEN_ORIGIN = 'https://api.instagram.com';

/** What an attempt keeps before media_publish. */
interface AttemptHandle {
  container: string;
  kind: InstagramKind;
}

/** The operator's apps (config.networks.apps): Instagram Login's, and Facebook Login's for Page-linked accounts. */
export interface InstagramApps {
  instagram?: { clientId: string; clientSecret: string; graphVersion: string };
  facebook?: { clientId: string; clientSecret: string; graphVersion: string };
}

export class InstagramNetwork implements NetworkConnector {
  readonly capabilities = NETWORK_CAPABILITIES.instagram;
  readonly connection: ConnectionMethod = {
    kind: 'oauth',
    fields: [
      {
        name: 'login',
        required: false,
        secret: false,
        description:
          'instagram (default: Instagram Login, for professional accounts) or facebook (Facebook Login, for accounts ' +
          'linked to a Facebook Page)',
      },
    ],
  };

  private readonly graph: InstagramGraph;

  constructor(
    private readonly http: NetworkHttp,
    private readonly now: () => number,
    private readonly apps: InstagramApps,
  ) {
    this.graph = new InstagramGraph(
      http,
      now,
      () => this.version(),
      (login) => this.requireApp(login).clientSecret,
    );
  }

  configured(): boolean {
    return this.apps.instagram !== undefined || this.apps.facebook !== undefined;
  }

  async startAuthorization(input: {
    fields: Record<string, string>;
    redirectUri: string;
    state: string;
  }): Promise<AuthorizationStart> {
    const login = this.loginOf(input.fields.login);
    const app = this.requireApp(login);
    if (login === 'instagram') {
      const query = new URLSearchParams({
        client_id: app.clientId,
        redirect_uri: input.redirectUri,
        response_type: 'code',
        scope: INSTAGRAM_SCOPES.join(','),
        state: input.state,
      });
      return { authorizationUrl: this.http.rewrite(`${CONSENT.instagram}?${query}`), keep: { login } };
    }
    const query = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: input.redirectUri,
      response_type: 'code',
      scope: FACEBOOK_SCOPES.join(','),
      state: input.state,
    });
    return {
      authorizationUrl: this.http.rewrite(`${CONSENT.facebook}/${this.version()}/dialog/oauth?${query}`),
      keep: { login },
    };
  }

  async finishAuthorization(input: {
    code: string;
    redirectUri: string;
    keep: Record<string, string>;
  }): Promise<ConnectedAccount[]> {
    return this.loginOf(input.keep.login) === 'facebook'
      ? this.finishFacebook(input)
      : [await this.finishInstagram(input)];
  }

  private async finishInstagram(input: { code: string; redirectUri: string }): Promise<ConnectedAccount> {
    const oauth = this.oauth();
    const short = await oauth.exchangeCode({ code: input.code, redirectUri: input.redirectUri });
    const granted = short.answer;
    const long = await oauth.grant(
      'exchange',
      { grant_type: 'ig_exchange_token', access_token: short.accessToken },
      {
        url: `${GRAPH_HOSTS.instagram}/access_token`,
        method: 'GET',
        credentials: 'secret',
      },
    );
    const scopes = (
      Array.isArray(granted.permissions) ? granted.permissions : String(granted.permissions ?? '').split(',')
    )
      .map((s: string) => s.trim())
      .filter(Boolean);
    const probe: InstagramCredentials = {
      login: 'instagram',
      accessToken: long.accessToken,
      igUserId: String(granted.user_id ?? ''),
      username: '',
      scopes,
      issuedAt: this.now(),
    };
    const me = await this.graph.expect(null, probe, 'me?fields=user_id,username,name,profile_picture_url,account_type');
    const missing = NEEDED.instagram.filter((s) => !scopes.includes(s));
    if (missing.length > 0)
      throw new NetworkError(
        'permanent',
        `Instagram did not grant ${missing.join(', ')}, which Herald needs to publish; connect again and allow every ` +
          'permission',
      );
    const credentials: InstagramCredentials = {
      ...probe,
      igUserId: String(me.user_id ?? me.id),
      username: String(me.username ?? ''),
    };
    return {
      networkAccountId: credentials.igUserId,
      handle: credentials.username,
      displayName: me.name ?? credentials.username,
      avatarUrl: typeof me.profile_picture_url === 'string' ? me.profile_picture_url : null,
      credentials: { ...credentials },
      expiresAt: long.expiresAt,
      textLimit: null,
    };
  }

  private async finishFacebook(input: { code: string; redirectUri: string }): Promise<ConnectedAccount[]> {
    const app = this.requireApp('facebook');
    const meta = { ...app, graphVersion: this.version() };
    const accessToken = await facebookLongLivedToken(this.http, meta, input.code, input.redirectUri, this.now);
    const user: InstagramCredentials = {
      login: 'facebook',
      accessToken,
      igUserId: '',
      username: '',
      scopes: [],
      issuedAt: this.now(),
    };
    const permissions = await this.graph.expect(null, user, 'me/permissions');
    const scopes = ((permissions.data ?? []) as { permission: string; status: string }[])
      .filter((p) => p.status === 'granted')
      .map((p) => p.permission);
    const missing = NEEDED.facebook.filter((s) => !scopes.includes(s));
    if (missing.length > 0)
      throw new NetworkError(
        'permanent',
        `Facebook did not grant ${missing.join(', ')}, which Herald needs to publish on Instagram; connect again and ` +
          'allow every permission',
      );
    const pages = await this.graph.expect(
      null,
      user,
      'me/accounts?fields=name,access_token,instagram_business_account{id,username,name,profile_picture_url}',
    );
    const accounts: ConnectedAccount[] = [];
    for (const page of (pages.data ?? []) as any[]) {
      const ig = page.instagram_business_account;
      if (!ig?.id || typeof page.access_token !== 'string') continue;
      const credentials: InstagramCredentials = {
        login: 'facebook',
        accessToken: page.access_token,
        igUserId: String(ig.id),
        username: String(ig.username ?? ig.id),
        scopes,
        issuedAt: this.now(),
      };
      accounts.push({
        networkAccountId: credentials.igUserId,
        handle: credentials.username,
        displayName: ig.name ?? credentials.username,
        avatarUrl: typeof ig.profile_picture_url === 'string' ? ig.profile_picture_url : null,
        credentials: { ...credentials },
        expiresAt: null,
        textLimit: null,
      });
    }
    if (accounts.length === 0)
      throw new NetworkError(
        'permanent',
        'None of the Facebook Pages you granted has an Instagram professional account linked; link one to a Page, or ' +
          'connect with Instagram Login',
      );
    return accounts;
  }

  async fieldsFor(channel: ConnectorChannel): Promise<Record<string, string>> {
    return { login: (await this.credentials(channel)).credentials.login };
  }

  async refresh(channel: ConnectorChannel): Promise<void> {
    const opened = await this.credentials(channel);
    await this.renewed(channel, opened.version);
  }

  async publish(request: PublishRequest): Promise<PublishedPost> {
    const channel = request.channel;
    const c = await this.fresh(channel);
    const spent = await this.quotaSpent(channel, c);
    if (spent) throw new NetworkError('retry_later', spent, this.now() + QUOTA_RETRY_MS);
    const container = await buildContainer(this.graph, channel, c, request, this.capabilities.media.maxItems);
    await request.recordHandle(JSON.stringify({ container, kind: kindOf(request) } satisfies AttemptHandle));
    const made = await this.graph.expect(
      channel,
      c,
      `${c.igUserId}/media_publish`,
      { method: 'POST', form: { creation_id: container } },
      { makesPost: true },
    );
    if (typeof made?.id !== 'string')
      throw new NetworkError('unknown_outcome', 'Instagram answered media_publish without the media id');
    return this.published(channel, c, made.id);
  }

  async readiness(channel: ConnectorChannel): Promise<Readiness> {
    const spent = await this.quotaSpent(channel, await this.fresh(channel));
    // The quota is a rolling 24 hours: Instagram does not say when its oldest post leaves it.
    return spent ? { quotaSpent: { message: spent, until: null } } : {};
  }

  /** Instagram's words when the account's content_publishing_limit is used up, else undefined. */
  private async quotaSpent(channel: ConnectorChannel, c: InstagramCredentials): Promise<string | undefined> {
    const path = `${c.igUserId}/content_publishing_limit?fields=quota_usage,config`;
    const usage = (await this.graph.expect(channel, c, path)).data?.[0];
    if (!usage || Number(usage.quota_usage) < Number(usage.config?.quota_total ?? Infinity)) return undefined;
    return `The Instagram account has used its ${usage.config.quota_total} posts through the API in the last 24 hours`;
  }

  async comment(request: CommentRequest): Promise<{ networkCommentId: string }> {
    const c = await this.fresh(request.channel);
    const made = await this.graph.expect(
      request.channel,
      c,
      `${request.networkPostId}/comments`,
      { method: 'POST', form: { message: request.text } },
      { makesPost: true },
    );
    return { networkCommentId: String(made.id) };
  }

  /** The account's own comment on the media with the text (IG Comment's `username` is the commenter's). */
  async findComment(lookup: CommentLookup): Promise<{ networkCommentId: string } | undefined> {
    const c = await this.fresh(lookup.channel);
    const listed = await this.graph.expect(
      lookup.channel,
      c,
      `${lookup.networkPostId}/comments?fields=id,text,username,timestamp&limit=50`,
      {},
      { statusRead: true },
    );
    const match = ((listed.data ?? []) as any[]).find(
      (comment) => comment.username === c.username && String(comment.text ?? '').trim() === lookup.text.trim(),
    );
    return match ? { networkCommentId: String(match.id) } : undefined;
  }

  async findPublished(lookup: AttemptLookup): Promise<PublishedPost | undefined> {
    if (!lookup.handle) return undefined;
    const { container, kind } = JSON.parse(lookup.handle) as AttemptHandle;
    const c = await this.fresh(lookup.channel);
    const { code } = await containerStatus(this.graph, lookup.channel, c, container);
    if (code !== 'PUBLISHED') return undefined;
    const since = lookup.attemptedAt - FIND_WINDOW_MS;
    if (kind === 'story') {
      const stories = await this.graph.expect(lookup.channel, c, `${c.igUserId}/stories?fields=id,permalink,timestamp`);
      const [first] = ((stories.data ?? []) as any[])
        .filter((s) => instagramTime(s.timestamp) >= since)
        .sort((x, y) => instagramTime(x.timestamp) - instagramTime(y.timestamp));
      return first
        ? {
            networkPostId: first.id,
            permalinkUrl: first.permalink ?? this.profile(c),
            publishedAt: instagramTime(first.timestamp),
          }
        : undefined;
    }
    const recent = await this.graph.expect(lookup.channel, c, `${c.igUserId}/media?fields=${MEDIA_FIELDS}&limit=25`);
    const match = ((recent.data ?? []) as any[]).find(
      (m) => String(m.caption ?? '') === lookup.text && instagramTime(m.timestamp) >= since,
    );
    return match
      ? {
          networkPostId: match.id,
          permalinkUrl: match.permalink ?? this.profile(c),
          publishedAt: instagramTime(match.timestamp),
        }
      : undefined;
  }

  async recentPosts(
    channel: ConnectorChannel,
    page: { cursor: string | null; limit: number },
  ): Promise<RecentPostsPage> {
    const c = await this.fresh(channel);
    const limit = Math.min(100, Math.max(1, page.limit));
    const answer = await this.graph.expect(
      channel,
      c,
      `${c.igUserId}/media?fields=${MEDIA_FIELDS}&limit=${limit}` +
        (page.cursor ? `&after=${encodeURIComponent(page.cursor)}` : ''),
    );
    const posts: NetworkPost[] = [];
    for (const m of (answer.data ?? []) as any[]) {
      const metrics: Record<string, number> = {
        likes: Number(m.like_count ?? 0),
        comments: Number(m.comments_count ?? 0),
      };
      if (c.scopes.includes(INSIGHTS_SCOPE[c.login])) Object.assign(metrics, await this.insights(channel, c, m.id));
      posts.push({
        networkPostId: m.id,
        permalinkUrl: m.permalink ?? this.profile(c),
        publishedAt: instagramTime(m.timestamp),
        attemptKey: null,
        text: String(m.caption ?? ''),
        imageUrls: m.media_type === 'IMAGE' && typeof m.media_url === 'string' ? [m.media_url] : [],
        metrics,
      });
    }
    const after = answer.paging?.cursors?.after;
    return { posts, nextCursor: answer.paging?.next && typeof after === 'string' ? after : null };
  }

  async audience(channel: ConnectorChannel): Promise<number> {
    const c = await this.fresh(channel);
    return Number((await this.graph.expect(channel, c, `${c.igUserId}?fields=followers_count`)).followers_count);
  }

  async check(channel: ConnectorChannel): Promise<ConnectionCheck> {
    const opened = await this.credentials(channel);
    const c = opened.credentials;
    const problems: string[] = [];
    const me = await this.graph.call(
      channel,
      c,
      c.login === 'instagram' ? 'me?fields=user_id,username' : `${c.igUserId}?fields=id,username`,
    );
    if (me.status !== 200 || me.json?.error) {
      problems.push(`${this.graph.failure(me, c).message}: reconnect the channel.`);
      return { account: channel.handle, grantedScopes: c.scopes, problems };
    }
    const id = String(me.json.user_id ?? me.json.id);
    if (id !== c.igUserId)
      problems.push(`The token belongs to Instagram account ${id}, not to ${c.igUserId}: reconnect the channel.`);
    const missing = NEEDED[c.login].filter((s) => !c.scopes.includes(s));
    if (missing.length > 0)
      problems.push(
        `Instagram did not grant ${missing.join(', ')}, which Herald needs to publish: reconnect and allow every ` +
          'permission.',
      );
    const quota = await this.graph.call(channel, c, `${c.igUserId}/content_publishing_limit?fields=quota_usage,config`);
    if (quota.status !== 200 || quota.json?.error)
      problems.push(`Reading the publishing quota failed: ${this.graph.failure(quota, c).message}.`);
    if (
      opened.expiresAt !== null &&
      opened.expiresAt - this.now() < REFRESH_MIN_AGE_MS &&
      this.now() - c.issuedAt < REFRESH_MIN_AGE_MS
    ) {
      problems.push(
        `The access token expires on ${new Date(opened.expiresAt).toISOString().slice(0, 10)} and is too new for ` +
          'Instagram to refresh: reconnect the channel before then.',
      );
    }
    return { account: String(me.json.username ?? channel.handle), grantedScopes: c.scopes, problems };
  }

  private async published(channel: ConnectorChannel, c: InstagramCredentials, mediaId: string): Promise<PublishedPost> {
    // The post exists now: a failed read of its permalink must not turn into a retry that posts it again.
    try {
      const media = await this.graph.expect(
        channel,
        c,
        `${mediaId}?fields=permalink,timestamp`,
        {},
        { statusRead: true },
      );
      return {
        networkPostId: mediaId,
        permalinkUrl: String(media.permalink ?? this.profile(c)),
        publishedAt: instagramTime(media.timestamp) || this.now(),
      };
    } catch {
      return { networkPostId: mediaId, permalinkUrl: this.profile(c), publishedAt: this.now() };
    }
  }

  private async insights(
    channel: ConnectorChannel,
    c: InstagramCredentials,
    mediaId: string,
  ): Promise<Record<string, number>> {
    const answer = await this.graph.call(channel, c, `${mediaId}/insights?metric=${INSIGHT_METRICS.join(',')}`);
    const found: Record<string, number> = {};
    if (answer.status !== 200) return found;
    for (const metric of (answer.json?.data ?? []) as any[]) {
      const value = Number(metric.values?.[0]?.value ?? metric.total_value?.value);
      if (typeof metric.name === 'string' && Number.isFinite(value)) found[metric.name] = value;
    }
    return found;
  }

  private profile(c: InstagramCredentials): string {
    return `https://www.instagram.com/${c.username}/`;
  }

  private version(): string {
    return this.apps.instagram?.graphVersion ?? this.apps.facebook?.graphVersion ?? 'v23.0';
  }

  /** Instagram Login's token endpoints: the code's short token, then the long-lived exchange and refresh (GETs). */
  private oauth(): OAuth2Client {
    return new OAuth2Client(
      this.http,
      {
        name: 'Instagram',
        tokenUrl: `${TOKEN_ORIGIN}/oauth/access_token`,
        clientAuth: 'body',
        appSettings: 'INSTAGRAM_APP_ID and INSTAGRAM_APP_SECRET',
        refusal: graphTokenRefusal('Instagram'),
        unwrap: (json) => json?.data?.[0] ?? json,
      },
      () => this.requireApp('instagram'),
      this.now,
    );
  }

  private loginOf(value: string | undefined): InstagramLogin {
    const login = (value ?? '').trim().toLowerCase();
    if (login === '' || login === 'instagram') return 'instagram';
    if (login === 'facebook') return 'facebook';
    throw new NetworkError('permanent', `login must be instagram or facebook, not "${value}"`);
  }

  private requireApp(login: InstagramLogin) {
    const app = this.apps[login];
    if (!app) {
      throw new NetworkError(
        'permanent',
        login === 'instagram'
          ? 'This Herald instance has no Instagram Login app: set INSTAGRAM_APP_ID and INSTAGRAM_APP_SECRET, or ' +
              'connect with login=facebook'
          : 'This Herald instance has no Facebook app: set FACEBOOK_APP_ID and FACEBOOK_APP_SECRET, or connect with ' +
              'login=instagram',
      );
    }
    return app;
  }

  private async credentials(channel: ConnectorChannel) {
    const opened = await channel.vault.read();
    return { ...opened, credentials: opened.credentials as unknown as InstagramCredentials };
  }

  /**
   * The channel's credentials, refreshed first where Instagram would refresh them and they are past half their life.
   */
  private async fresh(channel: ConnectorChannel): Promise<InstagramCredentials> {
    const opened = await this.credentials(channel);
    const c = opened.credentials;
    if (
      c.login === 'instagram' &&
      opened.expiresAt !== null &&
      this.now() - c.issuedAt >= REFRESH_MIN_AGE_MS &&
      opened.expiresAt - this.now() < REFRESH_WHEN_LEFT_MS
    ) {
      return this.renewed(channel, opened.version);
    }
    return c;
  }

  private async renewed(channel: ConnectorChannel, version: number): Promise<InstagramCredentials> {
    const after = await channel.vault.refresh(version, async (current): Promise<RenewedCredentials> => {
      const c = current as unknown as InstagramCredentials;
      if (c.login !== 'instagram')
        throw new NetworkError(
          'reconnect_needed',
          "Facebook no longer accepts the Page's token: connect the channel again",
        );
      const appSecret = this.requireApp('instagram').clientSecret;
      const proof = appSecretProof({ accessToken: c.accessToken, appSecret });
      const params = { grant_type: 'ig_refresh_token', access_token: c.accessToken, appsecret_proof: proof };
      const url = `${GRAPH_HOSTS.instagram}/refresh_access_token`;
      const answer = await this.oauth().grant('refresh', params, { url, method: 'GET', credentials: 'none' });
      const renewed = { ...c, accessToken: answer.accessToken, issuedAt: this.now() };
      return { credentials: renewed, expiresAt: answer.expiresAt };
    });
    return after.credentials as unknown as InstagramCredentials;
  }
}
