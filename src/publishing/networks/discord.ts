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
 *   History; the channel is the Herald channel, so a new token for it reconnects it. Webhooks (the other way
 *   NETWORKS.md lists) are not used: they take no nonce, so a lost answer could not be kept from making a second
 *   message;
 * - a post is one message: content (2,000 characters) and up to 10 files uploaded as attachments (multipart
 *   payload_json + files[n]); a first comment is a reply (message_reference) to the post;
 * - never twice: every message is sent with a nonce derived from the post (or the comment's attempt key) and
 *   enforce_nonce, so a retry within Discord's few minutes answers the first message; a lost answer is settled
 *   from the channel's recent messages by the bot with the same content made since the attempt started, and one
 *   not found is left unconfirmed;
 * - an answer whose X-RateLimit-Remaining is 0 pauses the channel until X-RateLimit-Reset; a 429 waits for its
 *   body's retry_after (Retry-After otherwise); a 5xx retries a read later and leaves a message's outcome unknown;
 *   401 (a reset token), 403 50001/50013 (access or a permission taken away) and 404 10003 (the channel deleted)
 *   need a reconnect; 400 50035, 40005 and the other refusals are permanent, in Discord's words;
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

interface DiscordCredentials {
  botToken: string;
  botId: string;
  channelId: string;
  guildId: string;
}

export class DiscordNetwork implements NetworkConnector {
  readonly capabilities = NETWORK_CAPABILITIES.discord;
  readonly connection: ConnectionMethod = {
    kind: 'credentials',
    fields: [
      {
        name: 'botToken',
        required: true,
        secret: true,
        description:
          "The bot's token (Developer Portal, your application, Bot, Reset Token); invite the bot to the server first",
      },
      {
        name: 'channelId',
        required: true,
        secret: false,
        description: "The channel's id (with Developer Mode on: right-click the channel, Copy Channel ID)",
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
    const botToken = fields.botToken.trim();
    const channelId = fields.channelId.trim();
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
    const message = await this.send(
      request.channel,
      c,
      {
        content: request.text,
        nonce: nonceFor(request.attemptKey),
        message_reference: { message_id: request.networkPostId, fail_if_not_exists: true },
      },
      [],
    );
    return { networkCommentId: String(message.id) };
  }

  async findPublished(lookup: AttemptLookup): Promise<PublishedPost | undefined> {
    const c = await this.credentials(lookup.channel);
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
    if (!c.botToken || !c.guildId) return null;
    return Number((await this.get(c.botToken, `/guilds/${c.guildId}?with_counts=true`)).approximate_member_count);
  }

  async check(channel: ConnectorChannel): Promise<ConnectionCheck> {
    const c = await this.credentials(channel);
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

  private async messages(channel: ConnectorChannel, c: DiscordCredentials, query: URLSearchParams): Promise<any[]> {
    const answer = await this.http.request(`${API}/channels/${c.channelId}/messages?${query}`, {
      headers: { authorization: `Bot ${c.botToken}` },
    });
    await observeBudget(channel, answer, this.now());
    if (answer.status !== 200) throw classify(answer, this.now());
    return Array.isArray(answer.json) ? answer.json : [];
  }

  /** Creates a message under its nonce, with enforce_nonce: a repeat within Discord's window answers the first. */
  private async send(
    channel: ConnectorChannel,
    c: DiscordCredentials,
    payload: Record<string, unknown>,
    files: { url: string; bytes: Buffer; contentType: string }[],
  ): Promise<any> {
    const body = {
      ...payload,
      enforce_nonce: true,
      ...(files.length > 0 ? { attachments: files.map((f, id) => ({ id, filename: fileName(f.url, id) })) } : {}),
    };
    const headers = { authorization: `Bot ${c.botToken}` };
    const url = `${API}/channels/${c.channelId}/messages`;
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
    (answer.status === 404 && code === 10003)
  ) {
    return new NetworkError('reconnect_needed', words);
  }
  return new NetworkError('permanent', words);
}
