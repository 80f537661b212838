/**
 * The web app's pages, rendered on the server. Every value is escaped; their scripts are allowed by a per-response
 * nonce; forms carry the CSRF token.
 */
import type { ChannelView } from '../../domain/directory.js';
import type { TeamWeek } from '../../domain/calendars/team-calendar.js';
import type { PostView } from '../../domain/posts/post-view.js';
import { escapeHtml } from '../../http/html.js';
import type { PostEventView } from '../../domain/posts/post-history.js';

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

function statusBadge(status: string | null | undefined): string {
  const value = status ?? 'live';
  return `<span class="status ${escapeHtml(value)}">${escapeHtml(value)}</span>`;
}

export function postPage(context: PageContext, post: PostView, channel: ChannelView | undefined, canReview: boolean, history: (PostEventView & { actor: string })[]): string {
  const attempts = (post.attempts ?? []).map((a) => `<tr><td>${a.number}</td><td>${escapeHtml(a.outcome ?? 'in flight')}</td><td>${escapeHtml(a.error ?? '')}</td><td>${escapeHtml(a.startedAt)}</td></tr>`).join('');
  const metrics = Object.entries(post.metrics ?? {}).map(([k, v]) => `${escapeHtml(k)}: ${escapeHtml(String(v))}`).join(' · ');
  const review = canReview && post.approvalStatus === 'PENDING'
    ? `<form method="post" action="/app/posts/${encodeURIComponent(post.id)}/approve"><input type="hidden" name="csrf_token" value="${escapeHtml(context.csrf)}"><button>Approve</button></form>
<form method="post" action="/app/posts/${encodeURIComponent(post.id)}/reject"><input type="hidden" name="csrf_token" value="${escapeHtml(context.csrf)}"><label for="reason">Reason</label><input id="reason" name="reason" required> <button>Reject</button></form>`
    : '';
  const retry = post.status === 'failed'
    ? `<form method="post" action="/app/posts/${encodeURIComponent(post.id)}/retry"><input type="hidden" name="csrf_token" value="${escapeHtml(context.csrf)}"><button>Try again now</button></form>`
    : '';
  const settle = post.status === 'unconfirmed'
    ? `<h2>Did it go out?</h2><p>Check the channel on the network, then tell Herald.</p>
<form method="post" action="/app/posts/${encodeURIComponent(post.id)}/settle"><input type="hidden" name="csrf_token" value="${escapeHtml(context.csrf)}"><input type="hidden" name="published" value="yes">
<label for="permalinkUrl">Its address on the network (optional)</label><input id="permalinkUrl" name="permalinkUrl" size="50"> <button>Mark as published</button></form>
<form method="post" action="/app/posts/${encodeURIComponent(post.id)}/settle"><input type="hidden" name="csrf_token" value="${escapeHtml(context.csrf)}"><input type="hidden" name="published" value="no"><button>Mark as not published</button></form>`
    : '';
  return layout(context, 'Post', `<p>${statusBadge(post.isLivePost ? 'live' : post.status)} ${post.approvalStatus ? `approval: ${escapeHtml(post.approvalStatus)}` : ''}
 on ${escapeHtml(channel ? `${channel.displayName ?? channel.name} (${channel.network})` : post.channelId)}</p>
<blockquote style="white-space:pre-wrap">${escapeHtml(post.text)}</blockquote>
${post.error ? `<p class="problem">${escapeHtml(post.error)}</p>` : ''}
${post.permalinkUrl ? `<p>On the network: <a href="${escapeHtml(post.permalinkUrl)}" rel="noreferrer">${escapeHtml(post.permalinkUrl)}</a></p>` : ''}
${metrics ? `<p>${metrics}</p>` : ''}${retry}${settle}${review}
${attempts ? `<h2>Attempts</h2><table><thead><tr><th>#</th><th>Outcome</th><th>Error</th><th>Started</th></tr></thead><tbody>${attempts}</tbody></table>` : ''}
${history.length > 0 ? `<h2>History</h2><table id="history"><thead><tr><th>When</th><th>Who</th><th>What</th></tr></thead><tbody>${history.map((event) =>
    `<tr><td>${escapeHtml(event.at.slice(0, 16).replace('T', ' '))} UTC</td><td>${escapeHtml(event.actor)}</td><td>${escapeHtml(event.kind.replace(/_/g, ' '))}${historyDetails(event.details)}</td></tr>`).join('')}</tbody></table>` : ''}`);
}

/** The facts an event names (a reason, the changed fields), short enough for a table cell. */
function historyDetails(details: Record<string, unknown> | null): string {
  if (!details) return '';
  const shown = Object.entries(details).map(([key, value]) => `${key}: ${Array.isArray(value) ? value.join(', ') : typeof value === 'object' ? JSON.stringify(value) : String(value)}`).join('; ');
  return shown ? ` <small>${escapeHtml(shown.slice(0, 200))}</small>` : '';
}

export function weekPage(context: PageContext, week: TeamWeek, moved?: { postId: string; from: string; text: string }): string {
  const hidden = `<input type="hidden" name="csrf_token" value="${escapeHtml(context.csrf)}">`;
  const zone = encodeURIComponent(week.timezone);
  const columns = week.days.map((day) => `<td class="day" data-day="${escapeHtml(day.key)}"><strong>${escapeHtml(day.key)}</strong>${day.entries.map((e) =>
    `<div class="entry ${escapeHtml(e.status)}"${e.movable ? ` draggable="true" data-post-id="${escapeHtml(e.postId)}"` : ''}>${escapeHtml(e.time)} ${statusBadge(e.status)}
<a href="/app/posts/${encodeURIComponent(e.postId)}">${escapeHtml(e.text.slice(0, 60) || '(no text)')}</a> <small>${escapeHtml(e.channel)}</small></div>`).join('')}</td>`).join('');
  const undo = moved
    ? `<form method="post" action="/app/posts/${encodeURIComponent(moved.postId)}/move" id="undo">${hidden}<input type="hidden" name="at" value="${escapeHtml(moved.from)}">
<input type="hidden" name="timezone" value="${escapeHtml(week.timezone)}">Moved “${escapeHtml(moved.text.slice(0, 60))}”. <button>Undo</button></form>`
    : '';
  return layout(context, 'Calendar', `${undo}<p><a href="/app/calendar?date=${week.previous}&amp;tz=${zone}">← Previous week</a> ·
<a href="/app/calendar?date=${week.next}&amp;tz=${zone}">Next week →</a> · times in ${escapeHtml(week.timezone)} ·
<a href="/app/calendar/all">Month and list views, with live posts</a></p>
<p class="counter">Drag a scheduled post to another day to move it; it keeps its time of day.</p>
<table id="week"><tbody><tr>${columns}</tr></tbody></table>
<form id="move" method="post" hidden>${hidden}<input type="hidden" name="day"><input type="hidden" name="timezone" value="${escapeHtml(week.timezone)}"></form>
<script nonce="${escapeHtml(context.nonce)}">${DRAG_SCRIPT}</script>`);
}

/** Dragging a movable entry onto a day submits the move form for that post and day. */
const DRAG_SCRIPT = `(() => {
  const form = document.getElementById('move');
  document.querySelectorAll('[data-post-id]').forEach((entry) => entry.addEventListener('dragstart', (event) => {
    event.dataTransfer.setData('text/plain', entry.dataset.postId);
  }));
  document.querySelectorAll('td.day').forEach((day) => {
    day.addEventListener('dragover', (event) => event.preventDefault());
    day.addEventListener('drop', (event) => {
      event.preventDefault();
      const postId = event.dataTransfer.getData('text/plain');
      if (!postId) return;
      form.action = '/app/posts/' + encodeURIComponent(postId) + '/move';
      form.elements.day.value = day.dataset.day;
      form.submit();
    });
  });
})();`;
