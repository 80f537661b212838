/**
 * The composer opened for a time (`/app/compose?at=2026-12-03T09:00&tz=Europe/Berlin`), as the calendar links to
 * it from an empty day or hour: the time is a wall clock in the zone the calendar showed, as the composer's
 * date-and-time field takes it. Anything else in the address is ignored rather than prefilled half-right.
 */
const WALL_CLOCK = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/;

export function composeAtHref(day: string, time: string, timeZone: string): string {
  return `/app/compose?${new URLSearchParams({ at: `${day}T${time}`, tz: timeZone })}`;
}

/** The time and zone the address asks the composer to schedule at, if it names a well-formed one. */
export function composeAt(query: URLSearchParams): { dateTime: string; timeZone?: string } | undefined {
  const at = query.get('at') ?? '';
  if (!WALL_CLOCK.test(at)) return undefined;
  const timeZone = query.get('tz') ?? undefined;
  return { dateTime: at, timeZone: timeZone && timeZone.length <= 64 ? timeZone : undefined };
}
