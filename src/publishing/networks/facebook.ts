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
} from '../../domain/networks/connector.js';
import { facebookDialog, facebookUserToken, graphBase, grantedPages, type MetaApp } from './facebook-login.js';
import { graphFailure, graphRequest, observeGraphBudget, type GraphCall, type GraphToken } from './meta-graph.js';
import type { NetworkHttp, NetworkRequest } from './network-http.js';

/**
 * Facebook Pages through Meta's Graph API (developers.facebook.com/docs: Facebook Login manual flow, long-lived
 * tokens, Pages API posts, photos, video API, comments, page post insights; NETWORKS.md; [PZ/facebook]).
 *
 * Rules kept here:
 * - consent is Facebook Login (facebook-login.ts); every Page the person granted becomes its own channel with its
 *   Page token; a reconnect keeps to the channel's own Page;
 * - a text or link post is one POST /{page}/feed; photos are uploaded unpublished (POST /{page}/photos with their
 *   URL, published=false: Meta fetches the file itself) and attached to one feed post by their ids; a video is
 *   POST /{page}/videos with file_url (Meta fetches it), then read until Meta has processed it: an `error` status
 *   fails the post with Meta's reason, a video still processing after the wait is left to go live on its own;
 * - Meta keeps no idempotency key: the attempt records what it is about to make (a feed post, with its photo
 *   ids, or a video) before the one call that makes the post, and an unknown outcome is settled from the Page's
 *   posts (or videos) made since the attempt, by their text and the photos recorded; an unpublished photo that timed
 *   out makes no post, so it is only retried later;
 * - a permalink read after the post was made never fails the post: the post is live, its link is Meta's default;
 * - the channel's audience is the Page's followers_count (graph-api/reference/page), read at each live sync;
 * - an expired Page token is refreshed from the stored user token (GET /{page}?fields=access_token); when that is
 *   refused too, a person must log in again (Meta gives no refresh token);
 * - disconnecting revokes nothing at Meta: the only revocation (DELETE /me/permissions) would cut every Page
 *   the person granted, not just this channel's;
 * - the Graph version is configuration (FACEBOOK_GRAPH_VERSION), never a literal here.
 */
export const FACEBOOK_SCOPES = [
  'pages_show_list',
  'pages_manage_posts',
  'pages_read_engagement',
  'pages_manage_engagement',
  'read_insights',
  'business_management',
  'publish_video',
] as const;

/** Why Herald asks for each scope, for the check's sentences. */
const SCOPE_PURPOSE: Record<(typeof FACEBOOK_SCOPES)[number], string> = {
  pages_show_list: 'list the Pages you manage',
  pages_manage_posts: 'publish on the Page',
  pages_read_engagement: "read the Page's posts",
  pages_manage_engagement: 'write first comments',
  read_insights: 'read post insights for live sync',
  business_management: 'reach Pages owned through a business portfolio',
  publish_video: 'publish videos on the Page',
};
/** Meta's replacement for post_impressions_unique since June 2025 (page insights, deprecated metrics). */
const INSIGHT_METRICS = ['post_total_media_view_unique'];
/** A check warns this long before Meta's data access for the token lapses (90 days after the last login). */
const DATA_ACCESS_WARNING_MS = 14 * 24 * 60 * 60_000;
/** A post made by the attempt is no older than the attempt; this margin allows for clocks that differ. */
const CLOCK_MARGIN_MS = 60_000;
const VIDEO_POLL_MS = 500;
const VIDEO_POLLS = 120;

interface FacebookCredentials {
  pageId: string;
  pageToken: string;
  userId: string;
  userToken: string;
}

/** What an attempt is about to make, recorded before the call that makes it. */
interface FacebookHandle {
  kind: 'feed' | 'video';
  photos: string[];
}

export class FacebookNetwork implements NetworkConnector {
  readonly capabilities = NETWORK_CAPABILITIES.facebook;
  readonly connection: ConnectionMethod = {
    kind: 'oauth',
    fields: [
      {
        name: 'page',
        required: false,
        secret: false,
        description: 'the id of one Page to connect; every Page you grant is connected when left out',
      },
    ],
  };

  constructor(
    private readonly http: NetworkHttp,
    private readonly now: () => number,
    private readonly app: MetaApp | undefined,
  ) {}

  configured(): boolean {
    return this.app !== undefined;
  }

  private get graph(): string {
    return graphBase(this.meta());
  }

  private meta(): MetaApp {
    if (!this.app)
      throw new NetworkError(
        'permanent',
        'This Herald instance has no Facebook app: set FACEBOOK_APP_ID and FACEBOOK_APP_SECRET',
      );
    return this.app;
  }

  async startAuthorization(input: {
    fields: Record<string, string>;
    redirectUri: string;
    state: string;
  }): Promise<AuthorizationStart> {
    const page = input.fields.page?.trim();
    return {
      authorizationUrl: facebookDialog(this.http, this.meta(), input.redirectUri, input.state, FACEBOOK_SCOPES),
      keep: page ? { page } : {},
    };
  }

  async finishAuthorization(input: {
    code: string;
    redirectUri: string;
    keep: Record<string, string>;
  }): Promise<ConnectedAccount[]> {
    const user = await facebookUserToken(this.http, this.meta(), input.code, input.redirectUri, this.now());
    const pages = await grantedPages(this.http, this.meta(), user.token, this.now());
    const chosen = input.keep.page ? pages.filter((page) => page.id === input.keep.page) : pages;
    if (chosen.length === 0) {
      throw new NetworkError(
        'permanent',
        input.keep.page
          ? `Facebook did not grant Herald the Page ${input.keep.page}: choose it on Facebook's screen when connecting`
          : "Facebook granted Herald no Page: choose at least one Page on Facebook's screen when connecting",
      );
    }
    return chosen.map((page) => ({
      networkAccountId: page.id,
      handle: page.name,
      displayName: page.name,
      avatarUrl: page.pictureUrl,
      credentials: {
        pageId: page.id,
        pageToken: page.accessToken,
        userId: user.userId,
        userToken: user.token.accessToken,
      } satisfies FacebookCredentials,
      expiresAt: null,
      textLimit: null,
    }));
  }

  async fieldsFor(channel: ConnectorChannel): Promise<Record<string, string>> {
    return { page: (await this.credentials(channel)).pageId };
  }

  async refresh(channel: ConnectorChannel): Promise<void> {
    const { version } = await channel.vault.read();
    await channel.vault.refresh(version, async (current) => {
      const c = current as unknown as FacebookCredentials;
      const answer = await graphRequest(
        this.http,
        `${this.graph}/${encodeURIComponent(c.pageId)}?fields=access_token`,
        this.token(c.userToken),
      );
      if (answer.status !== 200 || typeof answer.json?.access_token !== 'string') {
        const failure = graphFailure(answer, this.now(), { network: 'Facebook' });
        if (failure.kind === 'retry_later') throw failure;
        throw new NetworkError(
          'reconnect_needed',
          `${failure.message}; Facebook gives no refresh token, so a person must connect the Page again`,
        );
      }
      return { credentials: { ...c, pageToken: answer.json.access_token }, expiresAt: null };
    });
  }

  async publish(request: PublishRequest): Promise<PublishedPost> {
    const c = await this.credentials(request.channel);
    const page = encodeURIComponent(c.pageId);
    const link = request.channelOptions?.link;
    if (typeof link === 'string' && (request.imageUrls.length > 0 || request.videoUrls.length > 0)) {
      throw new NetworkError(
        'permanent',
        'Facebook attaches a link only to a post without photos or a video: remove channelOptions.link or the media',
      );
    }
    if (request.videoUrls.length > 0) {
      await request.recordHandle(JSON.stringify({ kind: 'video', photos: [] } satisfies FacebookHandle));
      const video = await this.call(
        request.channel,
        c,
        `${this.graph}/${page}/videos`,
        { makesPost: true },
        {
          method: 'POST',
          json: { file_url: request.videoUrls[0], description: request.text },
        },
      );
      return this.processedVideo(request.channel, c, String(video.id));
    }
    const photos: string[] = [];
    for (const url of request.imageUrls) {
      const photo = await this.call(
        request.channel,
        c,
        `${this.graph}/${page}/photos`,
        {},
        { method: 'POST', json: { url, published: false } },
      );
      photos.push(String(photo.id));
    }
    await request.recordHandle(JSON.stringify({ kind: 'feed', photos } satisfies FacebookHandle));
    const post = await this.call(
      request.channel,
      c,
      `${this.graph}/${page}/feed`,
      { makesPost: true },
      {
        method: 'POST',
        json: {
          message: request.text,
          ...(photos.length > 0 ? { attached_media: photos.map((id) => ({ media_fbid: id })) } : {}),
          ...(typeof link === 'string' ? { link } : {}),
        },
      },
    );
    return this.published(request.channel, c, String(post.id));
  }

  async comment(request: CommentRequest): Promise<{ networkCommentId: string }> {
    const c = await this.credentials(request.channel);
    const made = await this.call(
      request.channel,
      c,
      `${this.graph}/${encodeURIComponent(request.networkPostId)}/comments`,
      { makesPost: true },
      {
        method: 'POST',
        json: { message: request.text, ...(request.mediaUrl ? { attachment_url: request.mediaUrl } : {}) },
      },
    );
    return { networkCommentId: String(made.id) };
  }

  /** The Page's own comment on the post with the text, among the newest (the Page token sees `from`). */
  async findComment(lookup: CommentLookup): Promise<{ networkCommentId: string } | undefined> {
    const c = await this.credentials(lookup.channel);
    const query = new URLSearchParams({
      fields: 'id,message,from,created_time',
      filter: 'stream',
      order: 'reverse_chronological',
      limit: '100',
    });
    const found = await this.call(
      lookup.channel,
      c,
      `${this.graph}/${encodeURIComponent(lookup.networkPostId)}/comments?${query}`,
      {},
    );
    const match = ((found.data ?? []) as any[]).find(
      (comment) =>
        String(comment.from?.id ?? '') === c.pageId && String(comment.message ?? '').trim() === lookup.text.trim(),
    );
    return match ? { networkCommentId: String(match.id) } : undefined;
  }

  async findPublished(lookup: AttemptLookup): Promise<PublishedPost | undefined> {
    const c = await this.credentials(lookup.channel);
    const handle: FacebookHandle = lookup.handle ? JSON.parse(lookup.handle) : { kind: 'feed', photos: [] };
    const since = String(Math.floor((lookup.attemptedAt - CLOCK_MARGIN_MS) / 1000));
    const page = encodeURIComponent(c.pageId);
    if (handle.kind === 'video') {
      const query = new URLSearchParams({ fields: 'id,description,created_time,permalink_url', since, limit: '25' });
      const found = await this.call(lookup.channel, c, `${this.graph}/${page}/videos?${query}`, {});
      const match = ((found.data ?? []) as any[]).find(
        (video) => String(video.description ?? '').trim() === lookup.text.trim(),
      );
      return match ? this.publishedFrom(match) : undefined;
    }
    const query = new URLSearchParams({
      fields: 'id,message,created_time,permalink_url,attachments{media_type,target,subattachments}',
      since,
      limit: '25',
    });
    const found = await this.call(lookup.channel, c, `${this.graph}/${page}/published_posts?${query}`, {});
    const match = ((found.data ?? []) as any[]).find(
      (post) =>
        String(post.message ?? '').trim() === lookup.text.trim() &&
        (handle.photos.length === 0 || samePhotos(photosOf(post), handle.photos)),
    );
    return match ? this.publishedFrom(match) : undefined;
  }

  async recentPosts(
    channel: ConnectorChannel,
    page: { cursor: string | null; limit: number },
  ): Promise<RecentPostsPage> {
    const c = await this.credentials(channel);
    const query = new URLSearchParams({
      fields: [
        'id',
        'message',
        'created_time',
        'permalink_url',
        'full_picture',
        'shares',
        'reactions.summary(total_count).limit(0)',
        'comments.summary(total_count).limit(0)',
        `insights.metric(${INSIGHT_METRICS.join(',')})`,
      ].join(','),
      limit: String(Math.min(100, Math.max(1, page.limit))),
      ...(page.cursor ? { after: page.cursor } : {}),
    });
    const answer = await this.call(
      channel,
      c,
      `${this.graph}/${encodeURIComponent(c.pageId)}/published_posts?${query}`,
      {},
    );
    const posts: NetworkPost[] = ((answer.data ?? []) as any[]).map((post) => ({
      ...this.publishedFrom(post),
      attemptKey: null,
      text: String(post.message ?? ''),
      imageUrls: typeof post.full_picture === 'string' ? [post.full_picture] : [],
      metrics: {
        reactions: Number(post.reactions?.summary?.total_count ?? 0),
        comments: Number(post.comments?.summary?.total_count ?? 0),
        shares: Number(post.shares?.count ?? 0),
        ...insightValues(post.insights),
      },
    }));
    const after = answer.paging?.next ? answer.paging.cursors?.after : undefined;
    return { posts, nextCursor: typeof after === 'string' && after ? after : null };
  }

  async audience(channel: ConnectorChannel): Promise<number> {
    const c = await this.credentials(channel);
    const url = `${this.graph}/${encodeURIComponent(c.pageId)}?fields=followers_count`;
    const page = await this.call(channel, c, url, {});
    return Number(page.followers_count);
  }

  async check(channel: ConnectorChannel): Promise<ConnectionCheck> {
    const c = await this.credentials(channel);
    const app = this.meta();
    const debug = await graphRequest(
      this.http,
      `${this.graph}/debug_token?${new URLSearchParams({ input_token: c.pageToken })}`,
      { accessToken: `${app.clientId}|${app.clientSecret}`, appSecret: app.clientSecret },
    );
    if (debug.status !== 200) throw graphFailure(debug, this.now(), { network: 'Facebook' });
    const data = debug.json?.data ?? {};
    if (data.is_valid !== true) {
      return {
        account: channel.handle,
        grantedScopes: null,
        problems: [
          `Facebook says the Page token is no longer valid (${data.error?.message ?? 'no reason given'}): ` +
            'reconnect the channel.',
        ],
      };
    }
    const granted: string[] = Array.isArray(data.scopes) ? data.scopes.map(String) : [];
    const problems: string[] = [];
    const me = await graphRequest(this.http, `${this.graph}/me?fields=id,name`, this.token(c.pageToken));
    if (me.status !== 200) problems.push(`${graphFailure(me, this.now(), { network: 'Facebook' }).message}.`);
    else if (String(me.json.id) !== c.pageId)
      problems.push(
        `The token belongs to ${me.json.name} (${me.json.id}), not to the channel's Page ${c.pageId}: ` +
          'reconnect the channel.',
      );
    for (const scope of FACEBOOK_SCOPES) {
      if (!granted.includes(scope))
        problems.push(
          `Facebook did not grant ${scope}, which Herald needs to ${SCOPE_PURPOSE[scope]}: reconnect and allow it.`,
        );
    }
    const dataAccessEnds = Number(data.data_access_expires_at) * 1000;
    if (dataAccessEnds > 0 && dataAccessEnds - this.now() < DATA_ACCESS_WARNING_MS) {
      problems.push(
        `Facebook's data access for this connection ` +
          `ends ${new Date(dataAccessEnds).toISOString().slice(0, 10)}: reconnect the channel before then.`,
      );
    }
    return { account: me.status === 200 ? String(me.json.name) : channel.handle, grantedScopes: granted, problems };
  }

  /**
   * The video once Meta has processed it: an error status is Meta's refusal. The video exists from here on, so a
   * read that fails, or processing that outlasts the wait, leaves it published: it goes live on its own.
   */
  private async processedVideo(channel: ConnectorChannel, c: FacebookCredentials, id: string): Promise<PublishedPost> {
    let video: any = { id };
    for (let poll = 0; poll < VIDEO_POLLS; poll++) {
      try {
        video = await this.call(
          channel,
          c,
          `${this.graph}/${encodeURIComponent(id)}?fields=id,status,permalink_url,created_time`,
          { statusRead: true },
        );
      } catch (error) {
        if (!(error instanceof NetworkError)) throw error;
        break;
      }
      const status = video.status?.video_status;
      if (status === 'error') {
        const reasons = ((video.status?.processing_phase?.errors ?? []) as any[]).map((e) => e.message).filter(Boolean);
        throw new NetworkError(
          'permanent',
          `Facebook could not process the video (${reasons.join('; ') || 'video_status error'})`,
        );
      }
      if (status === 'ready') break;
      await this.http.pause(VIDEO_POLL_MS);
    }
    return {
      ...this.publishedFrom(video),
      permalinkUrl: absolute(video.permalink_url) ?? `https://www.facebook.com/${c.pageId}/videos/${id}`,
    };
  }

  /** The post's permalink; a failed read after the post was made keeps the post published. */
  private async published(channel: ConnectorChannel, c: FacebookCredentials, id: string): Promise<PublishedPost> {
    try {
      return this.publishedFrom(
        await this.call(channel, c, `${this.graph}/${encodeURIComponent(id)}?fields=id,permalink_url,created_time`, {
          statusRead: true,
        }),
      );
    } catch (error) {
      if (!(error instanceof NetworkError)) throw error;
      return { networkPostId: id, permalinkUrl: `https://www.facebook.com/${id}`, publishedAt: this.now() };
    }
  }

  private publishedFrom(post: any): PublishedPost {
    const at = Date.parse(String(post.created_time ?? '').replace(/([+-]\d\d)(\d\d)$/, '$1:$2'));
    return {
      networkPostId: String(post.id),
      permalinkUrl: absolute(post.permalink_url) ?? `https://www.facebook.com/${post.id}`,
      publishedAt: Number.isNaN(at) ? this.now() : at,
    };
  }

  private token(accessToken: string): GraphToken {
    return { accessToken, appSecret: this.meta().clientSecret };
  }

  private async credentials(channel: ConnectorChannel): Promise<FacebookCredentials> {
    return (await channel.vault.read()).credentials as unknown as FacebookCredentials;
  }

  private async call(
    channel: ConnectorChannel,
    c: FacebookCredentials,
    url: string,
    call: Omit<GraphCall, 'network'>,
    request: NetworkRequest = {},
  ): Promise<any> {
    let answer;
    try {
      answer = await graphRequest(this.http, url, this.token(c.pageToken), request);
    } catch (error) {
      // Only the call that makes the post can leave its outcome unknown; an unpublished photo that timed out is no
      // post.
      if (error instanceof NetworkError && error.kind === 'unknown_outcome' && !call.makesPost)
        throw new NetworkError('retry_later', error.message);
      throw error;
    }
    await observeGraphBudget(channel, answer, this.now());
    if (answer.status !== 200)
      throw graphFailure(answer, this.now(), { network: 'Facebook', refreshable: true, ...call });
    return answer.json;
  }
}

/** The photo ids a post carries: one photo is its attachment's target, several are the subattachments'. */
function photosOf(post: any): string[] {
  const attachment = post?.attachments?.data?.[0];
  const subattachments = attachment?.subattachments?.data;
  if (Array.isArray(subattachments)) return subattachments.map((s: any) => String(s?.target?.id));
  return attachment?.media_type === 'photo' && attachment.target?.id ? [String(attachment.target.id)] : [];
}

function samePhotos(found: string[], recorded: string[]): boolean {
  return found.length === recorded.length && recorded.every((id) => found.includes(id));
}

/** Meta answers some permalinks relative to www.facebook.com. */
function absolute(permalink: unknown): string | undefined {
  if (typeof permalink !== 'string' || !permalink) return undefined;
  return permalink.startsWith('/') ? `https://www.facebook.com${permalink}` : permalink;
}

/** Graph insights (`data: [{name, values: [{value}]}]`) as metrics by name. */
export function insightValues(insights: any): Record<string, number> {
  const metrics: Record<string, number> = {};
  for (const metric of insights?.data ?? []) {
    const value = Number(metric?.values?.[0]?.value ?? metric?.total_value?.value);
    if (typeof metric?.name === 'string' && Number.isFinite(value)) metrics[metric.name] = value;
  }
  return metrics;
}
