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
  type OpenedCredentials,
  type PublishRequest,
  type PublishedPost,
  type RecentPostsPage,
} from '../../domain/networks/connector.js';
import {
  downloadMedia,
  retryAtFrom,
  type NetworkAnswer,
  type NetworkHttp,
  type NetworkHttpOptions,
} from './network-http.js';
import { OAuth2Client, type TokenGrant, type TokenRefusal } from './oauth2-client.js';

/**
 * Slack, through the Web API with a bot token (docs.slack.dev: OAuth v2 installation, chat.postMessage,
 * conversations.history and .replies, files.getUploadURLExternal and .completeUploadExternal, the image block,
 * message metadata, auth.test, auth.revoke, rate limits; NETWORKS.md).
 *
 * Rules kept here:
 * - the operator's app (SLACK_CLIENT_ID, SLACK_CLIENT_SECRET) is installed by the person through Slack's consent
 *   (oauth/v2/authorize, then oauth.v2.access) with the `incoming-webhook` scope, so the person picks the channel
 *   on Slack's own screen; Herald keeps the bot token (xoxb-) and that channel, and never uses the webhook URL (its
 *   answers carry no message id). A reconnect must pick the same channel. Tokens do not expire unless the app turns
 *   on token rotation: then the refresh token is kept and the access token refreshed before it lapses and on
 *   token_expired;
 * - a post is one message: the text (escaped as Slack's formatting asks: &, < and >) or, with images, a section
 *   block of the text followed by one image block per image, uploaded first as Slack files (files.getUploadURLExternal,
 *   the bytes, files.completeUploadExternal without a channel, so nothing shows before the message); a first comment
 *   is a reply in the post's thread (thread_ts);
 * - never twice: each message carries Herald's key in its metadata (event_type herald_post or herald_comment); an
 *   answer that was lost is settled by looking for that key in the channel's history (or the thread's replies)
 *   since the attempt started; one not found is left unconfirmed;
 * - Slack answers HTTP 200 with `{ok: false, error}` except 429, which waits for Retry-After: invalid_auth,
 *   token_revoked, account_inactive, not_authed, missing_scope and the like need a reconnect; token_expired
 *   refreshes; ratelimited retries later, as do internal_error, fatal_error, service_unavailable and 5xx to a read,
 *   while to a message they leave its outcome unknown (settled by its key, never sent blind); channel_not_found,
 *   not_in_channel, is_archived, msg_too_long, invalid_blocks and the rest are permanent, in Slack's code;
 * - live sync reads the bot's own messages in the channel with their reply and reaction counts (Slack counts no views);
 * - disconnecting revokes the token at Slack (auth.revoke).
 */
const API = 'https://slack.com/api';
const CONSENT = 'https://slack.com/oauth/v2/authorize';
const SCOPES = ['chat:write', 'files:write', 'channels:history', 'groups:history', 'incoming-webhook'];
const REFRESH_AHEAD_MS = 5 * 60_000;
/** How far before the attempt a message found in the channel may be dated (the two clocks differ). */
const CLOCK_SLACK_MS = 60_000;
const POST_EVENT = 'herald_post';
const COMMENT_EVENT = 'herald_comment';
const RECONNECT = new Set([
  'invalid_auth',
  'not_authed',
  'token_revoked',
  'account_inactive',
  'missing_scope',
  'no_permission',
  'team_access_not_granted',
  'ekm_access_denied',
  'not_allowed_token_type',
]);
const TRANSIENT = new Set(['ratelimited', 'internal_error', 'fatal_error', 'service_unavailable', 'request_timeout']);

interface SlackCredentials {
  accessToken: string;
  refreshToken?: string;
  botUserId: string;
  teamId: string;
  teamUrl: string;
  channelId: string;
  scopes: string[];
}

export interface SlackApp {
  clientId: string;
  clientSecret: string;
}

export class SlackNetwork implements NetworkConnector {
  readonly capabilities = NETWORK_CAPABILITIES.slack;
  readonly connection: ConnectionMethod = { kind: 'oauth', fields: [] };
  private readonly oauth: OAuth2Client;

  constructor(
    private readonly http: NetworkHttp,
    private readonly media: NetworkHttpOptions,
    private readonly now: () => number,
    private readonly app: SlackApp | undefined,
  ) {
    this.oauth = new OAuth2Client(
      http,
      {
        name: 'Slack',
        tokenUrl: `${API}/oauth.v2.access`,
        clientAuth: 'body',
        appSettings: 'SLACK_CLIENT_ID and SLACK_CLIENT_SECRET',
        refusal: tokenRefusal,
        reconnectHint: 'Slack no longer takes its refresh token',
      },
      () => this.requireApp(),
      now,
    );
  }

  configured(): boolean {
    return this.app !== undefined;
  }

  async startAuthorization(input: { redirectUri: string; state: string }): Promise<AuthorizationStart> {
    const query = new URLSearchParams({
      client_id: this.requireApp().clientId,
      scope: SCOPES.join(','),
      redirect_uri: input.redirectUri,
      state: input.state,
    });
    return { authorizationUrl: `${CONSENT}?${query}`, keep: {} };
  }

  async finishAuthorization(input: { code: string; redirectUri: string }): Promise<ConnectedAccount[]> {
    const token = await this.oauth.exchangeCode({ code: input.code, redirectUri: input.redirectUri });
    const answer = token.answer;
    const channelId = answer.incoming_webhook?.channel_id;
    if (typeof channelId !== 'string' || !channelId) {
      throw new NetworkError(
        'permanent',
        "Slack named no channel: pick the channel Herald posts to on Slack's screen, then try again",
      );
    }
    const auth = await this.call(token.accessToken, 'auth.test', {});
    const channelName = String(answer.incoming_webhook.channel ?? channelId).replace(/^#?/, '#');
    const teamName = String(answer.team?.name ?? auth.team ?? '');
    return [
      {
        networkAccountId: `${auth.team_id}/${channelId}`,
        handle: channelName,
        displayName: teamName ? `${channelName} (${teamName})` : channelName,
        avatarUrl: null,
        credentials: {
          ...tokenCredentials(token),
          botUserId: String(answer.bot_user_id ?? auth.user_id),
          teamId: String(auth.team_id),
          teamUrl: String(auth.url ?? 'https://slack.com/'),
          channelId,
        } satisfies SlackCredentials,
        expiresAt: token.expiresAt,
        textLimit: null,
      },
    ];
  }

  async refresh(channel: ConnectorChannel): Promise<void> {
    await this.refreshed(channel, (await channel.vault.read()).version);
  }

  async revoke(channel: ConnectorChannel): Promise<void> {
    await this.api(channel, 'auth.revoke', {}, 'read');
  }

  async publish(request: PublishRequest): Promise<PublishedPost> {
    const text = escapeText(request.text);
    const metadata = { event_type: POST_EVENT, event_payload: { key: request.postKey.id } };
    const body: Record<string, unknown> = { channel: '', text, metadata, unfurl_links: false };
    if (request.imageUrls.length > 0) {
      const altTexts = Array.isArray(request.channelOptions?.altText) ? request.channelOptions.altText : [];
      const images = [];
      for (const [index, url] of request.imageUrls.entries()) {
        const alt =
          typeof altTexts[index] === 'string' && altTexts[index] ? String(altTexts[index]) : `image ${index + 1}`;
        images.push({ type: 'image', slack_file: { id: await this.upload(request.channel, url, alt) }, alt_text: alt });
      }
      body.blocks = [...(request.text.trim() ? [{ type: 'section', text: { type: 'mrkdwn', text } }] : []), ...images];
    }
    const made = await this.api(request.channel, 'chat.postMessage', body, 'write');
    return this.published(await this.credentials(request.channel), String(made.ts));
  }

  async comment(request: CommentRequest): Promise<{ networkCommentId: string }> {
    const made = await this.api(
      request.channel,
      'chat.postMessage',
      {
        channel: '',
        text: escapeText(request.text),
        thread_ts: request.networkPostId,
        metadata: { event_type: COMMENT_EVENT, event_payload: { key: request.attemptKey } },
      },
      'write',
    );
    return { networkCommentId: String(made.ts) };
  }

  async findPublished(lookup: AttemptLookup): Promise<PublishedPost | undefined> {
    const oldest = ((lookup.attemptedAt - CLOCK_SLACK_MS) / 1000).toFixed(6);
    const page = await this.api(
      lookup.channel,
      'conversations.history',
      { channel: '', oldest, limit: 200, include_all_metadata: true },
      'read',
    );
    const match = (page.messages ?? []).find(
      (m: any) => m.metadata?.event_type === POST_EVENT && m.metadata?.event_payload?.key === lookup.postKey.id,
    );
    return match ? this.published(await this.credentials(lookup.channel), String(match.ts)) : undefined;
  }

  async findComment(lookup: CommentLookup): Promise<{ networkCommentId: string } | undefined> {
    const page = await this.api(
      lookup.channel,
      'conversations.replies',
      { channel: '', ts: lookup.networkPostId, limit: 200, include_all_metadata: true },
      'read',
    );
    const match = (page.messages ?? []).find(
      (m: any) => m.metadata?.event_type === COMMENT_EVENT && m.metadata?.event_payload?.key === lookup.attemptKey,
    );
    return match ? { networkCommentId: String(match.ts) } : undefined;
  }

  async recentPosts(
    channel: ConnectorChannel,
    page: { cursor: string | null; limit: number },
  ): Promise<RecentPostsPage> {
    const c = await this.credentials(channel);
    const limit = Math.min(200, Math.max(1, page.limit));
    const answer = await this.api(
      channel,
      'conversations.history',
      { channel: '', limit, include_all_metadata: true, ...(page.cursor ? { cursor: page.cursor } : {}) },
      'read',
    );
    const posts: NetworkPost[] = ((answer.messages ?? []) as any[])
      .filter((m) => m.user === c.botUserId && (!m.thread_ts || m.thread_ts === m.ts))
      .map((m) => ({
        ...this.published(c, String(m.ts)),
        attemptKey: null,
        text: unescapeText(String(m.text ?? '')),
        imageUrls: [],
        metrics: {
          replies: Number(m.reply_count) || 0,
          reactions: ((m.reactions ?? []) as any[]).reduce((sum, r) => sum + (Number(r.count) || 0), 0),
        },
      }));
    const next = answer.response_metadata?.next_cursor;
    return { posts, nextCursor: typeof next === 'string' && next ? next : null };
  }

  async check(channel: ConnectorChannel): Promise<ConnectionCheck> {
    const opened = await this.fresh(channel);
    const c = opened.credentials as unknown as SlackCredentials;
    const answer = await this.send(c, 'auth.test', {}, 'read');
    const auth = this.result(answer, 'read');
    const header = answer.header('x-oauth-scopes');
    const granted = header
      ? header
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : c.scopes;
    const problems: string[] = [];
    const missing = SCOPES.filter((scope) => scope !== 'incoming-webhook' && !granted.includes(scope));
    if (missing.length > 0)
      problems.push(
        `The app was not granted ${missing.join(', ')}: ` +
          'reconnect the channel and allow every permission Herald asks for.',
      );
    if (String(auth.team_id) !== c.teamId)
      problems.push(`The token belongs to another Slack workspace (${auth.team}): reconnect the channel.`);
    const history = this.parse(await this.send(c, 'conversations.history', { channel: c.channelId, limit: 1 }, 'read'));
    if (!history.ok)
      problems.push(
        `Slack refused to read the channel (${history.error}): Herald cannot confirm a post whose answer was lost.`,
      );
    return { account: `${auth.user ?? c.botUserId} in ${auth.team ?? c.teamId}`, grantedScopes: granted, problems };
  }

  private published(c: SlackCredentials, ts: string): PublishedPost {
    const base = c.teamUrl.endsWith('/') ? c.teamUrl : `${c.teamUrl}/`;
    const seconds = Number(ts);
    return {
      networkPostId: ts,
      permalinkUrl: `${base}archives/${c.channelId}/p${ts.replace('.', '')}`,
      publishedAt: Number.isFinite(seconds) ? Math.round(seconds * 1000) : this.now(),
    };
  }

  /** Uploads one image as a Slack file shared nowhere yet; the message's image block shows it. */
  private async upload(channel: ConnectorChannel, url: string, title: string): Promise<string> {
    const file = await downloadMedia(this.media, channel.accountId, url, this.media.maxBytes);
    const filename = (new URL(url).pathname.split('/').pop() || 'image').replace(/["\r\n]/g, '');
    const target = await this.api(
      channel,
      'files.getUploadURLExternal',
      { filename, length: file.bytes.length },
      'read',
    );
    let sent: NetworkAnswer;
    try {
      sent = await this.http.request(String(target.upload_url), {
        method: 'POST',
        headers: { 'content-type': file.contentType },
        body: file.bytes,
      });
    } catch (error) {
      // A file shared nowhere shows nothing: a lost answer here is retried, never reconciled.
      if (error instanceof NetworkError && error.kind === 'unknown_outcome')
        throw new NetworkError('retry_later', error.message);
      throw error;
    }
    if (sent.status !== 200)
      throw classify({ ok: false, error: `upload answered HTTP ${sent.status}` }, sent, 'read', this.now());
    await this.api(channel, 'files.completeUploadExternal', { files: [{ id: String(target.file_id), title }] }, 'read');
    return String(target.file_id);
  }

  private async credentials(channel: ConnectorChannel): Promise<SlackCredentials> {
    return (await channel.vault.read()).credentials as unknown as SlackCredentials;
  }

  /**
   * Calls a Web API method for the channel (its id filled in where the body names `channel`), refreshing a rotating
   * token ahead of its end. `read` calls make nothing a person sees: a lost answer is asked again, not reconciled.
   */
  private async api(
    channel: ConnectorChannel,
    method: string,
    body: Record<string, unknown>,
    kind: 'read' | 'write',
  ): Promise<any> {
    const opened = await this.fresh(channel);
    const c = opened.credentials as unknown as SlackCredentials;
    return this.result(await this.send(c, method, body, kind), kind);
  }

  private async send(
    c: SlackCredentials,
    method: string,
    body: Record<string, unknown>,
    kind: 'read' | 'write',
  ): Promise<NetworkAnswer> {
    const args = 'channel' in body ? { ...body, channel: c.channelId } : body;
    try {
      return await this.http.request(`${API}/${method}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${c.accessToken}` },
        form: formOf(args),
      });
    } catch (error) {
      if (kind === 'read' && error instanceof NetworkError && error.kind === 'unknown_outcome')
        throw new NetworkError('retry_later', error.message);
      throw error;
    }
  }

  /** A token Herald holds outside a channel (while connecting). */
  private async call(accessToken: string, method: string, body: Record<string, unknown>): Promise<any> {
    const answer = await this.http.request(`${API}/${method}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}` },
      form: formOf(body),
    });
    return this.result(answer, 'read');
  }

  private parse(answer: NetworkAnswer): any {
    return answer.json ?? { ok: false, error: `HTTP ${answer.status}` };
  }

  private result(answer: NetworkAnswer, kind: 'read' | 'write'): any {
    const json = this.parse(answer);
    if (answer.status === 200 && json.ok === true) return json;
    throw classify(json, answer, kind, this.now());
  }

  private async fresh(channel: ConnectorChannel): Promise<OpenedCredentials> {
    const opened = await channel.vault.read();
    if (opened.expiresAt !== null && opened.expiresAt < this.now() + REFRESH_AHEAD_MS)
      return this.refreshed(channel, opened.version);
    return opened;
  }

  private refreshed(channel: ConnectorChannel, version: number): Promise<OpenedCredentials> {
    return channel.vault.refresh(version, async (current) => {
      const c = current as unknown as SlackCredentials;
      if (!c.refreshToken)
        throw new NetworkError('reconnect_needed', "Slack's token expired and Herald holds no refresh token for it");
      const renewed = await this.oauth.refresh(c.refreshToken);
      return {
        credentials: { ...c, ...tokenCredentials(renewed), refreshToken: renewed.refreshToken ?? c.refreshToken },
        expiresAt: renewed.expiresAt,
      };
    });
  }

  private requireApp(): SlackApp {
    if (!this.app)
      throw new NetworkError(
        'permanent',
        'This Herald has no Slack app: its operator must set SLACK_CLIENT_ID and SLACK_CLIENT_SECRET',
      );
    return this.app;
  }
}

function tokenCredentials(token: TokenGrant): Pick<SlackCredentials, 'accessToken' | 'refreshToken' | 'scopes'> {
  return {
    accessToken: token.accessToken,
    scopes: token.scopes,
    ...(token.refreshToken ? { refreshToken: token.refreshToken } : {}),
  };
}

/**
 * A method's arguments as a form, which every Web API method takes (several take no JSON body): blocks, metadata
 * and files go as JSON strings, as their references say.
 */
function formOf(args: Record<string, unknown>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(args).map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]),
  );
}

/** Slack's formatting guide: &, < and > are control characters in a message's text and are sent escaped. */
function escapeText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function unescapeText(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

/** oauth.v2.access answers HTTP 200 `{ok: false, error}`; its codes read as RFC 6749's. */
function tokenRefusal(answer: NetworkAnswer): TokenRefusal {
  const error = String(answer.json?.error ?? `HTTP ${answer.status}`);
  const mapped: Record<string, string> = {
    invalid_client_id: 'invalid_client',
    bad_client_secret: 'invalid_client',
    invalid_refresh_token: 'invalid_grant',
    invalid_code: 'invalid_grant',
  };
  return { error: mapped[error] ?? error, said: error, transient: TRANSIENT.has(error) };
}

/** A server error to a write may come after Slack made the message: its outcome is unknown, settled by its key. */
function classify(json: any, answer: NetworkAnswer, kind: 'read' | 'write', now: number): NetworkError {
  const error = String(json?.error ?? `HTTP ${answer.status}`);
  const words = `Slack answered ${answer.status === 200 ? error : `HTTP ${answer.status} (${error})`}`;
  if (answer.status === 429 || error === 'ratelimited')
    return new NetworkError('retry_later', words, retryAtFrom(answer, now));
  if (answer.status >= 500 || TRANSIENT.has(error))
    return new NetworkError(kind === 'write' ? 'unknown_outcome' : 'retry_later', words);
  if (error === 'token_expired') return new NetworkError('refresh_and_retry', words);
  if (RECONNECT.has(error)) return new NetworkError('reconnect_needed', words);
  return new NetworkError('permanent', words);
}
