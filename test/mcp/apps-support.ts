/**
 * MCP Apps test support: MCP clients that declare (or not) the extension, and a host page in headless Chromium
 * built on the extension's own AppBridge, which loads a view in a sandboxed iframe, hands it the tool input and
 * result, and proxies the view's tool calls to Herald through a real MCP client.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client as ClientV2, StreamableHTTPClientTransport as TransportV2 } from '@modelcontextprotocol/client';
import { AjvJsonSchemaValidator as AjvV2 } from '@modelcontextprotocol/client/validators/ajv';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport as TransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { AjvJsonSchemaValidator as AjvV1 } from '@modelcontextprotocol/sdk/validation/ajv';
import { EXTENSION_ID, RESOURCE_MIME_TYPE } from '@modelcontextprotocol/ext-apps/server';
import { build } from 'esbuild';
import type { Browser, Page } from 'playwright-core';
import type { TestHerald } from '../support/herald.js';

export const APPS_CAPABILITIES = { extensions: { [EXTENSION_ID]: { mimeTypes: [RESOURCE_MIME_TYPE] } } };

export interface AppsClient {
  callTool(name: string, args: Record<string, unknown>): Promise<Record<string, any>>;
  listTools(): Promise<Record<string, any>[]>;
  listResources(): Promise<Record<string, any>[]>;
  readResource(uri: string): Promise<Record<string, any>>;
  close(): Promise<void>;
  /** The Mcp-Session-Id the server answered initialize with, if any. */
  sessionId(): string | undefined;
}

export type ClientKind = 'v1' | 'v2 2026-07-28';

type Check = (input: unknown) => unknown;

/**
 * The SDK's own Ajv validator, made for a tool's output when that output is first checked: a client compiles one for
 * every tool a listing names (over a second of CPU for Herald's tools), and these tests call a few. Every tool's
 * schema is compiled by the default validator in sdk-client.test.ts.
 */
function compiledWhenUsed<P extends { getValidator(schema: never): Check }>(provider: P): P {
  return {
    getValidator(schema: never) {
      let check: Check | undefined;
      return (input: unknown) => (check ??= provider.getValidator(schema))(input);
    },
  } as P;
}

export async function connectClient(
  kind: ClientKind,
  h: TestHerald,
  token: string,
  apps: boolean,
): Promise<AppsClient> {
  const url = new URL(h.url + '/mcp');
  const requestInit = { headers: { Authorization: `Bearer ${token}` } };
  const capabilities = apps ? APPS_CAPABILITIES : {};
  if (kind === 'v1') {
    const client = new ClientV1(
      { name: 'herald-apps-v1', version: '1.0.0' },
      { capabilities, jsonSchemaValidator: compiledWhenUsed(new AjvV1()) },
    );
    const transport = new TransportV1(url, { requestInit });
    await client.connect(transport);
    return {
      callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as never,
      listTools: async () => (await client.listTools()).tools as never,
      listResources: async () => (await client.listResources()).resources as never,
      readResource: async (uri) => (await client.readResource({ uri })) as never,
      close: () => client.close(),
      sessionId: () => transport.sessionId,
    };
  }
  const client = new ClientV2(
    { name: 'herald-apps-v2', version: '2.0.0' },
    {
      capabilities,
      versionNegotiation: { mode: { pin: '2026-07-28' } },
      jsonSchemaValidator: compiledWhenUsed(new AjvV2()),
    },
  );
  await client.connect(new TransportV2(url, { requestInit }));
  return {
    callTool: async (name, args) => (await client.callTool({ name, arguments: args })) as never,
    listTools: async () => (await client.listTools()).tools as never,
    listResources: async () => (await client.listResources()).resources as never,
    readResource: async (uri) => (await client.readResource({ uri })) as never,
    close: () => client.close(),
    sessionId: () => undefined,
  };
}

/** The extension's AppBridge and PostMessageTransport, bundled for the browser as the global HostBridge. */
async function bundleAppBridge(): Promise<string> {
  const bundled = await build({
    stdin: {
      contents: 'export { AppBridge, PostMessageTransport } from "@modelcontextprotocol/ext-apps/app-bridge";',
      resolveDir: process.cwd(),
    },
    bundle: true,
    format: 'iife',
    globalName: 'HostBridge',
    platform: 'browser',
    write: false,
    logLevel: 'silent',
  });
  return bundled.outputFiles[0].text;
}

const HOST_SCRIPT = `
window.renderView = async (html, toolInput, toolResult, hostContext) => {
  const { AppBridge, PostMessageTransport } = HostBridge;
  const iframe = document.createElement('iframe');
  iframe.setAttribute('sandbox', 'allow-scripts');
  iframe.title = 'Herald view';
  document.getElementById('conversation').append(iframe);
  const bridge = new AppBridge(
    null,
    { name: 'herald-test-host', version: '1.0.0' },
    { serverTools: {}, serverResources: {} },
    {
      hostContext: {
        theme: 'light', displayMode: 'inline', locale: 'en-GB', timeZone: 'UTC',
        containerDimensions: { width: 620, maxHeight: 2000 }, ...hostContext,
      },
    },
  );
  bridge.oncalltool = (params) => window.heraldCallTool(params);
  bridge.onreadresource = (params) => window.heraldReadResource(params);
  bridge.onsizechange = ({ height }) => { if (height) iframe.style.height = height + 'px'; };
  const initialized = new Promise((resolve) => { bridge.oninitialized = resolve; });
  await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
  iframe.srcdoc = html;
  await initialized;
  if (toolResult === null) return;
  await bridge.sendToolInput({ arguments: toolInput });
  if (toolResult.cancelled) await bridge.sendToolCancelled({ reason: toolResult.cancelled });
  else await bridge.sendToolResult(toolResult);
};
`;

const HOST_PAGE = `<!DOCTYPE html><html><head><meta charset="utf-8"><title>Test host</title>
<style>body { margin: 0; padding: 16px; background: #eceef2; font-family: system-ui, sans-serif; }
#conversation { width: 620px; }
iframe { width: 620px; border: 1px solid #d5d7de; border-radius: 12px; background: #fff; display: block; }</style>
</head><body><div id="conversation"></div><script src="bridge.js"></script>
<script>${HOST_SCRIPT}</script></body></html>`;

export interface Host {
  /**
   * Loads the view, delivers the tool's input and result (or, for `{ cancelled: reason }`, the call's cancellation;
   * nothing for null: a view shown on its own), and answers the view's tool calls and resource reads with `client`.
   */
  render(
    page: Page,
    html: string,
    toolInput: Record<string, unknown>,
    toolResult: Record<string, unknown> | null,
    client: AppsClient,
    hostContext?: Record<string, unknown>,
  ): Promise<void>;
  /** Every URL the pages asked for, apart from the host page and its bridge script. */
  requests: string[];
  /** The tool calls views made through the bridge. */
  calls: { name: string; arguments?: Record<string, unknown> }[];
  /** The resources views read through the bridge, by URI. */
  reads: string[];
  close(): Promise<void>;
}

export async function startHost(_browser: Browser): Promise<Host> {
  // The bridge (1.2 MB) is a script of its own, which the tab's cache keeps: a render does not load and compile it
  // again.
  const bridge = await bundleAppBridge();
  const server = http.createServer((req, res) => {
    if (req.url === '/bridge.js') {
      res.writeHead(200, { 'content-type': 'text/javascript', 'cache-control': 'max-age=3600' }).end(bridge);
    } else res.writeHead(200, { 'content-type': 'text/html' }).end(HOST_PAGE);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const hostUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
  const requests: string[] = [];
  const calls: Host['calls'] = [];
  const reads: string[] = [];
  // A tab rendered in before is rendered in again as it is (each render loads the host page afresh): its bridge to
  // Herald is set up once, and answers with the client of its latest render.
  const clients = new WeakMap<Page, AppsClient>();
  return {
    requests,
    calls,
    reads,
    async render(tab, html, toolInput, toolResult, client, hostContext = {}) {
      const reused = clients.has(tab);
      clients.set(tab, client);
      if (!reused) {
        tab.on('request', (request) => {
          if (request.url() !== hostUrl && request.url() !== `${hostUrl}bridge.js`) requests.push(request.url());
        });
        await tab.exposeFunction('heraldCallTool', (params: Host['calls'][number]) => {
          calls.push(params);
          return clients.get(tab)!.callTool(params.name, params.arguments ?? {});
        });
        await tab.exposeFunction('heraldReadResource', (params: { uri: string }) => {
          reads.push(params.uri);
          return clients.get(tab)!.readResource(params.uri);
        });
      }
      await tab.goto(hostUrl);
      await tab.evaluate(([view, input, result, context]) => (window as any).renderView(view, input, result, context), [
        html,
        toolInput,
        toolResult,
        hostContext,
      ] as const);
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
