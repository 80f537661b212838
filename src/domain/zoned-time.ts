/** Calendar arithmetic in an IANA timezone, with Intl only (no tz database of our own). */
export interface LocalDate {
  year: number;
  month: number;
  day: number;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(timezone: string): Intl.DateTimeFormat {
  let f = formatters.get(timezone);
  if (!f) {
    f = new Intl.DateTimeFormat('en-US', { timeZone: timezone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit' });
    formatters.set(timezone, f);
  }
  return f;
}

function parts(instant: number, timezone: string): Record<string, number> {
  return Object.fromEntries(formatter(timezone).formatToParts(instant).filter((p) => p.type !== 'literal').map((p) => [p.type, Number(p.value)]));
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

/** The instant local midnight starts `date` in `timezone` (DST-safe: the offset is re-read at the result). */
export function startOfDay(date: LocalDate, timezone: string): number {
  const guess = Date.UTC(date.year, date.month - 1, date.day);
  const offsetAt = (instant: number) => {
    const p = parts(instant, timezone);
    return Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - instant;
  };
  const first = guess - offsetAt(guess);
  return guess - offsetAt(first);
}
