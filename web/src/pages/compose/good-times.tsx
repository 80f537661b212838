/**
 * "Good times this week" in the composer: for each ticked channel, the weekday-and-hour windows where its own posts
 * did best (GET /channels/{id}/best-times, the rule in domain/insights/best-times.ts), each at its next start within
 * the coming seven days, soonest first; choosing one schedules the post for then, as a wall-clock time in the
 * composer's zone. A channel with too little to go on is offered nothing: the rule's note says why.
 */
import type { components } from '../../../../sdk/src/index.js';
import { addDays, localDateOf, wallClockToUtc, weekday } from '../../../../src/domain/zoned-time.js';
import { api, call } from '../../api.js';
import { browserTimeZone, formatTime, toWallClock } from '../../ui/time.js';
import { useApi } from '../../ui/use-api.js';

type BestTimes = components['schemas']['BestTimes'];
type Window = BestTimes['windows'][number];

interface Channel {
  id: string;
  name: string;
  displayName?: string | null;
}

/** When the window next starts, from `now` to seven days on: its weekday and hour in the channel's zone. */
export function nextStart(window: Window, timezone: string, now: number): number {
  const today = localDateOf(now, timezone);
  // Eight days hold the weekday twice only for today's, whose start may have passed: the week's next one follows.
  return [0, 1, 2, 3, 4, 5, 6, 7]
    .map((days) => addDays(today, days))
    .filter((date) => weekday(date) === window.weekday)
    .map((date) => wallClockToUtc(timezone, Date.UTC(date.year, date.month - 1, date.day, window.hour)))
    .filter((start) => start > now)[0];
}

/** The composer's zone while it is being typed may name no zone yet: times are shown in the browser's meanwhile. */
function usableZone(zone: string): string {
  try {
    new Intl.DateTimeFormat(undefined, { timeZone: zone.trim() || 'UTC' });
    return zone.trim() || 'UTC';
  } catch {
    return browserTimeZone;
  }
}

export function GoodTimes(props: { channels: Channel[]; timeZone: string; onPick: (dateTime: string) => void }) {
  const ids = props.channels.map((c) => c.id);
  const found = useApi(
    () =>
      Promise.all(
        ids.map(
          async (channelId) =>
            (await call(api.GET('/channels/{channelId}/best-times', { params: { path: { channelId } } }))).data,
        ),
      ),
    [ids.join(',')],
  );
  if (ids.length === 0 || !found.data) return null;
  const now = Date.now();
  const zone = usableZone(props.timeZone);
  const nameOf = (id: string) => {
    const channel = props.channels.find((c) => c.id === id);
    return channel ? (channel.displayName ?? channel.name) : id;
  };
  const offered = found.data
    .flatMap((best) =>
      best.windows.map((w) => ({ best, window: w, start: new Date(nextStart(w, best.timezone, now)).toISOString() })),
    )
    .sort((a, b) => a.start.localeCompare(b.start));
  const silent = found.data.filter((best) => best.windows.length === 0);
  return (
    <div class="good-times" role="group" aria-labelledby="good-times-title">
      <h3 id="good-times-title">Good times this week</h3>
      {offered.length > 0 && (
        <ul>
          {offered.map(({ best, window, start }) => (
            <li key={`${best.channelId}:${window.weekday}:${window.hour}`}>
              <button type="button" data-good-time={start} onClick={() => props.onPick(toWallClock(start, zone))}>
                {formatTime(start, zone)}
              </button>{' '}
              <span class="muted">
                for {nameOf(best.channelId)} ({formatTime(start, best.timezone)} there): {window.note}
              </span>
            </li>
          ))}
        </ul>
      )}
      {silent.map((best) => (
        <p key={best.channelId} class="muted" data-no-good-times={best.channelId}>
          {nameOf(best.channelId)}: {best.note}
        </p>
      ))}
    </div>
  );
}
