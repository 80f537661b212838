/**
 * Days as the calendar names and counts them. A day here is a date in the calendar's zone, so it is read and
 * written as UTC: no daylight-saving change can move it to another date.
 */
export const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** The days from `first` to `last` (YYYY-MM-DD, inclusive), counted on the calendar alone. */
export function daysBetween(first: string, last: string): string[] {
  const days: string[] = [];
  for (let at = Date.parse(`${first}T00:00:00Z`); at <= Date.parse(`${last}T00:00:00Z`); at += 86_400_000)
    days.push(new Date(at).toISOString().slice(0, 10));
  return days;
}

export function dayLabel(day: string, style: 'long' | 'short' = 'long'): string {
  return new Intl.DateTimeFormat(undefined, {
    weekday: style,
    day: 'numeric',
    month: style === 'long' ? 'long' : 'short',
    timeZone: 'UTC',
  }).format(new Date(`${day}T00:00:00Z`));
}

/** A day as a week column's head on a phone: "Tue" over "8". */
export function dayHead(day: string) {
  const at = new Date(`${day}T00:00:00Z`);
  const weekday = new Intl.DateTimeFormat(undefined, { weekday: 'short', timeZone: 'UTC' }).format(at);
  return (
    <>
      {weekday}
      <br />
      {Number(day.slice(8))}
    </>
  );
}
