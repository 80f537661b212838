/**
 * The period a calendar shows for a layout and a day it was asked for, in a timezone:
 * - a month is the weeks (Monday first) holding its days, so at most 6 weeks (MAX_PERIOD_DAYS);
 * - a week runs Monday to Sunday; a list is 30 days from the day asked for;
 * - the previous and next periods are null where they would leave the calendar range (calendar-dates.ts),
 *   except that stepping back a list past the range's first day lands on that day.
 */
import { CALENDAR_YEARS, isRealDay } from './calendar-dates.js';
import type { CalendarLayout } from './calendar-entries.js';
import { addDays, dateKey, dayNumber, startOfDay, weekday, type LocalDate } from '../zoned-time.js';

const FIRST_DAY: LocalDate = { year: CALENDAR_YEARS.first, month: 1, day: 1 };
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

export interface CalendarPeriod {
  layout: CalendarLayout;
  /** The day the period was asked for. */
  anchor: LocalDate;
  /** First and last day shown (inclusive), and the instants bounding them. */
  first: LocalDate;
  last: LocalDate;
  from: number;
  to: number;
  /** A day of the period before and after, or null where that period lies outside the calendar range. */
  previous: LocalDate | null;
  next: LocalDate | null;
  title: string;
}

export function calendarPeriod(layout: CalendarLayout, anchor: LocalDate, timezone: string): CalendarPeriod {
  let first: LocalDate;
  let last: LocalDate;
  let previous: LocalDate;
  let next: LocalDate;
  let title: string;
  if (layout === 'month') {
    const monthStart = { ...anchor, day: 1 };
    const monthEnd = addDays(
      { year: anchor.month === 12 ? anchor.year + 1 : anchor.year, month: (anchor.month % 12) + 1, day: 1 },
      -1,
    );
    first = addDays(monthStart, -weekday(monthStart));
    last = addDays(monthEnd, 6 - weekday(monthEnd));
    previous = addDays(monthStart, -1);
    next = addDays(monthEnd, 1);
    title = `${MONTHS[anchor.month - 1]} ${anchor.year}`;
  } else if (layout === 'week') {
    first = addDays(anchor, -weekday(anchor));
    last = addDays(first, 6);
    previous = addDays(first, -1);
    next = addDays(first, 7);
    title = `Week of ${dateKey(first)}`;
  } else {
    first = anchor;
    last = addDays(anchor, 29);
    // Stepping back 30 days past the range's first day lands on that day instead, so it stays reachable.
    const back = addDays(anchor, -30);
    previous = !isRealDay(back) && dayNumber(anchor) > dayNumber(FIRST_DAY) ? FIRST_DAY : back;
    next = addDays(anchor, 30);
    title = `${dateKey(first)} to ${dateKey(last)}`;
  }
  const inRange = (date: LocalDate) => (isRealDay(date) ? date : null);
  return {
    layout,
    anchor,
    first,
    last,
    from: startOfDay(first, timezone),
    to: startOfDay(addDays(last, 1), timezone),
    previous: inRange(previous),
    next: inRange(next),
    title,
  };
}
