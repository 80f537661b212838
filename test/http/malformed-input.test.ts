/**
 * Inputs that once answered Express's HTML error page (with a stack and absolute paths) or a 500: each
 * must now get a 4xx in the shape of the surface that was called, and no answer of any surface may carry
 * a stack frame or the checkout's path.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import net, { type AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { callTool } from '../mcp/support.js';
import { assertNoLeak } from '../support/no-leak.js';
import { raw } from '../support/raw-http.js';
import { restOperations } from '../support/rest-operations.js';

/** Bytes written straight to the socket (no HTTP client would send these); resolves with all that came back. */
function rawSocket(url: string, request: string): Promise<string> {
  const target = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(target.port), target.hostname, () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
  });
}

/** JSON text nested `depth` objects deep (built as text: JSON.stringify would overflow first). */
function nested(depth: number): string {
  return `${'{"a":'.repeat(depth)}"leaf"${'}'.repeat(depth)}`;
}

describe(`malformed input at every surface (${TEST_DB})`, function () {
  this.timeout(60_000);
  let h: TestHerald;
  let account: SeededAccount;
  let origin: http.Server;
  let originUrl: string;

  before(async () => {
    origin = http.createServer((req, res) => {
      // /to?<location>: a redirect to exactly that Location; anything else: a malformed path.
      const location = req.url?.startsWith('/to?') ? decodeURIComponent(req.url.slice(4)) : '/%E0%A4%A';
      res.writeHead(302, { location });
      res.end();
    });
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.2', resolve));
    originUrl = `http://127.0.0.2:${(origin.address() as AddressInfo).port}`;
    // The redirecting origin is on loopback, which the SSRF guard refuses unless it is listed.
    h = await startTestHerald({ outboundAllowHosts: ['127.0.0.2'] });
    account = await h.seedAccount();
  });
  after(async () => {
    await h?.close();
    origin?.close();
  });

  const junk = Buffer.from('this is not compressed at all, not even a little');
  const encodings = ['gzip', 'deflate', 'br'];

  it('answers junk Content-Encoding on every REST route with a body with a REST 4xx', async () => {
    const withBodies = restOperations().filter((o) => o.hasBody);
    assert.ok(withBodies.length >= 17, `only ${withBodies.length} REST operations with bodies found`);
    for (const { method, path } of withBodies) {
      const concrete = path.replace(/\{[^}]+\}/g, 'p1');
      for (const encoding of encodings) {
        const answer = await raw(`${h.url}${concrete}`, {
          method,
          body: junk,
          headers: {
            'content-type': 'application/json',
            'content-encoding': encoding,
            authorization: `Bearer ${account.apiKey}`,
          },
        });
        assert.ok(
          answer.status >= 400 && answer.status < 500,
          `${method} ${path} ${encoding}: ${answer.status} ${answer.body}`,
        );
        const body = JSON.parse(answer.body);
        assert.equal(body.status, false);
        assert.equal(typeof body.message, 'string');
        assertNoLeak(answer.body, `${path} ${encoding}`);
      }
    }
    const compressed = await raw(`${h.url}/v1/rest/posts`, {
      method: 'POST',
      body: zlib.gzipSync(
        JSON.stringify({ text: 'gzip works', channelIds: [account.channelIds[0]], saveAsDraft: true }),
      ),
      headers: {
        'content-type': 'application/json',
        'content-encoding': 'gzip',
        authorization: `Bearer ${account.apiKey}`,
      },
    });
    assert.ok(compressed.status < 500, compressed.body);
  });

  it('answers junk Content-Encoding and UTF-16 on the OAuth endpoints with an RFC 6749/7591 body', async () => {
    for (const path of ['/oauth2/mcp/register', '/oauth2/mcp/token']) {
      const type = path.endsWith('register') ? 'application/json' : 'application/x-www-form-urlencoded';
      for (const headers of [
        ...encodings.map((e) => ({ 'content-type': type, 'content-encoding': e })),
        { 'content-type': `${type}; charset=utf-16` },
      ]) {
        const answer = await raw(`${h.url}${path}`, { method: 'POST', body: junk, headers });
        assert.ok(
          answer.status >= 400 && answer.status < 500,
          `${path} ${JSON.stringify(headers)}: ${answer.status} ${answer.body}`,
        );
        const body = JSON.parse(answer.body);
        assert.equal(typeof body.error, 'string');
        assert.equal(typeof body.error_description, 'string');
        assertNoLeak(answer.body, path);
      }
    }
  });

  it('answers junk Content-Encoding on /mcp with a JSON-RPC error', async () => {
    for (const encoding of encodings) {
      const answer = await raw(`${h.url}/mcp`, {
        method: 'POST',
        body: junk,
        headers: {
          'content-type': 'application/json',
          'content-encoding': encoding,
          authorization: `Bearer ${account.apiKey}`,
        },
      });
      assert.ok(answer.status >= 400 && answer.status < 500, `${encoding}: ${answer.status} ${answer.body}`);
      const body = JSON.parse(answer.body);
      assert.equal(body.jsonrpc, '2.0');
      assert.equal(typeof body.error.code, 'number');
      assertNoLeak(answer.body, `/mcp ${encoding}`);
    }
  });

  it('answers overlong UTF-8 and broken percent-encodings in every REST path parameter with a REST 400', async () => {
    const withParams = restOperations().filter((o) => o.path.includes('{'));
    assert.ok(withParams.length >= 16, `only ${withParams.length} REST operations with path parameters found`);
    for (const { method, path, hasBody } of withParams) {
      for (const bad of ['%C0%AE', '%E0%A4%A', '%FF']) {
        const concrete = path.replace(/\{[^}]+\}/g, bad);
        const body = hasBody ? '{}' : undefined;
        const answer = await raw(h.url, {
          method,
          path: concrete,
          body,
          headers: { 'content-type': 'application/json', authorization: `Bearer ${account.apiKey}` },
        });
        assert.equal(answer.status, 400, `${method} ${concrete}: ${answer.status} ${answer.body}`);
        const error = JSON.parse(answer.body);
        assert.equal(error.status, false);
        assert.match(error.message, /percent-encoding/);
        assertNoLeak(answer.body, concrete);
      }
    }
  });

  it('answers bad percent-encodings in paths and cookies without a stack', async () => {
    const cases: [string, string, Record<string, string>?][] = [
      ['/v1/rest/posts/%C0%AE', 'rest'],
      ['/v1/rest/posts/%E0%A4%A', 'rest'],
      ['/media/%C0%AE/a.png', 'rest'],
      ['/calendars/%C0%AE', 'page'],
      ['/sandbox/%E0%A4%A/x', 'page'],
      [
        '/oauth2/mcp/authorize?response_type=code',
        'page',
        { cookie: 'herald_web_sign_in=%E0%A4%A; herald_web_csrf=%' },
      ],
    ];
    for (const [path, shape, headers] of cases) {
      const answer = await raw(h.url, { path, headers: { authorization: `Bearer ${account.apiKey}`, ...headers } });
      assert.ok(answer.status >= 400 && answer.status < 500, `${path}: ${answer.status} ${answer.body}`);
      if (shape === 'rest') assert.equal(JSON.parse(answer.body).status, false, path);
      else assert.match(answer.headers['content-type'] ?? '', /text\/html/, path);
      assertNoLeak(answer.body, path);
    }
  });

  it('refuses JSON nested 5,000 deep: REST with an Idempotency-Key, MCP ids and arguments', async () => {
    const rest = await h.api('POST', '/v1/rest/posts', {
      token: account.apiKey,
      headers: { 'idempotency-key': 'deep-1', 'content-type': 'application/json' },
      rawBody: `{"text":"deep","channelIds":["${account.channelIds[0]}"],"channelOptions":${nested(5_000)}}`,
    });
    assert.equal(rest.status, 400);
    assert.match(rest.body.message, /nested deeper than 64/);

    const mcp = (body: string) =>
      h.api('POST', '/mcp', {
        token: account.apiKey,
        rawBody: body,
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      });
    const id = await mcp(`{"jsonrpc":"2.0","id":${nested(5_000)},"method":"ping"}`);
    assert.equal(id.status, 400);
    assert.equal(id.body.error.code, -32600);
    assert.match(id.body.error.message, /nested deeper than 64/);

    const args = await mcp(
      '{"jsonrpc":"2.0","id":1,"method":"tools/call",' +
        `"params":{"name":"create_text_post","arguments":{"text":"deep","extra":${nested(5_000)}}}}`,
    );
    assert.equal(args.status, 400);
    assert.match(args.body.error.message, /nested deeper than 64/);
  });

  it(
    'refuses NUL characters anywhere with a 400 that says so, ' +
      'and other control characters in image prompts as a tool error',
    async () => {
      const nul = await callTool(h, account.apiKey, 'generate_image', { prompt: 'a red\u0000balloon' });
      assert.equal(nul.status, 400, JSON.stringify(nul.body));
      assert.match(nul.body.error.message, /NUL character/);
      const rest = await h.api('GET', '/v1/rest/posts/abc%00def', { token: account.apiKey });
      assert.equal(rest.status, 400);
      assert.match(rest.body.message, /NUL character/);
      const answer = await callTool(h, account.apiKey, 'generate_image', { prompt: 'a red\u0007balloon' });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.result.isError, true, JSON.stringify(answer.body));
      assert.match(answer.body.result.content[0].text, /control character U\+0007/);
      assertNoLeak(JSON.stringify(answer.body), 'generate_image');
    },
  );

  it('answers a media import whose redirect has a malformed Location as a tool error', async () => {
    const answer = await callTool(h, account.apiKey, 'import_media_from_url', { url: `${originUrl}/start.png` });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.result.isError, true, JSON.stringify(answer.body));
    assertNoLeak(JSON.stringify(answer.body), 'import_media_from_url');
  });

  it('answers a media import whose redirect Location is not a URL as a tool error naming it', async () => {
    for (const location of ['http://[oops/', '//%zz', 'http://%E0%A4%A/', 'https://:80/']) {
      const answer = await callTool(h, account.apiKey, 'import_media_from_url', {
        url: `${originUrl}/to?${encodeURIComponent(location)}`,
      });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      assert.equal(answer.body.result?.isError, true, `${location}: ${JSON.stringify(answer.body)}`);
      assert.match(answer.body.result.content[0].text, /redirect/i, location);
      assertNoLeak(JSON.stringify(answer.body), 'import_media_from_url');
    }
  });

  it('refuses the NUL character (U+0000) in URLs and bodies on every surface, in its shape', async () => {
    const auth = { authorization: `Bearer ${account.apiKey}` };
    const json = { ...auth, 'content-type': 'application/json' };
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const cases: [
      string,
      { method?: string; path: string; headers?: Record<string, string>; body?: string },
      'rest' | 'oauth' | 'page' | 'mcp',
    ][] = [
      ['query', { path: '/v1/rest/labels?workspaceId=a%00', headers: auth }, 'rest'],
      [
        'REST body',
        {
          method: 'POST',
          path: '/v1/rest/labels',
          headers: json,
          body: JSON.stringify({ name: 'a\u0000b', color: '#22aa55' }),
        },
        'rest',
      ],
      ['media file', { path: '/media/%00/x.png' }, 'rest'],
      [
        'media upload',
        {
          method: 'PUT',
          path: '/media/uploads/%00?expires=1&sig=x',
          headers: { 'content-type': 'image/png' },
          body: 'x',
        },
        'rest',
      ],
      ['sandbox page', { path: '/sandbox/%00/x' }, 'page'],
      [
        'authorize page',
        {
          path:
            '/oauth2/mcp/authorize?response_type=code&client_id=%00&redirect_uri=http%3A%2F%2Flocalhost%2Fcb' +
            '&code_challenge=x&code_challenge_method=S256',
        },
        'page',
      ],
      [
        'revocation form',
        { method: 'POST', path: '/oauth2/mcp/revoke', headers: form, body: 'token=a%00&client_id=%00' },
        'oauth',
      ],
      [
        'registration',
        {
          method: 'POST',
          path: '/oauth2/mcp/register',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ redirect_uris: ['http://localhost/cb'], client_name: 'a\u0000' }),
        },
        'oauth',
      ],
      [
        'tool arguments',
        {
          method: 'POST',
          path: '/mcp',
          headers: { ...json, accept: 'application/json' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 1,
            method: 'tools/call',
            params: { name: 'label_create', arguments: { name: 'a\u0000', color: '#22aa55' } },
          }),
        },
        'mcp',
      ],
    ];
    for (const [what, request, shape] of cases) {
      const answer = await raw(h.url, request);
      assert.equal(answer.status, 400, `${what}: ${answer.status} ${answer.body}`);
      assert.match(answer.body, /NUL character \(U\+0000/, what);
      if (shape === 'rest') assert.equal(JSON.parse(answer.body).status, false, what);
      if (shape === 'oauth')
        assert.equal(
          JSON.parse(answer.body).error,
          what === 'registration' ? 'invalid_client_metadata' : 'invalid_request',
          what,
        );
      if (shape === 'mcp') assert.equal(JSON.parse(answer.body).error.code, -32600, what);
      if (shape === 'page') assert.match(answer.headers['content-type'] ?? '', /text\/html/, what);
      assertNoLeak(answer.body, what);
    }
  });

  it(
    'answers requests the HTTP parser refuses (an overlong URL, a broken header) ' + 'with the REST error body',
    async () => {
      const long = await raw(h.url, {
        path: `/v1/rest/posts/${'z'.repeat(70_000)}`,
        headers: { authorization: `Bearer ${account.apiKey}` },
      });
      assert.equal(long.status, 431, long.body);
      assert.deepEqual(JSON.parse(long.body), {
        status: false,
        code: 'request_too_large',
        message: 'The URL and headers together are larger than 16 KB; shorten them.',
      });
      const broken = await rawSocket(h.url, 'GET /v1/rest/channels HTTP/1.1\r\nHost: x\r\nBad Header: y\r\n\r\n');
      assert.match(broken, /^HTTP\/1\.1 400 /);
      assert.equal(JSON.parse(broken.slice(broken.indexOf('\r\n\r\n') + 4)).code, 'invalid_request');
    },
  );

  it('still answers /healthz', async () => {
    assert.equal((await fetch(`${h.url}/healthz`)).status, 200);
  });
});
