import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { TestHerald } from '../support/herald.js';

/** The official MCP SDK client, connected to a Herald MCP URL with a bearer token. */
export async function connectSdkClient(h: TestHerald, token: string, mcpPath = '/mcp'): Promise<Client> {
  const client = new Client({ name: 'herald-tests', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(h.url + mcpPath), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return client;
}

let ids = 0;

/** One raw JSON-RPC POST, for protocol rules the SDK client hides. */
export async function rpc(
  h: TestHerald,
  options: {
    token?: string;
    method?: string;
    params?: unknown;
    body?: unknown;
    path?: string;
    headers?: Record<string, string>;
  },
) {
  const body = options.body ?? {
    jsonrpc: '2.0',
    id: ++ids,
    method: options.method,
    ...(options.params === undefined ? {} : { params: options.params }),
  };
  return h.api('POST', options.path ?? '/mcp', {
    token: options.token,
    body,
    headers: { accept: 'application/json, text/event-stream', ...options.headers },
  });
}

/** tools/call over raw HTTP. */
export function callTool(h: TestHerald, token: string, name: string, args: unknown, path = '/mcp') {
  return rpc(h, { token, method: 'tools/call', params: { name, arguments: args }, path });
}
