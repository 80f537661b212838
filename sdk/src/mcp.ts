/**
 * A typed MCP client over stateless JSON-RPC, typed by jsonrpc-schemas/: a tool's refusal is a HeraldToolError with
 * its message, anything before the tool runs (401, 403, 429, a JSON-RPC error) a HeraldMcpError. 429 and 503 are
 * tried again after their Retry-After, as on REST.
 */
import type { ToolArguments, ToolName, ToolResults } from '../../generated/mcp/types.js';
import { heraldFetch, type RetryOptions } from './transport.js';

export type { ToolArguments, ToolName, ToolResults };

export interface HeraldMcpClientOptions extends RetryOptions {
  /** The MCP URL, e.g. http://localhost:8080/mcp (or .../mcp/claude). */
  url: string;
  /** An API key or OAuth access token. */
  token: string;
  fetch?: typeof globalThis.fetch;
}

/** A tools/call that came back with isError: the message says what to change. */
export class HeraldToolError extends Error {
  constructor(
    readonly tool: ToolName,
    message: string,
  ) {
    super(message);
    this.name = 'HeraldToolError';
  }
}

/** A JSON-RPC error, or an HTTP error before JSON-RPC (401, 403, 429...). */
export class HeraldMcpError extends Error {
  constructor(
    readonly status: number,
    readonly code: number | undefined,
    message: string,
  ) {
    super(message);
    this.name = 'HeraldMcpError';
  }
}

export interface HeraldMcpClient {
  /** Runs one tool; resolves to its structured result, rejects with HeraldToolError when the tool refused. */
  callTool<N extends ToolName>(name: N, args: ToolArguments[N]): Promise<ToolResults[N]>;
  /** The names of the tools this URL serves. */
  listTools(): Promise<ToolName[]>;
}

/** `await mcp.callTool('get_channels', {})`. */
export function createHeraldMcpClient(options: HeraldMcpClientOptions): HeraldMcpClient {
  const send = heraldFetch({ ...options, idempotencyKeys: false });
  let nextId = 1;
  async function request(method: string, params: Record<string, unknown>): Promise<any> {
    const response = await send(
      new Request(options.url, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${options.token}`,
          'Content-Type': 'application/json',
          Accept: 'application/json, text/event-stream',
          'MCP-Protocol-Version': '2025-11-25',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
      }),
    );
    const body = (await response.json().catch(() => undefined)) as any;
    if (body?.error) throw new HeraldMcpError(response.status, body.error.code, body.error.message);
    if (!response.ok || !body) {
      throw new HeraldMcpError(response.status, undefined, body?.message ?? `HTTP ${response.status}`);
    }
    return body.result;
  }
  return {
    async callTool(name, args) {
      const result = await request('tools/call', { name, arguments: args });
      if (result.isError) throw new HeraldToolError(name, result.content?.[0]?.text ?? 'The tool refused the call.');
      return result.structuredContent;
    },
    async listTools() {
      const names: ToolName[] = [];
      let cursor: string | undefined;
      do {
        const page = await request('tools/list', cursor ? { cursor } : {});
        names.push(...page.tools.map((t: { name: ToolName }) => t.name));
        cursor = page.nextCursor;
      } while (cursor);
      return names;
    },
  };
}
