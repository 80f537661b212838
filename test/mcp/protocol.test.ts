/**
 * MCP over Streamable HTTP (revisions 2025-03-26, 2025-06-18, 2025-11-25), raw HTTP: the rules the SDK client hides.
 */
import { toolCatalogue } from '../../generated/mcp/catalogue.js';
import assert from 'node:assert/strict';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { insertLivePost } from '../support/posts.js';
import { authorizeUrl, FormUser, pkcePair, REDIRECT_URI, registerClient, tokenRequest } from '../oauth/support.js';
import { callTool, rpc } from './support.js';

describe(`MCP protocol over HTTP (${TEST_DB})`, () => {
  let h: TestHerald;
  let account: SeededAccount;
  before(async () => {
    h = await startTestHerald();
    account = await h.seedAccount();
  });
  after(() => h.close());

  describe('lifecycle', () => {
    for (const version of ['2025-03-26', '2025-06-18', '2025-11-25']) {
      it(`initialize answers ${version} when the client asks for it`, async () => {
        const res = await rpc(h, {
          token: account.apiKey,
          method: 'initialize',
          params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } },
        });
        assert.equal(res.status, 200);
        assert.equal(res.body.result.protocolVersion, version);
        const tasks =
          version === '2025-11-25' ? { tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } } } : {};
        assert.deepEqual(
          res.body.result.capabilities,
          { tools: { listChanged: false }, resources: {}, ...tasks },
          'tasks exist from 2025-11-25',
        );
        assert.equal(res.body.result.serverInfo.name, 'herald');
      });
    }

    it('initialize answers the latest revision for one it does not speak', async () => {
      const res = await rpc(h, {
        token: account.apiKey,
        method: 'initialize',
        params: { protocolVersion: '2024-11-05', capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });
      assert.equal(res.body.result.protocolVersion, '2025-11-25');
    });

    it('answers notifications with 202 and no body, with or without a session id', async () => {
      for (const headers of [{}, { 'mcp-session-id': 'anything' }] as Record<string, string>[]) {
        const res = await rpc(h, {
          token: account.apiKey,
          body: { jsonrpc: '2.0', method: 'notifications/initialized' },
          headers,
        });
        assert.equal(res.status, 202);
        assert.equal(res.body, undefined);
      }
    });

    it('answers ping, and a batch with one answer per request', async () => {
      assert.deepEqual(
        (await rpc(h, { token: account.apiKey, body: { jsonrpc: '2.0', id: 'p', method: 'ping' } })).body,
        { jsonrpc: '2.0', id: 'p', result: {} },
      );
      const batch = await rpc(h, {
        token: account.apiKey,
        body: [
          { jsonrpc: '2.0', id: 1, method: 'ping' },
          { jsonrpc: '2.0', method: 'notifications/initialized' },
          { jsonrpc: '2.0', id: 2, method: 'ping' },
        ],
      });
      assert.equal(batch.status, 200);
      assert.deepEqual(batch.body, [
        { jsonrpc: '2.0', id: 1, result: {} },
        { jsonrpc: '2.0', id: 2, result: {} },
      ]);
    });

    it('accepts a supported MCP-Protocol-Version header and refuses another with 400', async () => {
      assert.equal(
        (await rpc(h, { token: account.apiKey, method: 'ping', headers: { 'mcp-protocol-version': '2025-06-18' } }))
          .status,
        200,
      );
      const res = await rpc(h, {
        token: account.apiKey,
        method: 'ping',
        headers: { 'mcp-protocol-version': '2099-01-01' },
      });
      assert.equal(res.status, 400);
      assert.match(res.body.error.message, /2099-01-01.*2025-11-25/);
    });

    it('answers GET and DELETE with 405', async () => {
      for (const method of ['GET', 'DELETE']) {
        for (const path of ['/mcp', '/mcp/claude']) {
          const res = await h.api(method, path, { token: account.apiKey, headers: { accept: 'text/event-stream' } });
          assert.equal(res.status, 405, `${method} ${path}`);
          assert.equal(res.headers.get('allow'), 'POST');
        }
      }
    });

    it('answers a client that accepts only text/event-stream with one SSE event', async () => {
      const res = await rpc(h, {
        token: account.apiKey,
        body: { jsonrpc: '2.0', id: 7, method: 'ping' },
        headers: { accept: 'text/event-stream' },
      });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
      assert.equal(res.body, 'event: message\ndata: {"jsonrpc":"2.0","id":7,"result":{}}\n\n');
    });
  });

  describe('Origin', () => {
    it('refuses a foreign Origin with 403 and accepts its own and localhost', async () => {
      const foreign = await rpc(h, {
        token: account.apiKey,
        method: 'ping',
        headers: { origin: 'https://evil.example' },
      });
      assert.equal(foreign.status, 403);
      assert.match(foreign.body.error.message, /evil\.example/);
      for (const origin of [h.url, 'http://localhost:5173', 'http://127.0.0.1:9999']) {
        assert.equal(
          (await rpc(h, { token: account.apiKey, method: 'ping', headers: { origin } })).status,
          200,
          origin,
        );
      }
    });
  });

  describe('authentication', () => {
    for (const path of ['/mcp', '/mcp/claude']) {
      it(`401 on ${path} points at its protected resource metadata`, async () => {
        const missing = await rpc(h, { method: 'tools/list', path });
        assert.equal(missing.status, 401);
        assert.equal(
          missing.headers.get('www-authenticate'),
          `Bearer resource_metadata="${h.url}/.well-known/oauth-protected-resource${path}"`,
        );
        const bad = await rpc(h, { token: 'hk_not_a_key', method: 'tools/list', path });
        assert.equal(bad.status, 401);
        assert.match(
          bad.headers.get('www-authenticate') ?? '',
          new RegExp(
            `^Bearer resource_metadata="${h.url}/.well-known/oauth-protected-resource${path}", error="invalid_token"$`,
          ),
        );
      });
    }

    it('accepts an OAuth access token like an API key, with its granted scopes', async () => {
      const { client_id } = await registerClient(h);
      const { verifier, challenge } = pkcePair();
      const redirect = await new FormUser(h.url).authorize(
        authorizeUrl(h, {
          response_type: 'code',
          client_id,
          redirect_uri: REDIRECT_URI,
          code_challenge: challenge,
          code_challenge_method: 'S256',
          resource: h.url + '/mcp',
        }),
        account,
        'approve',
        { manageTeam: false },
      );
      const token = await tokenRequest(h, {
        grant_type: 'authorization_code',
        code: redirect.searchParams.get('code')!,
        code_verifier: verifier,
        redirect_uri: REDIRECT_URI,
        client_id,
        resource: h.url + '/mcp',
      });
      const accessToken = token.body.access_token as string;
      const channels = await callTool(h, accessToken, 'get_channels', {});
      assert.equal(channels.status, 200);
      assert.equal(channels.body.result.structuredContent.data.length, account.channelIds.length);
      assert.equal((await callTool(h, accessToken, 'approval_list_pending', {})).status, 403);
    });

    it('401 for a token lacking manage_post or read_profile', async () => {
      for (const scopes of [['read_profile'], ['manage_post']] as const) {
        const key = await h.createKey(account, [...scopes]);
        const res = await rpc(h, { token: key, method: 'tools/list' });
        assert.equal(res.status, 401, scopes.join());
        assert.match(res.body.error.message, /read_profile and manage_post/);
      }
    });
  });

  describe('errors: isError results versus JSON-RPC errors', () => {
    it('bad arguments come back as an isError result saying what to fix', async () => {
      const res = await callTool(h, account.apiKey, 'create_text_post', {
        text: 'x',
        channelIds: account.channelIds,
        dateTime: 'tomorrow',
        colour: 'red',
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.result.isError, true);
      const message = res.body.result.content[0].text;
      assert.match(message, /dateTime: must match format "date-time"/);
      assert.match(message, /unknown argument "colour"/);
      const missing = await callTool(h, account.apiKey, 'get_channel', {});
      assert.match(missing.body.result.content[0].text, /missing required argument "channelId"/);
    });

    it('domain refusals (live post, unknown channel, past time) are isError results', async () => {
      const live = await insertLivePost(h.deps, account, Date.now() - 1000);
      const res = await callTool(h, account.apiKey, 'delete_post', { postId: live.id });
      assert.equal(res.body.result.isError, true);
      assert.match(res.body.result.content[0].text, /live post.*read only/);
      const channel = await callTool(h, account.apiKey, 'create_text_post', { text: 'x', channelIds: ['missing'] });
      assert.equal(channel.body.result.isError, true);
      const past = await callTool(h, account.apiKey, 'create_text_post', {
        text: 'x',
        channelIds: account.channelIds,
        isScheduled: true,
        dateTime: '2001-01-01T00:00:00Z',
      });
      assert.equal(past.body.result.isError, true);
      assert.match(past.body.result.content[0].text, /future/);
    });

    it('unknown tools, unknown methods and malformed messages are JSON-RPC errors', async () => {
      const tool = await callTool(h, account.apiKey, 'no_such_tool', {});
      assert.equal(tool.status, 200);
      assert.equal(tool.body.error.code, -32602);
      assert.match(tool.body.error.message, /Unknown tool: no_such_tool/);
      const method = await rpc(h, { token: account.apiKey, method: 'prompts/list' });
      assert.equal(method.body.error.code, -32601);
      const parse = await h.api('POST', '/mcp', {
        token: account.apiKey,
        rawBody: '{"jsonrpc": "2.0", ',
        headers: { 'content-type': 'application/json' },
      });
      assert.equal(parse.status, 400);
      assert.equal(parse.body.error.code, -32700);
      const invalid = await rpc(h, { token: account.apiKey, body: [1, 2] });
      assert.equal(invalid.status, 400);
      assert.equal(invalid.body.error.code, -32600);
      const noVersion = await rpc(h, { token: account.apiKey, body: { id: 1, method: 'ping' } });
      assert.equal(noVersion.status, 400);
      assert.equal(noVersion.body.error.code, -32600);
    });

    it('tools/list refuses a cursor it did not issue', async () => {
      const res = await rpc(h, { token: account.apiKey, method: 'tools/list', params: { cursor: 'bogus' } });
      assert.equal(res.body.error.code, -32602);
      assert.match(res.body.error.message, /Invalid cursor/);
    });
  });

  describe('/mcp/claude', () => {
    it('serves the same tools as /mcp except generate_image', async () => {
      const names = async (path: string) =>
        (await rpc(h, { token: account.apiKey, method: 'tools/list', path })).body.result.tools.map(
          (t: { name: string }) => t.name,
        );
      const full = await names('/mcp');
      const claude = await names('/mcp/claude');
      assert.ok(!claude.includes('generate_image'));
      assert.equal(claude.length, full.length - (full.includes('generate_image') ? 1 : 0));
      assert.deepEqual(
        claude,
        full.filter((n: string) => n !== 'generate_image'),
      );
      const call = await callTool(h, account.apiKey, 'generate_image', { prompt: 'a cat' }, '/mcp/claude');
      assert.equal(call.body.error.code, -32602);
    });
  });
});

describe(`MCP scopes: manage_team tools (${TEST_DB})`, () => {
  let h: TestHerald;
  let account: SeededAccount;
  before(async () => {
    h = await startTestHerald();
    account = await h.seedAccount();
  });
  after(() => h.close());

  it(
    'without manage_team: ' +
      'HTTP 403, an insufficient_scope challenge and a JSON-RPC error naming the scope, for each team tool',
    async () => {
      const args: Record<string, unknown> = {
        bulk_delete: { postIds: ['a'] },
        bulk_label: { postIds: ['a'], labelIds: ['b'] },
        approval_list_pending: {},
        approval_approve: { postId: 'a' },
        approval_reject: { postId: 'a', reason: 'no' },
        approval_assign: { postId: 'a', reviewerUserId: 'u' },
      };
      // The team tools are the ones whose schema says x-herald-scope: manage_team.
      const teamTools = toolCatalogue.filter((tool) => tool.scope === 'manage_team').map((tool) => tool.name);
      assert.deepEqual(Object.keys(args).sort(), [...teamTools].sort());
      for (const name of teamTools) {
        const res = await callTool(h, account.basicKey, name, args[name]);
        assert.equal(res.status, 403, name);
        assert.equal(
          res.headers.get('www-authenticate'),
          'Bearer error="insufficient_scope", scope="manage_team", ' +
            `resource_metadata="${h.url}/.well-known/oauth-protected-resource/mcp"`,
        );
        assert.equal(res.body.error.code, -32003);
        assert.match(res.body.error.message, /insufficient_scope.*manage_team/);
        assert.deepEqual(res.body.error.data, { error: 'insufficient_scope', scope: 'manage_team' });
      }
    },
  );

  it('with manage_team the tool runs (dryRun by default), and other tools never need it', async () => {
    const res = await callTool(h, account.apiKey, 'bulk_delete', { postIds: ['a'] });
    assert.equal(res.status, 200);
    assert.equal(res.body.result.structuredContent.dryRun, true);
    const basic = await callTool(h, account.basicKey, 'get_channels', {});
    assert.equal(basic.status, 200);
    assert.equal(basic.body.result.isError, undefined);
    const label = await callTool(h, account.basicKey, 'label_list', {});
    assert.equal(label.status, 200);
  });
});

describe(`MCP rate limits (${TEST_DB})`, () => {
  let h: TestHerald;
  let account: SeededAccount;
  before(async () => {
    h = await startTestHerald({
      rateLimits: {
        restReadsPerMinute: 1000,
        restWritesPerMinute: 1000,
        accountPerHour: 1000,
        mcpPerTokenPerMinute: 2,
      },
    });
    account = await h.seedAccount();
  });
  after(() => h.close());

  it(
    'counts each request against the token minute budget and the account hour, ' +
      'with REST headers; 429 with Retry-After',
    async () => {
      const first = await rpc(h, { token: account.apiKey, method: 'ping' });
      assert.equal(first.headers.get('ratelimit-limit'), '2');
      assert.equal(first.headers.get('ratelimit-remaining'), '1');
      assert.equal(first.headers.get('x-account-ratelimit-limit'), '1000');
      assert.equal(first.headers.get('x-account-ratelimit-remaining'), '999');
      assert.equal((await rpc(h, { token: account.apiKey, method: 'ping' })).status, 200);
      const refused = await rpc(h, { token: account.apiKey, method: 'ping' });
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
      assert.equal(refused.body.status, false);
      assert.match(refused.body.message, /Wait \d+ seconds/);
      assert.equal(refused.headers.get('ratelimit-remaining'), '0');
      // The budget is per token: another key of the same account still has its own minute.
      assert.equal((await rpc(h, { token: account.basicKey, method: 'ping' })).status, 200);
    },
  );
});
