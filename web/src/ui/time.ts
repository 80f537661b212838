/** Times as people read them: in their own zone (the browser's) unless a zone is given, and as they type them. */
import { dateKey, localDateOf, localTimeOf, wallClockToUtc } from '../../../src/domain/zoned-time.js';

export const browserTimeZone = Intl.DateTimeFormat().resolvedOptions().timeZone;

/** A zone's offset from UTC at an instant, as "UTC+01:00" ("UTC" itself when there is none). */
function offsetOf(timeZone: string, at: number): string {
  const parts = new Intl.DateTimeFormat('en-US', { timeZone, timeZoneName: 'longOffset' }).formatToParts(at);
  const offset = (parts.find((p) => p.type === 'timeZoneName')?.value ?? 'GMT').replace(/^GMT/, '');
  return offset === '' || offset === '+00:00' ? 'UTC' : `UTC${offset}`;
}

/**
 * A time zone as people say it, never its IANA name: "Berlin time (UTC+01:00)", its offset at `at` (now unless
 * given, so summer time shows in summer); "UTC"; "UTC-05:00" for a bare offset (Etc/GMT+5). A name the browser
 * does not know is shown as it is.
 */
export function zoneInWords(timeZone: string, at = Date.now()): string {
  let offset: string;
  try {
    offset = offsetOf(timeZone, at);
  } catch {
    return timeZone;
  }
  const place = timeZone.split('/').pop()!.replace(/_/g, ' ');
  if (timeZone.startsWith('Etc/') || /^(UTC|GMT|UCT|Universal|Zulu|Greenwich)$/i.test(timeZone)) return offset;
  return `${place} time (${offset})`;
}

/** The zone's long name in the person's language ("Central European Standard Time"), to search zones by. */
export function zoneLongName(timeZone: string, at = Date.now()): string {
  try {
    const parts = new Intl.DateTimeFormat(undefined, { timeZone, timeZoneName: 'long' }).formatToParts(at);
    return parts.find((p) => p.type === 'timeZoneName')?.value ?? timeZone;
  } catch {
    return timeZone;
  }
}

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
    const message =
      `${timeZone} is not a time zone Herald knows: ` + 'type its city, such as Berlin or New York, and pick it.';
    return { problem: { field: 'timezone', message } };
  }
}

/** An instant as a datetime-local field shows it in `timeZone`: what `toInstant` reads back. */
export function toWallClock(iso: string, timeZone: string): string {
  const instant = Date.parse(iso);
  return `${dateKey(localDateOf(instant, timeZone))}T${localTimeOf(instant, timeZone)}`;
}
