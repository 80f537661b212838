import { HEADER, type Output } from './output.js';

/**
 * The SDK a consumer imports as `herald/sdk`: an openapi-fetch client typed by the REST spec, and a typed
 * MCP client (plain fetch JSON-RPC) typed by jsonrpc-schemas/.
 */
export function generateSdk(): Output[] {
  const content = `${HEADER}import createClient, { type Client } from 'openapi-fetch';
import type { paths, components } from '../rest/openapi-types.js';

export type { paths, components };
export * from './mcp.js';
export type Post = components['schemas']['Post'];
export type Channel = components['schemas']['Channel'];
export type HeraldError = components['schemas']['Error'];

export interface HeraldClientOptions {
  /** Where Herald runs, e.g. http://localhost:8080 (the /v1/rest prefix is added). */
  baseUrl: string;
  /** An API key or OAuth access token. */
  token?: string;
  /**
   * In a browser signed in to the web app instead of a token: the session cookie goes along by itself, and this
   * CSRF token (the app's page carries it) proves the call comes from Herald's own page.
   */
  csrfToken?: string;
  fetch?: typeof globalThis.fetch;
}

export type HeraldClient = Client<paths>;

/** A typed REST client: \`client.GET('/posts', { params: { query: { livePosts: true } } })\`. */
export function createHeraldClient(options: HeraldClientOptions): HeraldClient {
  const headers: Record<string, string> = options.token
    ? { Authorization: \`Bearer \${options.token}\` }
    : options.csrfToken ? { 'X-CSRF-Token': options.csrfToken } : {};
  if (!options.token && !options.csrfToken) throw new Error('createHeraldClient needs a token (an API key or OAuth access token), or, in the web app, its csrfToken');
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\\/+$/, '') + '/v1/rest',
    headers,
    fetch: options.fetch,
  });
}
`;
  return [
    { file: 'sdk/index.ts', content },
    { file: 'sdk/mcp.ts', content: mcpClient },
  ];
}

const mcpClient = `${HEADER}import type { ToolArguments, ToolName, ToolResults } from '../mcp/types.js';

export type { ToolArguments, ToolName, ToolResults };

export interface HeraldMcpClientOptions {
  /** The MCP URL, e.g. http://localhost:8080/mcp (or .../mcp/claude). */
  url: string;
  /** An API key or OAuth access token. */
  token: string;
  fetch?: typeof globalThis.fetch;
}

/** A tools/call that came back with isError: the message says what to change. */
export class HeraldToolError extends Error {
  constructor(readonly tool: ToolName, message: string) {
    super(message);
    this.name = 'HeraldToolError';
  }
}

/** A JSON-RPC error, or an HTTP error before JSON-RPC (401, 403, 429...). */
export class HeraldMcpError extends Error {
  constructor(readonly status: number, readonly code: number | undefined, message: string) {
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

/** A typed MCP client over stateless JSON-RPC: \`await mcp.callTool('get_channels', {})\`. */
export function createHeraldMcpClient(options: HeraldMcpClientOptions): HeraldMcpClient {
  const doFetch = options.fetch ?? globalThis.fetch;
  let nextId = 1;
  async function request(method: string, params: Record<string, unknown>): Promise<any> {
    const response = await doFetch(options.url, {
      method: 'POST',
      headers: {
        Authorization: \`Bearer \${options.token}\`,
        'Content-Type': 'application/json',
        Accept: 'application/json, text/event-stream',
        'MCP-Protocol-Version': '2025-11-25',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
    });
    const body = (await response.json().catch(() => undefined)) as any;
    if (body?.error) throw new HeraldMcpError(response.status, body.error.code, body.error.message);
    if (!response.ok || !body) throw new HeraldMcpError(response.status, undefined, body?.message ?? \`HTTP \${response.status}\`);
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
`;
