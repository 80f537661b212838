/**
 * What a calendar may be asked to show. Calendar links are public, so these checks stand between an
 * anonymous query string and the loops that lay out a period:
 * - a date is YYYY-MM-DD naming a real day (months 1-12, days that month has) within CALENDAR_YEARS;
 *   anything else is a ValidationError saying what to send, never a rolled-over date;
 * - a view is one of CALENDAR_LAYOUTS; an unknown one is refused rather than silently replaced;
 * - a calendar query (the page's and the feed's) names each of view and date at most once, and both
 *   follow the rules above; other parameters are left alone, since shared links pick up tracking tags;
 * - a saved view's from and to fall on days within CALENDAR_YEARS in the view's timezone, so a page
 *   opened at them stays inside the range too;
 * - a period spans at most MAX_PERIOD_DAYS days, whatever the layout (a month grid is 6 weeks).
 */
import { ValidationError } from '../errors.js';
import { localDateOf, type LocalDate } from '../zoned-time.js';
import { CALENDAR_LAYOUTS, type CalendarLayout } from './calendar-entries.js';

export const CALENDAR_YEARS = { first: 2000, last: 2100 } as const;
export const MAX_PERIOD_DAYS = 42;

const RANGE = `between ${CALENDAR_YEARS.first}-01-01 and ${CALENDAR_YEARS.last}-12-31`;

function got(value: unknown): string {
  return `Got ${JSON.stringify(typeof value === 'string' ? value.slice(0, 40) : (value ?? null))}.`;
}

export function parseCalendarDate(value: unknown, field = 'date'): LocalDate {
  const match = typeof value === 'string' ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value) : null;
  const date = match ? { year: Number(match[1]), month: Number(match[2]), day: Number(match[3]) } : undefined;
  if (!date || !isRealDay(date)) {
    throw new ValidationError(`${field} must be a real calendar date written YYYY-MM-DD, ${RANGE}.`, [
      { path: field, message: got(value) },
    ]);
  }
  return date;
}

export function parseCalendarLayout(value: unknown, field = 'view'): CalendarLayout {
  if (CALENDAR_LAYOUTS.includes(value as CalendarLayout)) return value as CalendarLayout;
  throw new ValidationError(`${field} must be one of ${CALENDAR_LAYOUTS.join(', ')}.`, [
    { path: field, message: got(value) },
  ]);
}

/** The view and date a calendar page or feed was asked for; absent ones stay undefined. */
export function parseCalendarQuery(query: Record<string, unknown>): { layout?: CalendarLayout; date?: LocalDate } {
  return {
    layout: query.view === undefined ? undefined : parseCalendarLayout(query.view),
    date: query.date === undefined ? undefined : parseCalendarDate(query.date),
  };
}

/** The instant itself, once its day in `timezone` is known to be within CALENDAR_YEARS. */
export function checkCalendarInstant(instant: number, timezone: string, field: string): number {
  // Checked in UTC first, with a day's slack for any offset, so Intl never sees a year outside 1999-2101.
  const roughly =
    instant >= Date.UTC(CALENDAR_YEARS.first - 1, 11, 31) && instant < Date.UTC(CALENDAR_YEARS.last + 1, 0, 2);
  if (!roughly || !isRealDay(localDateOf(instant, timezone))) {
    throw new ValidationError(`${field} must fall ${RANGE} (in the calendar's timezone, ${timezone}).`, [
      { path: field, message: `Got ${new Date(instant).toISOString()}.` },
    ]);
  }
  return instant;
}

/** Whether `date` is a day the calendar shows: real, and within CALENDAR_YEARS. */
export function isRealDay(date: LocalDate): boolean {
  if (
    date.year < CALENDAR_YEARS.first ||
    date.year > CALENDAR_YEARS.last ||
    date.month < 1 ||
    date.month > 12 ||
    date.day < 1
  )
    return false;
  return date.day <= new Date(Date.UTC(date.year, date.month, 0)).getUTCDate();
}
