/**
 * Which period the calendar shows, and how: the view, the day, the time zone and the channels all live in the
 * address, so a calendar can be bookmarked, shared and gone back to. On a phone a month does not fit, so a month
 * asked for shows as a week.
 */
import { useEffect, useState } from 'preact/hooks';
import type { components } from '../../../../sdk/src/index.js';
import { browserTimeZone } from '../../ui/time.js';

export type Calendar = components['schemas']['TeamCalendar'];
export type View = Calendar['view'];

export const VIEWS: { view: View; label: string }[] = [
  { view: 'month', label: 'Month' },
  { view: 'week', label: 'Week' },
  { view: 'list', label: 'List' },
];
const NARROW = '(max-width: 600px)';

export interface PeriodChange {
  view?: View;
  /** `null` goes back to today. */
  date?: string | null;
  channels?: string[];
  live?: boolean;
}

export interface Period {
  /** The view in the address, kept in links even where a phone shows another. */
  asked: View;
  view: View;
  narrow: boolean;
  date: string | undefined;
  timezone: string;
  chosen: string[];
  live: boolean;
  /** The address of this calendar with some of its choices changed. */
  href: (change: PeriodChange) => string;
}

function useNarrow(): boolean {
  const [narrow, setNarrow] = useState(() => matchMedia(NARROW).matches);
  useEffect(() => {
    const query = matchMedia(NARROW);
    const update = () => setNarrow(query.matches);
    query.addEventListener('change', update);
    return () => query.removeEventListener('change', update);
  }, []);
  return narrow;
}

export function useCalendarPeriod(query: URLSearchParams, live: boolean): Period {
  const narrow = useNarrow();
  const asked = (query.get('view') ?? 'week') as View;
  const known: View = VIEWS.some((v) => v.view === asked) ? asked : 'week';
  const view: View = narrow && known === 'month' ? 'week' : known;
  const date = query.get('date') ?? undefined;
  const timezone = query.get('tz') ?? browserTimeZone;
  const chosen = query.getAll('channel');

  function href(change: PeriodChange): string {
    const q = new URLSearchParams();
    q.set('view', change.view ?? asked);
    const day = change.date === undefined ? date : change.date;
    if (day) q.set('date', day);
    if (query.has('tz')) q.set('tz', timezone);
    for (const id of change.channels ?? chosen) q.append('channel', id);
    return `${(change.live ?? live) ? '/app/calendar/all' : '/app/calendar'}?${q}`;
  }

  return { asked, view, narrow, date, timezone, chosen, live, href };
}
