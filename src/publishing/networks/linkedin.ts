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
import { WWW, LinkedInApi, isOrganization, permalink, type LinkedInCredentials } from './linkedin-api.js';
import { fromLittleText, toLittleText } from './linkedin-little.js';
import { LinkedInMedia } from './linkedin-media.js';
import type { NetworkHttp, NetworkHttpOptions } from './network-http.js';
import { OAuth2Client } from './oauth2-client.js';

/**
 * LinkedIn: a member's profile and the Pages they administer, one channel each (NETWORKS.md; learn.microsoft.com
 * linkedin: authorization-code-flow, programmatic-refresh-tokens, token-introspection, posts-api, images-api,
 * videos-api, multiimage-post-api, comments-api, organization-access-control-by-role, organization-share-statistics).
 *
 * Rules kept here:
 * - one consent connects the member (w_member_social) and every organization they administer (the
 *   organization scopes, LINKEDIN_ORGANIZATIONS): each is a ConnectedAccount with its own copy of the token; the
 *   `page` field (filled from the channel on a reconnect) keeps only that one;
 * - tokens live 60 days; a refresh token exists only where LinkedIn granted one, and is used ahead of expiry or
 *   on 401 EXPIRED_ACCESS_TOKEN; without one the channel is not `renewable`: Herald warns a week ahead and asks for
 *   a reconnect a day ahead (domain/networks/credential-expiry.ts);
 * - a post is POST /rest/posts with the author's URN and the text as `commentary` in the little text format, its
 *   reserved characters escaped (linkedin-little.ts); its URN comes back in `x-restli-id`; one image or a video is
 *   `content.media`, two or more images `content.multiImage` (LinkedIn takes 2 to 20);
 * - LinkedIn keeps no idempotency key: the media URNs are recorded with the attempt before the post call, and an
 *   unknown outcome is settled from the author's posts (text, time and media). A member's own posts cannot be
 *   listed without r_member_social, which LinkedIn grants to few apps: then findPublished finds nothing, the
 *   attempt stays unconfirmed for a person to settle, and Herald never posts it again on its own;
 * - a first comment is POST /rest/socialActions/{post}/comments as the author, with one image where given;
 * - live sync reads the author's posts (organizations; members only with r_member_social) and, for
 *   organizations, their organizationalEntityShareStatistics and the Page's follower count (networkSizes of the
 *   organization, edge COMPANY_FOLLOWED_BY_MEMBER: its firstDegreeSize) as the channel's audience; LinkedIn tells
 *   a member's followers to no app it has not made a partner, so a member's profile has no audience;
 * - Herald does not revoke the token on disconnect: the member's profile and Pages channels share it.
 */
const MEMBER_SCOPES = ['openid', 'profile', 'w_member_social'];
const ORGANIZATION_SCOPES = ['w_organization_social', 'r_organization_social', 'rw_organization_admin'];
/** Refreshed this long before LinkedIn's expiry, so no call is made with a token about to lapse. */
const REFRESH_AHEAD_MS = 10 * 60_000;
const FIND_WINDOW_MS = 60_000;
const WEEK_MS = 7 * 24 * 3600_000;

/** The operator's LinkedIn app (config.networks.apps.linkedin). */
export interface LinkedInApp {
  clientId: string;
  clientSecret: string;
  /** LINKEDIN_VERSION, sent as `LinkedIn-Version` on every call. */
  apiVersion: string;
  /** LINKEDIN_ORGANIZATIONS: whether consent asks for the Page scopes (the app has the Community Management API). */
  organizations: boolean;
}

export class LinkedInNetwork implements NetworkConnector {
  readonly capabilities = NETWORK_CAPABILITIES.linkedin;
  readonly connection: ConnectionMethod = {
    kind: 'oauth',
    fields: [
      {
        name: 'page',
        required: false,
        secret: false,
        description:
          'Only this Page: its organization id (or urn:li:organization:...), or urn:li:person:... ' +
          'for your profile alone; by default your profile and every Page you administer',
      },
    ],
  };

  private readonly api: LinkedInApi;
  private readonly uploads: LinkedInMedia;
  private readonly oauth: OAuth2Client;

  constructor(
    private readonly http: NetworkHttp,
    media: NetworkHttpOptions,
    private readonly now: () => number,
    private readonly app: LinkedInApp | undefined,
  ) {
    this.api = new LinkedInApi(http, app?.apiVersion ?? '', now);
    this.uploads = new LinkedInMedia(this.api, media);
    // LinkedIn answers invalid_request to a refresh token it no longer takes (programmatic-refresh-tokens).
    this.oauth = new OAuth2Client(
      http,
      {
        name: 'LinkedIn',
        tokenUrl: `${WWW}/oauth/v2/accessToken`,
        clientAuth: 'body',
        appSettings: 'LINKEDIN_CLIENT_ID and LINKEDIN_CLIENT_SECRET',
        reconnectErrors: ['invalid_request'],
      },
      () => this.requireApp(),
      now,
    );
  }

  configured(): boolean {
    return this.app !== undefined;
  }

  private scopes(): string[] {
    return this.app?.organizations === false ? MEMBER_SCOPES : [...MEMBER_SCOPES, ...ORGANIZATION_SCOPES];
  }

  async startAuthorization(input: {
    fields: Record<string, string>;
    redirectUri: string;
    state: string;
  }): Promise<AuthorizationStart> {
    const app = this.requireApp();
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: app.clientId,
      redirect_uri: input.redirectUri,
      state: input.state,
      scope: this.scopes().join(' '),
    });
    // The consent screen's origin follows NETWORK_ORIGIN_OVERRIDES like every call, so a private deployment or a
    // test's fake plays LinkedIn for the browser too.
    return {
      authorizationUrl: this.http.rewrite(`${WWW}/oauth/v2/authorization?${query}`),
      keep: input.fields.page ? { page: input.fields.page } : {},
    };
  }

  async finishAuthorization(input: {
    code: string;
    redirectUri: string;
    keep: Record<string, string>;
  }): Promise<ConnectedAccount[]> {
    const token = await this.oauth.exchangeCode({ code: input.code, redirectUri: input.redirectUri });
    const granted = token.scopes;
    const base: Omit<LinkedInCredentials, 'author'> = {
      accessToken: token.accessToken,
      refreshToken: token.refreshToken,
      refreshExpiresAt: token.refreshExpiresAt,
      scopes: granted,
    };
    const expiresAt = token.expiresAt;
    const probe = { ...base, author: '' };
    const me = await this.api.expect(probe, '/v2/userinfo', {}, [200]);
    const accounts: ConnectedAccount[] = [];
    const account = (
      author: string,
      handle: string,
      displayName: string | null,
      avatarUrl: string | null,
    ): ConnectedAccount => ({
      networkAccountId: author,
      handle,
      displayName,
      avatarUrl,
      credentials: { ...base, author },
      expiresAt,
      textLimit: null,
    });
    if (granted.includes('w_member_social')) {
      accounts.push(
        account(
          `urn:li:person:${me.json.sub}`,
          String(me.json.name ?? me.json.sub),
          me.json.name ?? null,
          typeof me.json.picture === 'string' ? me.json.picture : null,
        ),
      );
    }
    if (granted.includes('w_organization_social') && granted.includes('rw_organization_admin')) {
      const acls = await this.api.expect(
        probe,
        '/rest/organizationAcls?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED',
        {},
        [200],
      );
      for (const acl of (acls.json?.elements ?? []) as { organization: string }[]) {
        const id = String(acl.organization).split(':').pop()!;
        const org = await this.api.expect(probe, `/rest/organizations/${encodeURIComponent(id)}`, {}, [200]);
        accounts.push(
          account(
            `urn:li:organization:${id}`,
            String(org.json.vanityName ?? org.json.localizedName ?? id),
            org.json.localizedName ?? null,
            null,
          ),
        );
      }
    }
    const wanted = input.keep.page?.trim();
    const chosen = wanted
      ? accounts.filter((a) => a.networkAccountId === wanted || a.networkAccountId === `urn:li:organization:${wanted}`)
      : accounts;
    if (chosen.length === 0) {
      throw new NetworkError(
        'permanent',
        wanted
          ? `LinkedIn granted no access to ${wanted}: sign in as a member who administers it, ` +
              'and allow every permission Herald asks for'
          : 'LinkedIn granted neither posting on your profile (w_member_social) nor on a Page you administer; ' +
              'nothing to connect',
      );
    }
    return chosen;
  }

  async fieldsFor(channel: ConnectorChannel): Promise<Record<string, string>> {
    return { page: (await this.credentials(channel)).credentials.author };
  }

  async renewable(channel: ConnectorChannel): Promise<boolean> {
    return Boolean((await this.credentials(channel)).credentials.refreshToken);
  }

  async refresh(channel: ConnectorChannel): Promise<void> {
    const opened = await this.credentials(channel);
    await this.renewed(channel, opened.version);
  }

  async publish(request: PublishRequest): Promise<PublishedPost> {
    const c = await this.fresh(request.channel);
    const altTexts = Array.isArray(request.channelOptions?.altText)
      ? (request.channelOptions.altText as unknown[])
      : [];
    const alt = (index: number) => (typeof altTexts[index] === 'string' ? { altText: altTexts[index] as string } : {});
    const media: string[] = [];
    if (request.videoUrls.length > 0) {
      media.push(
        await this.uploads.uploadVideo(
          c,
          request.channel.accountId,
          request.videoUrls[0],
          this.capabilities.media.kinds.video?.maxBytes ?? Number.MAX_SAFE_INTEGER,
        ),
      );
    } else {
      for (const url of request.imageUrls)
        media.push(await this.uploads.uploadImage(c, request.channel.accountId, url));
    }
    const content =
      media.length === 0
        ? undefined
        : media.length === 1
          ? { media: { id: media[0], ...(request.videoUrls.length > 0 ? {} : alt(0)) } }
          : { multiImage: { images: media.map((id, index) => ({ id, ...alt(index) })) } };
    await request.recordHandle(JSON.stringify({ author: c.author, media }));
    const answer = await this.api.expect(
      c,
      '/rest/posts',
      {
        method: 'POST',
        json: {
          author: c.author,
          commentary: toLittleText(request.text),
          visibility: 'PUBLIC',
          distribution: { feedDistribution: 'MAIN_FEED', targetEntities: [], thirdPartyDistributionChannels: [] },
          lifecycleState: 'PUBLISHED',
          isReshareDisabledByAuthor: false,
          ...(content ? { content } : {}),
        },
      },
      [201],
      true,
    );
    const urn = answer.header('x-restli-id');
    if (!urn) throw new NetworkError('unknown_outcome', "LinkedIn answered 201 without the post's URN (x-restli-id)");
    return { networkPostId: urn, permalinkUrl: permalink(urn), publishedAt: this.now() };
  }

  async comment(request: CommentRequest): Promise<{ networkCommentId: string }> {
    const c = await this.fresh(request.channel);
    const image = request.mediaUrl
      ? await this.uploads.uploadImage(c, request.channel.accountId, request.mediaUrl)
      : undefined;
    const answer = await this.api.expect(
      c,
      `/rest/socialActions/${encodeURIComponent(request.networkPostId)}/comments`,
      {
        method: 'POST',
        json: {
          actor: c.author,
          object: request.networkPostId,
          message: { text: request.text },
          ...(image ? { content: [{ entity: { image } }] } : {}),
        },
      },
      [201],
      true,
    );
    return { networkCommentId: answer.header('x-restli-id') ?? String(answer.json?.commentUrn ?? answer.json?.id) };
  }

  async findComment(lookup: CommentLookup): Promise<{ networkCommentId: string } | undefined> {
    const c = await this.fresh(lookup.channel);
    if (!this.canList(c)) {
      throw new NetworkError(
        'permanent',
        "LinkedIn lets Herald read a member's comments only with r_member_social, which this app was not granted, " +
          'so a comment whose answer was lost cannot be checked and was not tried again: look at the post on LinkedIn.',
      );
    }
    const answer = await this.api.expect(
      c,
      `/rest/socialActions/${encodeURIComponent(lookup.networkPostId)}/comments?count=100`,
      {},
      [200],
    );
    const match = ((answer.json?.elements ?? []) as any[]).find(
      (comment) => comment.actor === c.author && comment.message?.text === lookup.text,
    );
    return match ? { networkCommentId: String(match.commentUrn ?? match.id) } : undefined;
  }

  async findPublished(lookup: AttemptLookup): Promise<PublishedPost | undefined> {
    const c = await this.fresh(lookup.channel);
    if (!this.canList(c)) return undefined;
    const recorded = lookup.handle ? (JSON.parse(lookup.handle) as { media: string[] }).media : [];
    const answer = await this.api.expect(
      c,
      `/rest/posts?author=${encodeURIComponent(c.author)}&q=author&count=50&sortBy=LAST_MODIFIED`,
      {},
      [200],
    );
    const match = ((answer.json?.elements ?? []) as any[]).find(
      (p) =>
        p.createdAt >= lookup.attemptedAt - FIND_WINDOW_MS &&
        fromLittleText(String(p.commentary ?? '')) === lookup.text &&
        sameMedia(mediaOf(p), recorded),
    );
    return match
      ? {
          networkPostId: match.id,
          permalinkUrl: permalink(match.id),
          publishedAt: match.publishedAt ?? match.createdAt,
        }
      : undefined;
  }

  async recentPosts(
    channel: ConnectorChannel,
    page: { cursor: string | null; limit: number },
  ): Promise<RecentPostsPage> {
    const c = await this.fresh(channel);
    if (!this.canList(c)) return { posts: [], nextCursor: null };
    const count = Math.min(100, Math.max(1, page.limit));
    const start = Number(page.cursor ?? 0);
    const answer = await this.api.expect(
      c,
      `/rest/posts?author=${encodeURIComponent(c.author)}&q=author&count=${count}&start=${start}&sortBy=LAST_MODIFIED`,
      {},
      [200],
    );
    const elements = (answer.json?.elements ?? []) as any[];
    const stats = await this.statistics(
      c,
      elements.map((p) => String(p.id)),
    );
    const posts: NetworkPost[] = elements.map((p) => ({
      networkPostId: p.id,
      permalinkUrl: permalink(p.id),
      publishedAt: p.publishedAt ?? p.createdAt,
      attemptKey: null,
      text: fromLittleText(String(p.commentary ?? '')),
      imageUrls: [],
      metrics: stats.get(p.id) ?? {},
    }));
    return { posts, nextCursor: elements.length === count ? String(start + count) : null };
  }

  async check(channel: ConnectorChannel): Promise<ConnectionCheck> {
    const app = this.requireApp();
    const opened = await this.credentials(channel);
    const c = opened.credentials;
    const problems: string[] = [];
    const introspection = await this.http.request(`${WWW}/oauth/v2/introspectToken`, {
      method: 'POST',
      form: { client_id: app.clientId, client_secret: app.clientSecret, token: c.accessToken },
    });
    if (introspection.status !== 200) throw this.api.classify(introspection, c);
    if (introspection.json?.active !== true) {
      problems.push(
        c.refreshToken
          ? 'LinkedIn says the access token is no longer active; Herald refreshes it at the next publish, ' +
              'or reconnect the channel.'
          : 'LinkedIn says the access token is no longer active (expired or revoked): reconnect the channel.',
      );
      return { account: channel.handle, grantedScopes: null, problems };
    }
    const granted = String(introspection.json.scope ?? '')
      .split(/[ ,]+/)
      .filter(Boolean);
    const needed = isOrganization(c.author) ? ORGANIZATION_SCOPES : ['w_member_social'];
    const missing = needed.filter((s) => !granted.includes(s));
    if (missing.length > 0)
      problems.push(
        `LinkedIn did not grant ${missing.join(', ')}, which Herald needs to ` +
          `publish${isOrganization(c.author) ? ' and sync for this Page' : ''}: reconnect and allow every permission.`,
      );
    const expiresAt = Number(introspection.json.expires_at) * 1000;
    if (!c.refreshToken && Number.isFinite(expiresAt) && expiresAt - this.now() < WEEK_MS) {
      problems.push(
        `The access token expires on ${new Date(expiresAt).toISOString().slice(0, 10)} and LinkedIn grants this app ` +
          'no refresh token: reconnect the channel before then.',
      );
    }
    const who = isOrganization(c.author)
      ? await this.api.call(c, `/rest/organizations/${encodeURIComponent(c.author.split(':').pop()!)}`)
      : await this.api.call(c, '/v2/userinfo');
    if (who.status !== 200) problems.push(`${this.api.classify(who, c).message}.`);
    else if (!isOrganization(c.author) && `urn:li:person:${who.json.sub}` !== c.author)
      problems.push(`The token belongs to urn:li:person:${who.json.sub}, not to ${c.author}: reconnect the channel.`);
    const account =
      who.status === 200 ? String(who.json.localizedName ?? who.json.name ?? channel.handle) : channel.handle;
    return { account, grantedScopes: granted, problems };
  }

  private canList(c: LinkedInCredentials): boolean {
    return isOrganization(c.author) ? c.scopes.includes('r_organization_social') : c.scopes.includes('r_member_social');
  }

  async audience(channel: ConnectorChannel): Promise<number | null> {
    const c = await this.fresh(channel);
    if (!isOrganization(c.author) || !c.scopes.includes('rw_organization_admin')) return null;
    const path = `/rest/networkSizes/${encodeURIComponent(c.author)}?edgeType=COMPANY_FOLLOWED_BY_MEMBER`;
    return Number((await this.api.expect(c, path, {}, [200])).json?.firstDegreeSize);
  }

  private async statistics(c: LinkedInCredentials, urns: string[]): Promise<Map<string, Record<string, number>>> {
    const found = new Map<string, Record<string, number>>();
    if (!isOrganization(c.author) || !c.scopes.includes('rw_organization_admin') || urns.length === 0) return found;
    const list = (kind: string) =>
      urns
        .filter((u) => u.startsWith(`urn:li:${kind}:`))
        .map(encodeURIComponent)
        .join(',');
    const query = [
      'q=organizationalEntity',
      `organizationalEntity=${encodeURIComponent(c.author)}`,
      ...(list('share') ? [`shares=List(${list('share')})`] : []),
      ...(list('ugcPost') ? [`ugcPosts=List(${list('ugcPost')})`] : []),
    ].join('&');
    const answer = await this.api.expect(c, `/rest/organizationalEntityShareStatistics?${query}`, {}, [200]);
    for (const element of (answer.json?.elements ?? []) as any[]) {
      const s = element.totalShareStatistics ?? {};
      found.set(element.share ?? element.ugcPost, {
        likes: s.likeCount ?? 0,
        comments: s.commentCount ?? 0,
        shares: s.shareCount ?? 0,
        impressions: s.impressionCount ?? 0,
        clicks: s.clickCount ?? 0,
      });
    }
    return found;
  }

  private requireApp(): LinkedInApp {
    if (!this.app)
      throw new NetworkError(
        'permanent',
        'This Herald instance has no LinkedIn app: set LINKEDIN_CLIENT_ID and LINKEDIN_CLIENT_SECRET',
      );
    return this.app;
  }

  private async credentials(channel: ConnectorChannel) {
    const opened = await channel.vault.read();
    return { ...opened, credentials: opened.credentials as unknown as LinkedInCredentials };
  }

  /** The channel's credentials, refreshed first where they are about to expire and LinkedIn granted a refresh token. */
  private async fresh(channel: ConnectorChannel): Promise<LinkedInCredentials> {
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

  private async renewed(channel: ConnectorChannel, version: number): Promise<LinkedInCredentials> {
    const after = await channel.vault.refresh(version, async (current): Promise<RenewedCredentials> => {
      const c = current as unknown as LinkedInCredentials;
      if (!c.refreshToken) {
        throw new NetworkError(
          'reconnect_needed',
          "LinkedIn's access token expired and LinkedIn grants this app no refresh token: connect the channel again",
        );
      }
      const answer = await this.oauth.refresh(c.refreshToken);
      const renewed: LinkedInCredentials = {
        ...c,
        accessToken: answer.accessToken,
        refreshToken: answer.refreshToken ?? c.refreshToken,
        refreshExpiresAt: answer.refreshExpiresAt ?? c.refreshExpiresAt,
      };
      return { credentials: { ...renewed }, expiresAt: answer.expiresAt };
    });
    return after.credentials as unknown as LinkedInCredentials;
  }
}

function mediaOf(post: any): string[] {
  if (post?.content?.media?.id) return [post.content.media.id];
  return (post?.content?.multiImage?.images ?? []).map((i: { id: string }) => i.id);
}

function sameMedia(found: string[], recorded: string[]): boolean {
  return found.length === recorded.length && found.every((id, index) => id === recorded[index]);
}
