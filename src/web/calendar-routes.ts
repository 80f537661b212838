import express from 'express';
import { parseCalendarDate, parseCalendarQuery } from '../domain/calendars/calendar-dates.js';
import { calendarEntries, type CalendarView } from '../domain/calendars/calendar-entries.js';
import { openInAppCalendar, openPublicCalendar, publicCalendarUrl } from '../domain/calendars/shareable-calendars.js';
import type { DomainDeps } from '../domain/deps.js';
import { calendarPeriod } from '../domain/calendars/calendar-periods.js';
import { CALENDAR_PAGE_CSP, renderCalendarPage } from './calendar-page.js';
import { renderCalendarFeed } from './calendar-feed.js';
import { dateKey, localDateOf, type LocalDate } from '../domain/zoned-time.js';

/**
 * Calendar pages: GET /calendars/{token} (public, read-only HTML), /calendars/{token}.ics (iCalendar feed),
 * and GET /calendar?t=... (the signed-in user's own calendar, from get_in_app_calendar_url).
 * Unknown, deleted and expired links all answer the same 404 page (the app's error boundary renders it).
 * The feed always covers the same window, so it uses no query parameter; a view or date sent to it must
 * still be a real one, so that a mangled link is answered with what to fix rather than served as if sound.
 */
const FEED_PAST_MS = 90 * 86_400_000;
const FEED_FUTURE_MS = 366 * 86_400_000;

function sendPage(res: express.Response, status: number, html: string): void {
  res
    .status(status)
    .set({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': CALENDAR_PAGE_CSP,
      'cache-control': 'no-store',
      'referrer-policy': 'no-referrer',
      'x-content-type-options': 'nosniff',
    })
    .send(html);
}

async function page(
  deps: DomainDeps,
  res: express.Response,
  input: {
    accountId: string;
    title: string;
    view: CalendarView;
    query: express.Request['query'];
    date?: string;
    uidKey: string;
    link(query: URLSearchParams): string;
    feedUrl?: string;
  },
): Promise<void> {
  const asked = parseCalendarQuery(input.query);
  const layout = asked.layout ?? input.view.layout;
  const anchor: LocalDate =
    asked.date ??
    (input.date !== undefined
      ? parseCalendarDate(input.date)
      : localDateOf(
          input.view.from !== null && input.view.from > deps.now() ? input.view.from : deps.now(),
          input.view.timezone,
        ));
  const period = calendarPeriod(layout, anchor, input.view.timezone);
  const entries = await calendarEntries(deps, input.accountId, input.view, period, input.uidKey);
  sendPage(
    res,
    200,
    renderCalendarPage({
      title: input.title,
      timezone: input.view.timezone,
      period,
      entries,
      linkTo: (to, date) => input.link(new URLSearchParams({ view: to, date: dateKey(date) })),
      feedUrl: input.feedUrl,
    }),
  );
}

export function calendarRouter(deps: DomainDeps): express.Router {
  const router = express.Router();

  router.get('/calendars/:link', async (req, res) => {
    const link = req.params.link;
    const feed = link.endsWith('.ics');
    const token = feed ? link.slice(0, -4) : link;
    if (feed) parseCalendarQuery(req.query);
    const calendar = await openPublicCalendar(deps, token);
    const pageUrl = publicCalendarUrl(deps, token);
    if (feed) {
      const now = deps.now();
      const entries = await calendarEntries(
        deps,
        calendar.accountId,
        calendar.view,
        { from: now - FEED_PAST_MS, to: now + FEED_FUTURE_MS },
        calendar.tokenHash,
      );
      res
        .status(200)
        .set({
          'content-type': 'text/calendar; charset=utf-8',
          'content-disposition': 'inline; filename="calendar.ics"',
          'cache-control': 'no-store',
          'x-content-type-options': 'nosniff',
        })
        .send(
          renderCalendarFeed({
            name: calendar.name,
            hostname: new URL(deps.config.baseUrl).hostname,
            entries,
            pageUrl,
          }),
        );
      return;
    }
    await page(deps, res, {
      accountId: calendar.accountId,
      title: calendar.name,
      view: calendar.view,
      query: req.query,
      uidKey: calendar.tokenHash,
      link: (query) => `${pageUrl}?${query}`,
      feedUrl: `${pageUrl}.ics`,
    });
  });

  router.get('/calendar', async (req, res) => {
    const t = typeof req.query.t === 'string' ? req.query.t : '';
    const opened = openInAppCalendar(deps, t);
    await page(deps, res, {
      accountId: opened.accountId,
      title: 'Your calendar',
      view: opened.view,
      query: req.query,
      date: opened.date,
      uidKey: deps.secrets.linkKey,
      link: (query) => {
        query.set('t', t);
        return `${deps.config.baseUrl}/calendar?${query}`;
      },
    });
  });

  return router;
}
