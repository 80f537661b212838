/**
 * Client ID Metadata Documents: the v2 MCP client names itself by the https URL of its document (served here by
 * a loopback server that Herald reaches over http, as OAUTH_CLIENT_METADATA_HTTP_HOSTS allows for tests) and
 * goes through consent and the token endpoint to its tools; documents Herald must not trust are refused on a
 * page naming the problem, and never cached; valid ones are cached by their HTTP caching headers.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  Client,
  StreamableHTTPClientTransport,
  UnauthorizedError,
  type OAuthClientInformationMixed,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type OAuthTokens,
} from '@modelcontextprotocol/client';
import {
  CACHE_CEILING_MS,
  CACHE_DEFAULT_MS,
  CACHE_FLOOR_MS,
  freshnessLifetimeMs,
} from '../../src/domain/oauth/client-metadata-documents.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { authorizeUrl, FormUser, pkcePair, REDIRECT_URI } from './support.js';

interface Served {
  status?: number;
  headers?: Record<string, string>;
  /** A document object (sent as JSON) or the raw body. */
  body: unknown;
  delayMs?: number;
}

/** The client's web site: documents by path, and how many times Herald asked for each. */
class DocumentHost {
  readonly documents = new Map<string, Served>();
  readonly fetches = new Map<string, number>();
  private server!: http.Server;
  origin = '';

  async start(): Promise<void> {
    this.server = http.createServer((req, res) => {
      const path = req.url ?? '';
      this.fetches.set(path, (this.fetches.get(path) ?? 0) + 1);
      const served = this.documents.get(path);
      if (!served) return void res.writeHead(404).end();
      setTimeout(() => {
        if (res.destroyed) return;
        const body = typeof served.body === 'string' ? served.body : JSON.stringify(served.body);
        res.writeHead(served.status ?? 200, { 'content-type': 'application/json', ...served.headers });
        res.end(body);
      }, served.delayMs ?? 0);
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.origin = `https://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  /** Serves a valid document at `path` (overridden by `fields`) and returns its client_id. */
  serve(path: string, fields: Record<string, unknown> = {}, served: Omit<Served, 'body'> = {}): string {
    const clientId = this.origin + path;
    this.documents.set(path, {
      ...served,
      body: {
        client_id: clientId,
        client_name: 'Notes Desk',
        redirect_uris: [REDIRECT_URI],
        application_type: 'native',
        token_endpoint_auth_method: 'none',
        ...fields,
      },
    });
    return clientId;
  }

  count(path: string): number {
    return this.fetches.get(path) ?? 0;
  }
}

class MetadataUrlProvider implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  saved: OAuthTokens | undefined;
  verifier = '';
  discovery: OAuthDiscoveryState | undefined;
  callback: URL | undefined;

  constructor(
    readonly clientMetadataUrl: string,
    private readonly user: FormUser,
    private readonly account: { email: string; password: string },
  ) {}

  get redirectUrl() {
    return REDIRECT_URI;
  }
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: 'Notes Desk',
      redirect_uris: [REDIRECT_URI],
      token_endpoint_auth_method: 'none',
    } as OAuthClientMetadata;
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.saved;
  }
  saveTokens(tokens: OAuthTokens) {
    this.saved = tokens;
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
  async redirectToAuthorization(url: URL) {
    this.callback = await this.user.authorize(url.href, this.account, 'approve');
  }
}

function authorization(h: TestHerald, clientId: string, redirectUri = REDIRECT_URI): string {
  return authorizeUrl(h, {
    client_id: clientId,
    redirect_uri: redirectUri,
    response_type: 'code',
    code_challenge: pkcePair().challenge,
    code_challenge_method: 'S256',
    state: 's1',
  });
}

describe(`Client ID Metadata Documents (${TEST_DB})`, () => {
  const site = new DocumentHost();
  let h: TestHerald;
  let account: SeededAccount;
  const realNow = Date.now;

  before(async () => {
    await site.start();
    // The client's metadata documents are served from loopback, which the SSRF guard refuses unless it is listed.
    h = await startTestHerald({
      outboundAllowHosts: ['127.0.0.1'],
      clientMetadataDocuments: { timeoutMs: 500, plainHttpHosts: ['127.0.0.1'] },
    });
    account = await h.seedAccount();
  });
  after(async () => {
    await h.close();
    await site.close();
  });
  afterEach(() => {
    h.deps.now = realNow;
  });

  it('advertises client_id_metadata_document_supported in the authorization server metadata', async () => {
    const { status, body } = await h.api('GET', '/.well-known/oauth-authorization-server');
    assert.equal(status, 200);
    assert.equal(body.client_id_metadata_document_supported, true);
  });

  it(
    'lets the v2 client connect with its metadata URL as client_id, ' +
      'through consent and the token endpoint, fetching the document once',
    async () => {
      const clientId = site.serve('/v2/client.json', {}, { headers: { 'cache-control': 'max-age=600' } });
      const provider = new MetadataUrlProvider(clientId, new FormUser(h.url), account);
      const connect = () => {
        const transport = new StreamableHTTPClientTransport(new URL(h.url + '/mcp'), { authProvider: provider });
        const client = new Client(
          { name: 'notes-desk', version: '1.0.0' },
          { versionNegotiation: { mode: { pin: '2026-07-28' } } },
        );
        return { client, transport };
      };
      const first = connect();
      await assert.rejects(first.client.connect(first.transport), UnauthorizedError);
      assert.equal(provider.client?.client_id, clientId, 'the client used its URL instead of registering');
      assert.equal(
        await h.herald
          .db('oauth_clients')
          .where({ id: clientId })
          .first()
          .then((row) => row?.client_name),
        'Notes Desk',
      );
      const callback = provider.callback!;
      assert.ok(callback.searchParams.get('code'));
      await first.transport.finishAuth(callback.searchParams);
      assert.match(provider.saved!.access_token, /^hoa_/);
      const family = await h.herald.db('oauth_token_families').where({ client_id: clientId }).first();
      assert.ok(family, 'the token family belongs to the URL client_id');

      const { client, transport } = connect();
      await client.connect(transport);
      const channels = await client.callTool({ name: 'get_channels', arguments: {} });
      assert.notEqual(channels.isError, true, JSON.stringify(channels.content));
      await client.close();
      assert.equal(
        site.count('/v2/client.json'),
        1,
        'three authorization steps and the token exchange shared one fetch',
      );
    },
  );

  it(
    'shows the client name with the host of its client_id on the sign-in and consent pages, ' +
      'and warns about a local redirect',
    async () => {
      const clientId = site.serve('/consent/client.json', { client_name: 'Notes Desk Pro' });
      const user = new FormUser(h.url);
      const signIn = await user.request(authorization(h, clientId));
      assert.equal(signIn.status, 200);
      assert.match(
        signIn.html,
        /Notes Desk Pro <span class="from">from <strong class="host">127\.0\.0\.1:\d+<\/strong>/,
      );
      const consent = await user.request((await user.signIn(signIn, account.email, account.password)).location!);
      assert.match(
        consent.html,
        new RegExp(
          /<h1><span class="client">Notes Desk Pro <span class="from">/.source +
            /from <strong class="host">127\.0\.0\.1:\d+<\/strong><\/span><\/span> /.source +
            /wants to use your Herald account/.source,
        ),
      );
      assert.match(consent.html, /receives your answer on this computer \(127\.0\.0\.1:53682\)/);
    },
  );

  describe('refuses, on a page and without redirecting, a document Herald must not trust', () => {
    const refusals: [string, (path: string) => string, RegExp][] = [
      [
        'a client_id that is not its URL',
        (path) => site.serve(path, { client_id: site.origin + '/someone-else.json' }),
        /its client_id is ".*\/someone-else\.json", but it must equal the document's URL exactly/,
      ],
      [
        'a shared-secret auth method',
        (path) => site.serve(path, { token_endpoint_auth_method: 'client_secret_basic' }),
        /token_endpoint_auth_method is client_secret_basic, a shared secret/,
      ],
      [
        'a client_secret in the document',
        (path) => site.serve(path, { client_secret: 'shh' }),
        /contains client_secret/,
      ],
      [
        'private_key_jwt, which Herald cannot verify',
        (path) => site.serve(path, { token_endpoint_auth_method: 'private_key_jwt' }),
        /must be "none".*does not accept "private_key_jwt"/,
      ],
      [
        'a document without client_name',
        (path) => site.serve(path, { client_name: undefined }),
        /it has no client_name/,
      ],
      [
        'a document without redirect_uris',
        (path) => site.serve(path, { redirect_uris: [] }),
        /redirect_uris must be an array with at least one redirect URI/,
      ],
      [
        'an application_type its redirect URIs contradict',
        (path) => site.serve(path, { application_type: 'web' }),
        /A web application redirects to https on its own host/,
      ],
      [
        'a logo that is not https',
        (path) => site.serve(path, { logo_uri: 'javascript:alert(1)' }),
        /logo_uri must be an https URL/,
      ],
      [
        'a document over 5 KB',
        (path) => site.serve(path, { client_uri: 'https://example.com/' + 'x'.repeat(6000) }),
        /larger than 5120 bytes/,
      ],
      [
        'a document slower than the timeout',
        (path) => site.serve(path, {}, { delayMs: 1500 }),
        /did not answer within 500 ms/,
      ],
      [
        'a page that is not JSON',
        (path) => {
          site.documents.set(path, { body: '<html>hi</html>', headers: { 'content-type': 'text/html' } });
          return site.origin + path;
        },
        /served as "text\/html"; serve it as application\/json/,
      ],
      [
        'a body that does not parse',
        (path) => {
          site.documents.set(path, { body: '{"client_id":' });
          return site.origin + path;
        },
        /it is not valid JSON/,
      ],
      [
        'an error status',
        (path) => {
          site.documents.set(path, { status: 500, body: {} });
          return site.origin + path;
        },
        /answered HTTP 500/,
      ],
      [
        'a redirect elsewhere',
        (path) => {
          site.documents.set(path, { status: 302, headers: { location: '/elsewhere.json' }, body: '' });
          return site.origin + path;
        },
        /redirects elsewhere/,
      ],
      ['an http client_id', (path) => site.origin.replace('https:', 'http:') + path, /a client_id URL must use https/],
      ['a client_id without a path', () => site.origin, /must have a path/],
      [
        'a client_id longer than the 1024 characters Herald stores',
        (path) => site.origin + path + '?' + 'q'.repeat(1100),
        /longer than 1024 characters/,
      ],
      [
        'a client_id with a dot segment',
        (path) => site.origin + '/a/../' + path.slice(1),
        /must not contain "\." or "\.\." path segments/,
      ],
    ];
    refusals.forEach(([what, setUp, message], i) => {
      it(what, async () => {
        const clientId = setUp(`/refused/${i}.json`);
        const page = await new FormUser(h.url).request(authorization(h, clientId));
        assert.equal(page.status, 400, page.html);
        assert.equal(page.location, null);
        assert.match(page.html.replace(/&quot;/g, '"').replace(/&#39;/g, "'"), message);
        assert.equal(
          await h.herald.db('oauth_clients').where({ id: clientId }).first(),
          undefined,
          'nothing invalid is cached',
        );
      });
    });

    it('a redirect_uri the document does not list', async () => {
      const clientId = site.serve('/refused/redirect.json');
      const page = await new FormUser(h.url).request(authorization(h, clientId, 'http://127.0.0.1:53682/elsewhere'));
      assert.equal(page.status, 400);
      assert.equal(page.location, null);
      assert.match(page.html, /not one this application registered/);
    });

    it('a document on a private address when OUTBOUND_ALLOW_HOSTS does not list it', async () => {
      const guarded = await startTestHerald({
        clientMetadataDocuments: { timeoutMs: 500, plainHttpHosts: ['127.0.0.1'] },
      });
      try {
        const clientId = site.serve('/refused/private.json');
        const page = await new FormUser(guarded.url).request(authorization(guarded, clientId));
        assert.equal(page.status, 400);
        assert.match(page.html, /is not an address Herald may fetch from/);
        assert.equal(site.count('/refused/private.json'), 0, 'the guard refused before any request');
      } finally {
        await guarded.close();
      }
    });

    it('and takes the fixed document at once, since a refusal is never cached', async () => {
      const clientId = site.serve('/refused/fixed.json', { client_id: 'https://wrong.example/client.json' });
      assert.equal((await new FormUser(h.url).request(authorization(h, clientId))).status, 400);
      site.serve('/refused/fixed.json');
      assert.equal((await new FormUser(h.url).request(authorization(h, clientId))).status, 200);
    });
  });

  it('refuses a metadata document client at the token endpoint when the document cannot be had', async () => {
    const response = await fetch(h.url + '/oauth2/mcp/token', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code: 'hac_nothing',
        redirect_uri: REDIRECT_URI,
        code_verifier: pkcePair().verifier,
        client_id: site.origin + '/missing.json',
      }).toString(),
    });
    assert.equal(response.status, 400, 'no Authorization header was sent, so no 401 challenge (RFC 6749 section 5.2)');
    assert.equal(((await response.json()) as { error: string }).error, 'invalid_client');
    assert.equal(site.count('/missing.json'), 1, 'a client seen for the first time at the token endpoint is fetched');
  });

  describe('caching', () => {
    const fetchesAfter = async (path: string, clientId: string, offsetMs: number) => {
      h.deps.now = () => realNow() + offsetMs;
      assert.equal((await new FormUser(h.url).request(authorization(h, clientId))).status, 200);
      return site.count(path);
    };

    it('reuses a document within its max-age and fetches it again after', async () => {
      const path = '/cache/max-age.json';
      const clientId = site.serve(path, {}, { headers: { 'cache-control': 'public, max-age=1800' } });
      assert.equal(await fetchesAfter(path, clientId, 0), 1);
      assert.equal(await fetchesAfter(path, clientId, 1790_000), 1, 'still fresh');
      site.serve(path, { client_name: 'Notes Desk 2' }, { headers: { 'cache-control': 'max-age=1800' } });
      assert.equal(await fetchesAfter(path, clientId, 1810_000), 2, 'stale: fetched again');
      assert.equal((await h.herald.db('oauth_clients').where({ id: clientId }).first()).client_name, 'Notes Desk 2');
    });

    it('holds even a no-store document for the floor, and follows Expires', async () => {
      const noStore = '/cache/no-store.json';
      const noStoreId = site.serve(noStore, {}, { headers: { 'cache-control': 'no-store' } });
      assert.equal(await fetchesAfter(noStore, noStoreId, 0), 1);
      assert.equal(await fetchesAfter(noStore, noStoreId, CACHE_FLOOR_MS - 10_000), 1);
      assert.equal(await fetchesAfter(noStore, noStoreId, CACHE_FLOOR_MS + 10_000), 2);

      const expiring = '/cache/expires.json';
      const expiringId = site.serve(
        expiring,
        {},
        { headers: { expires: new Date(realNow() + 2 * 3_600_000).toUTCString() } },
      );
      assert.equal(await fetchesAfter(expiring, expiringId, 0), 1);
      assert.equal(await fetchesAfter(expiring, expiringId, 3_500_000), 1, 'an hour in, within Expires');
      assert.equal(await fetchesAfter(expiring, expiringId, 2 * 3_600_000 + 10_000), 2);
    });

    it('computes lifetimes from the headers, held between the floor and the ceiling', () => {
      const lifetime = (headers: Record<string, string>) =>
        freshnessLifetimeMs({ url: '', status: 200, headers, body: Buffer.alloc(0), truncated: false }, 0);
      assert.equal(lifetime({ 'cache-control': 'max-age=3600' }), 3_600_000);
      assert.equal(
        lifetime({ 'cache-control': 'max-age=3600, s-maxage=7200' }),
        7_200_000,
        's-maxage wins for a shared cache',
      );
      assert.equal(lifetime({ 'cache-control': 'max-age=3600', age: '600' }), 3_000_000);
      assert.equal(lifetime({ 'cache-control': 'max-age=10' }), CACHE_FLOOR_MS);
      assert.equal(lifetime({ 'cache-control': 'max-age=31536000' }), CACHE_CEILING_MS);
      assert.equal(lifetime({ 'cache-control': 'private, max-age=3600' }), CACHE_FLOOR_MS);
      assert.equal(lifetime({ expires: 'not a date' }), CACHE_FLOOR_MS);
      assert.equal(lifetime({}), CACHE_DEFAULT_MS);
    });
  });
});
