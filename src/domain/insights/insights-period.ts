/**
 * The period an insights question is about:
 * - days in a time zone (UTC unless asked), `from` and `to` both included; the last 28 days up to today when not
 *   given; at most 366 days; `from` after `to` is refused;
 * - the previous period is the same number of days just before, what the change is measured against.
 */
import type { components } from '../../../generated/rest/openapi-types.js';
import { parseCalendarDate } from '../calendars/calendar-dates.js';
import { checkTimezone } from '../calendars/calendar-entries.js';
import { ValidationError } from '../errors.js';
import { addDays, dateKey, dayNumber, localDateOf, startOfDay, type LocalDate } from '../zoned-time.js';

export type InsightPeriod = components['schemas']['InsightPeriod'];

export const DEFAULT_PERIOD_DAYS = 28;
export const MAX_PERIOD_DAYS = 366;

export interface Period {
  timezone: string;
  first: LocalDate;
  last: LocalDate;
  start: number;
  end: number;
}

export function periodOf(first: LocalDate, last: LocalDate, timezone: string): Period {
  return { timezone, first, last, start: startOfDay(first, timezone), end: startOfDay(addDays(last, 1), timezone) };
}

export function parsePeriod(input: { from?: string; to?: string; timezone?: string }, now: number): Period {
  const timezone = checkTimezone(input.timezone || 'UTC');
  const last = input.to ? parseCalendarDate(input.to, 'to') : localDateOf(now, timezone);
  const first = input.from ? parseCalendarDate(input.from, 'from') : addDays(last, 1 - DEFAULT_PERIOD_DAYS);
  const days = dayNumber(last) - dayNumber(first) + 1;
  if (days < 1)
    throw new ValidationError('from must be on or before to.', [
      { path: 'from', message: `${dateKey(first)} is after ${dateKey(last)}.` },
    ]);
  if (days > MAX_PERIOD_DAYS) {
    throw new ValidationError(`A period is at most ${MAX_PERIOD_DAYS} days.`, [
      { path: 'from', message: `${dateKey(first)} to ${dateKey(last)} is ${days} days.` },
    ]);
  }
  return periodOf(first, last, timezone);
}

export function previousPeriod(period: Period): Period {
  const days = dayNumber(period.last) - dayNumber(period.first) + 1;
  return periodOf(addDays(period.first, -days), addDays(period.first, -1), period.timezone);
}

export function periodView(period: Period): InsightPeriod {
  return {
    from: dateKey(period.first),
    to: dateKey(period.last),
    start: new Date(period.start).toISOString(),
    end: new Date(period.end).toISOString(),
  };
}
