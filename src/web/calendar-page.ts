import type { CalendarEntry, CalendarLayout } from '../domain/calendars/calendar-entries.js';
import { MAX_PERIOD_DAYS } from '../domain/calendars/calendar-dates.js';
import type { CalendarPeriod } from '../domain/calendars/calendar-periods.js';
import { escapeHtml } from '../http/html.js';
import {
  addDays,
  dateKey,
  dayNumber,
  localDateOf,
  localTimeOf,
  weekday,
  type LocalDate,
} from '../domain/zoned-time.js';

/**
 * The read-only calendar page: month, week and list views, readable on a phone (the month grid becomes a
 * list of days on narrow screens). Static HTML and CSS only: no scripts, so the page's CSP forbids them.
 */
export const CALENDAR_PAGE_CSP =
  "default-src 'none'; style-src 'unsafe-inline'; img-src https: http: data:; base-uri 'none'; form-action 'none'; " +
  "frame-ancestors 'none'";

const WEEKDAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'];

/** The days from `from` to `to` inclusive, counted from their instants and never more than a period holds. */
function days(from: LocalDate, to: LocalDate): LocalDate[] {
  const count = dayNumber(to) - dayNumber(from) + 1;
  return Array.from({ length: Math.min(Math.max(count, 0), MAX_PERIOD_DAYS) }, (_, i) => addDays(from, i));
}

function entryHtml(entry: CalendarEntry, timezone: string): string {
  const text = entry.text
    ? `<span class="text">${escapeHtml(entry.text.length > 280 ? `${entry.text.slice(0, 277)}…` : entry.text)}</span>`
    : '';
  const link =
    entry.permalink && /^https?:\/\//.test(entry.permalink)
      ? ` <a href="${escapeHtml(entry.permalink)}" rel="noopener noreferrer">view</a>`
      : '';
  return (
    `<li class="entry ${entry.state}"><time>${localTimeOf(entry.at, timezone)}</time> ` +
    `<span class="channel">${escapeHtml(entry.channel)}</span> ` +
    `<span class="state">${entry.state}</span>${link}${text}</li>`
  );
}

export interface CalendarPageInput {
  title: string;
  timezone: string;
  period: CalendarPeriod;
  entries: CalendarEntry[];
  /** Builds the link to another view or date of the same calendar. */
  linkTo(layout: CalendarLayout, date: LocalDate): string;
  feedUrl?: string;
}

export function renderCalendarPage(input: CalendarPageInput): string {
  const { period, timezone } = input;
  const byDay = new Map<string, CalendarEntry[]>();
  for (const entry of input.entries) {
    const key = dateKey(localDateOf(entry.at, timezone));
    byDay.set(key, [...(byDay.get(key) ?? []), entry]);
  }
  const dayCell = (d: LocalDate, outside: boolean) => {
    const list = byDay.get(dateKey(d)) ?? [];
    return (
      `<div class="day${outside ? ' outside' : ''}${list.length ? '' : ' empty'}" data-date="${dateKey(d)}">` +
      `<h3><span class="wd">${WEEKDAYS[weekday(d)]}</span> ${d.day}</h3>` +
      (list.length ? `<ul>${list.map((e) => entryHtml(e, timezone)).join('')}</ul>` : '') +
      '</div>'
    );
  };
  const anchorMonth = period.layout === 'month' ? period.anchor.month : undefined;
  const shown = days(period.first, period.last);
  const body =
    period.layout === 'list'
      ? `<div class="list">${
          shown
            .filter((d) => byDay.has(dateKey(d)))
            .map((d) => dayCell(d, false))
            .join('') || '<p class="none">No posts in this period.</p>'
        }</div>`
      : `<div class="grid ${period.layout}">${WEEKDAYS.map((w) => `<div class="head">${w}</div>`).join('')}${shown
          .map((d) => dayCell(d, anchorMonth !== undefined && d.month !== anchorMonth))
          .join('')}</div>`;
  const tabs = (['month', 'week', 'list'] as const)
    .map(
      (layout) =>
        `<a class="tab${layout === period.layout ? ' on' : ''}" ` +
        `href="${escapeHtml(input.linkTo(layout, period.anchor))}">${layout}</a>`,
    )
    .join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex"><title>${escapeHtml(input.title)} · ${escapeHtml(period.title)}</title>
<style>
body{font:15px/1.4 system-ui,sans-serif;margin:0;color:#1d2433;background:#f5f6fa}
header{padding:12px 16px;background:#1f2a44;color:#fff}header h1{margin:0;font-size:18px}
header p{margin:4px 0 0;opacity:.8;font-size:13px}
nav{display:flex;flex-wrap:wrap;gap:8px;align-items:center;padding:10px 16px}nav a{color:#1f2a44}
.tab{padding:4px 10px;border:1px solid #c5cbe0;border-radius:14px;text-decoration:none}
.tab.on{background:#1f2a44;color:#fff}
h2{margin:0 16px 8px;font-size:17px}
.grid{display:grid;grid-template-columns:repeat(7,1fr);gap:4px;padding:0 16px 16px}
.head{font-weight:600;font-size:12px;text-align:center;color:#5a6480}
.day{background:#fff;border-radius:6px;padding:6px;min-height:70px;overflow:hidden}
.day.outside{background:#eef0f3;color:#4a5260}
.day h3{margin:0 0 4px;font-size:13px}.day .wd{display:none}
.day ul{list-style:none;margin:0;padding:0}
.entry{font-size:12px;border-left:3px solid #3b5bdb;padding:2px 4px;margin:0 0 4px;background:#eef1fb}
.entry.published{border-color:#2b8a3e}.entry.live{border-color:#e8590c}.entry.draft{border-color:#868e96}
.entry time{font-weight:600}.entry .state{color:#5a6480}
.entry .text{display:block;white-space:pre-wrap;word-break:break-word}
.list{padding:0 16px 16px}.list .day{margin-bottom:8px}.list .wd{display:inline}
@media (max-width:640px){.grid{display:block}.grid .head,.grid .day.empty{display:none}.grid .day{margin-bottom:8px}
.day .wd{display:inline}}
</style></head><body>
<header><h1>${escapeHtml(input.title)}</h1><p>Times in ${escapeHtml(timezone)}. Read only.</p></header>
<nav>${
    period.previous
      ? `<a href="${escapeHtml(input.linkTo(period.layout, period.previous))}" rel="prev">← Previous</a>`
      : ''
  }
${period.next ? `<a href="${escapeHtml(input.linkTo(period.layout, period.next))}" rel="next">Next →</a>` : ''} ${tabs}
${input.feedUrl ? `<a href="${escapeHtml(input.feedUrl)}">Subscribe (iCalendar)</a>` : ''}</nav>
<h2>${escapeHtml(period.title)}</h2>
${body}
</body></html>`;
}
