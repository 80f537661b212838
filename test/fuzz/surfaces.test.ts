/**
 * Malformed and boundary input at every REST operation (read from the bundled OpenAPI document, so a new
 * route is fuzzed without touching this file) and every MCP tool (from the tool catalogue). Each input
 * starts from the operation's documented example or the tool's schema and is bent: fields dropped,
 * swapped for values of other types, unknown fields added, ids that belong to nobody or to another
 * tenant, live_ ids, percent-encoding junk, huge and unicode strings, or no JSON at all.
 *
 * Every answer must be: below 500, free of stack frames and file paths, and in the surface's documented
 * shape; /healthz must still answer afterwards. The seed is fixed and printed on failure; FUZZ_SEED
 * replays a run, FUZZ_RUNS scales it.
 */
import assert from 'node:assert/strict';
import fc from 'fast-check';
import openapi from '../../generated/openapi.json' with { type: 'json' };
import { toolCatalogue } from '../../generated/mcp/catalogue.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';

const SEED = Number(process.env.FUZZ_SEED ?? 11_2026);
const RUNS = Number(process.env.FUZZ_RUNS ?? 1);
const CHECKOUT = process.cwd();

/** URLs a fuzzed input may carry: all refused before any connection, so nothing leaves the machine. */
const URLS = ['http://10.0.0.1/a.png', 'http://[::1]/v.mp4', 'http://127.0.0.1:9/x.jpg', 'ftp://files/x.png', 'not a url', '', 'https://169.254.169.254/latest/'];

function assertClean(status: number, text: string, what: string): void {
  assert.ok(status < 500, `${what}: HTTP ${status} ${text.slice(0, 300)}`);
  assert.doesNotMatch(text, /\n\s+at [\w.<]|\\n\s+at [\w.<]/, `${what}: stack frame in ${text.slice(0, 300)}`);
  assert.ok(!text.includes(CHECKOUT), `${what}: checkout path in ${text.slice(0, 300)}`);
  assert.doesNotMatch(text, /node_modules|\/src\/[\w/-]+\.ts/, `${what}: file path in ${text.slice(0, 300)}`);
}

/** Values of every JSON kind, with the edges that break code: empty, huge, unicode, NUL, deep-ish. */
function wildValue(ids: string[]): fc.Arbitrary<unknown> {
  const text = fc.oneof(
    fc.string({ maxLength: 30 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.constantFrom('', ' ', '\u0000', 'live_01hx', '%C0%AE', '../../etc/passwd', '2026-02-30T25:61:00Z', '9999-99-01', '1970-01-01T00:00:00Z', 'x'.repeat(70_000), '🧑‍🚀'.repeat(400)),
    fc.constantFrom(...ids),
    fc.constantFrom(...URLS),
  );
  const scalar = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constantFrom(-1, 0, 2 ** 53, 1e308, -0));
  return fc.oneof({ weight: 4, arbitrary: scalar }, { weight: 1, arbitrary: fc.array(scalar, { maxLength: 120 }) }, { weight: 1, arbitrary: fc.dictionary(fc.string({ maxLength: 8 }), scalar, { maxKeys: 4 }) });
}

/** Bends a valid object: drops, replaces and adds fields. */
function bent(base: Record<string, unknown>, ids: string[]): fc.Arbitrary<unknown> {
  const keys = Object.keys(base);
  const edit = fc.record({
    drop: fc.subarray(keys),
    replace: fc.dictionary(keys.length ? fc.constantFrom(...keys) : fc.constant('x'), wildValue(ids), { maxKeys: 3 }),
    add: fc.dictionary(fc.string({ maxLength: 10 }), wildValue(ids), { maxKeys: 2 }),
  }).map(({ drop, replace, add }) => {
    const copy: Record<string, unknown> = { ...base };
    for (const key of drop) delete copy[key];
    return { ...copy, ...replace, ...add };
  });
  return fc.oneof({ weight: 6, arbitrary: edit }, { weight: 1, arbitrary: wildValue(ids) });
}

type Operation = { method: string; path: string; example: Record<string, unknown> | undefined; query: string[]; hasBody: boolean };

function restOperations(): Operation[] {
  const doc = openapi as unknown as { paths: Record<string, Record<string, any>>; components: { parameters: Record<string, any> } };
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete']) {
      const op = item[method];
      if (!op) continue;
      const params = [...(item.parameters ?? []), ...(op.parameters ?? [])].map((p: any) => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop()] : p));
      const content = op.requestBody?.content?.['application/json'];
      operations.push({ method: method.toUpperCase(), path, example: content?.example, query: params.filter((p: any) => p.in === 'query').map((p: any) => p.name), hasBody: Boolean(content) });
    }
  }
  return operations;
}

describe(`fuzzing every REST operation and MCP tool (${TEST_DB})`, function () {
  this.timeout(600_000);
  let h: TestHerald;
  let account: SeededAccount;
  let other: SeededAccount;
  let ids: string[];

  before(async () => {
    h = await startTestHerald();
    account = await h.seedAccount();
    other = await h.seedAccount();
    const created = await h.api('POST', '/v1/rest/posts', { token: account.apiKey, body: { text: 'fuzz target', channelIds: account.channelIds, isScheduled: true, dateTime: '2031-01-01T09:00:00Z' } });
    const foreign = await h.api('POST', '/v1/rest/posts', { token: other.apiKey, body: { text: 'not yours', channelIds: [other.channelIds[0]], saveAsDraft: true } });
    ids = [...account.channelIds, ...created.body.data.map((p: { id: string }) => p.id), other.channelIds[0], foreign.body.data[0].id, account.workspaceId, 'live_0001', 'nope'];
  });
  after(() => h?.close());

  for (const op of restOperations()) {
    it(`REST ${op.method} ${op.path}`, async () => {
      const pathParam = fc.oneof(fc.constantFrom(...ids), fc.string({ maxLength: 12 }).map(encodeURIComponent), fc.constantFrom('%C0%AE', '%E0%A4%A', '%00', 'live_x', '..', '%2F'));
      const query = fc.dictionary(op.query.length ? fc.constantFrom(...op.query, 'unknown') : fc.constant('unknown'), fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('true', '-1', '0', '1e9', '%', 'live_x')), { maxKeys: 3 });
      const body = op.hasBody ? fc.oneof({ weight: 8, arbitrary: bent(op.example ?? {}, ids).map((v) => JSON.stringify(v)) }, { weight: 1, arbitrary: fc.constantFrom('{', 'null', '[]', '"x"', '{"a":'.repeat(80) + '1' + '}'.repeat(80)) }) : fc.constant(undefined);
      await fc.assert(
        fc.asyncProperty(pathParam, query, body, fc.boolean(), async (param, params, raw, idempotent) => {
          const path = op.path.replace(/\{[^}]+\}/g, () => param);
          const search = Object.entries(params).map(([k, v]) => `${encodeURIComponent(k)}=${v.startsWith('%') ? v : encodeURIComponent(v)}`).join('&');
          const headers: Record<string, string> = { authorization: `Bearer ${account.apiKey}`, ...(raw !== undefined ? { 'content-type': 'application/json' } : {}), ...(idempotent ? { 'idempotency-key': 'fuzz-key' } : {}) };
          const response = await fetch(`${h.url}/v1/rest${path}${search ? `?${search}` : ''}`, { method: op.method, headers, body: raw });
          const text = await response.text();
          assertClean(response.status, text, `${op.method} ${path}?${search} ${raw?.slice(0, 200)}`);
          if (response.status >= 400) {
            const error = JSON.parse(text);
            assert.equal(error.status, false, text);
            assert.equal(typeof error.message, 'string', text);
            assert.equal(typeof error.code, 'string', text);
          }
        }),
        { seed: SEED, numRuns: 60 * RUNS, endOnFailure: true },
      );
    });
  }

  for (const tool of toolCatalogue) {
    it(`MCP ${tool.name}`, async () => {
      const properties = Object.keys((tool.inputSchema as { properties?: Record<string, unknown> }).properties ?? {});
      const base = Object.fromEntries(properties.map((name) => [name, /url/i.test(name) ? URLS[0] : /ids$/i.test(name) ? ids.slice(0, 2) : /id$/i.test(name) ? ids[2] : 'fuzz']));
      await fc.assert(
        fc.asyncProperty(bent(base, ids), async (args) => {
          const response = await fetch(`${h.url}/mcp`, {
            method: 'POST',
            headers: { authorization: `Bearer ${account.apiKey}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
            body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool.name, arguments: args } }),
          });
          const text = await response.text();
          assertClean(response.status, text, `${tool.name} ${JSON.stringify(args).slice(0, 200)}`);
          const message = JSON.parse(text);
          assert.equal(message.jsonrpc, '2.0', text);
          if (message.error) assert.notEqual(message.error.code, -32603, `internal error for ${tool.name}: ${JSON.stringify(args).slice(0, 200)}`);
          else assert.ok(Array.isArray(message.result.content), text);
        }),
        { seed: SEED, numRuns: 30 * RUNS, endOnFailure: true },
      );
    });
  }

  it('still answers /healthz', async () => {
    assert.equal((await fetch(`${h.url}/healthz`)).status, 200);
  });
});
