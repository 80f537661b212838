/**
 * A tool's answer carries its result twice: as structuredContent and as the same JSON in a text block, which MCP
 * asks of tools with an output schema for clients that read only content. Serialising the result a second time
 * for the reply was most of what an MCP read cost over the same REST read (BENCHMARKS.md), so the text made for
 * the block is kept beside the result and written into the reply as its structuredContent.
 */
import type { JSONRPCResponse } from 'json-rpc-2.0';

const serialized = new WeakMap<object, string>();

/** The result's JSON text, remembered for replyChunks; the result must not change afterwards (tool results do not). */
export function serializeResult(result: object): string {
  const text = JSON.stringify(result);
  serialized.set(result, text);
  return text;
}

/**
 * The JSON text of a reply, or of a batch of them, in parts to be written one after another, in the order
 * JSON.stringify would write them. A tool's remembered text is a part of its own: joined to the rest, it would be
 * copied once more to measure the reply and again to send it.
 */
export function replyChunks(reply: JSONRPCResponse | JSONRPCResponse[]): string[] {
  if (Array.isArray(reply))
    return ['[', ...reply.flatMap((one, i) => (i === 0 ? replyChunks(one) : [',', ...replyChunks(one)])), ']'];
  const result = reply.result as Record<string, unknown> | undefined;
  const structured = result?.structuredContent;
  const text = typeof structured === 'object' && structured !== null ? serialized.get(structured) : undefined;
  if (!result || text === undefined) return [JSON.stringify(reply)];
  const chunks = [`{"jsonrpc":${JSON.stringify(reply.jsonrpc)},"id":${JSON.stringify(reply.id)},"result":{`];
  for (const [key, value] of Object.entries(result)) {
    const json = key === 'structuredContent' ? text : JSON.stringify(value);
    // What JSON.stringify leaves out of an object (undefined) is left out here too.
    if (json !== undefined) chunks.push(`${chunks.length > 1 ? ',' : ''}${JSON.stringify(key)}:`, json);
  }
  chunks.push('}}');
  return chunks;
}
