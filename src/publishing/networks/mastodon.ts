import crypto from 'node:crypto';
import { NETWORK_CAPABILITIES } from '../../domain/networks/capabilities.js';
import {
  NetworkError,
  type AppRegistrations,
  type AttemptLookup,
  type AuthorizationStart,
  type CommentLookup,
  type CommentRequest,
  type ConnectedAccount,
  type ConnectionMethod,
  type ConnectorChannel,
  type NetworkConnector,
  type NetworkPost,
  type PublishRequest,
  type PublishedPost,
  type RecentPostsPage,
} from '../../domain/networks/connector.js';
import {
  downloadMedia,
  observeBudget,
  retryAtFrom,
  type NetworkAnswer,
  type NetworkHttp,
  type NetworkHttpOptions,
} from './network-http.js';
import { OAuth2Client } from './oauth2-client.js';

/**
 * Mastodon, one instance per channel ([MD] methods/apps.md, oauth.md, statuses.md, media.md, instance.md,
 * api/rate-limits.md; NETWORKS.md).
 *
 * Rules kept here:
 * - Herald registers itself once per instance (POST /api/v1/apps) and keeps that registration for the next
 *   account there; consent is OAuth with PKCE S256; Mastodon tokens do not expire, so there is no refresh:
 *   a 401 means the person revoked Herald and must reconnect;
 * - the text limit is the instance's own (`configuration.statuses.max_characters`), stored on the channel; its
 *   media limits (attachments per status, image and video sizes) are read from the same configuration,
 *   kept an hour, and checked before anything is uploaded;
 * - media are uploaded with their descriptions (channelOptions.altText) and waited for while the instance
 *   processes them (202, then 206 from GET /api/v1/media/:id) before the status is posted;
 * - a status is posted with an Idempotency-Key the same for every attempt at one post, so a retry within the
 *   hour the instance keeps the key answers the first status instead of making a second; an attempt whose
 *   outcome is unknown is looked up among the account's statuses made since, by its text;
 * - a first comment is a reply (in_reply_to_id) with its own stable key; a part of a thread is a reply to the part
 *   before it, keyed by the part like a post, with the thread's visibility and content warning;
 * - live sync reads each status's favourites, reblogs and replies, and the account's followers_count
 *   (verify_credentials, Mastodon's Account entity) as the channel's audience;
 * - a status answer saying X-RateLimit-Remaining 0 pauses the channel until X-RateLimit-Reset; 429 waits until
 *   then too; 5xx retries later; 422 is permanent with Mastodon's
 *   message ("Validation failed: ...").
 */
const SCOPES = 'read:accounts read:statuses write:statuses write:media';
/** How long an instance's configuration is trusted before it is read again. */
const INSTANCE_CACHE_MS = 60 * 60_000;

interface InstanceLimits {
  maxMedia: number;
  imageBytes: number | undefined;
  videoBytes: number | undefined;
  readAt: number;
}
const MEDIA_POLL_MS = 1_000;
const MEDIA_WAIT_POLLS = 60;

interface MastodonCredentials {
  origin: string;
  accessToken: string;
  clientId: string;
  clientSecret: string;
  accountId: string;
}

export class MastodonNetwork implements NetworkConnector {
  readonly capabilities = NETWORK_CAPABILITIES.mastodon;
  readonly connection: ConnectionMethod = {
    kind: 'oauth',
    fields: [
      {
        name: 'instance',
        required: true,
        secret: false,
        description: 'The Mastodon server the account is on, e.g. https://mastodon.social',
      },
    ],
  };

  private readonly instances = new Map<string, InstanceLimits>();

  constructor(
    private readonly http: NetworkHttp,
    private readonly media: NetworkHttpOptions,
    private readonly now: () => number,
  ) {}

  configured(): boolean {
    return true;
  }

  private async limits(origin: string): Promise<InstanceLimits> {
    const cached = this.instances.get(origin);
    if (cached && this.now() - cached.readAt < INSTANCE_CACHE_MS) return cached;
    const answer = await this.http.request(`${origin}/api/v2/instance`);
    if (answer.status !== 200) throw classify(answer, this.now());
    const configuration = answer.json?.configuration ?? {};
    const positive = (value: unknown) =>
      Number.isInteger(value) && (value as number) > 0 ? (value as number) : undefined;
    const limits = {
      maxMedia: positive(configuration.statuses?.max_media_attachments) ?? 4,
      imageBytes: positive(configuration.media_attachments?.image_size_limit),
      videoBytes: positive(configuration.media_attachments?.video_size_limit),
      readAt: this.now(),
    };
    this.instances.set(origin, limits);
    return limits;
  }

  async startAuthorization(input: {
    fields: Record<string, string>;
    redirectUri: string;
    state: string;
    codeChallenge: string;
    apps: AppRegistrations;
  }): Promise<AuthorizationStart> {
    const origin = instanceOrigin(input.fields.instance);
    const app = await this.registration(origin, input.redirectUri, input.apps);
    const query = new URLSearchParams({
      response_type: 'code',
      client_id: app.clientId,
      redirect_uri: input.redirectUri,
      scope: SCOPES,
      state: input.state,
      code_challenge: input.codeChallenge,
      code_challenge_method: 'S256',
    });
    return { authorizationUrl: `${origin}/oauth/authorize?${query}`, keep: { origin } };
  }

  async finishAuthorization(input: {
    code: string;
    redirectUri: string;
    codeVerifier: string;
    keep: Record<string, string>;
    apps: AppRegistrations;
  }): Promise<ConnectedAccount[]> {
    const origin = input.keep.origin;
    const app = await this.registration(origin, input.redirectUri, input.apps);
    // The app is Herald's own registration at this instance: a refused client points there, not at a setting.
    const client = new OAuth2Client(
      this.http,
      {
        name: 'Mastodon',
        tokenUrl: `${origin}/oauth/token`,
        clientAuth: 'body',
        appSettings: `Herald's registration at ${new URL(origin).host}`,
      },
      () => app,
      this.now,
    );
    const token = await client.exchangeCode({
      code: input.code,
      redirectUri: input.redirectUri,
      codeVerifier: input.codeVerifier,
      extra: { scope: SCOPES },
    });
    const accessToken = token.accessToken;
    const me = await this.http.request(`${origin}/api/v1/accounts/verify_credentials`, {
      headers: { authorization: `Bearer ${accessToken}` },
    });
    if (me.status !== 200) throw classify(me, this.now());
    const instance = await this.http.request(`${origin}/api/v2/instance`);
    const maxCharacters = Number(instance.json?.configuration?.statuses?.max_characters);
    this.instances.delete(origin);
    const host = new URL(origin).host;
    return [
      {
        networkAccountId: `${me.json.id}@${host}`,
        handle: `@${me.json.username}@${host}`,
        displayName: me.json.display_name || null,
        avatarUrl: typeof me.json.avatar === 'string' ? me.json.avatar : null,
        credentials: {
          origin,
          accessToken,
          clientId: app.clientId,
          clientSecret: app.clientSecret,
          accountId: String(me.json.id),
        },
        expiresAt: null,
        textLimit: Number.isInteger(maxCharacters) && maxCharacters > 0 ? maxCharacters : null,
      },
    ];
  }

  async fieldsFor(channel: ConnectorChannel): Promise<Record<string, string>> {
    return { instance: (await this.credentials(channel)).origin };
  }

  async revoke(channel: ConnectorChannel): Promise<void> {
    const c = await this.credentials(channel);
    const answer = await this.http.request(`${c.origin}/oauth/revoke`, {
      method: 'POST',
      form: { client_id: c.clientId, client_secret: c.clientSecret, token: c.accessToken },
    });
    if (answer.status !== 200) throw classify(answer, this.now());
  }

  async publish(request: PublishRequest): Promise<PublishedPost> {
    const c = await this.credentials(request.channel);
    const options = request.channelOptions ?? {};
    const altTexts = Array.isArray(options.altText) ? options.altText : [];
    const files = [
      ...request.imageUrls.map((url) => ({ url, kind: 'image' as const })),
      ...request.videoUrls.map((url) => ({ url, kind: 'video' as const })),
    ];
    const limits = files.length > 0 ? await this.limits(c.origin) : undefined;
    if (limits && files.length > limits.maxMedia) {
      throw new NetworkError(
        'permanent',
        `${new URL(c.origin).host} takes at most ${limits.maxMedia} media per post; this post has ${files.length}`,
      );
    }
    const mediaIds: string[] = [];
    for (const [index, file] of files.entries()) {
      const maxBytes = (file.kind === 'image' ? limits?.imageBytes : limits?.videoBytes) ?? this.media.maxBytes;
      mediaIds.push(
        await this.upload(
          c,
          request.channel.accountId,
          file.url,
          typeof altTexts[index] === 'string' ? altTexts[index] : undefined,
          maxBytes,
        ),
      );
    }
    const status = await this.postStatus(request.channel, c, `herald-${request.postKey.id}`, {
      status: request.text,
      ...(mediaIds.length > 0 ? { media_ids: mediaIds } : {}),
      ...(request.replyTo ? { in_reply_to_id: request.replyTo.parentNetworkPostId } : {}),
      ...(typeof options.visibility === 'string' ? { visibility: options.visibility } : {}),
      ...(typeof options.spoilerText === 'string' ? { spoiler_text: options.spoilerText } : {}),
      ...(typeof options.sensitive === 'boolean' ? { sensitive: options.sensitive } : {}),
      ...(typeof options.language === 'string' ? { language: options.language } : {}),
    });
    return published(status, this.now());
  }

  async comment(request: CommentRequest): Promise<{ networkCommentId: string }> {
    const c = await this.credentials(request.channel);
    const status = await this.postStatus(request.channel, c, `herald-${request.attemptKey}`, {
      status: request.text,
      in_reply_to_id: request.networkPostId,
    });
    return { networkCommentId: String(status.id) };
  }

  /** Mastodon forgets an Idempotency-Key after about an hour: the reply is looked for among the post's own replies. */
  async findComment(lookup: CommentLookup): Promise<{ networkCommentId: string } | undefined> {
    const c = await this.credentials(lookup.channel);
    const answer = await this.http.request(
      `${c.origin}/api/v1/statuses/${encodeURIComponent(lookup.networkPostId)}/context`,
      { headers: bearer(c) },
    );
    if (answer.status !== 200) throw classify(answer, this.now());
    const match = ((answer.json?.descendants ?? []) as any[]).find(
      (s) =>
        s.account?.id === c.accountId &&
        s.in_reply_to_id === lookup.networkPostId &&
        plainText(s.content) === lookup.text.trim(),
    );
    return match ? { networkCommentId: String(match.id) } : undefined;
  }

  async findPublished(lookup: AttemptLookup): Promise<PublishedPost | undefined> {
    const c = await this.credentials(lookup.channel);
    const answer = await this.http.request(
      `${c.origin}/api/v1/accounts/${encodeURIComponent(c.accountId)}/statuses?limit=40&exclude_reblogs=true`,
      { headers: bearer(c) },
    );
    if (answer.status !== 200) throw classify(answer, this.now());
    const parent = lookup.replyTo?.parentNetworkPostId;
    const match = (answer.json as any[]).find(
      (s) =>
        Date.parse(s.created_at) >= lookup.attemptedAt - 60_000 &&
        plainText(s.content) === lookup.text.trim() &&
        (parent === undefined || s.in_reply_to_id === parent),
    );
    return match ? published(match, this.now()) : undefined;
  }

  async recentPosts(
    channel: ConnectorChannel,
    page: { cursor: string | null; limit: number },
  ): Promise<RecentPostsPage> {
    const c = await this.credentials(channel);
    const limit = Math.min(40, Math.max(1, page.limit));
    const query = new URLSearchParams({
      limit: String(limit),
      exclude_replies: 'true',
      exclude_reblogs: 'true',
      ...(page.cursor ? { max_id: page.cursor } : {}),
    });
    const answer = await this.http.request(
      `${c.origin}/api/v1/accounts/${encodeURIComponent(c.accountId)}/statuses?${query}`,
      { headers: bearer(c) },
    );
    if (answer.status !== 200) throw classify(answer, this.now());
    const statuses = answer.json as any[];
    const posts: NetworkPost[] = statuses.map((s) => ({
      ...published(s, this.now()),
      attemptKey: null,
      text: plainText(s.content),
      imageUrls: (s.media_attachments ?? []).filter((m: any) => m.type === 'image').map((m: any) => m.url),
      metrics: { likes: s.favourites_count ?? 0, reblogs: s.reblogs_count ?? 0, replies: s.replies_count ?? 0 },
    }));
    return { posts, nextCursor: statuses.length === limit ? String(statuses[statuses.length - 1].id) : null };
  }

  async audience(channel: ConnectorChannel): Promise<number> {
    const c = await this.credentials(channel);
    const me = await this.http.request(`${c.origin}/api/v1/accounts/verify_credentials`, { headers: bearer(c) });
    if (me.status !== 200) throw classify(me, this.now());
    return Number(me.json?.followers_count);
  }

  private async registration(
    origin: string,
    redirectUri: string,
    apps: AppRegistrations,
  ): Promise<{ clientId: string; clientSecret: string }> {
    const known = await apps.get(origin, redirectUri);
    if (known) return { clientId: known.clientId, clientSecret: known.clientSecret };
    const answer = await this.http.request(`${origin}/api/v1/apps`, {
      method: 'POST',
      form: { client_name: 'Herald', redirect_uris: redirectUri, scopes: SCOPES },
    });
    if (answer.status !== 200 || typeof answer.json?.client_id !== 'string') {
      if (answer.status >= 500 || answer.status === 429) throw classify(answer, this.now());
      throw new NetworkError(
        'permanent',
        `${new URL(origin).host} did not register Herald (HTTP ${answer.status}); is it a Mastodon server?`,
      );
    }
    const app = { clientId: answer.json.client_id as string, clientSecret: answer.json.client_secret as string };
    await apps.save(origin, redirectUri, app);
    // Two connects racing may both register; the one saved first is the one every later connect uses.
    const kept = await apps.get(origin, redirectUri);
    return kept ? { clientId: kept.clientId, clientSecret: kept.clientSecret } : app;
  }

  private async credentials(channel: ConnectorChannel): Promise<MastodonCredentials> {
    return (await channel.vault.read()).credentials as unknown as MastodonCredentials;
  }

  private async postStatus(
    channel: ConnectorChannel,
    c: MastodonCredentials,
    idempotencyKey: string,
    body: Record<string, unknown>,
  ): Promise<any> {
    const answer = await this.http.request(`${c.origin}/api/v1/statuses`, {
      method: 'POST',
      headers: { ...bearer(c), 'idempotency-key': idempotencyKey },
      json: body,
    });
    await observeBudget(channel, answer, this.now());
    if (answer.status !== 200) throw classify(answer, this.now());
    return answer.json;
  }

  /** Uploads one file with its description and waits until the instance has processed it. */
  private async upload(
    c: MastodonCredentials,
    accountId: string,
    url: string,
    description: string | undefined,
    maxBytes: number,
  ): Promise<string> {
    const file = await downloadMedia(this.media, accountId, url, maxBytes);
    const boundary = `herald-${crypto.randomBytes(12).toString('hex')}`;
    const parts: Buffer[] = [];
    const name = new URL(url).pathname.split('/').pop() || 'media';
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; ` +
          `filename="${name.replace(/["\r\n]/g, '')}"\r\nContent-Type: ${file.contentType}\r\n\r\n`,
      ),
    );
    parts.push(file.bytes);
    if (description)
      parts.push(
        Buffer.from(`\r\n--${boundary}\r\nContent-Disposition: form-data; name="description"\r\n\r\n${description}`),
      );
    parts.push(Buffer.from(`\r\n--${boundary}--\r\n`));
    const answer = await this.http.request(`${c.origin}/api/v2/media`, {
      method: 'POST',
      headers: { ...bearer(c), 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: Buffer.concat(parts),
    });
    if (answer.status !== 200 && answer.status !== 202) throw classify(answer, this.now());
    const id = String(answer.json.id);
    if (answer.status === 200 && answer.json.url) return id;
    for (let poll = 0; poll < MEDIA_WAIT_POLLS; poll++) {
      const state = await this.http.request(`${c.origin}/api/v1/media/${encodeURIComponent(id)}`, {
        headers: bearer(c),
      });
      if (state.status === 200) return id;
      if (state.status !== 206) throw classify(state, this.now());
      await this.http.pause(MEDIA_POLL_MS);
    }
    throw new NetworkError(
      'retry_later',
      `${new URL(c.origin).host} was still processing an upload after ${(MEDIA_POLL_MS * MEDIA_WAIT_POLLS) / 1000} s`,
    );
  }
}

function published(status: any, now: number): PublishedPost {
  const at = Date.parse(status.created_at);
  return {
    networkPostId: String(status.id),
    permalinkUrl: String(status.url ?? status.uri),
    publishedAt: Number.isNaN(at) ? now : at,
  };
}

function classify(answer: NetworkAnswer, now: number): NetworkError {
  const said = typeof answer.json?.error === 'string' ? answer.json.error : `HTTP ${answer.status}`;
  const words = `Mastodon answered HTTP ${answer.status}: ${said}`;
  if (answer.status === 429) return new NetworkError('retry_later', words, retryAtFrom(answer, now));
  if (answer.status >= 500) return new NetworkError('retry_later', words, retryAtFrom(answer, now));
  if (answer.status === 401) return new NetworkError('reconnect_needed', words);
  return new NetworkError('permanent', words);
}

function instanceOrigin(raw: string): string {
  try {
    const url = new URL(raw.includes('://') ? raw : `https://${raw}`);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error();
    return url.origin;
  } catch {
    throw new NetworkError(
      'permanent',
      `"${raw}" is not a Mastodon server address; give it as https://mastodon.social`,
    );
  }
}

function bearer(c: MastodonCredentials): Record<string, string> {
  return { authorization: `Bearer ${c.accessToken}` };
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'", nbsp: ' ' };

/** A status's HTML content as the plain text it was written from. */
export function plainText(html: string): string {
  return String(html ?? '')
    .replace(/<br\s*\/?>/gi, '\n')
    .replace(/<\/p>\s*<p[^>]*>/gi, '\n\n')
    .replace(/<[^>]+>/g, '')
    .replace(/&(amp|lt|gt|quot|#39|apos|nbsp);/g, (_m, name: string) => ENTITIES[name])
    .trim();
}
