/** Times as people read them: in their own zone (the browser's) unless a zone is given, and as they type them. */
import { dateKey, localDateOf, localTimeOf, wallClockToUtc } from '../../../src/domain/zoned-time.js';

export const browserTimeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

export function formatTime(iso: string | null | undefined, timeZone = browserTimeZone): string {
  if (!iso) return '';
  return new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short', timeZone }).format(
    new Date(iso),
  );
}

export type InstantOrProblem = { iso: string } | { problem: { field: 'dateTime' | 'timezone'; message: string } };

/** A wall-clock "2030-01-07T09:30" (a datetime-local field) in `timeZone` as an ISO instant, or a problem in words. */
export function toInstant(local: string, timeZone: string): InstantOrProblem {
  const match = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})$/.exec(local);
  if (!match) return { problem: { field: 'dateTime', message: 'Choose the date and time to publish at.' } };
  const [, y, mo, d, h, mi] = match.map(Number);
  try {
    return { iso: new Date(wallClockToUtc(timeZone, Date.UTC(y, mo - 1, d, h, mi))).toISOString() };
  } catch {
    const message = `${timeZone} is not a time zone Herald knows; use a name like Europe/Berlin or America/New_York.`;
    return { problem: { field: 'timezone', message } };
  }
}

/** An instant as a datetime-local field shows it in `timeZone`: what `toInstant` reads back. */
export function toWallClock(iso: string, timeZone: string): string {
  const instant = Date.parse(iso);
  return `${dateKey(localDateOf(instant, timeZone))}T${localTimeOf(instant, timeZone)}`;
}
