/**
 * The web app's pages, rendered on the server. Every value is escaped; the only script is the compose page's
 * character counter, allowed by a per-response nonce; forms carry the CSRF token.
 */
import type { ChannelView } from '../../domain/directory.js';
import type { ChannelOptionRule, NetworkCapabilities } from '../../domain/networks/capabilities.js';
import { escapeHtml } from '../../http/html.js';
import type { LabelView } from '../../domain/labels/labels.js';

export interface PageContext {
  csrf: string;
  nonce: string;
  /** Set when signed in: the navigation shows, with sign-out. */
  signedIn?: { email: string; manages: boolean };
  /** Things the team must act on, shown on every page (a webhook endpoint Herald disabled). */
  banners?: string[];
}

const STYLE = `body{font:15px/1.5 system-ui,sans-serif;margin:0;color:#1d2430}header{display:flex;gap:1rem;align-items:center;padding:.6rem 1.2rem;background:#1d2430;color:#fff}
header{flex-wrap:wrap}header a{color:#fff;text-decoration:none}header form{margin-left:auto}main{max-width:60rem;margin:1.5rem auto;padding:0 1.2rem}
table{border-collapse:collapse;width:100%}td,th{border-bottom:1px solid #e3e6ea;padding:.4rem;text-align:left;vertical-align:top}
.status{font-size:.8em;padding:.1rem .45rem;border-radius:.6rem;background:#e3e6ea}.status.published{background:#d6f5dd}.status.failed,.status.needs_reconnect{background:#fbd9d9}
.status.scheduled{background:#dbe8fb}.status.draft{background:#f1ecd6}.status.unconfirmed{background:#fde9c8}
.problem{color:#b00020}form.inline{display:inline;margin-left:.4rem}.drop{border:2px dashed #c4cad3;padding:1rem;text-align:center}.drop.over{background:#eef4fd}label.inline{display:inline;text-decoration:underline;cursor:pointer}.thumb{max-height:5rem;display:block}textarea.short{min-height:3rem}tr.needs-reconnect{background:#fff1f1}.not-configured{color:#5a6472}main{overflow-wrap:anywhere}.preview{border:1px solid #e3e6ea;border-radius:.5rem;padding:.5rem .8rem;margin:.5rem 0}.preview header{display:block;background:none;color:inherit;padding:0}.preview-text{white-space:pre-wrap;margin:.3rem 0}mark.cut{background:#fbd9d9}.preview-media{display:flex;gap:.3rem}.preview-comment{color:#5a6472;margin:.2rem 0 0 1rem}#queued li{cursor:grab;padding:.2rem 0}label{display:block;margin:.6rem 0 .2rem}textarea{width:100%;min-height:7rem}fieldset{border:1px solid #e3e6ea}
.banner{margin:0;padding:.6rem 1.2rem;background:#fde9c8;border-bottom:1px solid #e8c98c}.secret{font-family:monospace;background:#f1ecd6;padding:.3rem}
.counter{font-size:.85em;color:#555}#week td{width:14%;min-height:8rem;height:8rem}.entry{border:1px solid #dbe8fb;border-radius:.3rem;padding:.2rem;margin:.2rem 0;font-size:.85em}
.entry[draggable]{cursor:grab;background:#f3f8ff}.counter.over{color:#b00020;font-weight:600}button{cursor:pointer}
@media (max-width:40rem){header form{margin-left:0}#week,#week tbody,#week tr,#week td{display:block;width:auto;height:auto;min-height:0}#week td.day{padding:.5rem 0}table{display:block;overflow-x:auto}}`;

export function layout(context: PageContext, title: string, body: string): string {
  const nav = context.signedIn
    ? `<header><strong>Herald</strong><a href="/app">Posts</a><a href="/app/compose">Compose</a><a href="/app/calendar">Calendar</a>${context.signedIn.manages ? '<a href="/app/approvals">Approvals</a><a href="/app/channels">Channels</a><a href="/app/settings/webhooks">Webhooks</a>' : ''}<a href="/app/settings/members">Members</a><a href="/app/settings/api-keys">API keys</a>
<form method="post" action="/app/sign-out"><input type="hidden" name="csrf_token" value="${escapeHtml(context.csrf)}"><span>${escapeHtml(context.signedIn.email)}</span> <button>Sign out</button></form></header>`
    : '<header><strong>Herald</strong></header>';
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(title)} · Herald</title><style>${STYLE}</style></head><body>${nav}
${(context.banners ?? []).map((b) => `<p class="banner" role="status">${escapeHtml(b)}</p>`).join('')}<main><h1>${escapeHtml(title)}</h1>
${body}</main></body></html>`;
}

/** A person went faster than their budget: what to wait for, and a way back. */
export function slowDownPage(context: PageContext, message: string): string {
  return layout(context, 'One moment', `<p class="problem" role="alert">${escapeHtml(message)}</p><p><a href="/app">Back to the posts</a></p>`);
}

export function signInPage(context: PageContext, extra: { email?: string; problem?: string } = {}): string {
  return layout(context, 'Sign in', `${extra.problem ? `<p class="problem" role="alert">${escapeHtml(extra.problem)}</p>` : ''}
<form method="post" action="/app/sign-in"><input type="hidden" name="csrf_token" value="${escapeHtml(context.csrf)}">
<label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${escapeHtml(extra.email ?? '')}">
<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>
<p><button type="submit">Sign in</button></p></form>`);
}

export interface ComposeForm {
  text?: string;
  channelIds?: string[];
  when?: string;
  dateTime?: string;
  timezone?: string;
  /** Raw option fields by network, as typed: `option.<network>.<name>`. */
  options?: Record<string, Record<string, string>>;
  /** What an AI helper just did, and which provider answered. */
  assisted?: string;
  firstComment?: string;
  /** A channel's own text in place of the shared one, by channel id. */
  textByChannel?: Record<string, string>;
  labelIds?: string[];
  /** What to ask the AI to write or draw. */
  prompt?: string;
  /** Uploaded media in order, with the alt text typed beside each. */
  media?: { id: string; url: string; altText: string }[];
}

function optionField(network: string, rule: ChannelOptionRule, value: string | undefined): string {
  const name = `option.${network}.${rule.name}`;
  const label = `<label for="${escapeHtml(name)}">${escapeHtml(rule.name)}${rule.required ? ' (required)' : ''}: ${escapeHtml(rule.description)}</label>`;
  if (typeof rule.type === 'object') {
    const choices = ['', ...rule.type.oneOf].map((c) => `<option value="${escapeHtml(c)}"${value === c ? ' selected' : ''}>${escapeHtml(c || '(default)')}</option>`).join('');
    return `${label}<select id="${escapeHtml(name)}" name="${escapeHtml(name)}">${choices}</select>`;
  }
  if (rule.type === 'boolean') return `${label}<select id="${escapeHtml(name)}" name="${escapeHtml(name)}"><option value="">(default)</option><option value="true"${value === 'true' ? ' selected' : ''}>yes</option><option value="false"${value === 'false' ? ' selected' : ''}>no</option></select>`;
  const hint = rule.type === 'string[]' ? ' placeholder="comma-separated"' : '';
  return `${label}<input id="${escapeHtml(name)}" name="${escapeHtml(name)}" size="50"${hint} value="${escapeHtml(value ?? '')}">`;
}

export function composePage(context: PageContext, channels: ChannelView[], labels: LabelView[], limits: Record<string, NetworkCapabilities>, form: ComposeForm = {}, problems: { path: string; message: string }[] = []): string {
  const problemAt = (path: string) => problems.filter((p) => p.path === path || p.path.startsWith(`${path}.`) || p.path.startsWith(`${path}[`))
    .map((p) => `<p class="problem" role="alert">${escapeHtml(p.message)}</p>`).join('');
  const others = problems.filter((p) => !['text', 'textByChannel', 'channelIds', 'dateTime', 'mediaIds', 'firstComment', 'prompt', 'addToQueue', 'channelOptions'].some((f) => p.path === f || p.path.startsWith(`${f}.`) || p.path.startsWith(`${f}[`)));
  const chosen = new Set(form.channelIds ?? []);
  const boxes = channels.filter((c) => c.status !== 'disconnected').map((c) => {
    const limit = limits[c.network]?.text;
    const row = limits[c.network];
    return `<label><input type="checkbox" name="channelIds" value="${escapeHtml(c.id)}" data-network="${escapeHtml(c.network)}" data-limit="${limit?.limit ?? ''}" data-counting="${escapeHtml(limit?.counting ?? '')}"
 data-name="${escapeHtml(c.displayName ?? c.name)}" data-handle="${escapeHtml(c.handle)}" data-display="${escapeHtml(row?.displayName ?? c.network)}" data-max-media="${row?.media.maxItems ?? 0}" data-first-comment="${escapeHtml(row?.firstComment ?? 'none')}"${chosen.has(c.id) ? ' checked' : ''}>
${escapeHtml(c.displayName ?? c.name)} <small>(${escapeHtml(c.network)} ${escapeHtml(c.handle)})</small></label>`;
  }).join('');
  const networks = new Set(channels.filter((c) => c.status !== 'disconnected').map((c) => c.network));
  // Alt text is typed beside each image (Media), not as a network option.
  const optionFields = [...networks].flatMap((network) => (limits[network]?.channelOptions ?? []).filter((rule) => rule.name !== 'altText')
    .map((rule) => optionField(network, rule, form.options?.[network]?.[rule.name]))).join('');
  const media = (form.media ?? []).map((m, i) => mediaItem(m, i)).join('');
  const when = form.when ?? 'now';
  const radio = (value: string, label: string) => `<label><input type="radio" name="when" value="${value}"${when === value ? ' checked' : ''}> ${label}</label>`;
  return layout(context, 'Compose', `${others.map((p) => `<p class="problem" role="alert">${escapeHtml(p.message)}</p>`).join('')}
<form method="post" action="/app/compose"><input type="hidden" name="csrf_token" value="${escapeHtml(context.csrf)}">
<fieldset><legend>Channels</legend>${boxes || '<p>No channels yet.</p>'}${problemAt('channelIds')}</fieldset>
<label for="text">Text</label><textarea id="text" name="text">${escapeHtml(form.text ?? '')}</textarea>
<p id="counters" class="counter" aria-live="polite"></p>${problemAt('text')}
<details${Object.keys(form.textByChannel ?? {}).length > 0 ? ' open' : ''}><summary>A different text for one channel</summary>
${channels.filter((c) => c.status !== 'disconnected').map((c) => `<label for="text-for-${escapeHtml(c.id)}">Text for ${escapeHtml(c.displayName ?? c.name)} (${escapeHtml(c.network)}), in place of the one above</label>
<textarea id="text-for-${escapeHtml(c.id)}" name="textFor.${escapeHtml(c.id)}" class="short own-text" data-channel-id="${escapeHtml(c.id)}">${escapeHtml(form.textByChannel?.[c.id] ?? '')}</textarea>${problemAt(`textByChannel.${c.id}`)}`).join('')}</details>
<details open><summary>Preview per channel</summary><div id="previews"></div></details>
${form.assisted ? `<p id="assisted" role="status">${escapeHtml(form.assisted)}</p>` : ''}
<fieldset><legend>Media</legend><div id="media-drop" class="drop">Drop images or videos here, or <label for="media-file" class="inline">choose files</label>
<input id="media-file" type="file" accept="image/*,video/*" multiple></div><ol id="media-list">${media}</ol>${problemAt('mediaIds')}</fieldset>
${labels.length > 0 ? `<fieldset><legend>Labels</legend>${labels.map((l) => `<label class="choice"><input type="checkbox" name="labelIds" value="${escapeHtml(l.id)}"${(form.labelIds ?? []).includes(l.id) ? ' checked' : ''}> ${escapeHtml(l.name)}</label>`).join('')}</fieldset>` : ''}
<label for="firstComment">First comment (optional: posted under the post where the network allows it)</label><textarea id="firstComment" name="firstComment" class="short">${escapeHtml(form.firstComment ?? '')}</textarea>${problemAt('firstComment')}
${optionFields ? `<fieldset><legend>Network options</legend>${optionFields}${problemAt('channelOptions')}</fieldset>` : ''}
<fieldset><legend>When</legend>${radio('now', 'Publish now')}${radio('schedule', 'Schedule at')}
<input type="datetime-local" name="dateTime" aria-label="Date and time to publish at" value="${escapeHtml(form.dateTime ?? '')}"> in time zone <input name="timezone" aria-label="Time zone of that date and time" value="${escapeHtml(form.timezone ?? 'UTC')}" size="18">
${radio('queue', "Add to each channel's queue (its next free slot)")}${radio('draft', 'Save as draft')}${problemAt('dateTime')}${problemAt('addToQueue')}</fieldset>
<p><button type="submit">Save</button></p>
<p>AI helpers (they change the text above; nothing is saved until you save): ${[...networks].map((n) => `<button type="submit" name="assist" value="rewrite:${escapeHtml(n)}">Fit to ${escapeHtml(limits[n]?.displayName ?? n)}</button>`).join(' ')}
<button type="submit" name="assist" value="hashtags">Suggest hashtags</button></p>
<label for="prompt">Or ask for a draft or an image</label><input id="prompt" name="prompt" size="60" maxlength="1000" value="${escapeHtml(form.prompt ?? '')}">${problemAt('prompt')}
<p><button type="submit" name="assist" value="draft">Draft the text</button> <button type="submit" name="assist" value="image">Make an image</button></p></form>
<script nonce="${escapeHtml(context.nonce)}">${COUNTER_SCRIPT}${UPLOAD_SCRIPT}${PREVIEW_SCRIPT}</script>`);
}

/**
 * How the post will look on each chosen channel: its name and network, the text with the part past the network's
 * limit marked, the media the network takes (and how many it would drop), and the first comment where the
 * network makes one. Counting is the counter's (graphemes or code points).
 */
const PREVIEW_SCRIPT = `(() => {
  const text = document.getElementById('text'), comment = document.getElementById('firstComment'), out = document.getElementById('previews');
  const segmenter = typeof Intl.Segmenter === 'function' ? new Intl.Segmenter() : null;
  const units = (value, how) => how === 'graphemes' && segmenter ? [...segmenter.segment(value)].map((s) => s.segment) : [...value];
  const el = (tag, props, ...children) => { const node = Object.assign(document.createElement(tag), props || {}); node.append(...children); return node; };
  function render() {
    out.textContent = '';
    const images = [...document.querySelectorAll('#media-list img.thumb')].map((img) => img.src);
    for (const box of document.querySelectorAll('input[name=channelIds]:checked')) {
      const own = document.querySelector('textarea.own-text[data-channel-id="' + box.value + '"]');
      const parts = units(own && own.value.trim() !== '' ? own.value : text.value, box.dataset.counting), limit = Number(box.dataset.limit);
      const body = el('p', { className: 'preview-text' }, parts.slice(0, limit).join(''));
      if (parts.length > limit) body.append(el('mark', { className: 'cut', title: 'Past the limit: the network refuses the post' }, parts.slice(limit).join('')));
      const card = el('article', { className: 'preview' }, el('header', {}, el('strong', {}, box.dataset.name), ' ', el('small', {}, box.dataset.handle + ' on ' + box.dataset.display)), body);
      card.dataset.channelId = box.value;
      const max = Number(box.dataset.maxMedia);
      if (images.length > 0) {
        const shown = el('div', { className: 'preview-media' }, ...images.slice(0, max).map((src) => el('img', { src, alt: '', className: 'thumb' })));
        if (images.length > max) shown.append(el('small', { className: 'problem' }, images.length - max + ' more than ' + box.dataset.display + ' takes'));
        card.append(shown);
      }
      if (comment.value.trim() !== '' && box.dataset.firstComment !== 'none') card.append(el('p', { className: 'preview-comment' }, '↳ ' + comment.value));
      out.append(card);
    }
    if (!out.firstChild) out.append(el('p', {}, 'Choose a channel to see how the post will look there.'));
  }
  text.addEventListener('input', render);
  comment.addEventListener('input', render);
  document.querySelectorAll('textarea.own-text').forEach((own) => own.addEventListener('input', render));
  document.querySelectorAll('input[name=channelIds]').forEach((box) => box.addEventListener('change', render));
  new MutationObserver(render).observe(document.getElementById('media-list'), { childList: true, subtree: true });
  render();
})();`;

/** One uploaded file in the composer: kept by its media id, shown, with its alt text field. */
function mediaItem(m: { id: string; url: string; altText: string }, index: number): string {
  return `<li><input type="hidden" name="mediaIds" value="${escapeHtml(m.id)}"><input type="hidden" name="mediaUrls" value="${escapeHtml(m.url)}">
<img src="${escapeHtml(m.url)}" alt="" class="thumb"><label for="alt-${index}">Alt text (what the image shows, for people who cannot see it)</label>
<input id="alt-${index}" name="altText" value="${escapeHtml(m.altText)}" maxlength="1500" size="60"></li>`;
}

/**
 * Uploads each dropped or chosen file: a signed upload started by the app, the bytes PUT with a progress bar, then
 * completed; the file then appears with its alt text field. A refusal (type, size) is shown on the file's line.
 */
const UPLOAD_SCRIPT = `(() => {
  const drop = document.getElementById('media-drop'), input = document.getElementById('media-file'), list = document.getElementById('media-list');
  const csrf = document.querySelector('input[name=csrf_token]').value;
  const post = (url, body) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-csrf-token': csrf }, body: JSON.stringify(body || {}) })
    .then((res) => res.json().then((json) => { if (!res.ok) throw new Error(json.message); return json; }));
  function put(url, file, progress) {
    return new Promise((resolve, reject) => {
      const xhr = new XMLHttpRequest();
      xhr.open('PUT', url);
      xhr.setRequestHeader('content-type', file.type);
      xhr.upload.onprogress = (event) => { progress.value = event.loaded; };
      xhr.onload = () => (xhr.status < 300 ? resolve() : reject(new Error('the upload was refused (' + xhr.status + ')')));
      xhr.onerror = () => reject(new Error('the connection broke; add the file again'));
      xhr.send(file);
    });
  }
  async function upload(file) {
    const item = document.createElement('li');
    const progress = document.createElement('progress');
    progress.max = file.size || 1;
    progress.setAttribute('aria-label', 'Uploading ' + file.name);
    item.append(file.name + ' ', progress);
    list.append(item);
    try {
      const started = await post('/app/media/uploads', { fileName: file.name, contentType: file.type, sizeBytes: file.size });
      await put(started.uploadUrl, file, progress);
      const media = await post('/app/media/uploads/' + encodeURIComponent(started.uploadId) + '/complete');
      const index = list.querySelectorAll('input[name=mediaIds]').length;
      item.textContent = '';
      const hidden = (name, value) => Object.assign(document.createElement('input'), { type: 'hidden', name, value });
      const image = Object.assign(document.createElement('img'), { src: media.url, alt: '', className: 'thumb' });
      const label = Object.assign(document.createElement('label'), { htmlFor: 'alt-' + index, textContent: 'Alt text (what the image shows, for people who cannot see it)' });
      const alt = Object.assign(document.createElement('input'), { id: 'alt-' + index, name: 'altText', maxLength: 1500, size: 60 });
      item.append(hidden('mediaIds', media.id), hidden('mediaUrls', media.url), image, label, alt);
      item.dataset.mediaId = media.id;
    } catch (error) {
      item.className = 'problem';
      item.setAttribute('role', 'alert');
      item.textContent = file.name + ': ' + error.message;
    }
  }
  input.addEventListener('change', () => { [...input.files].forEach(upload); input.value = ''; });
  drop.addEventListener('dragover', (event) => { event.preventDefault(); drop.classList.add('over'); });
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener('drop', (event) => { event.preventDefault(); drop.classList.remove('over'); [...event.dataTransfer.files].forEach(upload); });
})();`;

/** Counts the text each chosen network's way (graphemes or code points; X's weighting approximated by code points) and marks overruns. */
const COUNTER_SCRIPT = `(() => {
  const text = document.getElementById('text'), out = document.getElementById('counters');
  const segmenter = typeof Intl.Segmenter === 'function' ? new Intl.Segmenter() : null;
  const count = (value, how) => how === 'graphemes' && segmenter ? [...segmenter.segment(value)].length : [...value].length;
  function update() {
    const boxes = [...document.querySelectorAll('input[name=channelIds]:checked')];
    const seen = new Map();
    for (const box of boxes) seen.set(box.dataset.network, box);
    out.textContent = '';
    let over = false;
    for (const [network, box] of seen) {
      const used = count(text.value, box.dataset.counting), limit = Number(box.dataset.limit);
      const span = document.createElement('span');
      span.className = 'counter' + (used > limit ? ' over' : '');
      span.dataset.network = network;
      span.textContent = network + ': ' + used + ' / ' + limit + '  ';
      over = over || used > limit;
      out.appendChild(span);
    }
  }
  text.addEventListener('input', update);
  document.querySelectorAll('input[name=channelIds]').forEach((box) => box.addEventListener('change', update));
  update();
})();`;
