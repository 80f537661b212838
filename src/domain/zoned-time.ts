/**
 * Wall-clock and calendar arithmetic in an IANA timezone, with Intl only (no tz database of our own),
 * for every rule that needs it (queue slots, calendars). Rules:
 * - a wall-clock time keeps its wall-clock meaning across daylight-saving changes;
 * - in a spring-forward gap (the time does not exist that day) it moves forward by the gap;
 * - in a fall-back overlap (it happens twice) it is the first occurrence.
 */
export interface LocalDate {
  year: number;
  month: number;
  day: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', {
      timeZone: timezone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    });
    formatters.set(timezone, f);
  }
  return f;
}

function parts(instant: number, timezone: string): Record<string, number> {
  return Object.fromEntries(
    formatter(timezone)
      .formatToParts(instant)
      .filter((p) => p.type !== 'literal')
      .map((p) => [p.type, Number(p.value)]),
  );
}

export function localDateOf(instant: number, timezone: string): LocalDate {
  const p = parts(instant, timezone);
  return { year: p.year, month: p.month, day: p.day };
}

export function localTimeOf(instant: number, timezone: string): string {
  const p = parts(instant, timezone);
  return `${String(p.hour).padStart(2, '0')}:${String(p.minute).padStart(2, '0')}`;
}

export function dateKey(date: LocalDate): string {
  return `${date.year}-${String(date.month).padStart(2, '0')}-${String(date.day).padStart(2, '0')}`;
}

/** The date `days` after `date` (negative for before), in the proleptic Gregorian calendar. */
export function addDays(date: LocalDate, days: number): LocalDate {
  const d = new Date(Date.UTC(date.year, date.month - 1, date.day + days));
  return { year: d.getUTCFullYear(), month: d.getUTCMonth() + 1, day: d.getUTCDate() };
}

/** Days since 1970-01-01: compares and subtracts dates as instants, never as strings. */
export function dayNumber(date: LocalDate): number {
  return Math.round(Date.UTC(date.year, date.month - 1, date.day) / 86_400_000);
}

/** 0 = Monday ... 6 = Sunday. */
export function weekday(date: LocalDate): number {
  return (new Date(Date.UTC(date.year, date.month - 1, date.day)).getUTCDay() + 6) % 7;
}

const DAY_MS = 86_400_000;

/** The wall clock in `timezone` at instant `ms`, as if it were UTC (epoch ms of those fields). */
function wallAsUtc(timezone: string, ms: number): number {
  const p = parts(ms, timezone);
  return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second);
}

/** The zone's offset from UTC at instant `ms`, in ms (Berlin in winter: +3_600_000). */
export function zoneOffset(timezone: string, ms: number): number {
  const whole = Math.floor(ms / 1000) * 1000;
  return wallAsUtc(timezone, whole) - whole;
}

/**
 * The UTC instant of a wall-clock time in `timezone` (the wall clock given as epoch ms of the same fields
 * in UTC), with the gap and overlap rules above.
 */
export function wallClockToUtc(timezone: string, wall: number): number {
  // Offsets in force a little before and after: around a transition they differ.
  const before = zoneOffset(timezone, wall - DAY_MS);
  const after = zoneOffset(timezone, wall + DAY_MS);
  const candidates = [...new Set([before, after])]
    .map((offset) => wall - offset)
    .filter((instant) => wallAsUtc(timezone, instant) === wall)
    .sort((a, b) => a - b);
  if (candidates.length > 0) return candidates[0];
  return wall - before;
}

/** The instant local midnight starts `date` in `timezone` (a midnight lost to a gap starts when the day does). */
export function startOfDay(date: LocalDate, timezone: string): number {
  return wallClockToUtc(timezone, Date.UTC(date.year, date.month - 1, date.day));
}
