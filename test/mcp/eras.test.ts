/**
 * Both eras on the same URLs (MCP 2026-07-28, Versioning: a dual-era server): the 1.x SDK client opens with
 * initialize, the v2 client pinned to 2026-07-28 and in auto mode speak the modern era, and all three
 * call every tool /mcp and /mcp/claude serve. The wire is recorded to prove which era each one spoke.
 */
import assert from 'node:assert/strict';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { toolCatalogue } from '../../generated/mcp/catalogue.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { exerciseEveryTool, ORIGIN_HOST, startImageOrigin, type CallTool } from './all-tools.js';

const HIGH_BUDGETS = {
  restReadsPerMinute: 1_000_000,
  restWritesPerMinute: 1_000_000,
  accountPerHour: 10_000_000,
  mcpPerTokenPerMinute: 1_000_000,
};

interface Sent {
  method: string;
  headers: Record<string, string>;
}

/** A fetch that remembers each JSON-RPC request it sends. */
function recordingFetch(sent: Sent[]): typeof fetch {
  return async (input, init) => {
    const body = typeof init?.body === 'string' ? JSON.parse(init.body) : undefined;
    if (body && !Array.isArray(body) && body.id !== undefined)
      sent.push({ method: body.method, headers: Object.fromEntries(new Headers(init?.headers)) });
    return fetch(input, init);
  };
}

type ClientKind = 'v1' | 'v2 pinned to 2026-07-28' | 'v2 auto';

interface Connected {
  call: CallTool;
  listToolNames(): Promise<string[]>;
  close(): Promise<void>;
  /** The revision agreed at connect. */
  protocolVersion: string | undefined;
}

async function connect(kind: ClientKind, h: TestHerald, token: string, path: string, sent: Sent[]): Promise<Connected> {
  const url = new URL(h.url + path);
  const requestInit = { headers: { Authorization: `Bearer ${token}` } };
  if (kind === 'v1') {
    const client = new ClientV1({ name: 'herald-tests-v1', version: '1.0.0' });
    const transport = new TransportV1(url, { requestInit, fetch: recordingFetch(sent) });
    await client.connect(transport);
    return {
      call: (name, args) => client.callTool({ name, arguments: args }) as never,
      listToolNames: async () => (await client.listTools()).tools.map((t) => t.name),
      close: () => client.close(),
      protocolVersion: transport.protocolVersion,
    };
  }
  const mode = kind === 'v2 auto' ? ('auto' as const) : { pin: '2026-07-28' };
  const client = new ClientV2({ name: 'herald-tests-v2', version: '2.0.0' }, { versionNegotiation: { mode } });
  await client.connect(new TransportV2(url, { requestInit, fetch: recordingFetch(sent) }));
  return {
    call: (name, args) => client.callTool({ name, arguments: args }) as never,
    listToolNames: async () => (await client.listTools()).tools.map((t) => t.name),
    close: () => client.close(),
    protocolVersion: client.getNegotiatedProtocolVersion(),
  };
}

describe(`MCP eras: the 1.x and v2 clients through every tool (${TEST_DB})`, function () {
  this.timeout(60_000);
  let h: TestHerald;
  let origin: Awaited<ReturnType<typeof startImageOrigin>>;
  before(async () => {
    origin = await startImageOrigin();
    // The image origin for imports is on loopback, which the SSRF guard refuses unless it is listed.
    h = await startTestHerald({ rateLimits: HIGH_BUDGETS, outboundAllowHosts: [ORIGIN_HOST] });
  });
  after(async () => {
    await h?.close();
    await origin?.close();
  });

  for (const kind of ['v1', 'v2 pinned to 2026-07-28', 'v2 auto'] as const) {
    for (const path of ['/mcp', '/mcp/claude']) {
      it(`${kind} on ${path}: lists the served tools in name order and calls each one`, async () => {
        const served = toolCatalogue.map((t) => t.name).filter((name) => path === '/mcp' || name !== 'generate_image');
        const account: SeededAccount = await h.seedAccount({ channels: 2 });
        const held: SeededAccount = await h.seedAccount({ channels: 2, approvalRequired: true });
        const sent: Sent[] = [];
        const client = await connect(kind, h, account.apiKey, path, sent);
        const heldClient = await connect(kind, h, held.apiKey, path, sent);
        try {
          assert.deepEqual(await client.listToolNames(), [...served].sort());
          const called = await exerciseEveryTool({
            h,
            account,
            call: client.call,
            held,
            callHeld: heldClient.call,
            originBase: origin.base,
            served,
          });
          assert.deepEqual(called, [...served].sort());
        } finally {
          await Promise.all([client.close(), heldClient.close()]);
        }

        const methods = new Set(sent.map((s) => s.method));
        if (kind === 'v1') {
          assert.equal(client.protocolVersion, '2025-11-25');
          assert.ok(methods.has('initialize') && !methods.has('server/discover'));
          assert.ok(
            sent.every(
              (s) => s.headers['mcp-method'] === undefined && s.headers['mcp-protocol-version'] !== '2026-07-28',
            ),
          );
        } else {
          assert.equal(client.protocolVersion, '2026-07-28');
          assert.ok(!methods.has('initialize'), 'no initialize in the modern era');
          assert.equal(methods.has('server/discover'), true);
          for (const s of sent) {
            assert.equal(s.headers['mcp-protocol-version'], '2026-07-28', s.method);
            assert.equal(s.headers['mcp-method'], s.method);
          }
          assert.ok(sent.filter((s) => s.method === 'tools/call').every((s) => s.headers['mcp-name']));
        }
      });
    }
  }
});
