import crypto from 'node:crypto';
import { NETWORK_CAPABILITIES } from '../../domain/networks/capabilities.js';
import {
  NetworkError,
  type AttemptLookup,
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
import {
  downloadMedia,
  observeBudget,
  retryAtFrom,
  type NetworkAnswer,
  type NetworkHttp,
  type NetworkHttpOptions,
} from './network-http.js';

/**
 * Discord, through a bot in a server's text channel (discord/discord-api-docs developers/: resources/user,
 * resources/channel, resources/guild, resources/message, topics/permissions, topics/rate-limits,
 * topics/opcodes-and-status-codes; NETWORKS.md).
 *
 * Rules kept here:
 * - a person connects a bot they made in Discord's developer portal and invited to their server: its token and the
 *   channel's id; Herald checks the token (GET /users/@me), the channel (a text or announcement channel the bot
 *   sees) and the bot's permissions there, computed as Discord's permissions topic says (the @everyone role, the
 *   member's roles, then the channel's overwrites): View Channel, Send Messages, Attach Files, Read Message
 *   History; the channel is the Herald channel, so a new token for it reconnects it;
 * - or an incoming webhook of the channel (resources/webhook): its URL (a secret, sealed like a token), checked with
 *   Get Webhook with Token; a webhook URL given wins over a bot token. A post is Execute Webhook with wait=true, so
 *   Discord answers with the message it saved. A webhook takes no nonce, and its token reads no channel messages
 *   (Get Webhook Message needs the id the lost answer carried): a lost answer is left unconfirmed for a person,
 *   never sent again; a first comment is the next message (a webhook cannot reply), and one whose answer was lost
 *   gets no second try; live sync reads nothing; 404 10015 (the webhook deleted) and 401 need a reconnect;
 * - a post is one message: content (2,000 characters) and up to 10 files uploaded as attachments (multipart
 *   payload_json + files[n]); a first comment is a reply (message_reference) to the post;
 * - never twice: every message is sent with a nonce derived from the post (or the comment's attempt key) and
 *   enforce_nonce, so a retry within Discord's few minutes answers the first message; a lost answer is settled
 *   from the channel's recent messages by the bot with the same content made since the attempt started, and one
 *   not found is left unconfirmed;
 * - an answer whose X-RateLimit-Remaining is 0 pauses the channel until X-RateLimit-Reset; a 429 waits for its
 *   body's retry_after (Retry-After otherwise); a 5xx retries a read later and leaves a message's outcome unknown;
 *   401 (a reset token), 403 50001/50013 (access or a permission taken away), 404 10003 (the channel deleted) and
 *   404 10015 (the webhook deleted) need a reconnect; 400 50035, 40005 and the other refusals are permanent, in
 *   Discord's words;
 * - live sync reads the bot's messages in the channel (not its replies) with their reactions; Discord counts no views;
 *   the channel's audience is its server's approximate_member_count (GET /guilds/{id}?with_counts=true);
 * - a bot token cannot be revoked through the API: disconnecting revokes nothing (the developer portal resets it).
 */
const API = 'https://discord.com/api/v10';
const VIEW_CHANNEL = 1n << 10n;
const SEND_MESSAGES = 1n << 11n;
const ATTACH_FILES = 1n << 15n;
const READ_MESSAGE_HISTORY = 1n << 16n;
const ADMINISTRATOR = 1n << 3n;
const NEEDED: readonly [bigint, string][] = [
  [VIEW_CHANNEL, 'View Channel'],
  [SEND_MESSAGES, 'Send Messages'],
  [ATTACH_FILES, 'Attach Files'],
  [READ_MESSAGE_HISTORY, 'Read Message History'],
];
/** Text (0) and announcement (5) channels take messages; forums and voice channels do not. */
const MESSAGE_CHANNELS = new Set([0, 5]);
/** How far before the attempt a message found in the channel may be dated (the two clocks differ). */
const CLOCK_SLACK_MS = 60_000;
/** Discord's nonce is at most 25 characters. */
const NONCE_LENGTH = 25;

interface BotCredentials {
  botToken: string;
  botId: string;
  channelId: string;
  guildId: string;
}

interface WebhookCredentials {
  /** The webhook's execute URL under Discord's API (id and token), whatever host the person copied it from. */
  webhookUrl: string;
  webhookId: string;
  channelId: string;
  guildId: string;
}

type DiscordCredentials = BotCredentials | WebhookCredentials;

const isWebhook = (c: DiscordCredentials): c is WebhookCredentials => 'webhookUrl' in c;

export class DiscordNetwork implements NetworkConnector {
  readonly capabilities = NETWORK_CAPABILITIES.discord;
  readonly connection: ConnectionMethod = {
    kind: 'credentials',
    fields: [
      {
        name: 'botToken',
        required: false,
        secret: true,
        description:
          "The bot's token (Developer Portal, your application, Bot, Reset Token); invite the bot to the server first",
      },
      {
        name: 'channelId',
        required: false,
        secret: false,
        description: "The channel's id (with Developer Mode on: right-click the channel, Copy Channel ID)",
      },
      {
        name: 'webhookUrl',
        required: false,
        secret: true,
        description:
          "Or, instead of a bot, the channel's webhook address (channel settings, Integrations, Webhooks, " +
          'Copy Webhook URL): simpler, but a post whose answer is lost is left for you to check',
      },
    ],
  };

  constructor(
    private readonly http: NetworkHttp,
    private readonly media: NetworkHttpOptions,
    private readonly now: () => number,
  ) {}

  configured(): boolean {
    return true;
  }

  async signIn(fields: Record<string, string>): Promise<ConnectedAccount> {
    if (fields.webhookUrl) return this.signInWebhook(fields.webhookUrl);
    const botToken = (fields.botToken ?? '').trim();
    const channelId = (fields.channelId ?? '').trim();
    if (!botToken || !channelId)
      throw new NetworkError(
        'permanent',
        "give the bot's token and the channel's id, or the channel's webhook address instead of a bot",
      );
    if (!/^\d{1,20}$/.test(channelId))
      throw new NetworkError(
        'permanent',
        `"${channelId}" is not a Discord channel id: copy it with Developer Mode on (a number)`,
      );
    const refused = (error: unknown) => {
      if (error instanceof NetworkError && error.kind === 'reconnect_needed') {
        return new NetworkError(
          'permanent',
          `${error.message}: check the bot token, and that the bot was invited to the channel's server`,
        );
      }
      return error;
    };
    const found = await this.place(botToken, channelId).catch((error) => {
      throw refused(error);
    });
    const missing = missingPermissions(found.permissions);
    if (missing.length > 0)
      throw new NetworkError(
        'permanent',
        `Discord: ${found.bot.username} lacks ${missing.join(', ')} in #${found.channel.name}; grant them to its role`,
      );
    return {
      networkAccountId: channelId,
      handle: `#${found.channel.name}`,
      displayName: `#${found.channel.name} (${found.guild.name})`,
      avatarUrl: found.guild.icon ? `https://cdn.discordapp.com/icons/${found.guild.id}/${found.guild.icon}.png` : null,
      credentials: { botToken, botId: String(found.bot.id), channelId, guildId: String(found.guild.id) },
      expiresAt: null,
      textLimit: null,
    };
  }

  /** A webhook's own channel is the Herald channel, so the same channel connected with a bot is that channel too. */
  private async signInWebhook(raw: string): Promise<ConnectedAccount> {
    const webhookUrl = webhookAddress(raw);
    const answer = await this.http.request(webhookUrl);
    if (answer.status !== 200) {
      const error = classify(answer, this.now());
      if (error.kind !== 'reconnect_needed') throw error;
      throw new NetworkError('permanent', `${error.message}: check the webhook address, copied again from the channel`);
    }
    const hook = answer.json;
    if (Number(hook?.type) !== 1 || !hook.channel_id || !hook.guild_id) {
      throw new NetworkError('permanent', "Discord: that is not a server channel's incoming webhook; make one there");
    }
    return {
      networkAccountId: String(hook.channel_id),
      handle: `webhook ${hook.name}`,
      displayName: `${hook.name} (webhook)`,
      avatarUrl: hook.avatar ? `https://cdn.discordapp.com/avatars/${hook.id}/${hook.avatar}.png` : null,
      credentials: {
        webhookUrl,
        webhookId: String(hook.id),
        channelId: String(hook.channel_id),
        guildId: String(hook.guild_id),
      },
      expiresAt: null,
      textLimit: null,
    };
  }

  async fieldsFor(channel: ConnectorChannel): Promise<Record<string, string>> {
    return { channelId: (await this.credentials(channel)).channelId };
  }

  async publish(request: PublishRequest): Promise<PublishedPost> {
    const c = await this.credentials(request.channel);
    const urls = [...request.imageUrls, ...request.videoUrls];
    const files = [];
    for (const url of urls) {
      const kind = request.imageUrls.includes(url) ? 'image' : 'video';
      const maxBytes = Math.min(this.capabilities.media.kinds[kind]!.maxBytes!, this.media.maxBytes);
      files.push({ url, ...(await downloadMedia(this.media, request.channel.accountId, url, maxBytes)) });
    }
    const message = await this.send(
      request.channel,
      c,
      { content: request.text, nonce: nonceFor(request.postKey.id) },
      files,
    );
    return this.published(c, message);
  }

  async comment(request: CommentRequest): Promise<{ networkCommentId: string }> {
    const c = await this.credentials(request.channel);
    const reply = { message_reference: { message_id: request.networkPostId, fail_if_not_exists: true } };
    const message = await this.send(
      request.channel,
      c,
      { content: request.text, nonce: nonceFor(request.attemptKey), ...(isWebhook(c) ? {} : reply) },
      [],
    );
    return { networkCommentId: String(message.id) };
  }

  async findPublished(lookup: AttemptLookup): Promise<PublishedPost | undefined> {
    const c = await this.credentials(lookup.channel);
    if (isWebhook(c)) return undefined;
    const messages = await this.messages(lookup.channel, c, new URLSearchParams({ limit: '50' }));
    const match = messages.find(
      (m) =>
        String(m.author?.id) === c.botId &&
        !m.message_reference &&
        m.content === lookup.text &&
        Date.parse(m.timestamp) >= lookup.attemptedAt - CLOCK_SLACK_MS,
    );
    return match ? this.published(c, match) : undefined;
  }

  async findComment(lookup: CommentLookup): Promise<{ networkCommentId: string } | undefined> {
    const c = await this.credentials(lookup.channel);
    if (isWebhook(c)) {
      throw new NetworkError(
        'permanent',
        'An earlier try at the first comment may have reached Discord, and a webhook cannot read the channel; it ' +
          'was not tried again, so it is never made twice: check the channel.',
      );
    }
    const messages = await this.messages(
      lookup.channel,
      c,
      new URLSearchParams({ limit: '100', after: lookup.networkPostId }),
    );
    const match = messages.find(
      (m) =>
        String(m.author?.id) === c.botId &&
        m.message_reference?.message_id === lookup.networkPostId &&
        m.content === lookup.text,
    );
    return match ? { networkCommentId: String(match.id) } : undefined;
  }

  async recentPosts(
    channel: ConnectorChannel,
    page: { cursor: string | null; limit: number },
  ): Promise<RecentPostsPage> {
    const c = await this.credentials(channel);
    if (isWebhook(c)) return { posts: [], nextCursor: null };
    const limit = Math.min(100, Math.max(1, page.limit));
    const messages = await this.messages(
      channel,
      c,
      new URLSearchParams({ limit: String(limit), ...(page.cursor ? { before: page.cursor } : {}) }),
    );
    const posts: NetworkPost[] = messages
      .filter((m) => String(m.author?.id) === c.botId && !m.message_reference)
      .map((m) => ({
        ...this.published(c, m),
        attemptKey: null,
        text: String(m.content ?? ''),
        imageUrls: (m.attachments ?? [])
          .filter((a: any) => String(a.content_type ?? '').startsWith('image/'))
          .map((a: any) => String(a.url)),
        metrics: { reactions: (m.reactions ?? []).reduce((sum: number, r: any) => sum + (Number(r.count) || 0), 0) },
      }));
    return { posts, nextCursor: messages.length === limit ? String(messages[messages.length - 1].id) : null };
  }

  async audience(channel: ConnectorChannel): Promise<number | null> {
    const c = await this.credentials(channel);
    // Only a bot may read its server; a channel posting otherwise (a webhook) has no audience to read.
    if (isWebhook(c) || !c.guildId) return null;
    return Number((await this.get(c.botToken, `/guilds/${c.guildId}?with_counts=true`)).approximate_member_count);
  }

  async check(channel: ConnectorChannel): Promise<ConnectionCheck> {
    const c = await this.credentials(channel);
    if (isWebhook(c)) {
      const answer = await this.http.request(c.webhookUrl);
      if (answer.status !== 200) throw classify(answer, this.now());
      return {
        account: `the webhook ${answer.json.name} of channel ${c.channelId}`,
        grantedScopes: null,
        problems: [],
      };
    }
    const found = await this.place(c.botToken, c.channelId);
    const missing = missingPermissions(found.permissions);
    const granted = NEEDED.filter(([bit]) => (found.permissions & bit) === bit).map(([, name]) => name);
    return {
      account: `${found.bot.username} in #${found.channel.name} (${found.guild.name})`,
      grantedScopes: granted,
      problems:
        missing.length > 0
          ? [
              `The bot lacks ${missing.join(', ')} in #${found.channel.name}: ` +
                "grant them to its role in the server's settings.",
            ]
          : [],
    };
  }

  private async credentials(channel: ConnectorChannel): Promise<DiscordCredentials> {
    return (await channel.vault.read()).credentials as unknown as DiscordCredentials;
  }

  private published(c: DiscordCredentials, message: any): PublishedPost {
    const at = Date.parse(message.timestamp);
    return {
      networkPostId: String(message.id),
      permalinkUrl: `https://discord.com/channels/${c.guildId}/${c.channelId}/${message.id}`,
      publishedAt: Number.isNaN(at) ? this.now() : at,
    };
  }

  /** The bot, the channel, its server and the bot's permissions in the channel. */
  private async place(botToken: string, channelId: string) {
    const bot = await this.get(botToken, '/users/@me');
    const channel = await this.get(botToken, `/channels/${channelId}`);
    if (!MESSAGE_CHANNELS.has(Number(channel.type)) || !channel.guild_id) {
      throw new NetworkError(
        'permanent',
        `Discord: channel ${channelId} is not a server's text or announcement channel; choose one of those`,
      );
    }
    const guild = await this.get(botToken, `/guilds/${channel.guild_id}`);
    const roles = await this.get(botToken, `/guilds/${channel.guild_id}/roles`);
    const member = await this.get(botToken, `/guilds/${channel.guild_id}/members/${bot.id}`);
    return { bot, channel, guild, permissions: channelPermissions(guild, roles, member, channel) };
  }

  private async get(botToken: string, path: string): Promise<any> {
    const answer = await this.http.request(`${API}${path}`, { headers: { authorization: `Bot ${botToken}` } });
    if (answer.status !== 200) throw classify(answer, this.now());
    return answer.json;
  }

  private async messages(channel: ConnectorChannel, c: BotCredentials, query: URLSearchParams): Promise<any[]> {
    const answer = await this.http.request(`${API}/channels/${c.channelId}/messages?${query}`, {
      headers: { authorization: `Bot ${c.botToken}` },
    });
    await observeBudget(channel, answer, this.now());
    if (answer.status !== 200) throw classify(answer, this.now());
    return Array.isArray(answer.json) ? answer.json : [];
  }

  /**
   * Creates a message under its nonce, with enforce_nonce: a repeat within Discord's window answers the first. A
   * webhook takes no nonce: it executes with wait=true, so the answer is the message Discord saved.
   */
  private async send(
    channel: ConnectorChannel,
    c: DiscordCredentials,
    { nonce, ...payload }: Record<string, unknown>,
    files: { url: string; bytes: Buffer; contentType: string }[],
  ): Promise<any> {
    const body = {
      ...payload,
      ...(isWebhook(c) ? {} : { nonce, enforce_nonce: true }),
      ...(files.length > 0 ? { attachments: files.map((f, id) => ({ id, filename: fileName(f.url, id) })) } : {}),
    };
    const headers: Record<string, string> = isWebhook(c) ? {} : { authorization: `Bot ${c.botToken}` };
    const url = isWebhook(c) ? `${c.webhookUrl}?wait=true` : `${API}/channels/${c.channelId}/messages`;
    let answer: NetworkAnswer;
    if (files.length === 0) {
      answer = await this.http.request(url, { method: 'POST', headers, json: body });
    } else {
      const boundary = `herald-${crypto.randomBytes(12).toString('hex')}`;
      const parts: Buffer[] = [
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="payload_json"\r\n` +
            `Content-Type: application/json\r\n\r\n${JSON.stringify(body)}\r\n`,
        ),
      ];
      files.forEach((file, id) => {
        parts.push(
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="files[${id}]"; ` +
              `filename="${fileName(file.url, id)}"\r\nContent-Type: ${file.contentType}\r\n\r\n`,
          ),
        );
        parts.push(file.bytes, Buffer.from('\r\n'));
      });
      parts.push(Buffer.from(`--${boundary}--\r\n`));
      answer = await this.http.request(url, {
        method: 'POST',
        headers: { ...headers, 'content-type': `multipart/form-data; boundary=${boundary}` },
        body: Buffer.concat(parts),
      });
    }
    await observeBudget(channel, answer, this.now());
    if (answer.status !== 200) throw classify(answer, this.now(), 'write');
    return answer.json;
  }
}

/**
 * The webhook's execute URL under Discord's API, from the address a person copied (discord.com, discordapp.com,
 * the ptb. and canary. clients, with or without an API version): only its id and token are taken from it.
 */
function webhookAddress(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    url = new URL('about:blank');
  }
  const host = /^(?:(?:ptb|canary)\.)?discord(?:app)?\.com$/.test(url.hostname);
  const path = /^\/api(?:\/v\d+)?\/webhooks\/(\d{1,20})\/([A-Za-z0-9_-]{1,100})\/?$/.exec(url.pathname);
  if (url.protocol !== 'https:' || !host || !path) {
    throw new NetworkError(
      'permanent',
      'that is not a Discord webhook address: copy it from the channel (https://discord.com/api/webhooks/...)',
    );
  }
  return `${API}/webhooks/${path[1]}/${path[2]}`;
}

/** A nonce Discord takes (at most 25 characters) that is the same for every try of one post or comment. */
function nonceFor(key: string): string {
  return crypto.createHash('sha256').update(`herald:${key}`).digest('base64url').slice(0, NONCE_LENGTH);
}

function fileName(url: string, index: number): string {
  const name = new URL(url).pathname.split('/').pop() || `file${index}`;
  return name.replace(/["\r\n\\]/g, '');
}

function missingPermissions(permissions: bigint): string[] {
  return NEEDED.filter(([bit]) => (permissions & bit) !== bit).map(([, name]) => name);
}

/**
 * The member's permissions in the channel, as the permissions topic computes them: the @everyone role (its id is the
 * server's) and the member's roles, everything for the owner or an administrator; then the channel's overwrites for
 * @everyone, for the member's roles together, and for the member.
 */
export function channelPermissions(guild: any, roles: any[], member: any, channel: any): bigint {
  const userId = String(member.user?.id ?? '');
  if (String(guild.owner_id) === userId) return ~0n;
  const memberRoles = new Set<string>((member.roles ?? []).map(String));
  const bits = (value: unknown) => BigInt(String(value ?? '0'));
  let permissions = 0n;
  for (const role of roles) {
    if (String(role.id) === String(guild.id) || memberRoles.has(String(role.id))) permissions |= bits(role.permissions);
  }
  if ((permissions & ADMINISTRATOR) === ADMINISTRATOR) return ~0n;
  const overwrites: any[] = channel.permission_overwrites ?? [];
  const everyone = overwrites.find((o) => String(o.id) === String(guild.id));
  if (everyone) permissions = (permissions & ~bits(everyone.deny)) | bits(everyone.allow);
  let allow = 0n;
  let deny = 0n;
  for (const o of overwrites) {
    if (Number(o.type) === 0 && memberRoles.has(String(o.id))) {
      allow |= bits(o.allow);
      deny |= bits(o.deny);
    }
  }
  permissions = (permissions & ~deny) | allow;
  const own = overwrites.find((o) => Number(o.type) === 1 && String(o.id) === userId);
  if (own) permissions = (permissions & ~bits(own.deny)) | bits(own.allow);
  return permissions;
}

/**
 * A server error to a message may come after Discord made it, and a retry may come after the nonce is forgotten:
 * its outcome is unknown, settled from the channel's messages.
 */
function classify(answer: NetworkAnswer, now: number, call: 'read' | 'write' = 'read'): NetworkError {
  const code = Number(answer.json?.code ?? 0);
  const said = typeof answer.json?.message === 'string' ? answer.json.message : `HTTP ${answer.status}`;
  const detail = answer.json?.errors ? ` ${JSON.stringify(answer.json.errors).slice(0, 300)}` : '';
  const words = `Discord answered HTTP ${answer.status}${code ? ` (code ${code})` : ''}: ${said}${detail}`;
  if (answer.status === 429) {
    const seconds = Number(answer.json?.retry_after);
    return new NetworkError(
      'retry_later',
      words,
      Number.isFinite(seconds) ? now + Math.ceil(seconds * 1000) : retryAtFrom(answer, now),
    );
  }
  if (answer.status >= 500) return new NetworkError(call === 'write' ? 'unknown_outcome' : 'retry_later', words);
  if (
    answer.status === 401 ||
    (answer.status === 403 && (code === 50001 || code === 50013)) ||
    (answer.status === 404 && (code === 10003 || code === 10015))
  ) {
    return new NetworkError('reconnect_needed', words);
  }
  return new NetworkError('permanent', words);
}
