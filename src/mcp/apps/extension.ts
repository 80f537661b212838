/**
 * MCP Apps (the io.modelcontextprotocol/ui extension, stable 2026-01-26): tool results a person would rather see
 * than read, rendered by the host from a ui:// view in a sandboxed iframe.
 * - A client has Apps when its capabilities.extensions["io.modelcontextprotocol/ui"].mimeTypes holds
 *   text/html;profile=mcp-app. A 2026-07-28 request says so in its own _meta clientCapabilities; a 2025 client says
 *   so once, at initialize, and Herald remembers it without a session store: it answers that initialize with an
 *   Mcp-Session-Id starting "ui-", which the client sends on every later request.
 * - Only to such a client: initialize and server/discover declare resources and the extension, tools/list links the
 *   tools that have a view (_meta.ui.resourceUri, and the flat "ui/resourceUri" older hosts read), resources/list and
 *   resources/read serve the views, and those tools' results carry what the view shows beside the unchanged
 *   structuredContent (_meta "herald/postPreview": each post counted against its channel's limit).
 * - The insights view reads its own figures through the host (resources/read of the herald://insights resources):
 *   get_channel links it, its results carry nothing more, and the insights resources name it in their _meta.
 * - Any other client gets everything exactly as before: no links, no extra _meta, and resources/* are unknown methods.
 */
import { randomUUID } from 'node:crypto';
import type { ToolDefinition, ToolName } from '../../../generated/mcp/handlers.js';
import type { PostPreview, PreviewablePost } from '../../domain/posts/post-preview.js';
import { META } from '../modern-era.js';
import type { Era, ToolResult } from '../protocol.js';
import { VIEWS, type View } from './views.js';

const APPS_EXTENSION = 'io.modelcontextprotocol/ui';
const APP_MIME_TYPE = 'text/html;profile=mcp-app';
/** The deprecated flat key of the extension's first drafts, still the only one some hosts read. */
const FLAT_RESOURCE_URI_KEY = 'ui/resourceUri';
const PREVIEW_META_KEY = 'herald/postPreview';
const APPS_SESSION_PREFIX = 'ui-';

/** Which view shows which tool's answer. */
const TOOL_VIEWS: Partial<Record<ToolName, View['uri']>> = {
  create_text_post: 'ui://herald/post-preview',
  create_image_post: 'ui://herald/post-preview',
  update_post: 'ui://herald/post-preview',
  get_paginated_posts: 'ui://herald/week-calendar',
  get_posts_for_channels: 'ui://herald/week-calendar',
  get_posts_with_assets: 'ui://herald/week-calendar',
  get_scheduled_posts: 'ui://herald/week-calendar',
  approval_list_pending: 'ui://herald/approval-queue',
  approval_approve: 'ui://herald/approval-queue',
  approval_reject: 'ui://herald/approval-queue',
  get_channel: 'ui://herald/insights',
};
const INSIGHTS_VIEW: View['uri'] = 'ui://herald/insights';

function declaresApps(capabilities: unknown): boolean {
  const settings = (capabilities as { extensions?: Record<string, { mimeTypes?: unknown }> } | undefined)?.extensions?.[
    APPS_EXTENSION
  ];
  return Array.isArray(settings?.mimeTypes) && settings.mimeTypes.includes(APP_MIME_TYPE);
}

/** The session id that carries a 2025 client's Apps declaration from initialize to its later requests. */
export function appsSessionId(): string {
  return APPS_SESSION_PREFIX + randomUUID();
}

function isAppsSession(sessionId: string | undefined): boolean {
  return sessionId?.startsWith(APPS_SESSION_PREFIX) ?? false;
}

/**
 * Whether this message comes from an Apps client: a modern request by its own _meta, a legacy initialize by its
 * capabilities, any other legacy message by the session id its initialize was answered with.
 */
export function appsDeclared(
  era: Era,
  message: { method?: unknown; params?: unknown },
  sessionId: string | undefined,
): boolean {
  const params = message.params as { capabilities?: unknown; _meta?: Record<string, unknown> } | undefined;
  if (era === 'modern') return declaresApps(params?._meta?.[META.clientCapabilities]);
  return message.method === 'initialize' ? declaresApps(params?.capabilities) : isAppsSession(sessionId);
}

/** What the server adds to its capabilities for an Apps client: resources, and the extension among its extensions. */
export const APPS_RESOURCES_CAPABILITY = { resources: {} };
export const APPS_SERVER_EXTENSION = { [APPS_EXTENSION]: { mimeTypes: [APP_MIME_TYPE] } };

export function linkViews<T extends { name: string }>(tools: T[]): T[] {
  return tools.map((tool) => {
    const resourceUri = TOOL_VIEWS[tool.name as ToolName];
    return resourceUri ? { ...tool, _meta: { ui: { resourceUri }, [FLAT_RESOURCE_URI_KEY]: resourceUri } } : tool;
  });
}

/** The views of the tools this URL serves. */
function servedViews(tools: ReadonlyMap<ToolName, ToolDefinition>): View[] {
  const uris = new Set([...tools.keys()].map((name) => TOOL_VIEWS[name]));
  return VIEWS.filter((view) => uris.has(view.uri));
}

export function listViews(tools: ReadonlyMap<ToolName, ToolDefinition>) {
  return {
    resources: servedViews(tools).map(({ uri, name, title, description }) => ({
      uri,
      name,
      title,
      description,
      mimeType: APP_MIME_TYPE,
    })),
  };
}

/** A view's HTML, or undefined for a URI this URL does not serve. */
export function readView(tools: ReadonlyMap<ToolName, ToolDefinition>, uri: unknown) {
  const view = servedViews(tools).find((v) => v.uri === uri);
  if (!view) return undefined;
  // No csp: the views reach nothing outside themselves, so the host applies the extension's restrictive default.
  return {
    contents: [{ uri: view.uri, mimeType: APP_MIME_TYPE, text: view.html, _meta: { ui: { prefersBorder: true } } }],
  };
}

/** The _meta naming the insights view, for the herald://insights resources, where this URL serves the view. */
export function insightsViewMeta(tools: ReadonlyMap<ToolName, ToolDefinition>) {
  return servedViews(tools).some((v) => v.uri === INSIGHTS_VIEW)
    ? { ui: { resourceUri: INSIGHTS_VIEW }, [FLAT_RESOURCE_URI_KEY]: INSIGHTS_VIEW }
    : undefined;
}

type Preview = (posts: readonly PreviewablePost[]) => Promise<PostPreview[]>;

/** A successful result of a tool with a view, with what the view shows of its posts in _meta. */
export async function withViewData(name: ToolName, result: ToolResult, preview: Preview): Promise<ToolResult> {
  const view = TOOL_VIEWS[name];
  if (result.isError || !view || view === INSIGHTS_VIEW || !result.structuredContent) return result;
  const data = (result.structuredContent as { data?: PreviewablePost | PreviewablePost[] }).data;
  if (data === undefined) return result;
  return {
    ...result,
    _meta: { ...result._meta, [PREVIEW_META_KEY]: await preview(Array.isArray(data) ? data : [data]) },
  };
}
