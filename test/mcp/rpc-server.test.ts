/**
 * A method's result travels beside json-rpc-2.0's receive rather than through it (src/mcp/rpc-server.ts): every reply
 * must still carry its own call's result, as json-rpc-2.0 would have answered it.
 */
import assert from 'node:assert/strict';
import { JSONRPCErrorException, JSONRPCServer, type JSONRPCRequest } from 'json-rpc-2.0';
import { RpcServer } from '../../src/mcp/rpc-server.js';

interface Context {
  caller: string;
}

function servers(gate: Promise<void> = Promise.resolve()) {
  const ours = new RpcServer<Context>({ errorListener: () => {} });
  const plain = new JSONRPCServer<Context>({ errorListener: () => {} });
  for (const server of [ours, plain]) {
    server.addMethod('echo', async (params, { caller }) => {
      // Every call resumes in the same turn and finishes after its own number of steps, so their ends interleave.
      const { steps } = params as { steps: number };
      await gate;
      for (let i = 0; i < steps; i++) await null;
      return { caller, params };
    });
    server.addMethod('sync', (params) => ({ got: params }));
    server.addMethod('nothing', () => undefined);
    server.addMethod('refuse', () => {
      throw new JSONRPCErrorException('no', -32602, { why: 'because' });
    });
    server.addMethod('fail', async () => {
      throw new Error('bug');
    });
  }
  return { ours, plain };
}

const request = (id: number | undefined, method: string, params: unknown = {}): JSONRPCRequest =>
  ({ jsonrpc: '2.0', ...(id === undefined ? {} : { id }), method, params }) as JSONRPCRequest;

describe('the MCP JSON-RPC server', () => {
  it(
    'answers every call with its own result while many are under way at once, ' + 'even sharing one context object',
    async () => {
      let open!: () => void;
      const { ours } = servers(new Promise((resolve) => (open = resolve)));
      const calls = Array.from({ length: 40 }, (_, i) => ({ id: i, caller: `c${i}`, steps: (i * 7) % 13 }));
      const replies = Promise.all(
        calls.map((c) => ours.receive(request(c.id, 'echo', { steps: c.steps, n: c.id }), { caller: c.caller })),
      );
      open();
      (await replies).forEach((reply, i) => {
        assert.deepEqual(reply, {
          jsonrpc: '2.0',
          id: i,
          result: { caller: `c${i}`, params: { steps: calls[i].steps, n: i } },
        });
      });
      let openShared!: () => void;
      const shared = servers(new Promise((resolve) => (openShared = resolve))).ours;
      const context = { caller: 'one' };
      const sharing = Promise.all(
        calls.map((c) => shared.receive(request(c.id, 'echo', { steps: c.steps, n: c.id }), context)),
      );
      openShared();
      (await sharing).forEach((reply, i) => {
        assert.deepEqual(reply, {
          jsonrpc: '2.0',
          id: i,
          result: { caller: 'one', params: { steps: calls[i].steps, n: i } },
        });
      });
    },
  );

  it(
    'answers as json-rpc-2.0 itself does: results, no result, ' +
      'refusals, failures, notifications, unknown methods, batches',
    async () => {
      const { ours, plain } = servers();
      const messages = [
        request(1, 'sync', { a: [1, 2] }),
        request(2, 'nothing'),
        request(3, 'refuse'),
        request(4, 'fail'),
        request(undefined, 'sync'),
        request(5, 'missing'),
        { jsonrpc: '2.0', id: 6 } as unknown as JSONRPCRequest,
      ];
      for (const message of messages) {
        const expected = await plain.receive(message, { caller: 'x' });
        assert.deepEqual(await ours.receive(message, { caller: 'x' }), expected, JSON.stringify(message));
      }
      // Batches too: several replies, one standing alone, only notifications, none at all.
      for (const batch of [messages, [messages[0], messages[4]], [messages[4]], []]) {
        const expected = await plain.receive(batch, { caller: 'x' });
        assert.deepEqual(await ours.receive(batch, { caller: 'x' }), expected, JSON.stringify(batch));
      }
    },
  );
});
