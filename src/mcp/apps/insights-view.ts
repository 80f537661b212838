import { viewPage } from './view-shell.js';

/**
 * The insights view (get_channel, and the herald://insights resources): what the published posts did in a period
 * against the one before, by channel with its followers, the top posts, and when to post on each channel.
 * - Its figures are the insights resources themselves (herald://insights, .../channels/{id} and their best-times),
 *   read through the host (resources/read), so they are REST's for the same period, never counted again here.
 * - It opens on the whole account for the server's default period (the last 28 days) in the host's zone; a
 *   get_channel result narrows it to that channel; the period picker keeps the same last day.
 * - A channel below the best-times rule's minimum sample shows the rule's own note and no windows.
 * - A host that does not let views read resources is told so; nothing else is reached.
 */
export const insightsHtml = viewPage({
  title: 'Herald insights',
  style: `
.bar { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; margin-bottom: 8px; }
.bar h1 { margin: 0; flex: 1; }
select { font: inherit; padding: 3px 6px; border-radius: 8px; border: 1px solid var(--color-border-primary);
  background: var(--color-background-primary); color: var(--color-text-primary); }
.tiles { display: grid; grid-template-columns: repeat(auto-fit, minmax(120px, 1fr)); gap: 8px; margin-bottom: 12px; }
.tile { border: 1px solid var(--color-border-primary); border-radius: var(--border-radius-md); padding: 8px 10px; }
.tile .value { font-size: 20px; font-weight: 600; font-variant-numeric: tabular-nums; }
h2 { font-size: 13px; margin: 14px 0 6px; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; width: 100%; font-size: 12px; }
th, td { text-align: left; padding: 4px 6px; border-bottom: 1px solid var(--color-border-primary); }
td.number, th.number { text-align: right; font-variant-numeric: tabular-nums; }
ol { margin: 0; padding-left: 20px; }
li { margin-bottom: 6px; }
.excerpt { overflow-wrap: anywhere; }
`,
  body: `<div class="bar"><h1 id="title">Insights</h1>
<label class="muted" for="period">Period</label>
<select id="period"><option value="7">Last 7 days</option><option value="28" selected>Last 28 days</option>
<option value="90">Last 90 days</option></select></div>
<p id="scope" class="muted"></p>
<div id="insights" data-root><p class="muted">Reading Herald's insights…</p></div>`,
  script: `
const root = document.getElementById('insights');
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
let channelId = null;
let lastDay = null;
let loads = 0;
function number(n) {
  return n === null || n === undefined ? '—' : new Intl.NumberFormat(herald.context.locale || 'en-GB').format(n);
}
function change(percent) {
  if (percent === null || percent === undefined) return 'nothing to compare with before';
  return (percent > 0 ? '+' : '') + percent + '% on the period before';
}
async function read(uri) {
  const result = await herald.readResource(uri);
  return JSON.parse(result.contents[0].text);
}
function periodQuery() {
  const zone = herald.context.timeZone || 'UTC';
  const query = new URLSearchParams({ timezone: zone });
  const days = Number(document.getElementById('period').value);
  if (lastDay && days !== 28) {
    query.set('to', lastDay);
    query.set('from', new Date(Date.parse(lastDay + 'T00:00:00Z') - (days - 1) * 86400000).toISOString().slice(0, 10));
  }
  return '?' + query;
}
function tile(name, label, value, percent) {
  return el('div', { class: 'tile', 'data-total': name }, el('div', { class: 'muted' }, label),
    el('div', { class: 'value' }, value), percent === false ? null : el('div', { class: 'muted change' },
      change(percent)));
}
function windowsOf(best) {
  if (!best) return el('p', { class: 'muted' }, 'Not known.');
  if (!best.windows.length) return el('p', { class: 'muted', 'data-role': 'best-note' }, best.note);
  return el('ul', {}, best.windows.map((w) => el('li', { 'data-role': 'window' },
    DAYS[w.weekday] + ' ' + String(w.hour).padStart(2, '0') + ':00–' + String((w.hour + 1) % 24).padStart(2, '0') +
      ':00 ',
    el('span', { class: 'muted' }, '(' + best.timezone + ') · ' + w.note))));
}
function draw(report, bests) {
  const t = report.totals;
  document.getElementById('scope').textContent =
    (channelId && report.byChannel[0] ? report.byChannel[0].name : 'Every channel') +
    ' · ' + report.period.from + ' to ' + report.period.to + ' (' + report.timezone + ')';
  const audience = (c) => c.audienceEnd === null ? '—' : (c.audienceStart === null || c.audienceStart === c.audienceEnd
    ? number(c.audienceEnd) : number(c.audienceStart) + ' → ' + number(c.audienceEnd));
  root.replaceChildren(
    el('div', { class: 'tiles' },
      tile('posts', 'Posts', number(t.posts), report.change.posts),
      tile('engagement', 'Engagement', number(t.engagement), report.change.engagement),
      tile('reach', 'Reach', number(t.reach), report.change.reach),
      tile('engagementRate', 'Engagement rate',
        t.engagementRate === null ? '—' : (t.engagementRate * 100).toFixed(2) + '%', false)),
    el('h2', {}, 'By channel'),
    el('div', { class: 'scroll' }, el('table', {},
      el('thead', {}, el('tr', {}, el('th', {}, 'Channel'), el('th', {}, 'Network'),
        el('th', { class: 'number' }, 'Posts'), el('th', { class: 'number' }, 'Engagement'),
        el('th', { class: 'number' }, 'Reach'), el('th', { class: 'number' }, 'Followers'))),
      el('tbody', {}, report.byChannel.map((c) => el('tr', { 'data-channel-id': c.channelId },
        el('td', {}, c.name), el('td', {}, c.network), el('td', { class: 'number' }, number(c.totals.posts)),
        el('td', { class: 'number' }, number(c.totals.engagement)), el('td', { class: 'number' },
          number(c.totals.reach)),
        el('td', { class: 'number', 'data-role': 'audience' }, audience(c))))))),
    el('h2', {}, 'Top posts'),
    report.topPosts.length
      ? el('ol', {}, report.topPosts.slice(0, 5).map((p) => el('li', { 'data-post-id': p.postId },
          el('div', { class: 'excerpt' }, p.text), el('span', { class: 'muted' }, p.channelName + ' · ' +
            number(p.engagement) + ' engagement' + (p.reach === null ? '' : ' · ' + number(p.reach) + ' reach')))))
      : el('p', { class: 'muted' }, 'Nothing was published in this period.'),
    el('h2', {}, 'When to post'),
    ...report.byChannel.map((c, i) => el('section', { 'data-best-times': c.channelId }, el('strong', {}, c.name),
      windowsOf(bests[i]))));
}
async function load() {
  const mine = ++loads;
  if (!herald.hostCapabilities.serverResources) {
    root.replaceChildren(el('p', { class: 'muted', 'data-role': 'error' },
      "This host does not let views read Herald's insights; ask for them in the conversation instead."));
    return;
  }
  try {
    const uri = 'herald://insights' + (channelId ? '/channels/' + encodeURIComponent(channelId) : '') + periodQuery();
    const report = await read(uri);
    const bests = await Promise.all(report.byChannel.map((c) =>
      read('herald://insights/channels/' + encodeURIComponent(c.channelId) + '/best-times').catch(() => null)));
    if (mine !== loads) return;
    if (!lastDay) lastDay = report.period.to;
    draw(report, bests);
  } catch (error) {
    if (mine === loads) root.replaceChildren(el('p', { class: 'danger', 'data-role': 'error' }, error.message));
  }
}
document.getElementById('period').addEventListener('change', load);
herald.on('ui/notifications/tool-result', (result) => {
  if (result.isError) {
    root.replaceChildren(el('p', { class: 'danger', 'data-role': 'error' },
      (result.content && result.content[0] && result.content[0].text) || 'Herald refused.'));
    return;
  }
  const data = result.structuredContent && result.structuredContent.data;
  if (data && typeof data.id === 'string' && data.id !== channelId) {
    channelId = data.id;
    load();
  }
});
herald.start({ name: 'herald-insights', version: '1.0.0' }).then(load);
`,
});
