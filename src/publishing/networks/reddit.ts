import crypto from 'node:crypto';
import { ValidationError } from '../../domain/errors.js';
import { NETWORK_CAPABILITIES, titleAndBody } from '../../domain/networks/capabilities.js';
import {
  NOT_MADE,
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
  type RecentPostsPage,
} from '../../domain/networks/connector.js';
import { downloadMedia, type NetworkAnswer, type NetworkHttp, type NetworkHttpOptions } from './network-http.js';
import { OAuth2Client, oauthRefusal, type TokenGrant, type TokenRefusal } from './oauth2-client.js';

/**
 * Reddit, through its Data API with the person's OAuth token (Reddit's OAuth2 and API wikis, the API reference for
 * /api/submit, /api/comment, /api/info and the user listings; PRAW's media upload and gallery calls; prawcore's rate
 * limit headers; NETWORKS.md, Seven more networks).
 *
 * Rules kept here:
 * - the operator's app (REDDIT_CLIENT_ID, REDDIT_CLIENT_SECRET) is authorized by the person with duration=permanent,
 *   so Herald keeps a refresh token and renews the hour-long access token before it lapses and on a 401; the token
 *   endpoint takes the app by HTTP Basic; every call names Herald in a descriptive User-Agent, as Reddit requires;
 * - a channel is one Reddit account posting to one subreddit, named when connecting (r/name; u_name for the
 *   account's own profile) and checked then; connecting the same account to another subreddit is another channel;
 * - a post is a submission with a title (channelOptions.title, else the text's first line) and one of: a body (the
 *   rest of the text, a self post), a link (channelOptions.link), one image (kind=image) or a gallery of 2 to 20,
 *   each image uploaded first to Reddit's media store (/api/media/asset.json, then the form upload it names);
 * - a first comment is a Reddit comment on the submission;
 * - Reddit keeps no idempotency key: the attempt records the subreddit, title and link it is about to submit before
 *   submitting; an answer that was lost (or a 5xx to a submission, which may come after Reddit made it) is settled
 *   by finding that submission among the account's own (subreddit, title and link, made since the attempt started),
 *   and one not found is left unconfirmed, never sent again blind; an attempt that recorded nothing sent nothing;
 *   an image post, whose answer names no submission (Reddit makes it once the image is processed), is awaited on
 *   the socket Reddit names, else found the same way; a first comment whose answer was lost is found among the
 *   account's comments on the submission;
 * - failures: a 401 refreshes the token (a refresh refused with invalid_grant needs a reconnect); 403 and 404 are
 *   Reddit's refusal, permanent; 429 and 5xx to a read wait for X-Ratelimit-Reset; HTTP 200 with json.errors is a
 *   refusal in Reddit's code (SUBREDDIT_NOEXIST, NO_SELFS, NO_LINKS, SUBMIT_VALIDATION_FLAIR_REQUIRED, ...),
 *   permanent, except RATELIMIT ("try again in N minutes"), which waits that long;
 * - X-Ratelimit-Remaining below one request pauses the channel until X-Ratelimit-Reset (seconds to the window's end);
 * - live sync reads the account's submissions to the channel's subreddit with their score, upvote ratio (as a
 *   percentage) and comments;
 * - disconnecting revokes the refresh token at Reddit.
 */
const WWW = 'https://www.reddit.com';
const API = 'https://oauth.reddit.com';
const SCOPES = ['identity', 'submit', 'read', 'history'];
const REFRESH_AHEAD_MS = 5 * 60_000;
/** How far before the attempt a submission found on Reddit may be dated (the two clocks differ). */
const CLOCK_SLACK_MS = 60_000;
/** How long an image post's processing is awaited on Reddit's socket before the submission is looked for instead. */
const PROCESSING_WAIT_MS = 15_000;
/** A subreddit's name (3 to 21 letters, digits and _), or u_ and a username for the account's own profile. */
const SUBREDDIT = /^(?:u_[A-Za-z0-9_-]{3,20}|[A-Za-z0-9][A-Za-z0-9_]{2,20})$/;

interface RedditCredentials {
  accessToken: string;
  refreshToken: string | null;
  userId: string;
  username: string;
  subreddit: string;
  scopes: string[];
}

/** What an attempt records before it submits: how to find its submission if the answer is lost. */
interface SubmissionHandle {
  sr: string;
  title: string;
  url?: string;
}

export interface RedditApp {
  clientId: string;
  clientSecret: string;
  /** REDDIT_USER_AGENT: the User-Agent Reddit asks for, `<platform>:<app id>:<version> (by /u/<username>)`. */
  userAgent?: string;
}

export class RedditNetwork implements NetworkConnector {
  readonly capabilities = NETWORK_CAPABILITIES.reddit;
  readonly connection: ConnectionMethod = {
    kind: 'oauth',
    fields: [
      {
        name: 'subreddit',
        required: true,
        secret: false,
        description: "The subreddit the channel posts to, e.g. r/selfhosted (u_name for the account's own profile)",
      },
    ],
  };
  private readonly oauth: OAuth2Client;

  constructor(
    private readonly http: NetworkHttp,
    private readonly media: NetworkHttpOptions,
    private readonly now: () => number,
    private readonly app: RedditApp | undefined,
  ) {
    this.oauth = new OAuth2Client(
      http,
      {
        name: 'Reddit',
        tokenUrl: `${WWW}/api/v1/access_token`,
        clientAuth: 'basic',
        appSettings: 'REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET',
        reconnectHint: 'the person may have revoked Herald under Reddit\'s "apps" preferences',
        refusal: tokenRefusal,
        headers: { 'user-agent': this.userAgent() },
      },
      () => this.requireApp(),
      now,
    );
  }

  configured(): boolean {
    return this.app !== undefined;
  }

  async startAuthorization(input: {
    fields: Record<string, string>;
    redirectUri: string;
    state: string;
  }): Promise<AuthorizationStart> {
    const subreddit = subredditOf(input.fields.subreddit);
    const query = new URLSearchParams({
      client_id: this.requireApp().clientId,
      response_type: 'code',
      state: input.state,
      redirect_uri: input.redirectUri,
      duration: 'permanent',
      scope: SCOPES.join(' '),
    });
    return { authorizationUrl: `${WWW}/api/v1/authorize?${query}`, keep: { subreddit } };
  }

  async finishAuthorization(input: {
    code: string;
    redirectUri: string;
    keep: Record<string, string>;
  }): Promise<ConnectedAccount[]> {
    const token = await this.oauth.exchangeCode({ code: input.code, redirectUri: input.redirectUri });
    if (!token.refreshToken)
      throw new NetworkError('permanent', 'Reddit granted no refresh token; connect again and allow permanent access');
    const me = this.read(await this.call(token.accessToken, `${API}/api/v1/me`), 'read');
    const about = await this.call(token.accessToken, `${API}/r/${input.keep.subreddit}/about?raw_json=1`);
    if (about.status === 404 || about.status === 302 || (about.status === 200 && about.json?.kind !== 't5'))
      throw new NetworkError('permanent', `Reddit has no subreddit r/${input.keep.subreddit}; check its name`);
    if (about.status === 403)
      throw new NetworkError('permanent', `r/${input.keep.subreddit} is private or banned: Reddit refused to show it`);
    const sr = this.read(about, 'read').data;
    const subreddit = String(sr.display_name ?? input.keep.subreddit);
    const username = String(me.name);
    const avatar = String(me.icon_img ?? '').replace(/&amp;/g, '&');
    return [
      {
        networkAccountId: `${me.id}/${subreddit.toLowerCase()}`,
        handle: `r/${subreddit}`,
        displayName: `r/${subreddit} as u/${username}`,
        avatarUrl: avatar.startsWith('https://') ? avatar : null,
        credentials: {
          accessToken: token.accessToken,
          refreshToken: token.refreshToken,
          userId: String(me.id),
          username,
          subreddit,
          scopes: token.scopes,
        } satisfies RedditCredentials,
        expiresAt: token.expiresAt,
        textLimit: null,
      },
    ];
  }

  async fieldsFor(channel: ConnectorChannel): Promise<Record<string, string>> {
    return { subreddit: (await this.credentials(channel)).subreddit };
  }

  async refresh(channel: ConnectorChannel): Promise<void> {
    await this.refreshed(channel, (await channel.vault.read()).version);
  }

  async revoke(channel: ConnectorChannel): Promise<void> {
    const c = await this.credentials(channel);
    const app = this.requireApp();
    const basic = Buffer.from(`${app.clientId}:${app.clientSecret}`, 'utf8').toString('base64');
    const answer = await this.http.request(`${WWW}/api/v1/revoke_token`, {
      method: 'POST',
      headers: { authorization: `Basic ${basic}`, 'user-agent': this.userAgent() },
      form: c.refreshToken
        ? { token: c.refreshToken, token_type_hint: 'refresh_token' }
        : { token: c.accessToken, token_type_hint: 'access_token' },
    });
    if (answer.status !== 204 && answer.status !== 200) throw classify(answer, this.now(), 'read');
  }

  async publish(request: PublishRequest): Promise<PublishedPost> {
    const started = this.now();
    const c = await this.credentials(request.channel);
    const options = request.channelOptions ?? {};
    const { title, body } = titleAndBody(request.text, options.title);
    const link = typeof options.link === 'string' ? options.link : undefined;
    const common: Record<string, string> = {
      api_type: 'json',
      sr: c.subreddit,
      title,
      sendreplies: 'true',
      nsfw: String(options.nsfw === true),
      spoiler: String(options.spoiler === true),
      ...(typeof options.flairId === 'string' && options.flairId ? { flair_id: options.flairId } : {}),
    };
    const images = request.imageUrls;
    if (images.length > 1) {
      const assets: string[] = [];
      for (const url of images) assets.push((await this.upload(request.channel, url)).assetId);
      await this.remember(request, { sr: c.subreddit, title });
      const made = await this.submit(request.channel, '/api/submit_gallery_post.json', {
        json: {
          ...common,
          nsfw: common.nsfw === 'true',
          spoiler: common.spoiler === 'true',
          sendreplies: true,
          show_error_list: true,
          items: assets.map((media_id) => ({ media_id, caption: '', outbound_url: '' })),
        },
      });
      return this.made(made, c);
    }
    let form: Record<string, string>;
    if (images.length === 1) {
      const uploaded = await this.upload(request.channel, images[0]);
      form = { ...common, kind: 'image', url: uploaded.url };
    } else if (link) {
      form = { ...common, kind: 'link', url: link, resubmit: 'true' };
    } else {
      form = { ...common, kind: 'self', text: body };
    }
    const handle: SubmissionHandle = { sr: c.subreddit, title, ...(link ? { url: link } : {}) };
    await this.remember(request, handle);
    const made = await this.submit(request.channel, '/api/submit', { form });
    if (made.id || made.url) return this.made(made, c);
    // An image post's answer names no submission: Reddit makes it once the image is processed, and says so on the
    // socket it names; a socket that says nothing leaves the submission to be found among the account's own.
    const redirect = typeof made.websocket_url === 'string' ? await this.processed(made.websocket_url) : undefined;
    if (redirect) return this.made({ url: redirect }, c);
    const found = await this.lookFor(request.channel, handle, started);
    if (found) return found;
    throw new NetworkError(
      'unknown_outcome',
      "Reddit took the image post and is still processing it; Herald looks for it among the account's posts",
    );
  }

  async comment(request: CommentRequest): Promise<{ networkCommentId: string }> {
    const made = await this.submit(request.channel, '/api/comment', {
      form: { api_type: 'json', thing_id: `t3_${request.networkPostId}`, text: request.text },
    });
    const thing = made.things?.[0]?.data;
    if (!thing?.id) throw new NetworkError('unknown_outcome', 'Reddit answered the comment without naming it');
    return { networkCommentId: String(thing.id) };
  }

  async findPublished(lookup: AttemptLookup): Promise<PublishedPost | typeof NOT_MADE | undefined> {
    // The handle is written before the submission is sent: an attempt without one sent nothing.
    if (!lookup.handle) return NOT_MADE;
    let handle: SubmissionHandle;
    try {
      handle = JSON.parse(lookup.handle);
    } catch {
      return undefined;
    }
    return this.lookFor(lookup.channel, handle, lookup.attemptedAt);
  }

  async findComment(lookup: CommentLookup): Promise<{ networkCommentId: string } | undefined> {
    const c = await this.credentials(lookup.channel);
    const listing = await this.get(lookup.channel, `/user/${c.username}/comments?sort=new&limit=100&raw_json=1`);
    const match = children(listing).find(
      (t: any) => t.link_id === `t3_${lookup.networkPostId}` && String(t.body ?? '').trim() === lookup.text.trim(),
    );
    return match ? { networkCommentId: String(match.id) } : undefined;
  }

  async recentPosts(
    channel: ConnectorChannel,
    page: { cursor: string | null; limit: number },
  ): Promise<RecentPostsPage> {
    const c = await this.credentials(channel);
    const query = new URLSearchParams({ sort: 'new', limit: String(Math.min(100, Math.max(1, page.limit))) });
    query.set('raw_json', '1');
    if (page.cursor) query.set('after', page.cursor);
    const listing = await this.get(channel, `/user/${c.username}/submitted?${query}`);
    const posts: NetworkPost[] = children(listing)
      .filter((t: any) => String(t.subreddit).toLowerCase() === c.subreddit.toLowerCase())
      .map((t: any) => ({
        ...this.publishedOf(t),
        attemptKey: null,
        text: t.selftext ? `${t.title}\n${t.selftext}` : String(t.title),
        imageUrls: t.post_hint === 'image' && typeof t.url === 'string' ? [t.url] : [],
        metrics: {
          score: Number(t.score) || 0,
          upvotePercent: Math.round((Number(t.upvote_ratio) || 0) * 100),
          comments: Number(t.num_comments) || 0,
        },
      }));
    const after = listing?.data?.after;
    return { posts, nextCursor: typeof after === 'string' && after ? after : null };
  }

  async check(channel: ConnectorChannel): Promise<ConnectionCheck> {
    const c = await this.credentials(channel);
    const me = await this.get(channel, '/api/v1/me');
    const problems: string[] = [];
    const missing = SCOPES.filter((scope) => !c.scopes.includes(scope));
    if (missing.length > 0)
      problems.push(
        `Reddit did not grant ${missing.join(', ')}: reconnect the channel and allow every permission Herald asks for.`,
      );
    if (String(me.id) !== c.userId)
      problems.push(`The token belongs to another Reddit account (u/${me.name}): reconnect the channel.`);
    if (me.is_suspended === true) problems.push(`Reddit has suspended u/${me.name}: it cannot post.`);
    let about: any;
    try {
      about = (await this.get(channel, `/r/${c.subreddit}/about?raw_json=1`))?.data;
    } catch (error) {
      if (!(error instanceof NetworkError) || error.kind !== 'permanent') throw error;
      problems.push(`Reddit refused to show r/${c.subreddit} (${error.message}): posts there will fail.`);
    }
    if (about?.user_is_banned === true) problems.push(`u/${me.name} is banned from r/${c.subreddit}.`);
    if (about?.submission_type === 'link')
      problems.push(`r/${c.subreddit} takes link posts only: posts need channelOptions.link or images.`);
    if (about?.submission_type === 'self')
      problems.push(`r/${c.subreddit} takes text posts only: links and images will be refused.`);
    return { account: `u/${me.name} in r/${c.subreddit}`, grantedScopes: c.scopes, problems };
  }

  /**
   * Waits on the socket Reddit named for an image post's processing (PRAW's submit_image): `success` carries the
   * submission's URL in payload.redirect, `failed` means Reddit made no post of it. Anything else (no answer in time,
   * a socket that closes or cannot be opened) is undefined: the submission is then looked for instead.
   */
  private async processed(websocketUrl: string): Promise<string | undefined> {
    let socket;
    try {
      socket = await this.http.socket(websocketUrl);
    } catch {
      return undefined;
    }
    const update = await new Promise<any>((resolve) => {
      const timer = setTimeout(() => resolve(undefined), PROCESSING_WAIT_MS);
      const done = (value: any) => {
        clearTimeout(timer);
        resolve(value);
      };
      socket.once('message', (data) => {
        try {
          done(JSON.parse(data.toString()));
        } catch {
          done(undefined);
        }
      });
      socket.once('close', () => done(undefined));
      socket.once('error', () => done(undefined));
    });
    socket.close();
    if (update?.type === 'failed')
      throw new NetworkError('permanent', 'Reddit could not process the image, so it made no post of it');
    const redirect = update?.type === 'success' ? update.payload?.redirect : undefined;
    return typeof redirect === 'string' && redirect.includes('/comments/') ? redirect : undefined;
  }

  /** Records what this attempt is about to submit, before submitting: the lookup's key if its answer is lost. */
  private async remember(request: PublishRequest, handle: SubmissionHandle): Promise<void> {
    await request.recordHandle(JSON.stringify(handle));
  }

  /** The account's submission matching a handle, made since `since` (less the clocks' slack), if Reddit has it. */
  private async lookFor(
    channel: ConnectorChannel,
    handle: SubmissionHandle,
    since: number,
  ): Promise<PublishedPost | undefined> {
    const c = await this.credentials(channel);
    const listing = await this.get(channel, `/user/${c.username}/submitted?sort=new&limit=100&raw_json=1`);
    const match = children(listing).find(
      (t: any) =>
        String(t.subreddit).toLowerCase() === handle.sr.toLowerCase() &&
        t.title === handle.title &&
        (handle.url === undefined || t.url === handle.url) &&
        Number(t.created_utc) * 1000 >= since - CLOCK_SLACK_MS,
    );
    return match ? this.publishedOf(match) : undefined;
  }

  private publishedOf(t: any): PublishedPost {
    const created = Number(t.created_utc);
    return {
      networkPostId: String(t.id),
      permalinkUrl: `${WWW}${t.permalink}`,
      publishedAt: Number.isFinite(created) ? Math.round(created * 1000) : this.now(),
    };
  }

  /** A submission's answer (json.data): its id from `id` (t3_ or bare) or from the URL's /comments/{id}/. */
  private made(data: any, c: RedditCredentials): PublishedPost {
    const fromUrl = /\/comments\/([a-z0-9]+)/i.exec(String(data.url ?? ''))?.[1];
    const id = String(data.id ?? fromUrl ?? '').replace(/^t3_/, '');
    if (!id) throw new NetworkError('unknown_outcome', 'Reddit answered the submission without naming it');
    const url = typeof data.url === 'string' && data.url.includes('/comments/') ? data.url : undefined;
    return {
      networkPostId: id,
      permalinkUrl: url ?? `${WWW}/r/${c.subreddit}/comments/${id}/`,
      publishedAt: this.now(),
    };
  }

  /**
   * Uploads one image to Reddit's media store: asks for a lease (/api/media/asset.json), then posts the lease's
   * fields and the file to the storage it names. Nothing shows until a submission uses it: a lost answer is retried.
   */
  private async upload(channel: ConnectorChannel, url: string): Promise<{ assetId: string; url: string }> {
    const file = await downloadMedia(
      this.media,
      channel.accountId,
      url,
      this.capabilities.media.kinds.image!.maxBytes!,
    );
    const filepath = (new URL(url).pathname.split('/').pop() || 'image').replace(/["\r\n]/g, '') || 'image';
    const lease = await this.call(
      (await this.fresh(channel)).accessToken,
      `${API}/api/media/asset.json`,
      { method: 'POST', form: { filepath, mimetype: file.contentType } },
      channel,
    );
    if (lease.status !== 200) throw classify(lease, this.now(), 'read');
    const action = String(lease.json?.args?.action ?? '');
    const fields: { name: string; value: string }[] = lease.json?.args?.fields ?? [];
    const assetId = String(lease.json?.asset?.asset_id ?? '');
    if (!action || !assetId) throw new NetworkError('retry_later', 'Reddit gave no upload lease for the image');
    const target = action.startsWith('//') ? `https:${action}` : action;
    const boundary = `herald-${crypto.randomBytes(12).toString('hex')}`;
    const parts: Buffer[] = fields.map((f) =>
      Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${f.name}"\r\n\r\n${f.value}\r\n`),
    );
    parts.push(
      Buffer.from(
        `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="${filepath}"\r\n` +
          `Content-Type: ${file.contentType}\r\n\r\n`,
      ),
      file.bytes,
      Buffer.from(`\r\n--${boundary}--\r\n`),
    );
    let stored: NetworkAnswer;
    try {
      stored = await this.http.request(target, {
        method: 'POST',
        headers: { 'content-type': `multipart/form-data; boundary=${boundary}`, accept: '*/*' },
        body: Buffer.concat(parts),
      });
    } catch (error) {
      if (error instanceof NetworkError && error.kind === 'unknown_outcome')
        throw new NetworkError('retry_later', error.message);
      throw error;
    }
    if (stored.status === 400 && /EntityTooLarge/.test(stored.body.toString('utf8'))) {
      const max = /<MaxSizeAllowed>(\d+)<\/MaxSizeAllowed>/.exec(stored.body.toString('utf8'))?.[1];
      throw new NetworkError('permanent', `Reddit refused the image ${url}: larger than ${max ?? 'it takes'} bytes`);
    }
    if (stored.status < 200 || stored.status >= 300)
      throw new NetworkError(
        stored.status >= 500 ? 'retry_later' : 'permanent',
        `Reddit's media store refused the image ${url} (HTTP ${stored.status})`,
      );
    const key = fields.find((f) => f.name === 'key')?.value ?? '';
    return { assetId, url: `${target}/${key}` };
  }

  /** A write whose answer is Reddit's JSON envelope: json.errors refused, else json.data. */
  private async submit(
    channel: ConnectorChannel,
    path: string,
    body: { form?: Record<string, string>; json?: unknown },
  ): Promise<any> {
    const c = await this.fresh(channel);
    const answer = await this.call(c.accessToken, `${API}${path}`, { method: 'POST', ...body }, channel);
    if (answer.status !== 200) throw classify(answer, this.now(), 'write');
    const envelope = answer.json?.json;
    if (!envelope) throw new NetworkError('unknown_outcome', `Reddit answered ${path} with no JSON envelope`);
    const errors: unknown[][] = Array.isArray(envelope.errors) ? envelope.errors : [];
    if (errors.length > 0) throw refusal(errors, this.now());
    return envelope.data ?? {};
  }

  /** A read: its JSON, or the failure classified (a lost answer is asked again). */
  private async get(channel: ConnectorChannel, path: string): Promise<any> {
    const c = await this.fresh(channel);
    return this.read(await this.call(c.accessToken, `${API}${path}`, {}, channel), 'read');
  }

  private read(answer: NetworkAnswer, kind: 'read' | 'write'): any {
    if (answer.status === 200 && answer.json !== undefined) return answer.json;
    throw classify(answer, this.now(), kind);
  }

  /** One call with the bearer token and Herald's User-Agent; the channel's budget is watched on every answer. */
  private async call(
    accessToken: string,
    url: string,
    request: { method?: 'POST'; form?: Record<string, string>; json?: unknown } = {},
    channel?: ConnectorChannel,
  ): Promise<NetworkAnswer> {
    let answer: NetworkAnswer;
    try {
      answer = await this.http.request(url, {
        ...request,
        headers: { authorization: `bearer ${accessToken}`, 'user-agent': this.userAgent() },
      });
    } catch (error) {
      if (request.method === undefined && error instanceof NetworkError && error.kind === 'unknown_outcome')
        throw new NetworkError('retry_later', error.message);
      throw error;
    }
    if (channel) await this.observe(channel, answer);
    return answer;
  }

  /** Reddit's remaining requests are a float: less than one left pauses the channel until the window ends. */
  private async observe(channel: ConnectorChannel, answer: NetworkAnswer): Promise<void> {
    const remaining = Number(answer.header('x-ratelimit-remaining'));
    const reset = Number(answer.header('x-ratelimit-reset'));
    if (answer.header('x-ratelimit-remaining') === undefined || !Number.isFinite(remaining) || remaining >= 1) return;
    if (Number.isFinite(reset) && reset > 0) await channel.pauseUntil(this.now() + reset * 1000);
  }

  private async credentials(channel: ConnectorChannel): Promise<RedditCredentials> {
    return (await channel.vault.read()).credentials as unknown as RedditCredentials;
  }

  private async fresh(channel: ConnectorChannel): Promise<RedditCredentials> {
    let opened: OpenedCredentials = await channel.vault.read();
    if (opened.expiresAt !== null && opened.expiresAt < this.now() + REFRESH_AHEAD_MS)
      opened = await this.refreshed(channel, opened.version);
    return opened.credentials as unknown as RedditCredentials;
  }

  private refreshed(channel: ConnectorChannel, version: number): Promise<OpenedCredentials> {
    return channel.vault.refresh(version, async (current) => {
      const c = current as unknown as RedditCredentials;
      if (!c.refreshToken)
        throw new NetworkError('reconnect_needed', "Reddit's token expired and Herald holds no refresh token for it");
      const renewed: TokenGrant = await this.oauth.refresh(c.refreshToken);
      return {
        credentials: {
          ...c,
          accessToken: renewed.accessToken,
          refreshToken: renewed.refreshToken ?? c.refreshToken,
          scopes: renewed.scopes.length > 0 ? renewed.scopes : c.scopes,
        },
        expiresAt: renewed.expiresAt,
      };
    });
  }

  private userAgent(): string {
    return this.app?.userAgent || `server:herald:1.0 (Herald self-hosted publishing; app ${this.app?.clientId ?? '-'})`;
  }

  private requireApp(): RedditApp {
    if (!this.app)
      throw new NetworkError(
        'permanent',
        'This Herald has no Reddit app: its operator must set REDDIT_CLIENT_ID and REDDIT_CLIENT_SECRET',
      );
    return this.app;
  }
}

/** The subreddit a person named (r/name, /r/name or name; u/name for a profile), or a refusal in their words. */
function subredditOf(value: string | undefined): string {
  const given = String(value ?? '').trim();
  const name = given
    .replace(/^\/?r\//i, '')
    .replace(/^\/?u\//i, 'u_')
    .replace(/\/$/, '');
  if (!SUBREDDIT.test(name)) {
    const message = `"${given}" is not a subreddit name: give it as r/name (letters, digits and _, 3 to 21 characters)`;
    // Said of the field, so a form shows it beside the subreddit it refuses.
    throw new ValidationError(message, [{ path: 'subreddit', message }]);
  }
  return name;
}

function children(listing: any): any[] {
  const items = listing?.kind === 'Listing' ? listing.data?.children : undefined;
  return Array.isArray(items) ? items.map((child: any) => child?.data ?? {}) : [];
}

/** The token endpoint answers a wrong app with HTTP 401 and a refused code or refresh token as RFC 6749 says. */
function tokenRefusal(answer: NetworkAnswer): TokenRefusal {
  if (answer.status === 401) return { error: 'invalid_client', said: 'HTTP 401 Unauthorized' };
  return oauthRefusal(answer);
}

/** json.errors is a list of [code, message, field]: RATELIMIT says how long to wait, the rest are refusals. */
function refusal(errors: unknown[][], now: number): NetworkError {
  const words = errors.map(([code, message, field]) => `${code}: ${message}${field ? ` (${field})` : ''}`).join('; ');
  const limited = errors.find(([code]) => code === 'RATELIMIT');
  if (limited) {
    const wait = /(\d+)\s*(second|minute|hour)/i.exec(String(limited[1]));
    const unit = { second: 1000, minute: 60_000, hour: 3_600_000 }[(wait?.[2] ?? 'minute').toLowerCase()] ?? 60_000;
    const retryAt = wait ? now + Number(wait[1]) * unit : undefined;
    return new NetworkError('retry_later', `Reddit refused for now: ${words}`, retryAt);
  }
  return new NetworkError('permanent', `Reddit refused it: ${words}`);
}

/** A 5xx or a lost answer to a write may come after Reddit made the submission: its outcome is unknown. */
function classify(answer: NetworkAnswer, now: number, kind: 'read' | 'write'): NetworkError {
  const said = answer.json?.message ?? answer.json?.reason ?? answer.json?.error;
  const words = `Reddit answered HTTP ${answer.status}${said ? ` (${said})` : ''}`;
  if (answer.status === 429) return new NetworkError('retry_later', words, resetAt(answer, now));
  if (answer.status >= 500)
    return new NetworkError(kind === 'write' ? 'unknown_outcome' : 'retry_later', words, resetAt(answer, now));
  if (answer.status === 401) return new NetworkError('refresh_and_retry', words);
  return new NetworkError('permanent', words);
}

/** X-Ratelimit-Reset is the seconds left in Reddit's window. */
function resetAt(answer: NetworkAnswer, now: number): number | undefined {
  const reset = Number(answer.header('x-ratelimit-reset'));
  return Number.isFinite(reset) && reset > 0 ? now + reset * 1000 : undefined;
}
