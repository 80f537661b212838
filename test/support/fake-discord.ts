import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Discord's HTTP API (v10) for a bot, as discord/discord-api-docs describes it (developers/: resources/user,
 * resources/channel, resources/guild, resources/message, topics/permissions, topics/rate-limits,
 * topics/opcodes-and-status-codes; NETWORKS.md, Seven more networks), on loopback. It knows nothing of Herald:
 * `Authorization: Bot <token>` or 401 `{message: "401: Unauthorized", code: 0}`; a channel the bot cannot see is 403
 * code 50001, a missing permission 403 code 50013 (computed from the @everyone role, the member's roles and the
 * channel's overwrites); content past 2,000 characters 400 code 50035 with its `errors`; a file past 10 MiB 413 code
 * 40005; a nonce sent again with enforce_nonce within a few minutes answers the first message. Each answer of the
 * message route carries X-RateLimit-Limit, -Remaining, -Reset, -Reset-After and -Bucket; past the bucket it is 429
 * with `retry_after` (seconds, a float), `global`, Retry-After and X-RateLimit-Scope.
 *
 * The channel's incoming webhook (resources/webhook) needs no Authorization: its id and token are in the path.
 * Get Webhook with Token answers the webhook (type 1) without its user; an unknown id is 404 code 10015 and a wrong
 * token 401 code 50027. Execute Webhook takes the same bodies as a message but no nonce (unknown fields are
 * ignored), needs no channel permission, answers 204 with no body, or the message (with `webhook_id`) when
 * `?wait=true`; Get Webhook Message returns one of its messages by id. Its answers share the message bucket.
 */
export const API_ORIGIN = 'https://discord.com';

export interface FakeDiscordMessage {
  id: string;
  channel_id: string;
  type: number;
  author: { id: string; username: string; bot: boolean };
  content: string;
  timestamp: string;
  attachments: { id: string; filename: string; size: number; url: string; content_type: string }[];
  message_reference?: { message_id: string; channel_id: string; guild_id: string };
  reactions?: { count: number; emoji: { name: string } }[];
  nonce?: string;
  webhook_id?: string;
}

export interface FakeDiscord {
  url: string;
  bot: { token: string; id: string; username: string };
  guild: { id: string; name: string; icon: string | null; owner_id: string };
  /** The server's approximate_member_count, answered by GET /guilds/{id} with with_counts=true (resources/guild). */
  memberCount: number;
  channel: {
    id: string;
    type: number;
    guild_id: string;
    name: string;
    permission_overwrites: { id: string; type: number; allow: string; deny: string }[];
  };
  /** The server's roles; the first is @everyone (its id is the server's). */
  roles: { id: string; name: string; permissions: string }[];
  memberRoles: string[];
  messages: FakeDiscordMessage[];
  requests: string[];
  /** The channel's incoming webhook, and its URL as Discord shows it under "Copy Webhook URL". */
  webhook: { id: string; token: string; name: string; type: number; channel_id: string; guild_id: string };
  webhookUrl: string;
  /** The webhook deleted in the channel's settings: its id answers 404 code 10015. */
  deleteWebhook(): void;
  /** What is left of the message route's bucket, and when it refills (in seconds from now). */
  bucket: { limit: number; remaining: number; resetAfter: number };
  failNext(path: string, status: number, body: unknown, headers?: Record<string, string>): void;
  /** The next request to this path is carried out, then the connection drops before the answer. */
  dropAnswerNext(path: string): void;
  /** Forgets the nonces seen, as Discord does after a few minutes. */
  forgetNonces(): void;
  /** The developer portal's Reset Token: the old token answers 401. */
  resetToken(): string;
  /** A message a person wrote in the channel, or the bot outside Herald. */
  postExternally(content: string, by?: 'bot' | 'person', reactions?: number): FakeDiscordMessage;
  close(): Promise<void>;
}

const EPOCH = 1420070400000n;
const TEXT_LIMIT = 2000;
const FILE_LIMIT = 10 * 1024 * 1024;
const VIEW_CHANNEL = 1n << 10n;
const SEND_MESSAGES = 1n << 11n;
const ATTACH_FILES = 1n << 15n;
const READ_MESSAGE_HISTORY = 1n << 16n;
const ADMINISTRATOR = 1n << 3n;

export async function startFakeDiscord(): Promise<FakeDiscord> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const guildId = '1100000000000000001';
  let sequence = 0n;
  const snowflake = () => String(((BigInt(Date.now()) - EPOCH) << 22n) + (sequence++ % 4096n));
  const bot = {
    token: 'MTEwMDAwMDAwMDAwMDAwMDAwMg.Gx1Abc.fakeDiscordBotTokenForHerald',
    id: '1100000000000000002',
    username: 'Herald',
  };
  const scripted = new Map<string, { status: number; body: unknown; headers: Record<string, string> }>();
  const dropped = new Set<string>();
  const nonces = new Map<string, string>();
  let webhookDeleted = false;
  const fake: FakeDiscord = {
    url,
    bot,
    guild: { id: guildId, name: 'Acme Community', icon: null, owner_id: '1100000000000000099' },
    memberCount: 3,
    channel: {
      id: '1100000000000000010',
      type: 0,
      guild_id: guildId,
      name: 'announcements',
      permission_overwrites: [],
    },
    roles: [
      { id: guildId, name: '@everyone', permissions: String(VIEW_CHANNEL | READ_MESSAGE_HISTORY) },
      { id: '1100000000000000020', name: 'Herald', permissions: String(SEND_MESSAGES | ATTACH_FILES) },
    ],
    memberRoles: ['1100000000000000020'],
    messages: [],
    requests: [],
    webhook: {
      id: '1100000000000000030',
      token: 'wHk-Tok3n_fakeDiscordWebhookTokenForHerald',
      name: 'Acme News',
      type: 1,
      channel_id: '1100000000000000010',
      guild_id: guildId,
    },
    webhookUrl: `${API_ORIGIN}/api/webhooks/1100000000000000030/wHk-Tok3n_fakeDiscordWebhookTokenForHerald`,
    deleteWebhook() {
      webhookDeleted = true;
    },
    bucket: { limit: 5, remaining: 5, resetAfter: 5 },
    failNext(path, status, body, headers = {}) {
      scripted.set(path, { status, body, headers });
    },
    dropAnswerNext(path) {
      dropped.add(path);
    },
    forgetNonces() {
      nonces.clear();
    },
    resetToken() {
      bot.token = `MTEwMDAwMDAwMDAwMDAwMDAwMg.Reset.${Math.random().toString(36).slice(2)}`;
      return bot.token;
    },
    postExternally(content, by = 'bot', reactions = 0) {
      const message = newMessage(
        by === 'bot'
          ? { id: bot.id, username: bot.username, bot: true }
          : { id: '1100000000000000050', username: 'alice', bot: false },
        content,
        [],
      );
      if (reactions > 0) message.reactions = [{ count: reactions, emoji: { name: '🎉' } }];
      fake.messages.push(message);
      return message;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  function newMessage(
    author: FakeDiscordMessage['author'],
    content: string,
    attachments: FakeDiscordMessage['attachments'],
  ): FakeDiscordMessage {
    return {
      id: snowflake(),
      channel_id: fake.channel.id,
      type: 0,
      author,
      content,
      timestamp: new Date().toISOString(),
      attachments,
    };
  }

  function permissions(): bigint {
    const bits = (value: string) => BigInt(value);
    let granted = 0n;
    for (const role of fake.roles)
      if (role.id === guildId || fake.memberRoles.includes(role.id)) granted |= bits(role.permissions);
    if ((granted & ADMINISTRATOR) === ADMINISTRATOR) return ~0n;
    const overwrites = fake.channel.permission_overwrites;
    const everyone = overwrites.find((o) => o.id === guildId);
    if (everyone) granted = (granted & ~bits(everyone.deny)) | bits(everyone.allow);
    let allow = 0n;
    let deny = 0n;
    for (const o of overwrites)
      if (o.type === 0 && fake.memberRoles.includes(o.id)) {
        allow |= bits(o.allow);
        deny |= bits(o.deny);
      }
    granted = (granted & ~deny) | allow;
    const own = overwrites.find((o) => o.type === 1 && o.id === bot.id);
    if (own) granted = (granted & ~bits(own.deny)) | bits(own.allow);
    return granted;
  }

  server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const target = new URL(req.url ?? '/', url);
      const path = target.pathname.replace(/^\/api\/v10/, '');
      fake.requests.push(`${req.method} ${path}`);
      const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
      };
      const error = (status: number, code: number, message: string, extra: Record<string, unknown> = {}) =>
        send(status, { message, code, ...extra });
      const script = scripted.get(path);
      if (script) {
        scripted.delete(path);
        return send(script.status, script.body, script.headers);
      }
      const hook = /^\/webhooks\/(\d+)\/([^/]+)(?:\/messages\/(\d+))?$/.exec(path);
      if (hook) return webhookRoute(hook[1], hook[2], hook[3]);
      if (req.headers.authorization !== `Bot ${bot.token}`) return error(401, 0, '401: Unauthorized');
      const messagesPath = `/channels/${fake.channel.id}/messages`;
      if (req.method === 'GET' && path === '/users/@me')
        return send(200, { id: bot.id, username: bot.username, bot: true, discriminator: '0' });
      if (req.method === 'GET' && path === `/guilds/${guildId}`) {
        const counts = target.searchParams.get('with_counts') === 'true';
        return send(200, {
          ...fake.guild,
          ...(counts ? { approximate_member_count: fake.memberCount, approximate_presence_count: 1 } : {}),
        });
      }
      if (req.method === 'GET' && path === `/guilds/${guildId}/roles`) return send(200, fake.roles);
      if (req.method === 'GET' && path === `/guilds/${guildId}/members/${bot.id}`) {
        return send(200, {
          user: { id: bot.id, username: bot.username, bot: true },
          roles: fake.memberRoles,
          joined_at: new Date().toISOString(),
        });
      }
      if (path.startsWith('/channels/') && !path.startsWith(`/channels/${fake.channel.id}`))
        return error(404, 10003, 'Unknown Channel');
      const granted = permissions();
      if (path.startsWith(`/channels/${fake.channel.id}`) && (granted & VIEW_CHANNEL) !== VIEW_CHANNEL)
        return error(403, 50001, 'Missing Access');
      if (req.method === 'GET' && path === `/channels/${fake.channel.id}`) return send(200, fake.channel);
      if (req.method === 'GET' && path === messagesPath) {
        if ((granted & READ_MESSAGE_HISTORY) !== READ_MESSAGE_HISTORY) return send(200, []);
        const limit = Math.min(100, Number(target.searchParams.get('limit') ?? 50));
        const before = target.searchParams.get('before');
        const after = target.searchParams.get('after');
        const listed = [...fake.messages]
          .sort((x, y) => (BigInt(y.id) > BigInt(x.id) ? 1 : -1))
          .filter((m) => (!before || BigInt(m.id) < BigInt(before)) && (!after || BigInt(m.id) > BigInt(after)))
          .slice(0, limit)
          .map(({ nonce: _nonce, ...m }) => m);
        return send(200, listed, bucketHeaders());
      }
      if (req.method === 'POST' && path === messagesPath) return createMessage(req, Buffer.concat(chunks), granted);
      return error(404, 0, '404: Not Found');

      function webhookRoute(id: string, token: string, messageId: string | undefined) {
        const hook = fake.webhook;
        if (id !== hook.id || webhookDeleted) return error(404, 10015, 'Unknown Webhook');
        if (token !== hook.token) return error(401, 50027, 'Invalid Webhook Token');
        if (req.method === 'GET' && messageId === undefined) {
          return send(200, { ...hook, avatar: null, application_id: null });
        }
        if (req.method === 'GET') {
          const found = fake.messages.find((m) => m.id === messageId && m.webhook_id === hook.id);
          if (!found) return error(404, 10008, 'Unknown Message');
          const { nonce: _nonce, ...shown } = found;
          return send(200, shown, bucketHeaders());
        }
        if (req.method !== 'POST' || messageId !== undefined) return error(405, 0, '405: Method Not Allowed');
        if (fake.bucket.remaining <= 0) {
          return send(
            429,
            { message: 'You are being rate limited.', retry_after: fake.bucket.resetAfter, global: false },
            { ...bucketHeaders(), 'retry-after': String(Math.ceil(fake.bucket.resetAfter)) },
          );
        }
        const { payload, files } = parseMessageBody(req.headers['content-type'] ?? '', Buffer.concat(chunks));
        if (!payload) return error(400, 50109, 'The request body contains invalid JSON.');
        if (files.some((f) => f.bytes.length > FILE_LIMIT)) return error(413, 40005, 'Request entity too large');
        const content = String(payload.content ?? '');
        if (content.length > TEXT_LIMIT) return error(400, 50035, 'Invalid Form Body');
        if (content === '' && files.length === 0) return error(400, 50006, 'Cannot send an empty message');
        fake.bucket.remaining--;
        const attachments = files.map((f) => {
          const fileId = snowflake();
          return {
            id: fileId,
            filename: f.filename,
            size: f.bytes.length,
            url: `https://cdn.discordapp.com/attachments/${fake.channel.id}/${fileId}/${f.filename}`,
            content_type: f.type ?? 'application/octet-stream',
          };
        });
        const message = newMessage({ id: hook.id, username: hook.name, bot: true }, content, attachments);
        message.webhook_id = hook.id;
        fake.messages.push(message);
        if (dropped.delete(path)) return req.socket.destroy();
        if (target.searchParams.get('wait') !== 'true') return res.writeHead(204, bucketHeaders()).end();
        return send(200, message, bucketHeaders());
      }

      function bucketHeaders(): Record<string, string> {
        const resetAt = Date.now() / 1000 + fake.bucket.resetAfter;
        return {
          'x-ratelimit-limit': String(fake.bucket.limit),
          'x-ratelimit-remaining': String(fake.bucket.remaining),
          'x-ratelimit-reset': resetAt.toFixed(3),
          'x-ratelimit-reset-after': fake.bucket.resetAfter.toFixed(3),
          'x-ratelimit-bucket': 'abcd1234',
        };
      }

      function createMessage(request: http.IncomingMessage, body: Buffer, have: bigint) {
        if (fake.bucket.remaining <= 0) {
          return send(
            429,
            { message: 'You are being rate limited.', retry_after: fake.bucket.resetAfter, global: false },
            {
              ...bucketHeaders(),
              'retry-after': String(Math.ceil(fake.bucket.resetAfter)),
              'x-ratelimit-scope': 'user',
            },
          );
        }
        if ((have & SEND_MESSAGES) !== SEND_MESSAGES) return error(403, 50013, 'Missing Permissions');
        const { payload, files } = parseMessageBody(request.headers['content-type'] ?? '', body);
        if (!payload) return error(400, 50109, 'The request body contains invalid JSON.');
        if (files.length > 0 && (have & ATTACH_FILES) !== ATTACH_FILES) return error(403, 50013, 'Missing Permissions');
        if (files.some((f) => f.bytes.length > FILE_LIMIT)) return error(413, 40005, 'Request entity too large');
        const content = String(payload.content ?? '');
        if (content.length > TEXT_LIMIT) {
          return error(400, 50035, 'Invalid Form Body', {
            errors: {
              content: {
                _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: `Must be ${TEXT_LIMIT} or fewer in length.` }],
              },
            },
          });
        }
        if (content === '' && files.length === 0) return error(400, 50006, 'Cannot send an empty message');
        const nonce = payload.nonce === undefined ? undefined : String(payload.nonce);
        if (nonce !== undefined && nonce.length > 25) {
          return error(400, 50035, 'Invalid Form Body', {
            errors: {
              nonce: { _errors: [{ code: 'BASE_TYPE_MAX_LENGTH', message: 'Must be 25 or fewer in length.' }] },
            },
          });
        }
        fake.bucket.remaining--;
        if (nonce !== undefined && payload.enforce_nonce === true && nonces.has(nonce)) {
          const first = fake.messages.find((m) => m.id === nonces.get(nonce))!;
          return send(200, first, bucketHeaders());
        }
        const reference = payload.message_reference as { message_id?: string } | undefined;
        if (reference && !fake.messages.some((m) => m.id === String(reference.message_id))) {
          return error(400, 50035, 'Invalid Form Body', {
            errors: {
              message_reference: {
                _errors: [{ code: 'MESSAGE_REFERENCE_UNKNOWN_MESSAGE', message: 'Unknown message' }],
              },
            },
          });
        }
        const attachments = files.map((f) => {
          const id = snowflake();
          const cdn = `https://cdn.discordapp.com/attachments/${fake.channel.id}/${id}/${f.filename}`;
          return {
            id,
            filename: f.filename,
            size: f.bytes.length,
            url: cdn,
            content_type: f.type ?? 'application/octet-stream',
          };
        });
        const message = newMessage({ id: bot.id, username: bot.username, bot: true }, content, attachments);
        if (reference) {
          message.type = 19;
          message.message_reference = {
            message_id: String(reference.message_id),
            channel_id: fake.channel.id,
            guild_id: guildId,
          };
        }
        if (nonce !== undefined) {
          message.nonce = nonce;
          nonces.set(nonce, message.id);
        }
        fake.messages.push(message);
        if (dropped.delete(path)) return request.socket.destroy();
        return send(200, message, bucketHeaders());
      }
    });
  });
  return fake;
}

/** A JSON body, or multipart with payload_json and files[n] parts (resources/message, Uploading Files). */
function parseMessageBody(
  contentType: string,
  body: Buffer,
): { payload: Record<string, any> | undefined; files: { filename: string; type?: string; bytes: Buffer }[] } {
  const files: { filename: string; type?: string; bytes: Buffer }[] = [];
  const json = (text: string) => {
    try {
      return JSON.parse(text) as Record<string, any>;
    } catch {
      return undefined;
    }
  };
  if (contentType.startsWith('application/json')) return { payload: json(body.toString('utf8')), files };
  const boundary = /boundary=([^;]+)/.exec(contentType)?.[1];
  if (!contentType.startsWith('multipart/form-data') || !boundary) return { payload: undefined, files };
  let payload: Record<string, any> | undefined;
  for (const part of body.toString('latin1').split(`--${boundary}`)) {
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) continue;
    const head = part.slice(0, split);
    const name = /name="([^"]*)"/.exec(head)?.[1];
    const value = Buffer.from(part.slice(split + 4).replace(/\r\n$/, ''), 'latin1');
    if (name === 'payload_json') payload = json(value.toString('utf8'));
    else if (name && /^files\[\d+\]$/.test(name)) {
      files.push({
        filename: /filename="([^"]*)"/.exec(head)?.[1] ?? 'file',
        type: /Content-Type: ([^\r\n]+)/i.exec(head)?.[1],
        bytes: value,
      });
    }
  }
  return { payload, files };
}
