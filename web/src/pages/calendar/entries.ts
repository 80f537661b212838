/**
 * The period's posts and the channels beside them. A change of period keeps the old one on screen until the new
 * one arrives, since the period's heading says which one is shown.
 */
import { dateKey, localDateOf } from '../../../../src/domain/zoned-time.js';
import { api, call } from '../../api.js';
import { useApi } from '../../ui/use-api.js';
import type { Entry } from './entry.js';
import type { Period } from './period.js';

export function useCalendarEntries(period: Period) {
  const { view, date, timezone, chosen, live } = period;
  const channels = useApi(async () => (await call(api.GET('/channels'))).data, []);
  const calendar = useApi(
    async () =>
      (
        await call(
          api.GET('/calendar', {
            params: {
              query: { view, date, timezone, channelIds: chosen.length ? chosen : undefined, livePosts: live },
            },
          }),
        )
      ).data,
    [view, date, timezone, chosen.join(','), live],
    { keepPrevious: true },
  );
  const data = calendar.data;
  const today = dateKey(localDateOf(Date.now(), data?.timezone ?? timezone));
  const avatars = new Map((channels.data ?? []).map((c) => [c.id, c.avatarUrl]));
  const byDay = new Map<string, Entry[]>();
  for (const entry of data?.entries ?? []) byDay.set(entry.day, [...(byDay.get(entry.day) ?? []), entry]);
  const avatarOf = (entry: Entry) => avatars.get(entry.channelId) ?? undefined;
  return { channels, calendar, today, byDay, avatarOf };
}
