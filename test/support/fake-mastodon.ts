import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A Mastodon server as its documentation describes it (mastodon/documentation content/en: methods/apps.md,
 * methods/oauth.md, methods/accounts.md, methods/statuses.md, methods/media.md, methods/instance.md,
 * api/rate-limits.md), on loopback. It knows nothing of Herald: requests are checked the way Mastodon checks
 * them (client credentials, redirect URI, PKCE S256, bearer tokens, Idempotency-Key, character limit, media
 * processing) and answered with Mastodon's status codes, bodies and X-RateLimit-* headers.
 *
 * The test plays the person at the consent screen: GET /oauth/authorize answers as if they clicked
 * "Authorize" (a 302 to the redirect URI with a code), or "Deny" when `denyNext` is set.
 */
export interface FakeStatus {
  id: string;
  created_at: string;
  in_reply_to_id: string | null;
  sensitive: boolean;
  spoiler_text: string;
  visibility: string;
  language: string | null;
  uri: string;
  url: string;
  replies_count: number;
  reblogs_count: number;
  favourites_count: number;
  content: string;
  media_attachments: { id: string; type: string; url: string | null; description: string | null }[];
  account: { id: string; username: string };
  /** Not Mastodon's: the Idempotency-Key the status was made under, for assertions. */
  idempotencyKey: string | null;
}

interface Registration {
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  scopes: string;
}

export interface FakeMastodon {
  url: string;
  host: string;
  account: { id: string; username: string; display_name: string; avatar: string; followers_count: number };
  apps: Registration[];
  statuses: FakeStatus[];
  /** Every request, as "METHOD /path". */
  requests: string[];
  maxCharacters: number;
  maxMediaAttachments: number;
  imageSizeLimit: number;
  denyNext: boolean;
  /** The next request to this path gets this answer instead (a scripted failure). */
  failNext(path: string, status: number, body: unknown, headers?: Record<string, string>): void;
  /** The next request to this path is carried out, then the connection drops before the answer (a lost answer). */
  dropAnswerNext(path: string): void;
  /** The next request to this path is carried out, then answered with this error instead (a proxy failing late). */
  failAfterHandlingNext(path: string, status: number, body: unknown): void;
  /** Sets what is left of the budget (300 per 5 minutes) and when it resets; a request over it gets 429. */
  setBudget(remaining: number, resetAt: Date): void;
  /** Revokes every token, as a person removing Herald under Preferences, Account, Authorized apps. */
  revokeAll(): void;
  /** A status the person wrote in Mastodon itself. */
  postExternally(text: string, metrics?: { favourites?: number; reblogs?: number; replies?: number }): FakeStatus;
  tokens(): number;
  close(): Promise<void>;
}

function parseMultipart(
  body: Buffer,
  contentType: string,
): Record<string, { value: Buffer; filename?: string; type?: string }> {
  const boundary = /boundary=([^;]+)/.exec(contentType)?.[1];
  const fields: Record<string, { value: Buffer; filename?: string; type?: string }> = {};
  if (!boundary) return fields;
  const text = body.toString('latin1');
  for (const part of text.split(`--${boundary}`)) {
    const split = part.indexOf('\r\n\r\n');
    if (split < 0) continue;
    const head = part.slice(0, split);
    const name = /name="([^"]*)"/.exec(head)?.[1];
    if (!name) continue;
    const value = Buffer.from(part.slice(split + 4).replace(/\r\n$/, ''), 'latin1');
    fields[name] = {
      value,
      filename: /filename="([^"]*)"/.exec(head)?.[1],
      type: /Content-Type: ([^\r\n]+)/i.exec(head)?.[1],
    };
  }
  return fields;
}

function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

/** Mastodon renders a status's text as HTML paragraphs with <br> for line breaks. */
function toHtml(text: string): string {
  return text
    .split(/\n{2,}/)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br />')}</p>`)
    .join('');
}

export async function startFakeMastodon(options: { maxCharacters?: number } = {}): Promise<FakeMastodon> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}`;
  const host = `127.0.0.1:${port}`;
  const account = {
    id: '109348',
    username: 'alice',
    display_name: 'Alice',
    avatar: `${url}/avatars/alice.png`,
    followers_count: 42,
  };
  const apps: Registration[] = [];
  const codes = new Map<string, { clientId: string; redirectUri: string; challenge: string; scope: string }>();
  const tokens = new Map<string, { clientId: string; scope: string }>();
  const media = new Map<
    string,
    { id: string; type: string; url: string | null; description: string | null; polls: number }
  >();
  const idempotency = new Map<string, { statusId: string; at: number }>();
  const statuses: FakeStatus[] = [];
  const requests: string[] = [];
  const scripted = new Map<string, { status: number; body: unknown; headers: Record<string, string> }>();
  const dropped = new Set<string>();
  const failedLate = new Map<string, { status: number; body: unknown }>();
  let nextId = 110_000_000_000_000_000n;
  const newId = () => String(++nextId);
  let remaining = 300;
  let resetAt = new Date(Date.now() + 300_000);

  const fake: FakeMastodon = {
    url,
    host,
    account,
    apps,
    statuses,
    requests,
    maxCharacters: options.maxCharacters ?? 500,
    maxMediaAttachments: 4,
    imageSizeLimit: 16777216,
    denyNext: false,
    failNext(path, status, body, headers = {}) {
      scripted.set(path, { status, body, headers });
    },
    setBudget(left, at) {
      remaining = left;
      resetAt = at;
    },
    failAfterHandlingNext(path, status, body) {
      failedLate.set(path, { status, body });
    },
    dropAnswerNext(path) {
      dropped.add(path);
    },
    revokeAll() {
      tokens.clear();
    },
    postExternally(text, metrics = {}) {
      const status = makeStatus(text, {}, null);
      status.favourites_count = metrics.favourites ?? 0;
      status.reblogs_count = metrics.reblogs ?? 0;
      status.replies_count = metrics.replies ?? 0;
      return status;
    },
    tokens: () => tokens.size,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };

  function makeStatus(text: string, params: Record<string, any>, key: string | null): FakeStatus {
    const id = newId();
    const status: FakeStatus = {
      id,
      created_at: new Date().toISOString(),
      in_reply_to_id: params.in_reply_to_id ?? null,
      sensitive: params.sensitive === true || params.sensitive === 'true',
      spoiler_text: params.spoiler_text ?? '',
      visibility: params.visibility ?? 'public',
      language: params.language ?? null,
      uri: `${url}/users/${account.username}/statuses/${id}`,
      url: `${url}/@${account.username}/${id}`,
      replies_count: 0,
      reblogs_count: 0,
      favourites_count: 0,
      content: toHtml(text),
      media_attachments: (params.media_ids ?? []).map((mid: string) => {
        const m = media.get(mid)!;
        return { id: m.id, type: m.type, url: m.url, description: m.description };
      }),
      account: { id: account.id, username: account.username },
      idempotencyKey: key,
    };
    if (status.in_reply_to_id) {
      const parent = statuses.find((s) => s.id === status.in_reply_to_id);
      if (parent) parent.replies_count++;
    }
    statuses.push(status);
    return status;
  }

  server.on('request', (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const target = new URL(req.url ?? '/', url);
      requests.push(`${req.method} ${target.pathname}`);
      if (Date.now() >= resetAt.getTime()) {
        remaining = 300;
        resetAt = new Date(Date.now() + 300_000);
      }
      const overBudget = remaining === 0;
      remaining = Math.max(0, remaining - 1);
      const rateHeaders = {
        'x-ratelimit-limit': '300',
        'x-ratelimit-remaining': String(remaining),
        'x-ratelimit-reset': resetAt.toISOString(),
      };
      const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
        if (dropped.delete(target.pathname)) {
          req.socket.destroy();
          return;
        }
        const late = failedLate.get(target.pathname);
        if (late) {
          failedLate.delete(target.pathname);
          res
            .writeHead(late.status, { 'content-type': 'application/json; charset=utf-8', ...rateHeaders })
            .end(JSON.stringify(late.body));
          return;
        }
        res
          .writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...rateHeaders, ...headers })
          .end(JSON.stringify(payload));
      };
      if (overBudget) {
        send(429, { error: 'Too many requests' });
        return;
      }
      const script = scripted.get(target.pathname);
      if (script) {
        scripted.delete(target.pathname);
        send(script.status, script.body, script.headers);
        return;
      }
      const contentType = String(req.headers['content-type'] ?? '');
      let params: Record<string, any> = Object.fromEntries(target.searchParams);
      if (contentType.startsWith('application/json') && body.length > 0)
        params = { ...params, ...JSON.parse(body.toString('utf8')) };
      if (contentType.startsWith('application/x-www-form-urlencoded')) {
        const form = new URLSearchParams(body.toString('utf8'));
        for (const [k, v] of form) {
          if (k.endsWith('[]')) (params[k.slice(0, -2)] ??= []).push(v);
          else params[k] = v;
        }
      }
      const bearer = /^Bearer (.+)$/.exec(String(req.headers.authorization ?? ''))?.[1];
      const token = bearer ? tokens.get(bearer) : undefined;
      const needToken = () => {
        if (!token) send(401, { error: 'The access token is invalid' });
        return Boolean(token);
      };
      const path = target.pathname;

      if (req.method === 'POST' && path === '/api/v1/apps') {
        if (!params.client_name || !params.redirect_uris)
          return send(422, {
            error: "Validation failed: Application name can't be blank, Redirect URI can't be blank",
          });
        try {
          new URL(params.redirect_uris);
        } catch {
          return send(422, { error: 'Validation failed: Redirect URI must be an absolute URI.' });
        }
        const app = {
          clientId: crypto.randomBytes(16).toString('hex'),
          clientSecret: crypto.randomBytes(16).toString('hex'),
          redirectUri: params.redirect_uris,
          scopes: params.scopes ?? 'read',
        };
        apps.push(app);
        return send(200, {
          id: String(apps.length),
          name: params.client_name,
          website: params.website ?? null,
          redirect_uri: app.redirectUri,
          client_id: app.clientId,
          client_secret: app.clientSecret,
          vapid_key: 'BCk-QqERU0q-CfYZjcuB6lnyyOYfJ2AifKqfeGIm7Z-HiTU5T9eTG5GxVA0_OH5mMlI4UkkDTpaZwozy0TzdZ2M=',
        });
      }
      if (req.method === 'GET' && path === '/oauth/authorize') {
        const app = apps.find((a) => a.clientId === params.client_id);
        if (!app || app.redirectUri !== params.redirect_uri || params.response_type !== 'code') {
          res.writeHead(400, { 'content-type': 'text/html' }).end('<p>The redirect uri included is not valid.</p>');
          return;
        }
        const back = new URL(params.redirect_uri);
        if (params.state) back.searchParams.set('state', params.state);
        if (fake.denyNext) {
          fake.denyNext = false;
          back.searchParams.set('error', 'access_denied');
          back.searchParams.set('error_description', 'The resource owner or authorization server denied the request.');
        } else {
          if (params.code_challenge_method !== 'S256' || !params.code_challenge) {
            res.writeHead(400, { 'content-type': 'text/html' }).end('<p>Code challenge method must be S256.</p>');
            return;
          }
          const code = crypto.randomBytes(16).toString('hex');
          codes.set(code, {
            clientId: app.clientId,
            redirectUri: app.redirectUri,
            challenge: params.code_challenge,
            scope: params.scope ?? 'read',
          });
          back.searchParams.set('code', code);
        }
        res.writeHead(302, { location: back.toString() }).end();
        return;
      }
      if (req.method === 'POST' && path === '/oauth/token') {
        const grant = codes.get(params.code);
        const app = apps.find((a) => a.clientId === params.client_id && a.clientSecret === params.client_secret);
        const invalid = {
          error: 'invalid_grant',
          error_description:
            'The provided authorization grant is invalid, expired, revoked, does not match the ' +
            'redirection URI used in the authorization request, or was issued to another client.',
        };
        if (!app)
          return send(401, {
            error: 'invalid_client',
            error_description:
              'Client authentication failed due to unknown client, ' +
              'no client authentication included, or unsupported authentication method.',
          });
        if (
          params.grant_type !== 'authorization_code' ||
          !grant ||
          grant.clientId !== app.clientId ||
          grant.redirectUri !== params.redirect_uri
        )
          return send(400, invalid);
        const verifierHash = crypto
          .createHash('sha256')
          .update(String(params.code_verifier ?? ''))
          .digest('base64url');
        if (verifierHash !== grant.challenge) return send(400, invalid);
        codes.delete(params.code);
        const accessToken = crypto.randomBytes(24).toString('base64url');
        tokens.set(accessToken, { clientId: app.clientId, scope: grant.scope });
        return send(200, {
          access_token: accessToken,
          token_type: 'Bearer',
          scope: grant.scope,
          created_at: Math.floor(Date.now() / 1000),
        });
      }
      if (req.method === 'POST' && path === '/oauth/revoke') {
        const app = apps.find((a) => a.clientId === params.client_id && a.clientSecret === params.client_secret);
        if (!app)
          return send(403, {
            error: 'unauthorized_client',
            error_description: 'You are not authorized to revoke this token',
          });
        tokens.delete(params.token);
        return send(200, {});
      }
      if (req.method === 'GET' && path === '/api/v1/accounts/verify_credentials') {
        if (!needToken()) return;
        return send(200, {
          ...account,
          acct: account.username,
          url: `${url}/@${account.username}`,
          locked: false,
          bot: false,
          note: '',
        });
      }
      if (req.method === 'GET' && path === '/api/v2/instance') {
        return send(200, {
          domain: host,
          title: 'Fake Mastodon',
          version: '4.3.0',
          configuration: {
            statuses: {
              max_characters: fake.maxCharacters,
              max_media_attachments: fake.maxMediaAttachments,
              characters_reserved_per_url: 23,
            },
            media_attachments: {
              supported_mime_types: ['image/jpeg', 'image/png', 'image/gif', 'video/mp4'],
              image_size_limit: fake.imageSizeLimit,
              video_size_limit: 103809024,
            },
          },
        });
      }
      if (req.method === 'POST' && path === '/api/v2/media') {
        if (!needToken()) return;
        const form = parseMultipart(body, contentType);
        if (!form.file) return send(422, { error: 'Validation failed: File content type is invalid, File is invalid' });
        const id = newId();
        // Images are processed asynchronously here, as large files are: 202 with url null, then 206 until done.
        media.set(id, {
          id,
          type: String(form.file.type).startsWith('video/') ? 'video' : 'image',
          url: null,
          description: form.description?.value.toString('utf8') ?? null,
          polls: 0,
        });
        const m = media.get(id)!;
        return send(202, { id, type: m.type, url: null, preview_url: null, description: m.description });
      }
      const mediaMatch = /^\/api\/v1\/media\/(\d+)$/.exec(path);
      if (req.method === 'GET' && mediaMatch) {
        if (!needToken()) return;
        const m = media.get(mediaMatch[1]);
        if (!m) return send(404, { error: 'Record not found' });
        m.polls++;
        if (m.polls < 2) return send(206, { id: m.id, type: m.type, url: null, description: m.description });
        m.url = `${url}/system/media_attachments/${m.id}.png`;
        return send(200, { id: m.id, type: m.type, url: m.url, description: m.description });
      }
      if (req.method === 'POST' && path === '/api/v1/statuses') {
        if (!needToken()) return;
        const key = req.headers['idempotency-key'] ? `${bearer}:${req.headers['idempotency-key']}` : null;
        const seen = key ? idempotency.get(key) : undefined;
        if (seen && Date.now() - seen.at < 3_600_000)
          return send(
            200,
            statuses.find((s) => s.id === seen.statusId),
          );
        const text = String(params.status ?? '');
        const mediaIds: string[] = params.media_ids ?? [];
        if (!text && mediaIds.length === 0) return send(422, { error: "Validation failed: Text can't be blank" });
        if ([...text].length > fake.maxCharacters)
          return send(422, { error: `Validation failed: Text character limit of ${fake.maxCharacters} exceeded` });
        if (mediaIds.length > fake.maxMediaAttachments)
          return send(422, {
            error: `Validation failed: Media attachments must be ${fake.maxMediaAttachments} or fewer`,
          });
        for (const mid of mediaIds) {
          const m = media.get(mid);
          if (!m) return send(422, { error: 'Validation failed: Media attachments are invalid' });
          if (!m.url)
            return send(422, {
              error: 'Cannot attach files that have not finished processing. Try again in a moment!',
            });
        }
        if (params.in_reply_to_id && !statuses.some((s) => s.id === params.in_reply_to_id))
          return send(404, { error: 'Record not found' });
        const status = makeStatus(
          text,
          { ...params, media_ids: mediaIds },
          req.headers['idempotency-key'] ? String(req.headers['idempotency-key']) : null,
        );
        if (key) idempotency.set(key, { statusId: status.id, at: Date.now() });
        return send(200, status);
      }
      const contextMatch = /^\/api\/v1\/statuses\/(\d+)\/context$/.exec(path);
      if (req.method === 'GET' && contextMatch) {
        // GET /api/v1/statuses/:id/context: ancestors and descendants in thread order.
        const status = statuses.find((s) => s.id === contextMatch[1]);
        if (!status) return send(404, { error: 'Record not found' });
        const below = (id: string): FakeStatus[] =>
          statuses.filter((s) => s.in_reply_to_id === id).flatMap((s) => [s, ...below(s.id)]);
        const above: FakeStatus[] = [];
        for (
          let up = statuses.find((s) => s.id === status.in_reply_to_id);
          up;
          up = statuses.find((s) => s.id === up!.in_reply_to_id)
        )
          above.unshift(up);
        const plain = ({ idempotencyKey: _key, ...s }: FakeStatus) => s;
        return send(200, { ancestors: above.map(plain), descendants: below(status.id).map(plain) });
      }
      const listMatch = /^\/api\/v1\/accounts\/(\d+)\/statuses$/.exec(path);
      if (req.method === 'GET' && listMatch) {
        if (!needToken()) return;
        const limit = Math.min(40, Number(params.limit ?? 20));
        let list = [...statuses].reverse().filter((s) => s.account.id === listMatch[1]);
        if (params.exclude_replies === 'true') list = list.filter((s) => !s.in_reply_to_id);
        if (params.max_id) list = list.filter((s) => BigInt(s.id) < BigInt(params.max_id));
        const page = list.slice(0, limit);
        const link: Record<string, string> =
          page.length === limit ? { link: `<${url}${path}?max_id=${page[page.length - 1].id}>; rel="next"` } : {};
        return send(
          200,
          page.map(({ idempotencyKey: _key, ...s }) => s),
          link,
        );
      }
      send(404, { error: 'Record not found' });
    });
  });
  return fake;
}
