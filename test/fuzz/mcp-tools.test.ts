/**
 * Fuzzing the MCP server: every tool of the catalogue generated from jsonrpc-schemas/ (new tools are
 * covered without an edit) called with arguments drawn from its inputSchema, boundary values and junk
 * mixed in, and JSON-RPC envelopes, batches and bodies that are malformed on purpose. Whatever arrives,
 * the answer is not a 5xx and not a JSON-RPC internal error (-32603: an uncaught exception), carries no
 * stack or file path, and is a JSON-RPC response (a tool's refusal an isError result); afterwards the
 * server still answers. Fixed seed (printed on failure); FUZZ_SEED replays one, FUZZ_RUNS scales the run.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { toolCatalogue } from '../../generated/mcp/catalogue.js';
import { callTool } from '../mcp/support.js';
import { TEST_DB } from '../support/herald.js';
import { assertNoLeak } from '../support/no-leak.js';
import { raw } from '../support/raw-http.js';
import { FUZZ_SEED, fuzzRuns, startFuzzTarget, type FuzzTarget } from './support/fuzz-setup.js';
import { anyJson, valueFor, type ArbitraryContext, type Schema } from './support/schema-arbitraries.js';

const RUNS = Number(process.env.FUZZ_RUNS ?? 2_000);
const INTERNAL_ERROR = -32603;

interface McpCall {
  path: string;
  token: 'full' | 'basic';
  protocolVersion?: string;
  body: string;
}

const rpcId = fc.oneof(
  { arbitrary: fc.integer({ min: 1, max: 1_000_000 }), weight: 10 },
  { arbitrary: fc.constantFrom<unknown>('x', '', null, 1.5, -1, 2 ** 53 + 1, true, {}, [], { a: [1] }), weight: 1 },
);

/** A tools/call of one tool, mostly well formed. */
function toolCall(tool: (typeof toolCatalogue)[number], ids: ArbitraryContext['ids']): fc.Arbitrary<unknown> {
  const args = valueFor(tool.inputSchema as Schema, { root: tool.inputSchema, ids });
  return fc
    .record({
      id: rpcId,
      args: fc.oneof({ arbitrary: args, weight: 15 }, { arbitrary: anyJson, weight: 1 }),
      shape: fc.nat(20),
    })
    .map(({ id, args: value, shape }) => {
      if (shape === 0) return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool.name } };
      if (shape === 1) return { jsonrpc: '2.0', id, method: 'tools/call', params: [tool.name, value] };
      if (shape === 2)
        return { jsonrpc: '1.0', id, method: 'tools/call', params: { name: tool.name, arguments: value } };
      return { jsonrpc: '2.0', id, method: 'tools/call', params: { name: tool.name, arguments: value } };
    });
}

/** Other methods and envelopes, well formed or not. */
const otherMessage: fc.Arbitrary<unknown> = fc.oneof(
  fc.record(
    {
      jsonrpc: fc.constant('2.0'),
      id: rpcId,
      method: fc.constantFrom(
        'initialize',
        'ping',
        'tools/list',
        'resources/list',
        'prompts/get',
        'completion/complete',
        'logging/setLevel',
        '',
      ),
      params: fc.option(anyJson, { nil: undefined }),
    },
    { requiredKeys: ['jsonrpc', 'method'] },
  ),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: rpcId,
    method: fc.constant('initialize'),
    params: fc.record({
      protocolVersion: fc.oneof(fc.constantFrom('2025-06-18', '2025-03-26', '2024-11-05', '1999-01-01'), fc.string()),
      capabilities: anyJson,
      clientInfo: anyJson,
    }),
  }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: rpcId,
    method: fc.constant('tools/list'),
    params: fc.record({ cursor: fc.oneof(fc.string(), fc.base64String(), anyJson) }),
  }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    id: rpcId,
    method: fc.constant('tools/call'),
    params: fc.record({ name: fc.oneof(fc.string(), anyJson), arguments: anyJson }),
  }),
  fc.record({
    jsonrpc: fc.constant('2.0'),
    method: fc.constantFrom('notifications/initialized', 'notifications/cancelled', 'tools/call'),
  }),
  fc.record({ jsonrpc: fc.constant('2.0'), id: rpcId, result: anyJson }),
  anyJson,
);

const MALFORMED_BODIES = [
  '',
  '{',
  '[',
  '[]',
  '[[]]',
  'null',
  '"x"',
  '{"jsonrpc":"2.0","id":1,"method":',
  '\ufeff{}',
  `${'['.repeat(70)}${']'.repeat(70)}`,
  `{"jsonrpc":"2.0","id":1,"method":"ping","params":${'{"a":'.repeat(65)}1${'}'.repeat(65)}}`,
];

function mcpCallArbitrary(ids: ArbitraryContext['ids']): fc.Arbitrary<McpCall> {
  const message = fc.oneof(
    { arbitrary: fc.oneof(...toolCatalogue.map((tool) => toolCall(tool, ids))), weight: 12 },
    { arbitrary: otherMessage, weight: 3 },
  );
  const body = fc.oneof(
    { arbitrary: message.map((m) => JSON.stringify(m)), weight: 14 },
    { arbitrary: fc.array(message, { minLength: 1, maxLength: 3 }).map((m) => JSON.stringify(m)), weight: 1 },
    { arbitrary: fc.constantFrom(...MALFORMED_BODIES), weight: 1 },
  );
  return fc.record({
    path: fc.oneof({ arbitrary: fc.constant('/mcp'), weight: 4 }, { arbitrary: fc.constant('/mcp/claude'), weight: 1 }),
    token: fc.oneof(
      { arbitrary: fc.constant<'full'>('full'), weight: 8 },
      { arbitrary: fc.constant<'basic'>('basic'), weight: 1 },
    ),
    protocolVersion: fc.option(fc.constantFrom('2025-06-18', '2025-03-26', '2024-11-05'), { freq: 2, nil: undefined }),
    body,
  });
}

/** One JSON-RPC response as the MCP server must give it. */
function assertRpcResponse(reply: unknown, what: string): void {
  const r = reply as {
    jsonrpc?: unknown;
    result?: { content?: unknown; isError?: unknown };
    error?: { code?: unknown; message?: unknown };
  };
  assert.equal(r.jsonrpc, '2.0', what);
  if (r.error !== undefined) {
    assert.ok(Number.isInteger(r.error.code), what);
    assert.notEqual(r.error.code, INTERNAL_ERROR, `${what}: an internal error (an uncaught exception)`);
    assert.equal(typeof r.error.message, 'string', what);
    return;
  }
  assert.ok(r.result !== undefined && typeof r.result === 'object', what);
  if (r.result.isError === true) {
    const [first] = r.result.content as { type: string; text: string }[];
    assert.equal(first.type, 'text', what);
    assert.ok(first.text.length > 0, what);
  }
}

describe(`fuzz: every MCP tool and the JSON-RPC envelope (${TEST_DB}, seed ${FUZZ_SEED})`, function () {
  this.timeout(300_000);
  let target: FuzzTarget;

  before(async () => {
    target = await startFuzzTarget();
  });
  after(() => target?.h.close());

  it(`answers ${RUNS} malformed and boundary calls without a 5xx, an internal error, a stack or a path`, async () => {
    const tokens = { full: target.account.apiKey, basic: target.account.basicKey };
    await fc.assert(
      fc.asyncProperty(mcpCallArbitrary(target.ids), async (call) => {
        const headers: Record<string, string> = {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          authorization: `Bearer ${tokens[call.token]}`,
        };
        if (call.protocolVersion) headers['mcp-protocol-version'] = call.protocolVersion;
        const answer = await raw(target.h.url, { method: 'POST', path: call.path, headers, body: call.body });
        const what =
          `${call.path} ${call.token} ${call.protocolVersion ?? ''} ${call.body.slice(0, 400)} ` +
          `-> ${answer.status} ${answer.body.slice(0, 500)}`;
        assert.ok(answer.status < 500, what);
        assertNoLeak(answer.body, what);
        if (answer.status === 202) {
          assert.equal(answer.body, '', what);
          return;
        }
        let body: unknown;
        assert.doesNotThrow(() => (body = JSON.parse(answer.body)), what);
        for (const reply of Array.isArray(body) ? body : [body]) assertRpcResponse(reply, what);
      }),
      fuzzRuns(RUNS),
    );
  });

  it('still answers /healthz and a plain tool call afterwards', async () => {
    assert.equal((await fetch(`${target.h.url}/healthz`)).status, 200);
    const channels = await callTool(target.h, target.account.apiKey, 'get_channels', {});
    assert.equal(channels.status, 200);
    assert.notEqual(channels.body.result.isError, true);
  });
});
