/**
 * json-rpc-2.0 ships compiled to ES5: its `receive` runs through TypeScript's `__generator` helper, and on Node 20
 * every value passed through that helper survived the next young-generation collection, where a native async
 * function keeps none (a page of 50 objects behind the same helper: 4.5 MB surviving each scavenge against 0.4 MB).
 * For MCP that was every tool result: an MCP read promoted about 1.4 MB a scavenge and spent three times REST's
 * garbage-collection time on the same page (BENCHMARKS.md). So a method's result waits beside the library, kept
 * by its call, and json-rpc-2.0 carries back a stand-in that `answer` replaces with it.
 */
import { JSONRPCServer, type JSONRPCRequest, type JSONRPCResponse, type SimpleJSONRPCMethod } from 'json-rpc-2.0';

const STAND_IN = Object.freeze({});

/**
 * Results by the context of their call, each taken out as soon as its call is answered. Not on the context itself:
 * json-rpc-2.0 holds the context inside the helper too, and whatever the context holds then survives as well.
 */
const results = new Map<object, unknown>();

export class RpcServer<Context extends object> extends JSONRPCServer<Context> {
  override addMethod(name: string, method: SimpleJSONRPCMethod<Context>): void {
    super.addMethod(name, async (params, context) => {
      results.set(context, await method(params, context));
      return STAND_IN;
    });
  }
}

/** The server's reply to one message, carrying its method's own result (null for none, as json-rpc-2.0 answers). */
export async function answer<Context extends object>(server: RpcServer<Context>, message: JSONRPCRequest, context: Context): Promise<JSONRPCResponse | null> {
  const call = { ...context };
  try {
    const reply = await server.receive(message, call);
    if (reply === null || !('result' in reply) || reply.result !== STAND_IN) return reply;
    return { jsonrpc: reply.jsonrpc, id: reply.id, result: results.get(call) ?? null };
  } finally {
    results.delete(call);
  }
}
