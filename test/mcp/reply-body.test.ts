/**
 * The reply writes a tool's remembered JSON text as its structuredContent: the same reply JSON.stringify would write.
 */
import assert from 'node:assert/strict';
import type { JSONRPCResponse } from 'json-rpc-2.0';
import { toolFailure, toolSuccess } from '../../src/mcp/protocol.js';
import { replyChunks } from '../../src/mcp/reply-body.js';

const replyBody = (reply: JSONRPCResponse | JSONRPCResponse[]) => replyChunks(reply).join('');

const page = {
  data: [{ id: 'p1', text: 'Quotes " and \\ and }} and \u2028 and emoji 🎉', labels: [] }],
  paging: { nextCursor: null, hasMore: false },
};

describe('MCP reply body', () => {
  it('is the reply JSON.stringify writes, structured content included once from the text', () => {
    const reply: JSONRPCResponse = { jsonrpc: '2.0', id: 7, result: toolSuccess(page) };
    const chunks = replyChunks(reply);
    const body = chunks.join('');
    assert.equal(body, JSON.stringify(reply));
    // The remembered text goes out as a part of its own, not copied into a longer string.
    assert.ok(chunks.includes(JSON.stringify(page)), JSON.stringify(chunks));
    assert.deepEqual(JSON.parse(body).result.structuredContent, page);
  });

  it('keeps what a view adds beside the result (MCP Apps _meta) and a string id, leaving out what is undefined', () => {
    const result = { ...toolSuccess(page), _meta: { 'herald/postPreview': [{ ok: true }] } };
    const reply: JSONRPCResponse = { jsonrpc: '2.0', id: 'a"b', result: { ...result, left: undefined } };
    assert.equal(replyBody(reply), JSON.stringify(reply));
  });

  it('writes errors, refusals, unremembered results and batches as they are', () => {
    const replies: JSONRPCResponse[] = [
      { jsonrpc: '2.0', id: 1, error: { code: -32602, message: 'Unknown tool' } },
      { jsonrpc: '2.0', id: 2, result: toolFailure('Fix the date') },
      {
        jsonrpc: '2.0',
        id: 3,
        result: { content: [{ type: 'text', text: '{}' }], structuredContent: { made: 'elsewhere' } },
      },
      { jsonrpc: '2.0', id: 4, result: toolSuccess({ data: [] }) },
    ];
    for (const reply of replies) assert.equal(replyBody(reply), JSON.stringify(reply));
    assert.equal(replyBody(replies), JSON.stringify(replies));
  });
});
