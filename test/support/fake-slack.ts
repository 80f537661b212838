import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * Slack as docs.slack.dev describes it (NETWORKS.md, Seven more networks), on loopback: the OAuth v2 installation
 * (oauth/v2/authorize, then oauth.v2.access with the app's id and secret, answering a bot token and, for the
 * incoming-webhook scope, the channel the person picked; token rotation when `rotation` is on) and the Web API
 * methods Herald's connector calls (auth.test, auth.revoke, chat.postMessage, conversations.history and .replies,
 * files.getUploadURLExternal, the upload URL on files.slack.com, files.completeUploadExternal). Arguments come as a
 * form (blocks, metadata and files as JSON strings) or JSON; every answer is HTTP 200 `{ok, ...}` or
 * `{ok: false, error}`, with X-OAuth-Scopes, except a method called past its rate tier: HTTP 429 with Retry-After.
 * It checks what Slack checks: the bearer token, scopes (missing_scope), the channel, membership (not_in_channel),
 * text past 40,000 characters (msg_too_long), blocks past 50 or a section past 3,000 (invalid_blocks), an image
 * block naming an unknown file, a thread that is not there.
 *
 * The test plays the person at the consent screen: GET /oauth/v2/authorize answers as if they picked
 * `installChannel` and clicked Allow (a 302 with a code), or Cancel when `denyNext` is set.
 */
export const API_ORIGIN = 'https://slack.com';
export const FILES_ORIGIN = 'https://files.slack.com';

export interface FakeSlackMessage {
  type: 'message';
  ts: string;
  user: string;
  bot_id?: string;
  text: string;
  blocks?: any[];
  metadata?: { event_type: string; event_payload: Record<string, unknown> };
  thread_ts?: string;
  reply_count?: number;
  reactions?: { name: string; count: number; users: string[] }[];
}

export interface FakeSlack {
  url: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  team: { id: string; name: string; domain: string };
  channels: { id: string; name: string; archived: boolean; botIsMember: boolean }[];
  /** The channel the person picks on the consent screen. */
  installChannel: string;
  denyNext: boolean;
  /** Token rotation on: access tokens live 12 hours and come with a refresh token. */
  rotation: boolean;
  /** The scopes the next install grants, where the person's workspace grants fewer than asked. */
  grantOnly: string[] | null;
  messages: Map<string, FakeSlackMessage[]>;
  files: Map<string, { filename: string; length: number; bytes: Buffer | null; title?: string }>;
  requests: string[];
  revoked: string[];
  /** The next call of this method gets this answer (an `{ok: false}` body, or an HTTP status with headers). */
  failNext(method: string, body: Record<string, unknown>, status?: number, headers?: Record<string, string>): void;
  /** The next call of this method is carried out, then the connection drops before the answer. */
  dropAnswerNext(method: string): void;
  /** Ends every access token's life now (rotation), so the next call answers token_expired. */
  expireTokens(): void;
  /** Refuses refresh tokens from now on (invalid_refresh_token). */
  refuseRefresh(): void;
  /** A message in the channel made outside Herald. */
  postExternally(
    channelId: string,
    text: string,
    by: 'bot' | 'person',
    counts?: { replies?: number; reactions?: number },
  ): FakeSlackMessage;
  close(): Promise<void>;
}

const TEXT_LIMIT = 40_000;
const SECTION_LIMIT = 3000;
const BOT_USER = 'U0HERALDBOT';
const BOT_ID = 'B0HERALD';

export async function startFakeSlack(options: { redirectUri: string }): Promise<FakeSlack> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const codes = new Map<string, { redirectUri: string; channelId: string; scopes: string[] }>();
  const tokens = new Map<string, { scopes: string[]; expiresAt: number | null }>();
  const refreshTokens = new Map<string, string[]>();
  const scripted = new Map<
    string,
    { body: Record<string, unknown>; status: number; headers: Record<string, string> }
  >();
  const dropped = new Set<string>();
  let refreshRefused = false;
  let clock = Math.floor(Date.now() / 1000);
  let sequence = 0;
  const nextTs = () => `${Math.max(clock, Math.floor(Date.now() / 1000))}.${String(++sequence).padStart(6, '0')}`;

  const fake: FakeSlack = {
    url,
    clientId: '1234567890.9876543210',
    clientSecret: crypto.randomBytes(16).toString('hex'),
    redirectUri: options.redirectUri,
    team: { id: 'T0ACME', name: 'Acme', domain: 'acme' },
    channels: [
      { id: 'C0LAUNCH', name: 'launches', archived: false, botIsMember: true },
      { id: 'C0RANDOM', name: 'random', archived: false, botIsMember: true },
    ],
    installChannel: 'C0LAUNCH',
    denyNext: false,
    rotation: false,
    grantOnly: null,
    messages: new Map(),
    files: new Map(),
    requests: [],
    revoked: [],
    failNext(method, body, status = 200, headers = {}) {
      scripted.set(method, { body, status, headers });
    },
    dropAnswerNext(method) {
      dropped.add(method);
    },
    expireTokens() {
      for (const token of tokens.values()) if (token.expiresAt !== null) token.expiresAt = 0;
    },
    refuseRefresh() {
      refreshRefused = true;
    },
    postExternally(channelId, text, by, counts = {}) {
      clock += 1;
      const message: FakeSlackMessage = {
        type: 'message',
        ts: nextTs(),
        user: by === 'bot' ? BOT_USER : 'U0ALICE',
        text,
      };
      if (by === 'bot') message.bot_id = BOT_ID;
      if (counts.replies) message.reply_count = counts.replies;
      if (counts.reactions) message.reactions = [{ name: 'tada', count: counts.reactions, users: [] }];
      listOf(channelId).push(message);
      return message;
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };

  const listOf = (channelId: string) => {
    if (!fake.messages.has(channelId)) fake.messages.set(channelId, []);
    return fake.messages.get(channelId)!;
  };

  const ALL_SCOPES = ['chat:write', 'files:write', 'channels:history', 'groups:history', 'incoming-webhook'];
  const NEEDS: Record<string, string> = {
    'chat.postMessage': 'chat:write',
    'conversations.history': 'channels:history',
    'conversations.replies': 'channels:history',
    'files.getUploadURLExternal': 'files:write',
    'files.completeUploadExternal': 'files:write',
  };

  function issue(scopes: string[]) {
    const accessToken = `xoxb-${crypto.randomBytes(12).toString('hex')}`;
    tokens.set(accessToken, { scopes, expiresAt: fake.rotation ? Date.now() + 43_200_000 : null });
    const refresh = fake.rotation ? `xoxe-1-${crypto.randomBytes(12).toString('hex')}` : undefined;
    if (refresh) refreshTokens.set(refresh, scopes);
    return { accessToken, refresh };
  }

  server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk) => chunks.push(chunk));
    req.on('end', () => {
      const target = new URL(req.url ?? '/', url);
      const body = Buffer.concat(chunks);
      const json = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
        res
          .writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers })
          .end(JSON.stringify(payload));
      };

      if (req.method === 'GET' && target.pathname === '/oauth/v2/authorize') {
        fake.requests.push('GET /oauth/v2/authorize');
        const redirect = target.searchParams.get('redirect_uri') ?? '';
        const state = target.searchParams.get('state') ?? '';
        if (target.searchParams.get('client_id') !== fake.clientId || redirect !== fake.redirectUri) {
          return res
            .writeHead(400, { 'content-type': 'text/html' })
            .end('<p>Something went wrong when authorizing this app.</p>');
        }
        const back = new URL(redirect);
        back.searchParams.set('state', state);
        if (fake.denyNext) {
          fake.denyNext = false;
          back.searchParams.set('error', 'access_denied');
        } else {
          const code = crypto.randomBytes(12).toString('hex');
          const asked = (target.searchParams.get('scope') ?? '').split(',').filter(Boolean);
          codes.set(code, { redirectUri: redirect, channelId: fake.installChannel, scopes: fake.grantOnly ?? asked });
          back.searchParams.set('code', code);
        }
        return res.writeHead(302, { location: back.toString() }).end();
      }

      if (req.method === 'POST' && target.pathname.startsWith('/upload/v1/')) {
        fake.requests.push('POST /upload');
        const file = fake.files.get(target.pathname.slice('/upload/v1/'.length));
        if (!file) return res.writeHead(404).end('Not Found');
        file.bytes = body;
        return res.writeHead(200, { 'content-type': 'text/plain' }).end(`OK - ${body.length}`);
      }

      const method = /^\/api\/([a-zA-Z0-9.]+)$/.exec(target.pathname)?.[1];
      if (!method) return json(404, { ok: false, error: 'unknown_method' });
      fake.requests.push(method);
      const args = argsOf(req.headers['content-type'] ?? '', body, target);

      if (method === 'oauth.v2.access') return json(200, tokenAnswer(args, req.headers.authorization));

      const bearer =
        /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ??
        (typeof args.token === 'string' ? args.token : undefined);
      if (!bearer) return json(200, { ok: false, error: 'not_authed' });
      const token = tokens.get(bearer);
      if (!token)
        return json(200, { ok: false, error: fake.revoked.includes(bearer) ? 'token_revoked' : 'invalid_auth' });
      if (token.expiresAt !== null && token.expiresAt <= Date.now())
        return json(200, { ok: false, error: 'token_expired' });
      const headers = { 'x-oauth-scopes': token.scopes.join(','), 'x-accepted-oauth-scopes': NEEDS[method] ?? '' };
      const script = scripted.get(method);
      if (script) {
        scripted.delete(method);
        return json(script.status, script.body, { ...headers, ...script.headers });
      }
      if (NEEDS[method] && !token.scopes.includes(NEEDS[method])) {
        return json(
          200,
          { ok: false, error: 'missing_scope', needed: NEEDS[method], provided: token.scopes.join(',') },
          headers,
        );
      }
      const answer = call(method, args, bearer);
      if (dropped.delete(method)) return req.socket.destroy();
      json(200, answer, headers);
    });
  });

  function tokenAnswer(args: Record<string, any>, authorization: string | undefined): Record<string, unknown> {
    let clientId = args.client_id;
    let clientSecret = args.client_secret;
    const basic = /^Basic (.+)$/.exec(authorization ?? '')?.[1];
    if (basic) [clientId, clientSecret] = Buffer.from(basic, 'base64').toString('utf8').split(':');
    if (clientId !== fake.clientId) return { ok: false, error: 'invalid_client_id' };
    if (clientSecret !== fake.clientSecret) return { ok: false, error: 'bad_client_secret' };
    let scopes: string[];
    let channelId: string | undefined;
    if (args.grant_type === 'refresh_token') {
      const granted = refreshTokens.get(String(args.refresh_token));
      if (!granted || refreshRefused) return { ok: false, error: 'invalid_refresh_token' };
      refreshTokens.delete(String(args.refresh_token));
      scopes = granted;
    } else {
      const code = codes.get(String(args.code));
      if (!code) return { ok: false, error: 'invalid_code' };
      codes.delete(String(args.code));
      if (args.redirect_uri !== code.redirectUri) return { ok: false, error: 'bad_redirect_uri' };
      scopes = code.scopes.filter((s) => ALL_SCOPES.includes(s));
      channelId = code.channelId;
    }
    const issued = issue(scopes);
    const channel = fake.channels.find((c) => c.id === channelId);
    return {
      ok: true,
      app_id: 'A0HERALD',
      authed_user: { id: 'U0ALICE' },
      scope: scopes.join(','),
      token_type: 'bot',
      access_token: issued.accessToken,
      bot_user_id: BOT_USER,
      team: { id: fake.team.id, name: fake.team.name },
      enterprise: null,
      is_enterprise_install: false,
      ...(issued.refresh ? { refresh_token: issued.refresh, expires_in: 43_200 } : {}),
      ...(channel && scopes.includes('incoming-webhook')
        ? {
            incoming_webhook: {
              channel: `#${channel.name}`,
              channel_id: channel.id,
              configuration_url: `https://${fake.team.domain}.slack.com/services/B0HOOK`,
              url: 'https://hooks.slack.com/services/T0ACME/B0HOOK/xyz',
            },
          }
        : {}),
    };
  }

  function call(method: string, args: Record<string, any>, bearer: string): Record<string, unknown> {
    switch (method) {
      case 'auth.test':
        return {
          ok: true,
          url: `https://${fake.team.domain}.slack.com/`,
          team: fake.team.name,
          user: 'herald',
          team_id: fake.team.id,
          user_id: BOT_USER,
          bot_id: BOT_ID,
        };
      case 'auth.revoke':
        tokens.delete(bearer);
        fake.revoked.push(bearer);
        return { ok: true, revoked: true };
      case 'files.getUploadURLExternal': {
        const length = Number(args.length);
        if (!args.filename || !Number.isInteger(length) || length <= 0)
          return { ok: false, error: 'invalid_arguments' };
        const id = `F0${crypto.randomBytes(5).toString('hex').toUpperCase()}`;
        fake.files.set(id, { filename: String(args.filename), length, bytes: null });
        return { ok: true, upload_url: `${FILES_ORIGIN}/upload/v1/${id}`, file_id: id };
      }
      case 'files.completeUploadExternal': {
        const files = parseJson(args.files);
        if (!Array.isArray(files) || files.length === 0) return { ok: false, error: 'invalid_arguments' };
        for (const f of files) {
          const known = fake.files.get(String(f.id));
          if (!known?.bytes) return { ok: false, error: 'file_not_found' };
          if (known.bytes.length !== known.length) return { ok: false, error: 'file_upload_size_mismatch' };
          known.title = f.title;
        }
        return {
          ok: true,
          files: files.map((f: any) => ({ id: f.id, title: f.title, name: fake.files.get(String(f.id))!.filename })),
        };
      }
      case 'chat.postMessage':
        return postMessage(args);
      case 'conversations.history': {
        const channel = memberChannel(args.channel);
        if ('error' in channel) return channel.error;
        const oldest = args.oldest === undefined ? 0 : Number(args.oldest);
        const limit = Math.min(999, Number(args.limit ?? 100));
        const all = [...listOf(channel.id)]
          .filter((m) => !m.thread_ts || m.thread_ts === m.ts)
          .filter((m) => Number(m.ts) > oldest)
          .reverse();
        const start = args.cursor
          ? Number(Buffer.from(String(args.cursor), 'base64').toString('utf8').replace('next:', ''))
          : 0;
        const page = all.slice(start, start + limit).map((m) => withMetadata(m, args.include_all_metadata));
        const more = start + limit < all.length;
        return {
          ok: true,
          messages: page,
          has_more: more,
          response_metadata: { next_cursor: more ? Buffer.from(`next:${start + limit}`).toString('base64') : '' },
        };
      }
      case 'conversations.replies': {
        const channel = memberChannel(args.channel);
        if ('error' in channel) return channel.error;
        const thread = listOf(channel.id).filter((m) => m.ts === String(args.ts) || m.thread_ts === String(args.ts));
        if (!thread.some((m) => m.ts === String(args.ts))) return { ok: false, error: 'thread_not_found' };
        return { ok: true, messages: thread.map((m) => withMetadata(m, args.include_all_metadata)), has_more: false };
      }
      default:
        return { ok: false, error: 'unknown_method' };
    }
  }

  function memberChannel(id: unknown): { id: string } | { error: Record<string, unknown> } {
    const channel = fake.channels.find((c) => c.id === String(id));
    if (!channel) return { error: { ok: false, error: 'channel_not_found' } };
    if (!channel.botIsMember) return { error: { ok: false, error: 'not_in_channel' } };
    return channel;
  }

  function postMessage(args: Record<string, any>): Record<string, unknown> {
    const channel = fake.channels.find((c) => c.id === String(args.channel));
    if (!channel) return { ok: false, error: 'channel_not_found' };
    if (channel.archived) return { ok: false, error: 'is_archived' };
    if (!channel.botIsMember) return { ok: false, error: 'not_in_channel' };
    const text = args.text === undefined ? '' : String(args.text);
    const blocks = args.blocks === undefined ? undefined : parseJson(args.blocks);
    if (!text && !blocks) return { ok: false, error: 'no_text' };
    if (text.length > TEXT_LIMIT) return { ok: false, error: 'msg_too_long' };
    if (blocks !== undefined) {
      if (!Array.isArray(blocks) || blocks.length > 50) return { ok: false, error: 'invalid_blocks' };
      for (const block of blocks) {
        if (block.type === 'section' && String(block.text?.text ?? '').length > SECTION_LIMIT)
          return { ok: false, error: 'invalid_blocks' };
        if (block.type === 'image' && block.slack_file && !fake.files.get(String(block.slack_file.id))?.title)
          return { ok: false, error: 'invalid_blocks' };
        if (block.type === 'image' && !block.alt_text) return { ok: false, error: 'invalid_blocks' };
      }
    }
    const metadata = args.metadata === undefined ? undefined : parseJson(args.metadata);
    if (
      metadata !== undefined &&
      (typeof metadata?.event_type !== 'string' || typeof metadata?.event_payload !== 'object')
    ) {
      return { ok: false, error: 'invalid_metadata_format' };
    }
    const threadTs = args.thread_ts === undefined ? undefined : String(args.thread_ts);
    const parent = threadTs ? listOf(channel.id).find((m) => m.ts === threadTs) : undefined;
    if (threadTs && !parent) return { ok: false, error: 'thread_not_found' };
    const message: FakeSlackMessage = {
      type: 'message',
      ts: nextTs(),
      user: BOT_USER,
      bot_id: BOT_ID,
      text,
      ...(blocks ? { blocks } : {}),
      ...(metadata ? { metadata } : {}),
      ...(threadTs ? { thread_ts: threadTs } : {}),
    };
    if (parent) {
      parent.thread_ts = parent.ts;
      parent.reply_count = (parent.reply_count ?? 0) + 1;
    }
    listOf(channel.id).push(message);
    return { ok: true, channel: channel.id, ts: message.ts, message };
  }

  return fake;
}

/** Metadata is left out of history unless asked for (include_all_metadata). */
function withMetadata(message: FakeSlackMessage, include: unknown): FakeSlackMessage {
  if (include === true || include === 'true' || include === '1') return message;
  const { metadata: _metadata, ...rest } = message;
  return rest as FakeSlackMessage;
}

function parseJson(value: unknown): any {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

function argsOf(contentType: string, body: Buffer, target: URL): Record<string, any> {
  const args: Record<string, any> = Object.fromEntries(target.searchParams);
  if (contentType.startsWith('application/json') && body.length > 0)
    Object.assign(args, JSON.parse(body.toString('utf8')));
  else if (contentType.startsWith('application/x-www-form-urlencoded'))
    Object.assign(args, Object.fromEntries(new URLSearchParams(body.toString('utf8'))));
  return args;
}
