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

/** Budgets refill with time: a stopped clock keeps one from refilling while a test spends it. */
function stoppedClock(): () => number {
  const now = Date.now();
  return () => now;
}

function toolCall(id: number | undefined, name: string, args: unknown) {
  return {
    jsonrpc: '2.0',
    ...(id === undefined ? {} : { id }),
    method: 'tools/call',
    params: { name, arguments: args },
  };
}

describe(`MCP JSON-RPC batches (${TEST_DB})`, function () {
  this.timeout(60_000);
  let h: TestHerald;
  let account: SeededAccount;

  before(async () => {
    h = await startTestHerald({
      rateLimits: {
        restReadsPerMinute: 100_000,
        restWritesPerMinute: 100_000,
        accountPerHour: 1_000_000,
        mcpPerTokenPerMinute: MINUTE_BUDGET,
      },
    });
    account = await h.seedAccount();
    h.deps.now = stoppedClock();
  });
  after(() => h?.close());

  const pings = (n: number) => Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'ping' }));

  it('refuses a batch from a client on 2025-06-18 or later, saying to send one message per request', async () => {
    const key = await h.createKey(account, ['read_profile', 'manage_post']);
    for (const version of ['2025-06-18', '2025-11-25']) {
      const answer = await rpc(h, { token: key, body: pings(2), headers: { 'mcp-protocol-version': version } });
      assert.equal(answer.status, 400, version);
      assert.equal(answer.body.error.code, -32600);
      assert.match(
        answer.body.error.message,
        /batches were removed from MCP in revision 2025-06-18.*one message per request/,
      );
    }
  });

  it('answers a batch from a 2025-03-26 client, with the header or without it', async () => {
    const key = await h.createKey(account, ['read_profile', 'manage_post']);
    for (const headers of [{ 'mcp-protocol-version': '2025-03-26' }, {}] as Record<string, string>[]) {
      const answer = await rpc(h, { token: key, body: pings(2), headers });
      assert.equal(answer.status, 200);
      assert.deepEqual(answer.body, [
        { jsonrpc: '2.0', id: 1, result: {} },
        { jsonrpc: '2.0', id: 2, result: {} },
      ]);
    }
  });

  it(`refuses a batch of more than ${MAX_BATCH_MESSAGES} messages and runs none of it`, async () => {
    const key = await h.createKey(account, ['read_profile', 'manage_post']);
    const entries = Array.from({ length: MAX_BATCH_MESSAGES + 1 }, (_, i) =>
      toolCall(i + 1, 'create_text_post', {
        text: `over the cap ${i}`,
        channelIds: [account.channelIds[0]],
        saveAsDraft: true,
      }),
    );
    const answer = await rpc(h, { token: key, body: entries });
    assert.equal(answer.status, 400);
    assert.match(answer.body.error.message, new RegExp(`at most ${MAX_BATCH_MESSAGES} messages`));
    const listed = await h.api('GET', '/v1/rest/posts?limit=100', { token: account.apiKey });
    assert.equal(listed.body.data.filter((p: { text: string }) => p.text.startsWith('over the cap')).length, 0);
  });

  it('refuses a batch holding initialize and runs none of it', async () => {
    const key = await h.createKey(account, ['read_profile', 'manage_post']);
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-03-26', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    };
    const answer = await rpc(h, {
      token: key,
      body: [
        initialize,
        toolCall(2, 'create_text_post', {
          text: 'beside initialize',
          channelIds: [account.channelIds[0]],
          saveAsDraft: true,
        }),
      ],
    });
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error.code, -32600);
    assert.match(answer.body.error.message, /initialize may not be part of a JSON-RPC batch.*send it alone/);
    const listed = await h.api('GET', '/v1/rest/posts?limit=100', { token: account.apiKey });
    assert.equal(listed.body.data.filter((p: { text: string }) => p.text === 'beside initialize').length, 0);
  });

  it(
    'charges every request of a batch: ' + 'over-budget entries answer their own rate-limit error, the rest run',
    async () => {
      const key = await h.createKey(account, ['read_profile', 'manage_post']);
      const entries = Array.from({ length: 15 }, (_, i) =>
        toolCall(i + 1, 'create_text_post', {
          text: `budgeted ${i}`,
          channelIds: [account.channelIds[0]],
          saveAsDraft: true,
        }),
      );
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
      assert.ok(
        again.body.every((r: any) => r.error?.code === -32029),
        JSON.stringify(again.body),
      );
      assert.equal((await rpc(h, { token: key, method: 'ping' })).status, 429);
    },
  );

  it('lets no more than the minute budget of 100 create_text_post through, sent as five batches of 20', async () => {
    const key = await h.createKey(account, ['read_profile', 'manage_post']);
    let limited = 0;
    for (let b = 0; b < 5; b++) {
      const entries = Array.from({ length: 20 }, (_, i) =>
        toolCall(b * 20 + i, 'create_text_post', {
          text: `hundred ${b * 20 + i}`,
          channelIds: [account.channelIds[0]],
          saveAsDraft: true,
        }),
      );
      const answer = await rpc(h, { token: key, body: entries });
      assert.equal(answer.status, 200);
      limited += answer.body.filter((r: any) => r.error?.code === -32029).length;
    }
    assert.equal(limited, 100 - MINUTE_BUDGET);
    const listed = await h.api('GET', '/v1/rest/posts?limit=100', { token: account.apiKey });
    assert.equal(listed.body.data.filter((p: { text: string }) => p.text.startsWith('hundred ')).length, MINUTE_BUDGET);
  });

  it(
    'charges a batched notification like a lone one: ' +
      'once each, and a batch with nothing to answer is a 429 when over budget',
    async () => {
      const key = await h.createKey(account, ['read_profile', 'manage_post']);
      const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' };
      const mixed = await rpc(h, {
        token: key,
        body: [initialized, initialized, initialized, { jsonrpc: '2.0', id: 1, method: 'ping' }],
      });
      assert.equal(mixed.status, 200);
      assert.equal(mixed.headers.get('ratelimit-remaining'), String(MINUTE_BUDGET - 4));
      const rest = await rpc(h, { token: key, body: Array.from({ length: MINUTE_BUDGET - 4 }, () => initialized) });
      assert.equal(rest.status, 202);
      assert.equal(rest.headers.get('ratelimit-remaining'), '0');
      const refused = await rpc(h, { token: key, body: [initialized, initialized] });
      assert.equal(refused.status, 429);
      assert.ok(Number(refused.headers.get('retry-after')) >= 1);
      assert.match(refused.body.message, /Wait \d+ seconds/);
    },
  );

  it('never runs a tools/call notification, alone or in a batch', async () => {
    const key = await h.createKey(account, ['read_profile', 'manage_post']);
    const created = await callTool(h, account.apiKey, 'create_text_post', {
      text: 'keep me',
      channelIds: [account.channelIds[0]],
      saveAsDraft: true,
    });
    const postId = created.body.result.structuredContent.data[0].id;
    const alone = await rpc(h, { token: key, body: toolCall(undefined, 'delete_post', { postId }) });
    assert.equal(alone.status, 202);
    const inBatch = await rpc(h, {
      token: key,
      body: [toolCall(undefined, 'delete_post', { postId }), { jsonrpc: '2.0', id: 1, method: 'ping' }],
    });
    assert.equal(inBatch.status, 200);
    assert.deepEqual(inBatch.body, [{ jsonrpc: '2.0', id: 1, result: {} }]);
    const still = await h.api('GET', `/v1/rest/posts/${postId}`, { token: account.apiKey });
    assert.equal(still.status, 200, 'the post was deleted by a notification');
  });

  it('answers a manage_team tool without that scope in a batch with the same 403 challenge as alone', async () => {
    const basic = await h.createKey(account, ['read_profile', 'manage_post']);
    const alone = await callTool(h, basic, 'approval_list_pending', {});
    const inBatch = await rpc(h, {
      token: basic,
      body: [{ jsonrpc: '2.0', id: 1, method: 'ping' }, toolCall(2, 'approval_list_pending', {})],
    });
    for (const answer of [alone, inBatch]) {
      assert.equal(answer.status, 403);
      assert.match(answer.headers.get('www-authenticate') ?? '', /error="insufficient_scope", scope="manage_team"/);
    }
    assert.equal(inBatch.body[1].error.data.scope, 'manage_team');
  });
});

describe(`MCP JSON-RPC batches against the account's hourly budget (${TEST_DB})`, function () {
  this.timeout(60_000);
  const HOURLY_BUDGET = 5;
  let h: TestHerald;
  let account: SeededAccount;

  before(async () => {
    h = await startTestHerald({
      rateLimits: {
        restReadsPerMinute: 1000,
        restWritesPerMinute: 1000,
        accountPerHour: HOURLY_BUDGET,
        mcpPerTokenPerMinute: 1000,
      },
    });
    account = await h.seedAccount();
    h.deps.now = stoppedClock();
  });
  after(() => h?.close());

  it(
    'charges each request of a batch to the account hour as well, ' + 'with the headers as they stand after it',
    async () => {
      const body = Array.from({ length: HOURLY_BUDGET + 3 }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'ping' }));
      const answer = await rpc(h, { token: account.apiKey, body });
      assert.equal(answer.status, 200);
      assert.equal(answer.body.filter((r: any) => 'result' in r).length, HOURLY_BUDGET);
      const refused = answer.body.filter((r: any) => r.error?.code === -32029);
      assert.equal(refused.length, 3);
      assert.match(refused[0].error.message, /account hourly budget/);
      assert.ok(refused[0].error.data.retryAfterSeconds >= 1);
      assert.equal(answer.headers.get('x-account-ratelimit-remaining'), '0');
    },
  );
});
