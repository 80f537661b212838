/**
 * What every Herald view shares: one self-contained HTML page (inline style and script, nothing fetched) and the
 * View side of the MCP Apps bridge, spoken over postMessage to the host as the extension describes.
 * - The page's own CSP allows inline script and style and data: images only, and no connections, frames, forms
 *   or base URL: the only way out is the host, through postMessage.
 * - Only messages from the parent window are heard; the page opens with ui/initialize, then
 *   ui/notifications/initialized, and reports its size (ui/notifications/size-changed).
 * - Data from the host (post text, channel names) is only ever set as text, never parsed as HTML.
 * - A view shows the host's theme and style variables when given, else its own light defaults.
 * - A cancelled call (ui/notifications/tool-cancelled) replaces the view's content (its [data-root]) with the reason.
 */
const CSP =
  "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; connect-src 'none'; " +
  "frame-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'";

/** The MCP Apps revision the views speak. */
export const APPS_PROTOCOL_VERSION = '2026-01-26';

const BASE_STYLE = `
:root { color-scheme: light dark; --color-background-primary: light-dark(#ffffff, #1b1b1f);
  --color-background-secondary: light-dark(#f4f4f6, #26262b);
  --color-text-primary: light-dark(#18181b, #f4f4f5); --color-text-secondary: light-dark(#5b5b66, #a1a1aa);
  --color-border-primary: light-dark(#dedee3, #3a3a42);
  --color-text-danger: light-dark(#b42318, #f97066); --color-text-success: light-dark(#067647, #47cd89);
  --color-text-warning: light-dark(#b54708, #fdb022);
  --font-sans: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; --border-radius-md: 10px; }
* { box-sizing: border-box; }
body { margin: 0; padding: 12px; font: 14px/1.45 var(--font-sans); color: var(--color-text-primary);
  background: var(--color-background-primary); }
h1 { font-size: 15px; margin: 0 0 10px; }
.muted { color: var(--color-text-secondary); font-size: 12px; }
.card { border: 1px solid var(--color-border-primary); border-radius: var(--border-radius-md); padding: 10px 12px;
  margin-bottom: 10px; background: var(--color-background-primary); }
.badge { display: inline-block; padding: 1px 8px; border-radius: 999px; font-size: 11px;
  background: var(--color-background-secondary); color: var(--color-text-secondary); }
.danger { color: var(--color-text-danger); } .success { color: var(--color-text-success); }
.warning { color: var(--color-text-warning); }
button { font: inherit; padding: 4px 12px; border-radius: 8px; border: 1px solid var(--color-border-primary);
  background: var(--color-background-secondary); color: var(--color-text-primary); cursor: pointer; }
button:disabled { opacity: .5; cursor: default; }
.avatar { width: 32px; height: 32px; border-radius: 50%; display: grid; place-items: center; font-weight: 600;
  font-size: 13px;
  background: var(--color-background-secondary); color: var(--color-text-secondary); flex: none; }
.meter { flex: 1; height: 4px; border-radius: 2px; background: var(--color-background-secondary); overflow: hidden; }
.meter > span { display: block; height: 100%; background: var(--color-text-success); }
.meter.over > span { background: var(--color-text-danger); }
.counter { font-variant-numeric: tabular-nums; font-size: 12px; }
.post header { display: flex; align-items: center; gap: 8px; margin-bottom: 6px; }
.post header .network { margin-left: auto; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; margin: 4px 0 8px; }
.media { margin: 0 0 8px; }
.post footer { display: flex; align-items: center; gap: 10px; }
.problems { margin: 8px 0 0; padding-left: 18px; font-size: 12px; }
`;

/**
 * The View side of the bridge: `herald.on(method, fn)`, `herald.callTool(name, args)`, `herald.readResource(uri)`
 * (through the host, where its hostCapabilities name serverResources), `el(...)` to build DOM.
 */
const BRIDGE_SCRIPT = `
const herald = (() => {
  let nextId = 1;
  const pending = new Map();
  const handlers = {};
  const send = (message) => window.parent.postMessage({ jsonrpc: '2.0', ...message }, '*');
  const request = (method, params) => new Promise((resolve, reject) => {
    const id = nextId++;
    pending.set(id, { resolve, reject });
    send({ id, method, params });
  });
  window.addEventListener('message', (event) => {
    if (event.source !== window.parent) return;
    const message = event.data;
    if (!message || message.jsonrpc !== '2.0') return;
    if (message.method === undefined) {
      const waiting = pending.get(message.id);
      if (!waiting) return;
      pending.delete(message.id);
      if (message.error) waiting.reject(new Error(message.error.message));
      else waiting.resolve(message.result);
      return;
    }
    if (message.id !== undefined) {
      const known = message.method === 'ui/resource-teardown' || message.method === 'ping';
      send(known ? { id: message.id, result: {} } : { id: message.id, error: { code: -32601,
        message: 'Method not found: ' + message.method } });
      return;
    }
    if (message.method === 'ui/notifications/host-context-changed') applyContext(message.params);
    if (message.method === 'ui/notifications/tool-cancelled') {
      const reason = message.params && message.params.reason;
      document.querySelector('[data-root]').replaceChildren(el('p', { class: 'muted', 'data-role': 'cancelled' },
        'Cancelled' + (reason ? ': ' + reason : '.')));
    }
    (handlers[message.method] || (() => {}))(message.params || {});
  });
  const context = {};
  function applyContext(update) {
    if (!update) return;
    Object.assign(context, update);
    if (update.theme) document.documentElement.style.colorScheme = update.theme;
    const variables = update.styles && update.styles.variables;
    if (!variables) return;
    for (const [name, value] of Object.entries(variables)) {
      if (value) document.documentElement.style.setProperty(name, value);
    }
  }
  new ResizeObserver(() => {
    const box = document.documentElement.getBoundingClientRect();
    send({ method: 'ui/notifications/size-changed', params: { width: Math.ceil(box.width),
      height: Math.ceil(box.height) } });
  }).observe(document.documentElement);
  const hostCapabilities = {};
  return {
    context,
    hostCapabilities,
    on(method, fn) { handlers[method] = fn; },
    callTool(name, args) { return request('tools/call', { name, arguments: args }); },
    readResource(uri) { return request('resources/read', { uri }); },
    start(appInfo) {
      return request('ui/initialize', { appInfo, appCapabilities: { availableDisplayModes: ['inline'] },
        protocolVersion: '${APPS_PROTOCOL_VERSION}' })
        .then((result) => {
          applyContext(result && result.hostContext);
          Object.assign(hostCapabilities, (result && result.hostCapabilities) || {});
          send({ method: 'ui/notifications/initialized', params: {} });
        });
    },
  };
})();
function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}
function previewsOf(result) {
  const list = (result._meta && result._meta['herald/postPreview']) || [];
  return new Map(list.map((p) => [p.postId, p]));
}
function initials(name) {
  const words = (name || '?').replace(/^@/, '').split(/\\s+/);
  return (words[0].charAt(0) + (words.length > 1 ? words[words.length - 1].charAt(0) : '')).toUpperCase();
}
/** A time in the host's zone and language, or UTC (said so) when the host gives none. */
function formatTime(iso, options) {
  const zone = herald.context.timeZone || 'UTC';
  const format = new Intl.DateTimeFormat(herald.context.locale || 'en-GB', { ...options, timeZone: zone });
  return format.format(new Date(iso)) + (herald.context.timeZone ? '' : ' UTC');
}
function when(post) {
  const format = (iso) => formatTime(iso, { dateStyle: 'medium', timeStyle: 'short' });
  if (post.approvalStatus === 'PENDING') {
    return 'Waiting for approval' + (post.dateTime ? ' · ' + format(post.dateTime) : '');
  }
  if (post.status === 'draft') return 'Draft' + (post.dateTime ? ' · ' + format(post.dateTime) : '');
  if (post.status === 'published') return 'Published' + (post.publishedAt ? ' · ' + format(post.publishedAt) : '');
  if (post.status === 'failed') return 'Failed: ' + (post.error || 'see the post');
  if (post.dateTime && post.status === 'scheduled') return 'Scheduled · ' + format(post.dateTime);
  return 'Publishing now';
}
function media(post) {
  const parts = [];
  if (post.imageUrls.length) parts.push(post.imageUrls.length === 1 ? '1 image' : post.imageUrls.length + ' images');
  if (post.videoUrls.length) parts.push(post.videoUrls.length === 1 ? '1 video' : post.videoUrls.length + ' videos');
  return parts.length ? el('p', { class: 'media' }, el('span', { class: 'badge' }, parts.join(' · '))) : null;
}
function counter(preview) {
  if (preview.limit === null) return el('span', { class: 'counter muted', 'data-role': 'counter' },
    String(preview.length));
  const over = preview.length > preview.limit;
  const meter = el('div', { class: over ? 'meter over' : 'meter' }, el('span'));
  meter.firstChild.style.width = Math.min(100, (preview.length / preview.limit) * 100) + '%';
  return [meter, el('span', { class: over ? 'counter danger' : 'counter', 'data-role': 'counter',
    title: preview.network.countingNote || null }, preview.length + ' / ' + preview.limit)];
}
/** A post as it will look on its channel; extra goes at the end of the card (the approval buttons). */
function postCard(post, preview, ...extra) {
  const channel = preview ? preview.channel : { name: post.channelId, handle: '', displayName: null };
  const shownName = channel.displayName || channel.name;
  return el('article', { class: 'card post', 'data-post-id': post.id, 'data-network': preview && preview.network.name },
    el('header', {},
      el('span', { class: 'avatar' }, initials(shownName)),
      el('div', {}, el('strong', {}, shownName), ' ', el('span', { class: 'muted' }, channel.handle)),
      preview ? el('span', { class: 'badge network' }, preview.network.displayName) : null),
    el('p', { class: 'text' }, post.text),
    media(post),
    el('footer', {}, el('span', { class: 'when muted' }, when(post)), preview ? counter(preview) : null),
    preview && preview.problems.length ? el('ul', { class: 'problems danger', 'data-role': 'problems' },
      preview.problems.map((p) => el('li', {}, p))) : null,
    extra);
}
function postsOf(result) {
  const data = result.structuredContent && result.structuredContent.data;
  return data === undefined ? [] : Array.isArray(data) ? data : [data];
}
`;

export function viewPage(page: { title: string; style: string; body: string; script: string }): string {
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${CSP}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${page.title}</title>
<style>${BASE_STYLE}${page.style}</style>
</head>
<body>
${page.body}
<script>
${BRIDGE_SCRIPT}
${page.script}
</script>
</body>
</html>
`;
}
