/**
 * JSON-RPC batches (MCP 2025-03-26 only; removed in 2025-06-18): refused from newer clients, capped,
 * charged per request against the token's and the account's budgets, and never a way to run a
 * notification or to skip the manage_team challenge.
 */
import assert from 'node:assert/strict';
import { MAX_BATCH_MESSAGES } from '../../src/mcp/router.js';
import { startTestHerald, TEST_DB, type SeededAccount, type TestHerald } from '../support/herald.js';
import { callTool, rpc } from './support.js';

const MINUTE_BUDGET = 10;

function toolCall(id: number | undefined, name: string, args: unknown) {
  return { jsonrpc: '2.0', ...(id === undefined ? {} : { id }), method: 'tools/call', params: { name, arguments: args } };
}

describe(`MCP JSON-RPC batches (${TEST_DB})`, function () {
  this.timeout(60_000);
  let h: TestHerald;
  let account: SeededAccount;

  before(async () => {
    h = await startTestHerald({ rateLimits: { restReadsPerMinute: 100_000, restWritesPerMinute: 100_000, accountPerHour: 1_000_000, mcpPerTokenPerMinute: MINUTE_BUDGET } });
    account = await h.seedAccount();
  });
  after(() => h?.close());

  const pings = (n: number) => Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'ping' }));

  it('refuses a batch from a client on 2025-06-18 or later, saying to send one message per request', async () => {
    const key = await h.createKey(account, ['read_profile', 'manage_post']);
    for (const version of ['2025-06-18', '2025-11-25']) {
      const answer = await rpc(h, { token: key, body: pings(2), headers: { 'mcp-protocol-version': version } });
      assert.equal(answer.status, 400, version);
      assert.equal(answer.body.error.code, -32600);
      assert.match(answer.body.error.message, /batches were removed from MCP in revision 2025-06-18.*one message per request/);
    }
  });

  it('answers a batch from a 2025-03-26 client, with the header or without it', async () => {
    const key = await h.createKey(account, ['read_profile', 'manage_post']);
    for (const headers of [{ 'mcp-protocol-version': '2025-03-26' }, {}] as Record<string, string>[]) {
      const answer = await rpc(h, { token: key, body: pings(2), headers });
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body, [{ jsonrpc: '2.0', id: 1, result: {} }, { jsonrpc: '2.0', id: 2, result: {} }]);
    }
  });

  it(`refuses a batch of more than ${MAX_BATCH_MESSAGES} messages and runs none of it`, async () => {
    const key = await h.createKey(account, ['read_profile', 'manage_post']);
    const entries = Array.from({ length: MAX_BATCH_MESSAGES + 1 }, (_, i) => toolCall(i + 1, 'create_text_post', { text: `over the cap ${i}`, channelIds: [account.channelIds[0]], saveAsDraft: true }));
    const answer = await rpc(h, { token: key, body: entries });
    assert.equal(answer.status, 400);
    assert.match(answer.body.error.message, new RegExp(`at most ${MAX_BATCH_MESSAGES} messages`));
    const listed = await h.api('GET', '/v1/rest/posts?limit=100', { token: account.apiKey });
    assert.equal(listed.body.data.filter((p: { text: string }) => p.text.startsWith('over the cap')).length, 0);
  });

  it('charges every request of a batch: over-budget entries answer their own rate-limit error, the rest run', async () => {
    const key = await h.createKey(account, ['read_profile', 'manage_post']);
    const entries = Array.from({ length: 15 }, (_, i) => toolCall(i + 1, 'create_text_post', { text: `budgeted ${i}`, channelIds: [account.channelIds[0]], saveAsDraft: true }));
    const answer = await rpc(h, { token: key, body: entries });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.length, 15);
    const ran = answer.body.filter((r: any) => r.result && !r.result.isError);
    const limited = answer.body.filter((r: any) => r.error?.code === -32029);
    assert.equal(ran.length, MINUTE_BUDGET);
    assert.equal(limited.length, 15 - MINUTE_BUDGET);
    assert.match(limited[0].error.message, /Wait \d+ seconds/);
    assert.equal(answer.headers.get('ratelimit-remaining'), '0');
    const again = await rpc(h, { token: key, body: pings(3) });
    assert.ok(again.body.every((r: any) => r.error?.code === -32029), JSON.stringify(again.body));
    assert.equal((await rpc(h, { token: key, method: 'ping' })).status, 429);
  });

  it('charges a batched notification like a lone one: once each, and a batch with nothing to answer is a 429 when over budget', async () => {
    const key = await h.createKey(account, ['read_profile', 'manage_post']);
    const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
    const mixed = await rpc(h, { token: key, body: [initialized, initialized, initialized, { jsonrpc: '2.0', id: 1, method: 'ping' }] });
    assert.equal(mixed.status, 200);
    assert.equal(mixed.headers.get('ratelimit-remaining'), String(MINUTE_BUDGET - 4));
    const rest = await rpc(h, { token: key, body: Array.from({ length: MINUTE_BUDGET - 4 }, () => initialized) });
    assert.equal(rest.status, 202);
    assert.equal(rest.headers.get('ratelimit-remaining'), '0');
    const refused = await rpc(h, { token: key, body: [initialized, initialized] });
    assert.equal(refused.status, 429);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.match(refused.body.message, /Wait \d+ seconds/);
  });

  it('never runs a tools/call notification, alone or in a batch', async () => {
    const key = await h.createKey(account, ['read_profile', 'manage_post']);
    const created = await callTool(h, account.apiKey, 'create_text_post', { text: 'keep me', channelIds: [account.channelIds[0]], saveAsDraft: true });
    const postId = created.body.result.structuredContent.data[0].id;
    const alone = await rpc(h, { token: key, body: toolCall(undefined, 'delete_post', { postId }) });
    assert.equal(alone.status, 202);
    const inBatch = await rpc(h, { token: key, body: [toolCall(undefined, 'delete_post', { postId }), { jsonrpc: '2.0', id: 1, method: 'ping' }] });
    assert.equal(inBatch.status, 200);
    assert.deepEqual(inBatch.body, [{ jsonrpc: '2.0', id: 1, result: {} }]);
    const still = await h.api('GET', `/v1/rest/posts/${postId}`, { token: account.apiKey });
    assert.equal(still.status, 200, 'the post was deleted by a notification');
  });

  it('answers a manage_team tool without that scope in a batch with the same 403 challenge as alone', async () => {
    const basic = await h.createKey(account, ['read_profile', 'manage_post']);
    const alone = await callTool(h, basic, 'approval_list_pending', {});
    const inBatch = await rpc(h, { token: basic, body: [{ jsonrpc: '2.0', id: 1, method: 'ping' }, toolCall(2, 'approval_list_pending', {})] });
    for (const answer of [alone, inBatch]) {
      assert.equal(answer.status, 403);
      assert.match(answer.headers.get('www-authenticate') ?? '', /error="insufficient_scope", scope="manage_team"/);
    }
    assert.equal(inBatch.body[1].error.data.scope, 'manage_team');
  });
});
