import ical from 'ical-generator';
import type { CalendarEntry } from '../domain/calendars/calendar-entries.js';

/** An iCalendar feed (RFC 5545) of calendar entries, for Google Calendar or Outlook to subscribe to. */
const FEED_EVENT_MINUTES = 15;

export function renderCalendarFeed(input: {
  name: string;
  hostname: string;
  entries: CalendarEntry[];
  pageUrl: string;
}): string {
  const calendar = ical({
    name: input.name,
    prodId: { company: 'Herald', product: 'shareable-calendar', language: 'EN' },
    ttl: 15 * 60,
  });
  for (const entry of input.entries) {
    const firstLine = entry.text?.split('\n')[0].trim();
    const excerpt = firstLine && firstLine.length > 80 ? `${firstLine.slice(0, 77)}…` : firstLine;
    calendar.createEvent({
      id: `${entry.uid}@${input.hostname}`,
      start: new Date(entry.at),
      end: new Date(entry.at + FEED_EVENT_MINUTES * 60_000),
      summary: `${entry.channel} (${entry.state})${excerpt ? `: ${excerpt}` : ''}`,
      description: entry.text ?? undefined,
      url: entry.permalink ?? input.pageUrl,
    });
  }
  return calendar.toString();
}
