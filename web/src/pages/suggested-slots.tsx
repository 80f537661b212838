/**
 * Suggested slots in a channel's queue editor: the weekday-and-hour windows where the channel's own posts did best
 * (GET /channels/{id}/best-times), each offered as a slot to add, with what it rests on. Nothing is offered when
 * there is too little to go on; the note says why.
 */
import type { components } from '../../../sdk/src/index.js';
import { api, call } from '../api.js';
import { useApi } from '../ui/use-api.js';

type Slot = components['schemas']['Slot'];
const DAY_KEYS: Slot['day'][] = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const DAY_NAMES = ['Mondays', 'Tuesdays', 'Wednesdays', 'Thursdays', 'Fridays', 'Saturdays', 'Sundays'];

export function SuggestedSlots(props: { channelId: string; add: (slot: Slot) => void }) {
  const best = useApi(
    async () =>
      (await call(api.GET('/channels/{channelId}/best-times', { params: { path: { channelId: props.channelId } } })))
        .data,
    [props.channelId],
  );
  if (!best.data) return null;
  return (
    <div class="suggested" aria-labelledby="suggested-title" role="group">
      <h3 id="suggested-title">Suggested slots</h3>
      <p class="muted">{best.data.note}</p>
      {best.data.windows.length > 0 && (
        <ul class="slots">
          {best.data.windows.map((w) => {
            const time = `${String(w.hour).padStart(2, '0')}:00`;
            return (
              <li key={`${w.weekday}:${w.hour}`}>
                {DAY_NAMES[w.weekday]} at {time}: {w.lift}× the typical post. {w.note}{' '}
                <button type="button" onClick={() => props.add({ day: DAY_KEYS[w.weekday], time })}>
                  Add {DAY_NAMES[w.weekday]} {time}
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
