import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Telegram's Bot API as core.telegram.org/bots/api and its Bot FAQ describe it, on loopback (NETWORKS.md, Seven
 * more networks): `/bot<token>/<method>` by GET (query) or POST (JSON, a form, or multipart/form-data with files
 * attached by name), every answer `{ok: true, result}` or `{ok: false, error_code, description, parameters}`.
 * It knows nothing of Herald: a wrong token is 401 Unauthorized, a chat the bot is not in 400 "chat not found", a
 * bot that may not post 403, text past 4,096 or a caption past 1,024 characters 400, an album outside 2-10 items
 * 400; a flood of calls is 429 with `parameters.retry_after`. It keeps what was sent so tests can look.
 */
export const API_ORIGIN = 'https://api.telegram.org';

export interface FakeMessage {
  message_id: number;
  date: number;
  chat: { id: number; type: string; title: string; username?: string };
  text?: string;
  caption?: string;
  photo?: { file_id: string; file_size: number }[];
  video?: { file_id: string; file_size: number; mime_type: string };
  media_group_id?: string;
  reply_to_message?: FakeMessage;
  /** Not Telegram's: what the file bytes were, for assertions. */
  bytes?: number;
  disable_notification?: boolean;
}

export interface FakeChat {
  id: number;
  type: 'channel' | 'supergroup' | 'group';
  title: string;
  username?: string;
  /** What each bot (by its user id) is in the chat: a ChatMember's status and rights. */
  members: Map<number, { status: string; can_post_messages?: boolean }>;
  /** What getChatMemberCount answers: everyone in the chat, subscribers of a channel included. */
  memberCount: number;
}

export interface FakeTelegram {
  url: string;
  /** The bot people make in @BotFather: its token and its user. */
  bot: { token: string; id: number; username: string };
  chat: FakeChat;
  messages: FakeMessage[];
  /** Every request, as "METHOD /method" (the token left out). */
  requests: string[];
  /** The next call of this method gets this error. */
  failNext(method: string, code: number, description: string, parameters?: Record<string, unknown>): void;
  /** The next call of this method is carried out, then the connection drops before the answer. */
  dropAnswerNext(method: string): void;
  /** The bot sent too many messages: every call fails with 429 and retry_after until this many seconds passed. */
  flood(seconds: number): void;
  /** @BotFather's /revoke: the old token answers 401, a new one works. */
  revokeToken(): string;
  close(): Promise<void>;
}

const TEXT_LIMIT = 4096;
const CAPTION_LIMIT = 1024;

export async function startFakeTelegram(): Promise<FakeTelegram> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const bot = {
    token: '7012345678:AAHfakeTokenForHerald_abcdefghijklmnop',
    id: 7012345678,
    username: 'herald_test_bot',
  };
  const chat: FakeChat = {
    id: -1001234567890,
    type: 'channel',
    title: 'Acme News',
    username: 'acmenews',
    members: new Map([[bot.id, { status: 'administrator', can_post_messages: true }]]),
    memberCount: 2,
  };
  const messages: FakeMessage[] = [];
  const requests: string[] = [];
  const scripted = new Map<string, { code: number; description: string; parameters?: Record<string, unknown> }>();
  const dropped = new Set<string>();
  let floodUntil = 0;
  let nextId = 100;
  let nextFile = 1;

  const fake: FakeTelegram = {
    url,
    bot,
    chat,
    messages,
    requests,
    failNext(method, code, description, parameters) {
      scripted.set(method, { code, description, parameters });
    },
    dropAnswerNext(method) {
      dropped.add(method);
    },
    flood(seconds) {
      floodUntil = Date.now() + seconds * 1000;
    },
    revokeToken() {
      bot.token = `${bot.id}:AAHrevoked${Math.random().toString(36).slice(2)}`;
      return bot.token;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const target = new URL(req.url ?? '/', url);
      const found = /^\/bot([^/]+)\/([A-Za-z]+)$/.exec(target.pathname);
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      };
      const fail = (code: number, description: string, parameters?: Record<string, unknown>) =>
        reply(code, { ok: false, error_code: code, description, ...(parameters ? { parameters } : {}) });
      if (!found) return fail(404, 'Not Found');
      const [, token, method] = found;
      requests.push(`${req.method} /${method}`);
      if (token !== bot.token) return fail(401, 'Unauthorized');
      const { params, files } = parseParams(target, req.headers['content-type'] ?? '', Buffer.concat(chunks));
      const script = scripted.get(method);
      if (script) {
        scripted.delete(method);
        return fail(script.code, script.description, script.parameters);
      }
      if (Date.now() < floodUntil) {
        const seconds = Math.ceil((floodUntil - Date.now()) / 1000);
        return fail(429, `Too Many Requests: retry after ${seconds}`, { retry_after: seconds });
      }
      const ok = (result: unknown) => {
        if (dropped.delete(method)) return req.socket.destroy();
        reply(200, { ok: true, result });
      };
      const answer = handle(method, params, files);
      if ('error' in answer) return fail(answer.error[0], answer.error[1]);
      ok(answer.result);
    });
  });

  type Answer = { result: unknown } | { error: [number, string] };

  function handle(method: string, params: Record<string, any>, files: Map<string, Buffer>): Answer {
    if (method === 'getMe')
      return {
        result: { id: bot.id, is_bot: true, first_name: 'Herald test', username: bot.username, can_join_groups: true },
      };
    const target = resolveChat(params.chat_id);
    if (!target) return { error: [400, 'Bad Request: chat not found'] };
    const member = chat.members.get(bot.id) ?? { status: 'left' };
    if (method === 'getChat') {
      return {
        result: {
          id: chat.id,
          type: chat.type,
          title: chat.title,
          ...(chat.username ? { username: chat.username } : {}),
        },
      };
    }
    if (method === 'getChatMember') {
      const userId = Number(params.user_id);
      const who = chat.members.get(userId) ?? { status: 'left' };
      return { result: { ...who, user: { id: userId, is_bot: userId === bot.id, first_name: 'Herald test' } } };
    }
    if (member.status === 'left' || member.status === 'kicked')
      return { error: [403, 'Forbidden: bot is not a member of the channel chat'] };
    if (method === 'getChatMemberCount') return { result: chat.memberCount };
    if (
      chat.type === 'channel' &&
      !(member.status === 'creator' || (member.status === 'administrator' && member.can_post_messages))
    ) {
      return { error: [400, 'Bad Request: need administrator rights in the channel chat'] };
    }
    const replyTo = params.reply_parameters
      ? typeof params.reply_parameters === 'string'
        ? JSON.parse(params.reply_parameters)
        : params.reply_parameters
      : undefined;
    const repliedTo = replyTo ? messages.find((m) => m.message_id === Number(replyTo.message_id)) : undefined;
    if (replyTo && !repliedTo) return { error: [400, 'Bad Request: message to be replied not found'] };
    const base = () => ({
      message_id: nextId++,
      date: Math.floor(Date.now() / 1000),
      chat: { id: chat.id, type: chat.type, title: chat.title, ...(chat.username ? { username: chat.username } : {}) },
      ...(repliedTo ? { reply_to_message: repliedTo } : {}),
      ...(truthy(params.disable_notification) ? { disable_notification: true } : {}),
    });
    const caption = params.caption === undefined ? undefined : String(params.caption);
    if (caption !== undefined && caption.length > CAPTION_LIMIT)
      return { error: [400, 'Bad Request: message caption is too long'] };
    if (method === 'sendMessage') {
      const text = String(params.text ?? '');
      if (text.trim() === '') return { error: [400, 'Bad Request: message text is empty'] };
      if (text.length > TEXT_LIMIT) return { error: [400, 'Bad Request: message is too long'] };
      const message = { ...base(), text };
      messages.push(message);
      return { result: message };
    }
    if (method === 'sendPhoto' || method === 'sendVideo') {
      const field = method === 'sendPhoto' ? 'photo' : 'video';
      const bytes = attached(params[field], files, field);
      if (!bytes) return { error: [400, `Bad Request: there is no ${field} in the request`] };
      const message = { ...base(), ...(caption ? { caption } : {}), ...media(field, bytes), bytes: bytes.length };
      messages.push(message);
      return { result: message };
    }
    if (method === 'sendMediaGroup') {
      let items: any[];
      try {
        items = typeof params.media === 'string' ? JSON.parse(params.media) : params.media;
      } catch {
        return { error: [400, "Bad Request: can't parse media JSON object"] };
      }
      if (!Array.isArray(items) || items.length < 2 || items.length > 10)
        return { error: [400, 'Bad Request: wrong number of media in the album'] };
      const group = String(nextFile++);
      const made: FakeMessage[] = [];
      for (const item of items) {
        if (item.type !== 'photo' && item.type !== 'video')
          return { error: [400, 'Bad Request: wrong media type in the album'] };
        const bytes = attached(item.media, files, item.type);
        if (!bytes) return { error: [400, 'Bad Request: wrong file identifier/HTTP URL specified'] };
        if (item.caption && String(item.caption).length > CAPTION_LIMIT)
          return { error: [400, 'Bad Request: message caption is too long'] };
        made.push({
          ...base(),
          ...(item.caption ? { caption: String(item.caption) } : {}),
          ...media(item.type, bytes),
          media_group_id: group,
          bytes: bytes.length,
        });
      }
      messages.push(...made);
      return { result: made };
    }
    return { error: [404, 'Not Found'] };
  }

  function resolveChat(ref: unknown): FakeChat | undefined {
    const value = String(ref ?? '');
    if (value === String(chat.id) || (chat.username && value.toLowerCase() === `@${chat.username}`.toLowerCase()))
      return chat;
    return undefined;
  }

  function media(kind: 'photo' | 'video', bytes: Buffer): Partial<FakeMessage> {
    const fileId = `AgAD${nextFile++}`;
    return kind === 'photo'
      ? { photo: [{ file_id: fileId, file_size: bytes.length }] }
      : { video: { file_id: fileId, file_size: bytes.length, mime_type: 'video/mp4' } };
  }

  return fake;
}

function truthy(value: unknown): boolean {
  return value === true || value === 'true';
}

/** A file sent with the request: `attach://<name>` names a multipart part, else the part under the field's name. */
function attached(ref: unknown, files: Map<string, Buffer>, field: string): Buffer | undefined {
  if (typeof ref === 'string' && ref.startsWith('attach://')) return files.get(ref.slice('attach://'.length));
  return ref === undefined ? files.get(field) : undefined;
}

function parseParams(
  target: URL,
  contentType: string,
  body: Buffer,
): { params: Record<string, any>; files: Map<string, Buffer> } {
  const params: Record<string, any> = Object.fromEntries(target.searchParams);
  const files = new Map<string, Buffer>();
  if (contentType.startsWith('application/json') && body.length > 0)
    Object.assign(params, JSON.parse(body.toString('utf8')));
  else if (contentType.startsWith('application/x-www-form-urlencoded'))
    Object.assign(params, Object.fromEntries(new URLSearchParams(body.toString('utf8'))));
  else if (contentType.startsWith('multipart/form-data')) {
    const boundary = /boundary=([^;]+)/.exec(contentType)?.[1];
    const text = body.toString('latin1');
    for (const part of boundary ? text.split(`--${boundary}`) : []) {
      const split = part.indexOf('\r\n\r\n');
      if (split < 0) continue;
      const head = part.slice(0, split);
      const name = /name="([^"]*)"/.exec(head)?.[1];
      if (!name) continue;
      const value = Buffer.from(part.slice(split + 4).replace(/\r\n$/, ''), 'latin1');
      if (/filename="/.test(head)) files.set(name, value);
      else params[name] = value.toString('utf8');
    }
  }
  return { params, files };
}
