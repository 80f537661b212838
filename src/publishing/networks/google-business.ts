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
import { retryAtFrom, type NetworkAnswer, type NetworkHttp, type NetworkRequest } from './network-http.js';
import { GOOGLE_AUTHORIZE_URL, GOOGLE_OAUTH, GOOGLE_TOKENINFO_URL } from './google-oauth.js';
import { OAuth2Client, type OAuth2App } from './oauth2-client.js';

/**
 * Google Business Profile through Google OAuth, the Account Management and Business Information APIs (v1) and the
 * My Business API v4's local posts (developers.google.com/my-business: accounts.list, accounts.locations.list,
 * accounts.locations.localPosts create and list, the LocalPost resource, usage limits, ErrorCode; Google's OAuth
 * web-server guide; AIP-193 errors; NETWORKS.md "Seven more networks").
 *
 * Rules kept here:
 * - consent asks for business.manage with offline access and prompt=consent (a refresh token every time); a consent
 *   without that permission, or without a refresh token, connects nothing;
 * - every location the person manages (through each of their accounts) becomes its own channel, or only the one
 *   named in the `location` field (filled from the channel on a reconnect, so a reconnect keeps to its location);
 *   the account the location was listed under is kept, since local posts live under accounts/{a}/locations/{l};
 * - access tokens last an hour: refreshed ahead of expiry and once on a 401, through the vault (oauth2-client.ts:
 *   invalid_grant needs a reconnect);
 * - a post is one STANDARD local post: the text as its summary, at most one photo by its URL (Google fetches it:
 *   the capabilities row's pulledFromUrl), and a call-to-action button from channelOptions (CALL without an
 *   address, the others with one); a post Google answers REJECTED fails with that reason;
 * - Google keeps no idempotency key: an answer lost after the create call (a timeout, a 5xx to it) is settled by
 *   listing the location's local posts for one with the same summary made since the attempt started; not found,
 *   the post is left unconfirmed for a person, never sent again blind;
 * - a 429 or RESOURCE_EXHAUSTED (300 requests a minute per API, 10 edits a minute per profile) waits for Google's
 *   RetryInfo or Retry-After, else a minute; a quota of 0 means Google has not approved the project's Business
 *   Profile API access yet, which only the operator can change (permanent); 5xx and UNAVAILABLE retry later;
 *   UNAUTHENTICATED after a refresh, or PERMISSION_DENIED on the location, needs a reconnect (unless the API is
 *   not enabled in the operator's project: permanent, saying so); NOT_FOUND, INVALID_ARGUMENT,
 *   FAILED_PRECONDITION (a location Google keeps from the posts API) are permanent, in Google's words;
 * - live sync lists the location's local posts; Google reports no counter for a post (localPosts.reportInsights was
 *   retired), so they carry none;
 * - disconnecting revokes nothing at Google: the grant is shared by every location of the consent (and by the
 *   person's YouTube channels on the same Google app), and revoking it would cut them all.
 */
const ACCOUNTS_API = 'https://mybusinessaccountmanagement.googleapis.com/v1';
const INFORMATION_API = 'https://mybusinessbusinessinformation.googleapis.com/v1';
const POSTS_API = 'https://mybusiness.googleapis.com/v4';
const SCOPE = 'https://www.googleapis.com/auth/business.manage';
const REFRESH_AHEAD_MS = 5 * 60_000;
/** Leeway between Herald's clock and Google's when matching a local post to an attempt. */
const CLOCK_SKEW_MS = 60_000;
/** Google's quotas are per minute; without a RetryInfo or Retry-After, a rate-limited call waits one. */
const RATE_WAIT_MS = 60_000;
/** More locations than this in one consent are connected one at a time, by the `location` field. */
const MAX_LOCATIONS = 100;
const ACTIONS = ['BOOK', 'ORDER', 'SHOP', 'LEARN_MORE', 'SIGN_UP', 'CALL'];

interface BusinessCredentials {
  accessToken: string;
  refreshToken: string;
  scope: string;
  /** accounts/{accountId}: the account the location was listed under. */
  account: string;
  /** locations/{locationId}. */
  location: string;
  /** The location on Google Maps, the link of a post Google gives none for yet. */
  mapsUri: string | null;
}

interface ListedLocation {
  account: string;
  location: string;
  title: string;
  locality: string | null;
  mapsUri: string | null;
}

export class GoogleBusinessNetwork implements NetworkConnector {
  readonly capabilities = NETWORK_CAPABILITIES.google_business;
  readonly connection: ConnectionMethod = {
    kind: 'oauth',
    fields: [
      {
        name: 'location',
        required: false,
        secret: false,
        description:
          'the id of one Business Profile location to connect (the number in locations/123); ' +
          'every location you manage is connected when left out',
      },
    ],
  };
  private readonly oauth: OAuth2Client;

  constructor(
    private readonly http: NetworkHttp,
    private readonly now: () => number,
    private readonly app: () => OAuth2App | undefined,
  ) {
    this.oauth = new OAuth2Client(http, GOOGLE_OAUTH, () => this.google(), now);
  }

  configured(): boolean {
    return this.app() !== undefined;
  }

  async startAuthorization(input: {
    fields: Record<string, string>;
    redirectUri: string;
    state: string;
    codeChallenge: string;
  }): Promise<AuthorizationStart> {
    const query = new URLSearchParams({
      client_id: this.google().clientId,
      redirect_uri: input.redirectUri,
      response_type: 'code',
      scope: SCOPE,
      access_type: 'offline',
      prompt: 'consent',
      state: input.state,
      code_challenge: input.codeChallenge,
      code_challenge_method: 'S256',
    });
    const location = input.fields.location ? locationName(input.fields.location) : undefined;
    return { authorizationUrl: `${GOOGLE_AUTHORIZE_URL}?${query}`, keep: location ? { location } : {} };
  }

  async finishAuthorization(input: {
    code: string;
    redirectUri: string;
    codeVerifier: string;
    keep: Record<string, string>;
  }): Promise<ConnectedAccount[]> {
    const token = await this.oauth.exchangeCode(input);
    if (!token.scopes.includes(SCOPE)) {
      throw new NetworkError(
        'permanent',
        'Google granted Herald no permission to manage the Business Profile: connect again and leave "See, edit, ' +
          'create and delete your Google business listings" ticked',
      );
    }
    if (token.refreshToken === null) {
      throw new NetworkError(
        'permanent',
        'Google sent no refresh token, so Herald could not keep the location connected: ' +
          'remove Herald at myaccount.google.com/permissions, then connect again',
      );
    }
    const wanted = input.keep.location;
    const listed = await this.locations(token.accessToken, wanted);
    const chosen = wanted ? listed.filter((l) => l.location === wanted) : listed;
    if (chosen.length === 0) {
      throw new NetworkError(
        'permanent',
        wanted
          ? `This Google account does not manage the Business Profile location ${wanted}: ` +
              'sign in with an account that manages it'
          : 'This Google account manages no Business Profile location: add one at business.google.com, ' +
              'then connect again',
      );
    }
    if (chosen.length > MAX_LOCATIONS) {
      throw new NetworkError(
        'permanent',
        `This Google account manages more than ${MAX_LOCATIONS} locations: connect them one at a time, ` +
          'naming each in the location field',
      );
    }
    return chosen.map((l) => ({
      networkAccountId: l.location,
      handle: l.title,
      displayName: l.locality ? `${l.title}, ${l.locality}` : l.title,
      avatarUrl: null,
      credentials: {
        accessToken: token.accessToken,
        refreshToken: token.refreshToken!,
        scope: token.scopes.join(' '),
        account: l.account,
        location: l.location,
        mapsUri: l.mapsUri,
      } satisfies BusinessCredentials,
      expiresAt: token.expiresAt,
      textLimit: null,
    }));
  }

  async fieldsFor(channel: ConnectorChannel): Promise<Record<string, string>> {
    return { location: (await this.credentials(channel)).credentials.location };
  }

  async refresh(channel: ConnectorChannel): Promise<void> {
    await this.refreshed(channel, (await channel.vault.read()).version);
  }

  async publish(request: PublishRequest): Promise<PublishedPost> {
    if (request.videoUrls.length > 0 || request.imageUrls.length > 1) {
      throw new NetworkError('permanent', 'A Google Business Profile post takes at most one photo, and no video');
    }
    const body = localPost(request.text, request.imageUrls[0], request.channelOptions ?? {});
    const c = await this.credentials(request.channel);
    const answer = await this.call(request.channel, `${POSTS_API}/${postsParent(c.credentials)}/localPosts`, {
      method: 'POST',
      json: body,
    });
    const post = answer.json ?? {};
    if (typeof post.name !== 'string') {
      // A 200 that names no post: made or not, only the location's posts can tell.
      throw new NetworkError('unknown_outcome', 'Google answered the local post without naming it');
    }
    if (post.state === 'REJECTED') {
      throw new NetworkError(
        'permanent',
        'Google rejected the post under its content policy for Business Profile posts (a phone number in the text is ' +
          'a common reason)',
      );
    }
    return this.publishedOf(post, c.credentials);
  }

  async comment(_request: CommentRequest): Promise<{ networkCommentId: string }> {
    throw new NetworkError('permanent', `Google Business Profile ${this.capabilities.firstCommentRefused}`);
  }

  /** The location's local post with the attempt's summary, made since the attempt started and not rejected. */
  async findPublished(lookup: AttemptLookup): Promise<PublishedPost | undefined> {
    const c = await this.credentials(lookup.channel);
    const posts = await this.listed(lookup.channel, c.credentials, null, 100);
    const text = lookup.text.trim();
    const found = posts.items.find(
      (post) =>
        post.state !== 'REJECTED' &&
        String(post.summary ?? '').trim() === text &&
        Date.parse(post.createTime ?? '') >= lookup.attemptedAt - CLOCK_SKEW_MS,
    );
    return found ? this.publishedOf(found, c.credentials) : undefined;
  }

  async recentPosts(
    channel: ConnectorChannel,
    page: { cursor: string | null; limit: number },
  ): Promise<RecentPostsPage> {
    const c = await this.credentials(channel);
    const listed = await this.listed(channel, c.credentials, page.cursor, page.limit);
    const posts: NetworkPost[] = listed.items
      .filter((post) => post.state !== 'REJECTED')
      .map((post) => ({
        ...this.publishedOf(post, c.credentials),
        attemptKey: null,
        text: String(post.summary ?? ''),
        imageUrls: (Array.isArray(post.media) ? post.media : [])
          .filter((m: any) => m?.mediaFormat === 'PHOTO')
          .map((m: any) => String(m.googleUrl ?? m.sourceUrl ?? ''))
          .filter((url: string) => url !== ''),
        metrics: {},
      }));
    return { posts, nextCursor: listed.nextPageToken };
  }

  async check(channel: ConnectorChannel): Promise<ConnectionCheck> {
    const c = await this.credentials(channel);
    const info = await this.http.request(
      `${GOOGLE_TOKENINFO_URL}?${new URLSearchParams({ access_token: c.credentials.accessToken })}`,
    );
    if (info.status !== 200) {
      throw new NetworkError(
        'reconnect_needed',
        `Google does not accept the channel's access token (${info.json?.error_description ?? `HTTP ${info.status}`})`,
      );
    }
    const grantedScopes = String(info.json?.scope ?? '')
      .split(' ')
      .filter((s) => s !== '');
    const problems: string[] = [];
    if (!grantedScopes.includes(SCOPE)) {
      problems.push(
        'Herald may not manage the Business Profile (business.manage was not granted): reconnect and allow it.',
      );
    }
    let account = channel.handle;
    try {
      const read = await this.call(
        channel,
        `${INFORMATION_API}/${c.credentials.location}?${new URLSearchParams({ readMask: 'name,title' })}`,
      );
      account = String(read.json?.title ?? account);
      await this.call(channel, `${POSTS_API}/${postsParent(c.credentials)}/localPosts?pageSize=1`);
    } catch (error) {
      if (!(error instanceof NetworkError) || error.kind === 'retry_later') throw error;
      problems.push(`${error.message}.`);
    }
    return { account, grantedScopes, problems };
  }

  private google(): OAuth2App {
    const app = this.app();
    if (!app) {
      throw new NetworkError(
        'permanent',
        'This Herald has no Google app configured (GOOGLE_CLIENT_ID, GOOGLE_CLIENT_SECRET)',
      );
    }
    return app;
  }

  /** Every location of every account the token reaches, stopping early once the wanted one is found. */
  private async locations(accessToken: string, wanted: string | undefined): Promise<ListedLocation[]> {
    const headers = { authorization: `Bearer ${accessToken}` };
    const found: ListedLocation[] = [];
    const accounts = await this.pages(`${ACCOUNTS_API}/accounts`, headers, 'accounts');
    for (const account of accounts) {
      const query = new URLSearchParams({ readMask: 'name,title,storefrontAddress,metadata', pageSize: '100' });
      const url = `${INFORMATION_API}/${account.name}/locations?${query}`;
      for (const location of await this.pages(url, headers, 'locations')) {
        // A location reached through two accounts (the person's own and a location group) is one channel.
        if (found.some((l) => l.location === location.name)) continue;
        found.push({
          account: String(account.name),
          location: String(location.name),
          title: String(location.title || location.name),
          locality: location.storefrontAddress?.locality ?? null,
          mapsUri: location.metadata?.mapsUri ?? null,
        });
        if (wanted && location.name === wanted) return found;
        if (!wanted && found.length > MAX_LOCATIONS) return found;
      }
    }
    return found;
  }

  /** Every item of a listing Google pages with nextPageToken. */
  private async pages(url: string, headers: Record<string, string>, field: string): Promise<any[]> {
    const items: any[] = [];
    let pageToken: string | undefined;
    do {
      const separator = url.includes('?') ? '&' : '?';
      const answer = await this.http.request(
        pageToken ? `${url}${separator}${new URLSearchParams({ pageToken })}` : url,
        { headers },
      );
      if (answer.status !== 200) throw this.failure(answer);
      items.push(...(Array.isArray(answer.json?.[field]) ? answer.json[field] : []));
      pageToken = typeof answer.json?.nextPageToken === 'string' ? answer.json.nextPageToken : undefined;
    } while (pageToken && items.length <= MAX_LOCATIONS);
    return items;
  }

  private async listed(
    channel: ConnectorChannel,
    c: BusinessCredentials,
    cursor: string | null,
    limit: number,
  ): Promise<{ items: any[]; nextPageToken: string | null }> {
    const query = new URLSearchParams({
      pageSize: String(Math.min(100, Math.max(1, limit))),
      ...(cursor ? { pageToken: cursor } : {}),
    });
    const answer = await this.call(channel, `${POSTS_API}/${postsParent(c)}/localPosts?${query}`);
    const items: any[] = Array.isArray(answer.json?.localPosts) ? answer.json.localPosts : [];
    // Newest first, whatever order Google lists them in.
    items.sort((a, b) => (Date.parse(b.createTime ?? '') || 0) - (Date.parse(a.createTime ?? '') || 0));
    return {
      items,
      nextPageToken: typeof answer.json?.nextPageToken === 'string' ? answer.json.nextPageToken : null,
    };
  }

  private publishedOf(post: any, c: BusinessCredentials): PublishedPost {
    const at = Date.parse(post?.createTime ?? '');
    return {
      networkPostId: String(post?.name ?? ''),
      permalinkUrl: String(post?.searchUrl || c.mapsUri || 'https://business.google.com/'),
      publishedAt: Number.isNaN(at) ? this.now() : at,
    };
  }

  /** The channel's credentials, refreshed first when the access token is about to expire. */
  private async credentials(
    channel: ConnectorChannel,
  ): Promise<OpenedCredentials & { credentials: BusinessCredentials }> {
    const opened = await channel.vault.read();
    const fresh =
      opened.expiresAt !== null && opened.expiresAt < this.now() + REFRESH_AHEAD_MS
        ? await this.refreshed(channel, opened.version)
        : opened;
    return fresh as OpenedCredentials & { credentials: BusinessCredentials };
  }

  private refreshed(channel: ConnectorChannel, version: number): Promise<OpenedCredentials> {
    return channel.vault.refresh(version, async (current) => {
      const c = current as unknown as BusinessCredentials;
      const answer = await this.oauth.refresh(c.refreshToken);
      const renewed: BusinessCredentials = {
        ...c,
        accessToken: answer.accessToken,
        // Google sends a new refresh token only now and then; the stored one stays until it does.
        refreshToken: answer.refreshToken ?? c.refreshToken,
        scope: answer.scopes.length > 0 ? answer.scopes.join(' ') : c.scope,
      };
      return { credentials: { ...renewed }, expiresAt: answer.expiresAt };
    });
  }

  /**
   * One call with the channel's token: a 401 refreshes it once and calls again. A create whose answer is a 5xx may
   * have made the post, so its outcome is unknown; every other failure is classified by failure().
   */
  private async call(channel: ConnectorChannel, url: string, request: NetworkRequest = {}): Promise<NetworkAnswer> {
    let opened = await this.credentials(channel);
    for (let tries = 1; ; tries++) {
      const answer = await this.http.request(url, {
        ...request,
        headers: { ...request.headers, authorization: `Bearer ${opened.credentials.accessToken}` },
      });
      if (answer.status >= 200 && answer.status < 300) return answer;
      if (answer.status === 401 && tries === 1) {
        opened = (await this.refreshed(channel, opened.version)) as typeof opened;
        continue;
      }
      const failure = this.failure(answer);
      if (request.method === 'POST' && answer.status >= 500) {
        throw new NetworkError('unknown_outcome', `${failure.message}; the post may have been made`);
      }
      throw failure;
    }
  }

  /** A Google error answer (AIP-193: {error: {code, message, status, details}}) as a NetworkError. */
  private failure(answer: NetworkAnswer): NetworkError {
    const error = typeof answer.json?.error === 'object' && answer.json.error !== null ? answer.json.error : {};
    const status = String(error.status ?? '');
    const details: any[] = Array.isArray(error.details) ? error.details : [];
    const typed = (name: string) => details.find((d) => String(d?.['@type'] ?? '').endsWith(name));
    const info = typed('google.rpc.ErrorInfo');
    const fields = details
      .flatMap((d) => (Array.isArray(d?.errorDetails) ? d.errorDetails : []))
      .map((d: any) => [d?.field, d?.message].filter(Boolean).join(': '))
      .filter((words: string) => words !== '');
    const message = [String(error.message ?? `HTTP ${answer.status}`), ...fields].join('; ');
    const reason = info?.reason ? ` (${info.reason})` : '';
    const words = `Google answered HTTP ${answer.status}${status ? ` ${status}` : ''}${reason}: ${message}`;
    if (answer.status === 429 || status === 'RESOURCE_EXHAUSTED') {
      if (String(info?.metadata?.quota_limit_value ?? '') === '0') {
        return new NetworkError(
          'permanent',
          `${words}. This Google Cloud project has no Business Profile API quota yet: Google grants it once it ` +
            "approves the project's Business Profile API access request, which the operator makes (docs/networks.md)",
        );
      }
      return new NetworkError('retry_later', words, this.retryAt(answer, typed('google.rpc.RetryInfo')));
    }
    if (answer.status >= 500 || status === 'UNAVAILABLE' || status === 'INTERNAL' || status === 'DEADLINE_EXCEEDED') {
      return new NetworkError('retry_later', words, retryAtFrom(answer, this.now()));
    }
    if (answer.status === 401 || status === 'UNAUTHENTICATED') return new NetworkError('reconnect_needed', words);
    if (answer.status === 403 || status === 'PERMISSION_DENIED') {
      if (info?.reason === 'SERVICE_DISABLED' || info?.reason === 'ACCESS_TOKEN_SCOPE_INSUFFICIENT') {
        return new NetworkError(
          info.reason === 'SERVICE_DISABLED' ? 'permanent' : 'reconnect_needed',
          info.reason === 'SERVICE_DISABLED'
            ? `${words}; the operator must enable this API in the Google Cloud project (docs/networks.md)`
            : `${words}; reconnect the channel and allow every permission Herald asks for`,
        );
      }
      return new NetworkError(
        'reconnect_needed',
        `${words}; the Google account no longer manages this location, or removed Herald's access: reconnect it`,
      );
    }
    return new NetworkError('permanent', words);
  }

  /** When to call again: Google's RetryInfo delay ("30s"), a Retry-After, or a minute, its quotas' window. */
  private retryAt(answer: NetworkAnswer, retryInfo: any): number {
    const now = this.now();
    const delay = /^(\d+(?:\.\d+)?)s$/.exec(String(retryInfo?.retryDelay ?? ''));
    if (delay) return now + Math.ceil(Number(delay[1]) * 1000);
    return retryAtFrom(answer, now) ?? now + RATE_WAIT_MS;
  }
}

/** "123", "locations/123" or "accounts/9/locations/123" as Business Information names it: locations/123. */
function locationName(given: string): string {
  const id = /(?:^|\/)locations\/([^/]+)$/.exec(given.trim())?.[1] ?? given.trim();
  return `locations/${id}`;
}

/** The v4 parent of a location's local posts: the account segment is required there. */
function postsParent(c: BusinessCredentials): string {
  return `${c.account}/${c.location}`;
}

/** The LocalPost of a Herald post: a STANDARD post, its photo by URL, its button from channelOptions. */
function localPost(text: string, photo: string | undefined, options: Record<string, unknown>): Record<string, unknown> {
  const action = options.callToAction;
  const url = options.callToActionUrl;
  if (action !== undefined && (typeof action !== 'string' || !ACTIONS.includes(action))) {
    throw new NetworkError('permanent', `channelOptions.callToAction must be one of ${ACTIONS.join(', ')}`);
  }
  if (action === undefined && url !== undefined) {
    throw new NetworkError(
      'permanent',
      'channelOptions.callToActionUrl needs channelOptions.callToAction, the button that opens it',
    );
  }
  if (action === 'CALL' && url !== undefined) {
    throw new NetworkError(
      'permanent',
      "a CALL button dials the profile's phone number and takes no channelOptions.callToActionUrl: remove it",
    );
  }
  if (action !== undefined && action !== 'CALL' && (typeof url !== 'string' || !/^https?:\/\//i.test(url))) {
    throw new NetworkError(
      'permanent',
      `a ${action} button needs channelOptions.callToActionUrl, the http or https address it opens`,
    );
  }
  return {
    ...(typeof options.languageCode === 'string' ? { languageCode: options.languageCode } : {}),
    summary: text,
    topicType: 'STANDARD',
    ...(action !== undefined ? { callToAction: { actionType: action, ...(url ? { url } : {}) } } : {}),
    ...(photo ? { media: [{ mediaFormat: 'PHOTO', sourceUrl: photo }] } : {}),
  };
}
