import crypto from 'node:crypto';
import { NETWORK_CAPABILITIES } from '../../domain/networks/capabilities.js';
import {
  NetworkError,
  type CommentRequest,
  type ConnectedAccount,
  type ConnectionCheck,
  type ConnectionMethod,
  type ConnectorChannel,
  type NetworkConnector,
  type PublishRequest,
  type PublishedPost,
  type RecentPostsPage,
} from '../../domain/networks/connector.js';
import { downloadMedia, type NetworkAnswer, type NetworkHttp, type NetworkHttpOptions } from './network-http.js';

/**
 * Telegram, through the Bot API ([TG] core.telegram.org/bots/api and its Bot FAQ; NETWORKS.md).
 *
 * Rules kept here:
 * - a person connects a bot they made with @BotFather and made an administrator of their channel (or a member of
 *   their group): its token and the chat (`@channel` or its numeric id); Herald checks the token (getMe), the chat
 *   (getChat) and that the bot may post there (getChatMember: a channel's administrator with can_post_messages);
 *   the channel is the chat, so a new token for the same chat reconnects it;
 * - the text is sent as it was written (no parse_mode: nothing needs escaping); media are uploaded with the
 *   caption: one photo (sendPhoto), one video (sendVideo), or an album of 2 to 10 (sendMediaGroup, the caption on
 *   the first); the album's first message is the post;
 * - a first comment is a reply (reply_parameters) to the post's message;
 * - every answer is `{ok, result}` or `{ok: false, error_code, description, parameters}`: 429 waits for
 *   `parameters.retry_after` seconds (the whole bot stalls, so the channel pauses); 401 (a revoked token) and 403
 *   (the bot removed or no longer an administrator) need a reconnect; other 4xx are permanent with Telegram's
 *   description; 5xx retries a read later, while a send answered 5xx may have made its message, so its outcome
 *   is unknown;
 * - Telegram keeps no idempotency key and a bot cannot read a chat's history: an attempt whose answer was lost
 *   cannot be looked up, so it is left unconfirmed for a person, and a lost first comment gets no second try;
 * - a bot cannot read messages or their view counts either: live sync finds nothing but the chat's member count
 *   (getChatMemberCount), the channel's audience; disconnecting revokes nothing (only @BotFather revokes a token).
 */
const API = 'https://api.telegram.org';

interface TelegramCredentials {
  botToken: string;
  chatId: string;
  /** The chat's public username, for links; private chats have none. */
  username: string | null;
}

export class TelegramNetwork implements NetworkConnector {
  readonly capabilities = NETWORK_CAPABILITIES.telegram;
  readonly connection: ConnectionMethod = {
    kind: 'credentials',
    fields: [
      {
        name: 'botToken',
        required: true,
        secret: true,
        description:
          "The bot's token from @BotFather (123456:ABC...); make the bot an administrator of the channel first",
      },
      {
        name: 'chat',
        required: true,
        secret: false,
        description: 'The channel or group: @username, or its numeric id (-100...)',
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
    const chatRef = fields.chat.trim();
    const bot = await this.call(botToken, 'getMe', undefined, 'refused');
    const chat = await this.call(botToken, 'getChat', { chat_id: chatRef }, 'refused');
    const member = await this.call(botToken, 'getChatMember', { chat_id: chat.id, user_id: bot.id }, 'refused');
    const refusal = postingRefusal(chat, member);
    if (refusal) throw new NetworkError('permanent', `Telegram: @${bot.username} ${refusal}`);
    const username = typeof chat.username === 'string' ? chat.username : null;
    return {
      networkAccountId: String(chat.id),
      handle: username ? `@${username}` : String(chat.id),
      displayName: chat.title ?? username ?? null,
      avatarUrl: null,
      credentials: { botToken, chatId: String(chat.id), username },
      expiresAt: null,
      textLimit: null,
    };
  }

  async fieldsFor(channel: ConnectorChannel): Promise<Record<string, string>> {
    return { chat: (await this.credentials(channel)).chatId };
  }

  async publish(request: PublishRequest): Promise<PublishedPost> {
    const c = await this.credentials(request.channel);
    const silent = request.channelOptions?.silent === true ? { disable_notification: true } : {};
    const files = [
      ...request.imageUrls.map((url) => ({ url, type: 'photo' as const })),
      ...request.videoUrls.map((url) => ({ url, type: 'video' as const })),
    ];
    if (files.length === 0) {
      const message = await this.call(c.botToken, 'sendMessage', { chat_id: c.chatId, text: request.text, ...silent });
      return this.published(c, message);
    }
    const caption = request.text ? { caption: request.text } : {};
    const parts: Part[] = [];
    for (const [index, file] of files.entries()) {
      const maxBytes = this.capabilities.media.kinds[file.type === 'photo' ? 'image' : 'video']!.maxBytes!;
      const bytes = await downloadMedia(
        this.media,
        request.channel.accountId,
        file.url,
        Math.min(maxBytes, this.media.maxBytes),
      );
      parts.push({
        name: `file${index}`,
        filename: new URL(file.url).pathname.split('/').pop() || `file${index}`,
        contentType: bytes.contentType,
        bytes: bytes.bytes,
      });
    }
    if (files.length === 1) {
      const [file] = files;
      const fields = { chat_id: c.chatId, ...caption, ...silent };
      const message = await this.upload(c.botToken, file.type === 'photo' ? 'sendPhoto' : 'sendVideo', fields, {
        ...parts[0],
        name: file.type,
      });
      return this.published(c, message);
    }
    const album = files.map((file, index) => ({
      type: file.type,
      media: `attach://file${index}`,
      ...(index === 0 ? caption : {}),
    }));
    const messages = await this.upload(
      c.botToken,
      'sendMediaGroup',
      { chat_id: c.chatId, media: JSON.stringify(album), ...silent },
      ...parts,
    );
    return this.published(c, messages[0]);
  }

  async comment(request: CommentRequest): Promise<{ networkCommentId: string }> {
    const c = await this.credentials(request.channel);
    const message = await this.call(c.botToken, 'sendMessage', {
      chat_id: c.chatId,
      text: request.text,
      reply_parameters: { message_id: Number(request.networkPostId) },
    });
    return { networkCommentId: String(message.message_id) };
  }

  /** A bot cannot read a chat's history: what a lost answer made cannot be known, so nothing is ever found. */
  async findPublished(): Promise<undefined> {
    return undefined;
  }

  /** The Bot API lists no messages and counts no views for a bot. */
  async recentPosts(): Promise<RecentPostsPage> {
    return { posts: [], nextCursor: null };
  }

  async audience(channel: ConnectorChannel): Promise<number> {
    const c = await this.credentials(channel);
    return Number(await this.call(c.botToken, 'getChatMemberCount', { chat_id: c.chatId }));
  }

  async check(channel: ConnectorChannel): Promise<ConnectionCheck> {
    const c = await this.credentials(channel);
    const bot = await this.call(c.botToken, 'getMe');
    const chat = await this.call(c.botToken, 'getChat', { chat_id: c.chatId });
    const member = await this.call(c.botToken, 'getChatMember', { chat_id: c.chatId, user_id: bot.id });
    const refusal = postingRefusal(chat, member);
    const permissions = member.status === 'administrator' && member.can_post_messages ? ['can_post_messages'] : [];
    return {
      account: `@${bot.username} in ${chat.title ?? chat.username ?? chat.id}`,
      grantedScopes: chat.type === 'channel' ? permissions : null,
      problems: refusal ? [`@${bot.username} ${refusal}.`] : [],
    };
  }

  private async credentials(channel: ConnectorChannel): Promise<TelegramCredentials> {
    return (await channel.vault.read()).credentials as unknown as TelegramCredentials;
  }

  private published(c: TelegramCredentials, message: any): PublishedPost {
    const id = String(message.message_id);
    const link = c.username
      ? `https://t.me/${c.username}/${id}`
      : `https://t.me/c/${c.chatId.replace(/^-100/, '')}/${id}`;
    return {
      networkPostId: id,
      permalinkUrl: link,
      publishedAt: Number.isInteger(message.date) ? message.date * 1000 : this.now(),
    };
  }

  /**
   * Calls a Bot API method: reads by GET (a failure to reach Telegram then makes nothing), writes by POST with JSON.
   * `refused` is how a connect reads 401 and 403: the person's token or chat is wrong, nothing to reconnect yet.
   */
  private async call(
    botToken: string,
    method: string,
    params?: Record<string, unknown>,
    refused?: 'refused',
  ): Promise<any> {
    const reading = method.startsWith('get');
    const url = `${API}/bot${botToken}/${method}`;
    const query =
      reading && params ? `?${new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)]))}` : '';
    const answer = await this.http.request(url + query, reading ? {} : { method: 'POST', json: params ?? {} });
    return this.result(answer, reading ? 'read' : 'sent', refused);
  }

  private async upload(
    botToken: string,
    method: string,
    fields: Record<string, unknown>,
    ...files: Part[]
  ): Promise<any> {
    const boundary = `herald-${crypto.randomBytes(12).toString('hex')}`;
    const chunks: Buffer[] = [];
    for (const [name, value] of Object.entries(fields)) {
      chunks.push(
        Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${String(value)}\r\n`),
      );
    }
    for (const file of files) {
      const filename = file.filename.replace(/["\r\n]/g, '');
      chunks.push(
        Buffer.from(
          `--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${filename}"\r\n` +
            `Content-Type: ${file.contentType}\r\n\r\n`,
        ),
      );
      chunks.push(file.bytes, Buffer.from('\r\n'));
    }
    chunks.push(Buffer.from(`--${boundary}--\r\n`));
    const answer = await this.http.request(`${API}/bot${botToken}/${method}`, {
      method: 'POST',
      headers: { 'content-type': `multipart/form-data; boundary=${boundary}` },
      body: Buffer.concat(chunks),
    });
    return this.result(answer, 'sent');
  }

  private result(answer: NetworkAnswer, call: 'read' | 'sent', refused?: 'refused'): any {
    if (answer.json?.ok === true) return answer.json.result;
    const error = classify(answer, call, this.now());
    if (refused && error.kind === 'reconnect_needed') {
      throw new NetworkError(
        'permanent',
        `${error.message}: check the bot token, and that the bot was added to the chat`,
      );
    }
    throw error;
  }
}

interface Part {
  name: string;
  filename: string;
  contentType: string;
  bytes: Buffer;
}

/** Why the bot cannot post in the chat, in words, or undefined when it can. */
function postingRefusal(chat: any, member: any): string | undefined {
  if (chat.type === 'channel') {
    if (member.status === 'creator') return undefined;
    if (member.status !== 'administrator')
      return 'is not an administrator of the channel; add it as one with "Post messages"';
    if (member.can_post_messages !== true) return 'may not post in the channel; give it the "Post messages" right';
    return undefined;
  }
  if (member.status === 'left' || member.status === 'kicked') return 'is not a member of the chat; add it first';
  if (member.status === 'restricted' && member.can_send_messages === false) return 'may not send messages in the chat';
  return undefined;
}

/** A server error to a send may come after the message was made: with no key to find it by, its outcome is unknown. */
function classify(answer: NetworkAnswer, call: 'read' | 'sent', now: number): NetworkError {
  const code = Number(answer.json?.error_code ?? answer.status);
  const description = typeof answer.json?.description === 'string' ? answer.json.description : `HTTP ${answer.status}`;
  const words = `Telegram answered ${code}: ${description}`;
  if (code === 429) {
    const seconds = Number(answer.json?.parameters?.retry_after);
    return new NetworkError('retry_later', words, Number.isFinite(seconds) ? now + seconds * 1000 : undefined);
  }
  if (code >= 500 || answer.status >= 500)
    return new NetworkError(call === 'sent' ? 'unknown_outcome' : 'retry_later', words);
  if (code === 401 || code === 403) return new NetworkError('reconnect_needed', words);
  return new NetworkError('permanent', words);
}
