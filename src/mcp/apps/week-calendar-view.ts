import { viewPage } from './view-shell.js';

/**
 * The week calendar (the post listing tools): the listed posts on the days they go out, a week at a time, in the
 * host's time zone (UTC when it gives none). It opens on the week of the next post to go out, else of the first
 * listed; posts without a time are listed under the week.
 */
export const weekCalendarHtml = viewPage({
  title: 'Herald week calendar',
  style: `
.bar { display: flex; align-items: center; gap: 8px; margin-bottom: 10px; }
.bar h1 { margin: 0; flex: 1; }
.week { display: grid; grid-template-columns: repeat(7, minmax(0, 1fr)); gap: 6px; }
.day { border: 1px solid var(--color-border-primary); border-radius: 8px; min-height: 120px; padding: 4px;
  background: var(--color-background-primary); }
.day.today { border-color: var(--color-text-success); }
.day h2 { font-size: 11px; font-weight: 600; margin: 0 0 6px; color: var(--color-text-secondary);
  text-transform: uppercase; letter-spacing: .03em; }
.event { border-radius: 6px; padding: 3px 5px; margin-bottom: 4px; background: var(--color-background-secondary);
  font-size: 12px; line-height: 1.3; }
.event .time { font-weight: 600; font-variant-numeric: tabular-nums; }
.event .excerpt { display: -webkit-box; -webkit-line-clamp: 4; -webkit-box-orient: vertical; overflow: hidden;
  overflow-wrap: anywhere; }
.event.draft { border: 1px dashed var(--color-border-primary); background: transparent; }
.event.pending { border-left: 3px solid var(--color-text-warning); }
#undated:empty { display: none; }
`,
  body: `<div class="bar"><h1 id="title">Calendar</h1>
<button id="previous" type="button" aria-label="Previous week">‹ Previous</button>
<button id="next" type="button" aria-label="Next week">Next ›</button></div>
<div id="week" class="week" data-root></div>
<div id="undated"></div>`,
  script: `
const DAY = 86400000;
let posts = [];
let previews = new Map();
let weekStart = 0;
/** The calendar date of an instant in the host's zone, as milliseconds at UTC midnight of that date. */
function dayOf(iso) {
  const parts = new Intl.DateTimeFormat('en-CA', { timeZone: herald.context.timeZone || 'UTC', year: 'numeric',
    month: '2-digit', day: '2-digit' }).format(new Date(iso));
  return Date.parse(parts + 'T00:00:00Z');
}
function mondayOf(day) {
  return day - ((new Date(day).getUTCDay() + 6) % 7) * DAY;
}
function key(day) {
  return new Date(day).toISOString().slice(0, 10);
}
function event(post) {
  const preview = previews.get(post.id);
  const state = post.status === 'draft' ? ' draft' : post.approvalStatus === 'PENDING' ? ' pending' : '';
  const channel = preview ? (preview.channel.displayName || preview.channel.name) + ': ' : '';
  return el('div', { class: 'event' + state, 'data-post-id': post.id, title: channel + post.text },
    el('div', {}, post.dateTime ? el('span', { class: 'time' }, formatTime(post.dateTime, { hour: '2-digit',
      minute: '2-digit', hour12: false }).replace(/ UTC$/, '')) : null, ' ',
      preview ? el('span', { class: 'network muted' }, preview.network.displayName) : null),
    el('div', { class: 'excerpt' }, post.text));
}
function draw() {
  const today = dayOf(new Date().toISOString());
  const days = [...Array(7)].map((_, i) => weekStart + i * DAY);
  const label = new Intl.DateTimeFormat(herald.context.locale || 'en-GB', { day: 'numeric', month: 'short',
    year: 'numeric', timeZone: 'UTC' });
  document.getElementById('title').textContent = 'Week of ' + label.format(new Date(weekStart)) +
    (herald.context.timeZone ? '' : ' (UTC)');
  const dated = posts.filter((p) => p.dateTime);
  document.getElementById('week').replaceChildren(...days.map((day) => {
    const onDay = dated.filter((p) => dayOf(p.dateTime) === day)
      .sort((a, b) => Date.parse(a.dateTime) - Date.parse(b.dateTime));
    const heading = new Intl.DateTimeFormat(herald.context.locale || 'en-GB', { weekday: 'short', day: 'numeric',
      timeZone: 'UTC' }).format(new Date(day));
    return el('section', { class: day === today ? 'day today' : 'day', 'data-date': key(day) }, el('h2', {}, heading),
      onDay.map(event));
  }));
  const undated = posts.filter((p) => !p.dateTime);
  document.getElementById('undated').replaceChildren(...(undated.length ? [el('h2', { class: 'muted' },
    'Not scheduled'), ...undated.map(event)] : []));
}
document.getElementById('previous').addEventListener('click', () => { weekStart -= 7 * DAY; draw(); });
document.getElementById('next').addEventListener('click', () => { weekStart += 7 * DAY; draw(); });
herald.on('ui/notifications/tool-result', (result) => {
  if (result.isError) {
    document.getElementById('week').replaceChildren(el('p', { class: 'danger', 'data-role': 'error' },
      (result.content && result.content[0] && result.content[0].text) || 'The posts could not be listed.'));
    return;
  }
  posts = postsOf(result);
  previews = previewsOf(result);
  const now = Date.now();
  const times = posts.filter((p) => p.dateTime).map((p) => Date.parse(p.dateTime)).sort((a, b) => a - b);
  const anchor = times.find((t) => t >= now) ?? times[0] ?? now;
  weekStart = mondayOf(dayOf(new Date(anchor).toISOString()));
  draw();
});
herald.start({ name: 'herald-week-calendar', version: '1.0.0' });
`,
});
