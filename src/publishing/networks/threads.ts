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
  type PublishRequest,
  type PublishedPost,
  type Readiness,
  type RecentPostsPage,
  type RenewedCredentials,
} from '../../domain/networks/connector.js';
import { graphTokenRefusal } from './meta-graph.js';
import type { NetworkHttp } from './network-http.js';
import { OAuth2Client } from './oauth2-client.js';
import { THREADS_GRAPH, ThreadsGraph, threadsTime, type ThreadsCredentials } from './threads-graph.js';

/**
 * Threads profiles (developers.facebook.com/docs/threads: get-started/get-access-tokens-and-permissions,
 * get-started/long-lived-tokens, posts, reference/publishing, troubleshooting (container status, quota),
 * retrieve-and-discover-posts/retrieve-posts, reference/insights, reference/debug; NETWORKS.md).
 *
 * Rules kept here:
 * - consent at threads.net/oauth/authorize; the code is exchanged at graph.threads.net for a one-hour token, at once
 *   exchanged for a 60-day one (th_exchange_token); the permissions granted are read from debug_token, and a
 *   connection without threads_content_publish is refused;
 * - a token at least 24 h old is refreshed (th_refresh_token) before it is used, through the vault, so a channel in
 *   use never reaches its 60 days; an expired one cannot be refreshed, so Meta's refusal asks for a reconnect;
 * - before a post the profile's threads_publishing_limit is read: a spent quota (250 posts a rolling 24 h) is
 *   retried in an hour rather than spending containers Threads would refuse to publish, and is the channel's
 *   readiness before a post's slot (domain/posts/preflight.ts);
 * - the container id is the attempt's handle, recorded before threads_publish, the one call that makes the post;
 *   an unknown outcome is settled by the container: PUBLISHED means the post is the profile's recent thread with
 *   the text made since the attempt began; any other status, or no handle, means not published;
 * - SPEC names no first comments on Threads (the capabilities row says none), so no reply is made for one; a part of
 *   a thread is a container replying to the part before it (`reply_to_id`), settled like a post by its container,
 *   then found among the profile's replies (/{user}/replies) as a reply to that part;
 * - live sync reads /{user}/threads, with each post's insights where the person granted threads_manage_insights,
 *   and then the profile's followers_count (user insights, /{user}/threads_insights) as the channel's audience:
 *   without that permission there is none.
 */
const SCOPES = ['threads_basic', 'threads_content_publish', 'threads_manage_insights'];
const NEEDED = ['threads_basic', 'threads_content_publish'];
const INSIGHTS_SCOPE = 'threads_manage_insights';
const INSIGHT_METRICS = ['views', 'likes', 'replies', 'reposts', 'quotes', 'shares'];
const POST_FIELDS = 'id,media_type,media_url,permalink,text,timestamp';
const DAY_MS = 24 * 3600_000;
/** Threads refreshes only tokens at least a day old. */
const REFRESH_MIN_AGE_MS = DAY_MS;
const QUOTA_RETRY_MS = 3600_000;
const FIND_WINDOW_MS = 60_000;
const CONSENT = 'https://threads.net/oauth/authorize';

export class ThreadsNetwork implements NetworkConnector {
  readonly capabilities = NETWORK_CAPABILITIES.threads;
  readonly connection: ConnectionMethod = { kind: 'oauth', fields: [] };

  private readonly graph: ThreadsGraph;

  constructor(
    private readonly http: NetworkHttp,
    private readonly now: () => number,
    private readonly app: { clientId: string; clientSecret: string; graphVersion: string } | undefined,
  ) {
    this.graph = new ThreadsGraph(http, now, () => this.app?.graphVersion ?? 'v1.0');
    // The code's short token is a form POST; the long-lived exchange and the refresh are GETs.
    this.oauth = new OAuth2Client(
      http,
      {
        name: 'Threads',
        tokenUrl: `${THREADS_GRAPH}/oauth/access_token`,
        clientAuth: 'body',
        appSettings: 'THREADS_APP_ID and THREADS_APP_SECRET',
        refusal: graphTokenRefusal('Threads'),
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
    const app = this.requireApp();
    const query = new URLSearchParams({
      client_id: app.clientId,
      redirect_uri: input.redirectUri,
      scope: SCOPES.join(','),
      response_type: 'code',
      state: input.state,
    });
    return { authorizationUrl: this.http.rewrite(`${CONSENT}?${query}`), keep: {} };
  }

  async finishAuthorization(input: { code: string; redirectUri: string }): Promise<ConnectedAccount[]> {
    const short = await this.oauth.exchangeCode({ code: input.code, redirectUri: input.redirectUri });
    const exchange = { grant_type: 'th_exchange_token', access_token: short.accessToken };
    const long = await this.oauth.grant('exchange', exchange, {
      url: `${THREADS_GRAPH}/access_token`,
      method: 'GET',
      credentials: 'secret',
    });
    const token = long.accessToken;
    const scopes = await this.grantedScopes(token);
    const missing = NEEDED.filter((s) => !scopes.includes(s));
    if (missing.length > 0)
      throw new NetworkError(
        'permanent',
        `Threads did not grant ${missing.join(', ')}, which Herald needs to publish; connect again and allow every ` +
          'permission',
      );
    const me = await this.graph.expect(null, token, 'me?fields=id,username,name,threads_profile_picture_url');
    const credentials: ThreadsCredentials = {
      accessToken: token,
      userId: String(me.id ?? short.answer.user_id),
      username: String(me.username ?? ''),
      scopes,
      issuedAt: this.now(),
    };
    return [
      {
        networkAccountId: credentials.userId,
        handle: credentials.username,
        displayName: typeof me.name === 'string' && me.name ? me.name : credentials.username,
        avatarUrl: typeof me.threads_profile_picture_url === 'string' ? me.threads_profile_picture_url : null,
        credentials: { ...credentials },
        expiresAt: long.expiresAt,
        textLimit: null,
      },
    ];
  }

  async refresh(channel: ConnectorChannel): Promise<void> {
    const opened = await channel.vault.read();
    await this.renewed(channel, opened.version);
  }

  async publish(request: PublishRequest): Promise<PublishedPost> {
    const channel = request.channel;
    const c = await this.fresh(channel);
    const spent = await this.quotaSpent(channel, c);
    if (spent) throw new NetworkError('retry_later', spent, this.now() + QUOTA_RETRY_MS);
    const container = await this.graph.buildContainer(channel, c, request, this.capabilities.media.maxItems);
    await request.recordHandle(container);
    const made = await this.graph.expect(
      channel,
      c.accessToken,
      `${c.userId}/threads_publish`,
      { method: 'POST', form: { creation_id: container } },
      { makesPost: true },
    );
    if (typeof made?.id !== 'string')
      throw new NetworkError('unknown_outcome', 'Threads answered threads_publish without the media id');
    return this.published(channel, c, made.id);
  }

  async readiness(channel: ConnectorChannel): Promise<Readiness> {
    const spent = await this.quotaSpent(channel, await this.fresh(channel));
    // The quota is a rolling 24 hours: Threads does not say when its oldest post leaves it.
    return spent ? { quotaSpent: { message: spent, until: null } } : {};
  }

  /** Threads' words when the profile's threads_publishing_limit is used up, else undefined. */
  private async quotaSpent(channel: ConnectorChannel, c: ThreadsCredentials): Promise<string | undefined> {
    const path = `${c.userId}/threads_publishing_limit?fields=quota_usage,config`;
    const usage = (await this.graph.expect(channel, c.accessToken, path)).data?.[0];
    if (!usage || Number(usage.quota_usage) < Number(usage.config?.quota_total ?? Infinity)) return undefined;
    const total = usage.config.quota_total;
    return `The Threads profile has published its ${total} posts through the API in the last 24 hours`;
  }

  async comment(_request: CommentRequest): Promise<{ networkCommentId: string }> {
    throw new NetworkError('permanent', 'Herald makes no first comments on Threads');
  }

  async findPublished(lookup: AttemptLookup): Promise<PublishedPost | undefined> {
    if (!lookup.handle) return undefined;
    const c = await this.fresh(lookup.channel);
    const { status } = await this.graph.containerStatus(lookup.channel, c, lookup.handle);
    if (status !== 'PUBLISHED') return undefined;
    const since = lookup.attemptedAt - FIND_WINDOW_MS;
    const parent = lookup.replyTo?.parentNetworkPostId;
    const edge = parent ? `replies?fields=${POST_FIELDS},replied_to` : `threads?fields=${POST_FIELDS}`;
    const recent = await this.graph.expect(
      lookup.channel,
      c.accessToken,
      `${c.userId}/${edge}&limit=25`,
      {},
      {
        statusRead: true,
      },
    );
    const match = ((recent.data ?? []) as any[]).find(
      (m) =>
        String(m.text ?? '') === lookup.text &&
        threadsTime(m.timestamp) >= since &&
        (parent === undefined || m.replied_to?.id === parent),
    );
    return match
      ? {
          networkPostId: String(match.id),
          permalinkUrl: match.permalink ?? this.profile(c),
          publishedAt: threadsTime(match.timestamp),
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
      c.accessToken,
      `${c.userId}/threads?fields=${POST_FIELDS}&limit=${limit}` +
        (page.cursor ? `&after=${encodeURIComponent(page.cursor)}` : ''),
    );
    const posts: NetworkPost[] = [];
    for (const m of (answer.data ?? []) as any[]) {
      // A repost of someone else's thread is listed among the profile's threads but is not its post.
      if (m.media_type === 'REPOST_FACADE') continue;
      const metrics = c.scopes.includes(INSIGHTS_SCOPE) ? await this.insights(channel, c, String(m.id)) : {};
      posts.push({
        networkPostId: String(m.id),
        permalinkUrl: m.permalink ?? this.profile(c),
        publishedAt: threadsTime(m.timestamp),
        attemptKey: null,
        text: String(m.text ?? ''),
        imageUrls: m.media_type === 'IMAGE' && typeof m.media_url === 'string' ? [m.media_url] : [],
        metrics,
      });
    }
    const after = answer.paging?.cursors?.after;
    return { posts, nextCursor: answer.paging?.next && typeof after === 'string' ? after : null };
  }

  async audience(channel: ConnectorChannel): Promise<number | null> {
    const c = await this.fresh(channel);
    if (!c.scopes.includes(INSIGHTS_SCOPE)) return null;
    const path = `${c.userId}/threads_insights?metric=followers_count`;
    const answer = await this.graph.expect(channel, c.accessToken, path);
    const metric = ((answer.data ?? []) as any[]).find((m) => m.name === 'followers_count');
    return metric ? Number(metric.total_value?.value) : null;
  }

  async check(channel: ConnectorChannel): Promise<ConnectionCheck> {
    const opened = await channel.vault.read();
    const c = opened.credentials as unknown as ThreadsCredentials;
    const problems: string[] = [];
    const me = await this.graph.call(channel, c.accessToken, 'me?fields=id,username');
    if (me.status !== 200 || me.json?.error) {
      problems.push(`${this.graph.failure(me).message}: reconnect the channel.`);
      return { account: channel.handle, grantedScopes: c.scopes, problems };
    }
    if (String(me.json.id) !== c.userId)
      problems.push(`The token belongs to Threads profile ${me.json.id}, not to ${c.userId}: reconnect the channel.`);
    let scopes = c.scopes;
    try {
      scopes = await this.grantedScopes(c.accessToken);
    } catch (error) {
      problems.push(`Reading the granted permissions failed: ${(error as Error).message}.`);
    }
    const missing = NEEDED.filter((s) => !scopes.includes(s));
    if (missing.length > 0)
      problems.push(
        `Threads did not grant ${missing.join(', ')}, which Herald needs to publish: reconnect and allow every ` +
          'permission.',
      );
    if (!scopes.includes(INSIGHTS_SCOPE))
      problems.push(
        `Threads did not grant ${INSIGHTS_SCOPE}: posts publish, but live sync brings no metrics; reconnect and ` +
          'allow it to have them.',
      );
    const quota = await this.graph.call(
      channel,
      c.accessToken,
      `${c.userId}/threads_publishing_limit?fields=quota_usage,config`,
    );
    if (quota.status !== 200 || quota.json?.error) {
      problems.push(`Reading the publishing quota failed: ${this.graph.failure(quota).message}.`);
    } else {
      const usage = quota.json?.data?.[0];
      if (usage && Number(usage.quota_usage) >= Number(usage.config?.quota_total ?? Infinity)) {
        problems.push(
          `The profile has used all ${usage.config.quota_total} posts Threads allows through the API in 24 hours: ` +
            'posts wait until the oldest of them is a day old.',
        );
      }
    }
    if (
      opened.expiresAt !== null &&
      opened.expiresAt - this.now() < REFRESH_MIN_AGE_MS &&
      this.now() - c.issuedAt < REFRESH_MIN_AGE_MS
    ) {
      problems.push(
        `The access token expires on ${new Date(opened.expiresAt).toISOString().slice(0, 10)} and is too new for ` +
          'Threads to refresh: reconnect the channel before then.',
      );
    }
    return { account: String(me.json.username ?? channel.handle), grantedScopes: scopes, problems };
  }

  /** The permissions debug_token reports for a token, inspected with itself (the same app's token). */
  private async grantedScopes(token: string): Promise<string[]> {
    const debug = await this.graph.expect(null, token, `debug_token?${new URLSearchParams({ input_token: token })}`);
    const scopes = debug.data?.scopes;
    return Array.isArray(scopes) ? scopes.map(String) : [];
  }

  private async published(channel: ConnectorChannel, c: ThreadsCredentials, mediaId: string): Promise<PublishedPost> {
    // The post exists now: a failed read of its permalink must not turn into a retry that posts it again.
    try {
      const media = await this.graph.expect(
        channel,
        c.accessToken,
        `${mediaId}?fields=permalink,timestamp`,
        {},
        { statusRead: true },
      );
      return {
        networkPostId: mediaId,
        permalinkUrl: String(media.permalink ?? this.profile(c)),
        publishedAt: threadsTime(media.timestamp) || this.now(),
      };
    } catch {
      return { networkPostId: mediaId, permalinkUrl: this.profile(c), publishedAt: this.now() };
    }
  }

  private async insights(
    channel: ConnectorChannel,
    c: ThreadsCredentials,
    mediaId: string,
  ): Promise<Record<string, number>> {
    const answer = await this.graph.call(
      channel,
      c.accessToken,
      `${mediaId}/insights?metric=${INSIGHT_METRICS.join(',')}`,
    );
    const found: Record<string, number> = {};
    if (answer.status !== 200) return found;
    for (const metric of (answer.json?.data ?? []) as any[]) {
      const value = Number(metric.values?.[0]?.value ?? metric.total_value?.value);
      if (typeof metric.name === 'string' && Number.isFinite(value)) found[metric.name] = value;
    }
    return found;
  }

  private profile(c: ThreadsCredentials): string {
    return `https://www.threads.net/@${c.username}`;
  }

  private requireApp() {
    if (!this.app)
      throw new NetworkError(
        'permanent',
        'This Herald instance has no Threads app: set THREADS_APP_ID and THREADS_APP_SECRET',
      );
    return this.app;
  }

  /** The channel's credentials, refreshed first once the token is a day old. */
  private async fresh(channel: ConnectorChannel): Promise<ThreadsCredentials> {
    const opened = await channel.vault.read();
    const c = opened.credentials as unknown as ThreadsCredentials;
    if (this.now() - c.issuedAt >= REFRESH_MIN_AGE_MS && (opened.expiresAt === null || opened.expiresAt > this.now()))
      return this.renewed(channel, opened.version);
    return c;
  }

  private async renewed(channel: ConnectorChannel, version: number): Promise<ThreadsCredentials> {
    const after = await channel.vault.refresh(version, async (current): Promise<RenewedCredentials> => {
      const c = current as unknown as ThreadsCredentials;
      const params = { grant_type: 'th_refresh_token', access_token: c.accessToken };
      const url = `${THREADS_GRAPH}/refresh_access_token`;
      const answer = await this.oauth.grant('refresh', params, { url, method: 'GET', credentials: 'none' });
      const renewed = { ...c, accessToken: answer.accessToken, issuedAt: this.now() };
      return { credentials: renewed, expiresAt: answer.expiresAt };
    });
    return after.credentials as unknown as ThreadsCredentials;
  }
}
