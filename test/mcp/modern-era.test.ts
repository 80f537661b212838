/**
 * MCP 2026-07-28 over Streamable HTTP, raw HTTP: server/discover, the per-request _meta and the headers that
 * must match it, resultType and the caching hints, UnsupportedProtocolVersion, the methods this era dropped,
 * and Herald's own error codes moved out of the range the revision reserves for MCP.
 */
import assert from 'node:assert/strict';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { rpc } from './support.js';

const VERSION = '2026-07-28';
const SERVER_INFO = { name: 'herald', title: 'Herald', version: '0.1.0' };

let ids = 0;

/** A modern request, correct in every header unless `headers` overrides (undefined removes one) or `meta` does. */
function modern(
  h: TestHerald,
  options: {
    token?: string;
    method: string;
    params?: Record<string, unknown>;
    meta?: Record<string, unknown>;
    headers?: Record<string, string | undefined>;
    path?: string;
  },
) {
  const id = ++ids;
  const params = {
    ...options.params,
    _meta: options.meta ?? {
      'io.modelcontextprotocol/protocolVersion': VERSION,
      'io.modelcontextprotocol/clientCapabilities': {},
      'io.modelcontextprotocol/clientInfo': { name: 't', version: '1' },
    },
  };
  const name = (options.params as { name?: string } | undefined)?.name;
  const headers: Record<string, string | undefined> = {
    'mcp-protocol-version': VERSION,
    'mcp-method': options.method,
    ...(name ? { 'mcp-name': name } : {}),
    ...options.headers,
  };
  const sent = Object.fromEntries(
    Object.entries(headers).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  return {
    id,
    answer: rpc(h, {
      token: options.token,
      path: options.path,
      headers: sent,
      body: { jsonrpc: '2.0', id, method: options.method, params },
    }),
  };
}

describe(`MCP 2026-07-28 over HTTP (${TEST_DB})`, () => {
  let h: TestHerald;
  let account: SeededAccount;
  before(async () => {
    h = await startTestHerald();
    account = await h.seedAccount();
  });
  after(() => h.close());

  const send = async (options: Parameters<typeof modern>[1]) => {
    const { id, answer } = modern(h, { token: account.apiKey, ...options });
    const res = await answer;
    return { id, res };
  };

  it(
    'server/discover names every revision served, ' +
      'the capabilities with extensions, the server, and how long to cache it',
    async () => {
      for (const path of ['/mcp', '/mcp/claude']) {
        const { id, res } = await send({ method: 'server/discover', path });
        assert.equal(res.status, 200);
        assert.equal(res.body.id, id);
        const result = res.body.result;
        assert.deepEqual(result.supportedVersions, ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26']);
        assert.deepEqual(result.capabilities, {
          tools: { listChanged: false },
          resources: {},
          extensions: { 'io.modelcontextprotocol/tasks': {} },
        });
        assert.equal(result.resultType, 'complete');
        assert.deepEqual(result._meta, { 'io.modelcontextprotocol/serverInfo': SERVER_INFO });
        assert.match(result.instructions, /get_channels/);
        assert.equal(result.ttlMs, 3_600_000);
        assert.equal(result.cacheScope, 'public');
      }
    },
  );

  it(
    'tools/list is complete, cacheable and in name order; ' + 'tools/call results are complete and name the server',
    async () => {
      const list = (await send({ method: 'tools/list' })).res.body.result;
      assert.equal(list.resultType, 'complete');
      assert.equal(list.ttlMs, 3_600_000);
      assert.equal(list.cacheScope, 'public');
      assert.deepEqual(list._meta, { 'io.modelcontextprotocol/serverInfo': SERVER_INFO });
      const names = list.tools.map((t: { name: string }) => t.name);
      assert.equal(names.length, 44);
      assert.deepEqual(names, [...names].sort());
      const claude = (await send({ method: 'tools/list', path: '/mcp/claude' })).res.body.result.tools.map(
        (t: { name: string }) => t.name,
      );
      assert.deepEqual(
        claude,
        names.filter((n: string) => n !== 'generate_image'),
      );

      const called = await send({ method: 'tools/call', params: { name: 'get_channels', arguments: {} } });
      assert.equal(called.res.status, 200);
      assert.equal(called.res.body.result.resultType, 'complete');
      assert.deepEqual(called.res.body.result._meta, { 'io.modelcontextprotocol/serverInfo': SERVER_INFO });
      assert.equal(called.res.body.result.structuredContent.data.length, account.channelIds.length);
      assert.equal(called.res.body.result.ttlMs, undefined, 'a tool result is not a cacheable list');
      const refused = await send({ method: 'tools/call', params: { name: 'get_channel', arguments: {} } });
      assert.equal(refused.res.body.result.isError, true);
      assert.equal(refused.res.body.result.resultType, 'complete');
    },
  );

  it(
    'an unsupported revision is a 400 UnsupportedProtocolVersion (-32022) ' +
      'with the supported ones and the request id',
    async () => {
      const { id, res } = await send({
        method: 'tools/list',
        headers: { 'mcp-protocol-version': '2099-01-01' },
        meta: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01' },
      });
      assert.equal(res.status, 400);
      assert.deepEqual(res.body, {
        jsonrpc: '2.0',
        id,
        error: {
          code: -32022,
          message:
            'Unsupported protocol version 2099-01-01; ' +
            'this server speaks 2026-07-28, 2025-11-25, 2025-06-18, 2025-03-26.',
          data: { supported: ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'], requested: '2099-01-01' },
        },
      });
    },
  );

  describe('request headers must match the body (HeaderMismatch, -32020)', () => {
    const cases: [string, Parameters<typeof modern>[1], RegExp][] = [
      [
        'no Mcp-Method',
        { method: 'tools/list', headers: { 'mcp-method': undefined } },
        /Mcp-Method header is missing; send tools\/list/,
      ],
      [
        'another Mcp-Method',
        { method: 'tools/list', headers: { 'mcp-method': 'tools/call' } },
        /Mcp-Method tools\/call does not match the body's method tools\/list/,
      ],
      [
        'no Mcp-Name on tools/call',
        { method: 'tools/call', params: { name: 'get_channels', arguments: {} }, headers: { 'mcp-name': undefined } },
        /Mcp-Name header is missing; send the tool's name, get_channels/,
      ],
      [
        'another Mcp-Name',
        {
          method: 'tools/call',
          params: { name: 'bulk_delete', arguments: { postIds: ['a'] } },
          headers: { 'mcp-name': 'get_channels' },
        },
        /Mcp-Name get_channels does not match the body's params.name bulk_delete/,
      ],
      [
        'a broken Base64 Mcp-Name',
        {
          method: 'tools/call',
          params: { name: 'get_channels', arguments: {} },
          headers: { 'mcp-name': '=?base64?not base64!?=' },
        },
        /Mcp-Name is not a valid/,
      ],
      [
        'no MCP-Protocol-Version while _meta names 2026-07-28',
        { method: 'tools/list', headers: { 'mcp-protocol-version': undefined } },
        /MCP-Protocol-Version header is missing; send 2026-07-28/,
      ],
      [
        'a legacy MCP-Protocol-Version while _meta names 2026-07-28',
        { method: 'tools/list', headers: { 'mcp-protocol-version': '2025-11-25' } },
        /MCP-Protocol-Version 2025-11-25 does not match params._meta/,
      ],
      [
        'MCP-Protocol-Version 2026-07-28 without the revision in _meta',
        { method: 'tools/list', meta: {} },
        /params._meta has no "io.modelcontextprotocol\/protocolVersion"/,
      ],
    ];
    for (const [what, options, message] of cases) {
      it(`refuses ${what} with 400`, async () => {
        const { id, res } = await send(options);
        assert.equal(res.status, 400);
        assert.equal(res.body.id, id);
        assert.equal(res.body.error.code, -32020);
        assert.match(res.body.error.message, message);
      });
    }

    it('runs nothing it refuses: a create_text_post under another Mcp-Name creates no post', async () => {
      const { res } = await send({
        method: 'tools/call',
        params: { name: 'create_text_post', arguments: { text: 'smuggled', channelIds: account.channelIds } },
        headers: { 'mcp-name': 'get_channels' },
      });
      assert.equal(res.body.error.code, -32020);
      await send({
        method: 'tools/call',
        params: {
          name: 'create_text_post',
          arguments: { text: 'announced', channelIds: account.channelIds, saveAsDraft: true },
        },
      });
      const posts = await h.api('GET', '/v1/rest/posts', { token: account.apiKey });
      assert.equal(posts.status, 200);
      assert.ok(JSON.stringify(posts.body).includes('announced'), 'the listing shows what was created');
      assert.ok(!JSON.stringify(posts.body).includes('smuggled'));
    });

    it('accepts an Mcp-Name in its Base64 form', async () => {
      const encoded = `=?base64?${Buffer.from('get_channels').toString('base64')}?=`;
      const { res } = await send({
        method: 'tools/call',
        params: { name: 'get_channels', arguments: {} },
        headers: { 'mcp-name': encoded },
      });
      assert.equal(res.status, 200);
      assert.equal(res.body.result.isError, undefined);
    });

    it('refuses client capabilities that are not an object as invalid params', async () => {
      const { res } = await send({
        method: 'tools/list',
        meta: {
          'io.modelcontextprotocol/protocolVersion': VERSION,
          'io.modelcontextprotocol/clientCapabilities': 'all',
        },
      });
      assert.equal(res.status, 400);
      assert.equal(res.body.error.code, -32602);
      assert.match(res.body.error.message, /clientCapabilities" must be an object/);
    });
  });

  it('has no initialize, ping or logging/setLevel: 404 with -32601, while the legacy era keeps them', async () => {
    for (const method of ['initialize', 'ping', 'logging/setLevel', 'prompts/list']) {
      const { id, res } = await send({
        method,
        params:
          method === 'initialize'
            ? { protocolVersion: VERSION, capabilities: {}, clientInfo: { name: 't', version: '1' } }
            : {},
      });
      assert.equal(res.status, 404, method);
      assert.deepEqual(res.body, { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } }, method);
    }
    const legacyPing = await rpc(h, {
      token: account.apiKey,
      method: 'ping',
      headers: { 'mcp-protocol-version': '2025-11-25' },
    });
    assert.deepEqual(legacyPing.body.result, {});
    const legacyDiscover = await rpc(h, {
      token: account.apiKey,
      method: 'server/discover',
      headers: { 'mcp-protocol-version': '2025-11-25' },
    });
    assert.equal(legacyDiscover.body.error.code, -32601, 'a legacy request is answered by the legacy era');
  });

  it('refuses a batch on 2026-07-28 and acknowledges a notification with 202', async () => {
    const batch = await rpc(h, {
      token: account.apiKey,
      headers: { 'mcp-protocol-version': VERSION },
      body: [{ jsonrpc: '2.0', id: 1, method: 'tools/list' }],
    });
    assert.equal(batch.status, 400);
    assert.equal(batch.body.error.code, -32600);
    assert.match(batch.body.error.message, /batches were removed.*2026-07-28: send one message per request/);
    const notification = await rpc(h, {
      token: account.apiKey,
      headers: { 'mcp-protocol-version': VERSION },
      body: { jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1 } },
    });
    assert.equal(notification.status, 202);
  });

  describe("Herald's own refusals, numbered outside JSON-RPC's reserved range", () => {
    it('401 is -31001', async () => {
      const { res } = await send({ method: 'tools/list', token: 'hk_not_a_key' });
      assert.equal(res.status, 401);
      assert.equal(res.body.error.code, -31001);
      assert.match(res.headers.get('www-authenticate') ?? '', /resource_metadata=.*error="invalid_token"/);
    });

    it('a foreign Origin is 403 with -31004', async () => {
      const { res } = await send({ method: 'tools/list', headers: { origin: 'https://evil.example' } });
      assert.equal(res.status, 403);
      assert.equal(res.body.error.code, -31004);
    });

    it('a team tool without manage_team is 403 with -31003, the challenge and the scope', async () => {
      const { id, res } = await send({
        method: 'tools/call',
        token: account.basicKey,
        params: { name: 'bulk_delete', arguments: { postIds: ['a'] } },
      });
      assert.equal(res.status, 403);
      assert.equal(res.body.id, id);
      assert.equal(res.body.error.code, -31003);
      assert.deepEqual(res.body.error.data, { error: 'insufficient_scope', scope: 'manage_team' });
      assert.match(
        res.headers.get('www-authenticate') ?? '',
        /^Bearer error="insufficient_scope", scope="manage_team"/,
      );
    });
  });
});

describe(`MCP 2026-07-28 rate limits (${TEST_DB})`, () => {
  let h: TestHerald;
  let account: SeededAccount;
  before(async () => {
    h = await startTestHerald({
      rateLimits: {
        restReadsPerMinute: 1000,
        restWritesPerMinute: 1000,
        accountPerHour: 1000,
        mcpPerTokenPerMinute: 1,
      },
    });
    account = await h.seedAccount();
  });
  after(() => h.close());

  it('over budget is a 429 with Retry-After and -31029', async () => {
    assert.equal((await modern(h, { token: account.apiKey, method: 'tools/list' }).answer).status, 200);
    const refused = await modern(h, { token: account.apiKey, method: 'tools/list' }).answer;
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.equal(refused.body.error.code, -31029);
    assert.match(refused.body.error.message, /Wait \d+ seconds/);
  });
});
