/**
 * json-rpc-2.0 ships compiled to ES5: its `receive` runs through TypeScript's `__generator` helper, and on Node 20
 * every value passed through that helper survived the next young-generation collection, where a native async
 * function keeps none (a page of 50 objects behind the same helper: 4.5 MB surviving each scavenge against 0.4 MB).
 * For MCP that was every tool result: an MCP read promoted about 1.4 MB a scavenge and spent three times REST's
 * garbage-collection time on the same page (BENCHMARKS.md). So a method's result waits beside the library, kept
 * by its call, and json-rpc-2.0 carries back a stand-in that `receive` replaces with it.
 */
import {
  createJSONRPCErrorResponse,
  JSONRPCErrorCode,
  JSONRPCServer,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type SimpleJSONRPCMethod,
} from 'json-rpc-2.0';

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

  /** json-rpc-2.0's receive, its replies carrying their methods' own results (null for none, as it answers). */
  override receive(request: JSONRPCRequest, serverParams?: Context): PromiseLike<JSONRPCResponse | null>;
  override receive(
    request: JSONRPCRequest | JSONRPCRequest[],
    serverParams?: Context,
  ): PromiseLike<JSONRPCResponse | JSONRPCResponse[] | null>;
  override receive(
    request: JSONRPCRequest | JSONRPCRequest[],
    serverParams?: Context,
  ): PromiseLike<JSONRPCResponse | JSONRPCResponse[] | null> {
    return Array.isArray(request) ? this.receiveBatch(request, serverParams) : this.receiveOne(request, serverParams);
  }

  /** A batch answered as json-rpc-2.0 answers one: empty is invalid, notifications drop out, one reply stands alone. */
  private async receiveBatch(
    requests: JSONRPCRequest[],
    serverParams?: Context,
  ): Promise<JSONRPCResponse | JSONRPCResponse[] | null> {
    if (requests.length === 0)
      return createJSONRPCErrorResponse(null, JSONRPCErrorCode.InvalidRequest, 'Invalid Request');
    const replies = (await Promise.all(requests.map((one) => this.receiveOne(one, serverParams)))).filter(
      (reply) => reply !== null,
    );
    return replies.length === 0 ? null : replies.length === 1 ? replies[0] : replies;
  }

  private async receiveOne(request: JSONRPCRequest, serverParams?: Context): Promise<JSONRPCResponse | null> {
    // A context of the call's own, so calls sharing one never take each other's results.
    const call = { ...serverParams } as Context;
    try {
      const reply = await super.receive(request, call);
      if (reply === null || !('result' in reply) || reply.result !== STAND_IN) return reply;
      return { jsonrpc: reply.jsonrpc, id: reply.id, result: results.get(call) ?? null };
    } finally {
      results.delete(call);
    }
  }
}
