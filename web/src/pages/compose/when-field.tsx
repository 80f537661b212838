/**
 * When the post goes out: now, at a time read in a chosen zone (shown too as each channel's own time), the
 * channels' queues, or as a draft. The good times this week set a time in one click. An edited post already in the
 * queue keeps its place there.
 */
import type { components } from '../../../../sdk/src/index.js';
import type { ApiError } from '../../api.js';
import { FieldProblems } from '../../ui/page.js';
import { formatTime, toInstant, zoneInWords } from '../../ui/time.js';
import type { DraftSetters } from './draft-fields.js';
import type { Draft, When } from './draft-store.js';
import { GoodTimes } from './good-times.js';
import type { Channel } from './preview.js';
import { ZonePicker } from './zone-picker.js';

type Post = components['schemas']['Post'];

export function WhenField(props: {
  draft: Draft;
  set: Pick<DraftSetters, 'when' | 'dateTime' | 'timeZone'>;
  chosen: Channel[];
  edit?: Post;
  refusal?: ApiError;
}) {
  const { draft, chosen, edit, refusal } = props;
  const { when, dateTime, timeZone } = draft;
  const { when: setWhen, dateTime: setDateTime } = props.set;
  const wasQueued = edit?.inQueue === true;
  const added = draft.chosenIds.some((id) => id !== edit?.channelId)
    ? '; a channel added gives it its next free slot'
    : '';
  // The four choices are one radio group, each the same input but for its value.
  const radio = (value: When) => ({
    type: 'radio',
    name: 'when',
    value,
    checked: when === value,
    onChange: () => setWhen(value),
  });
  const instant = when === 'schedule' ? toInstant(dateTime, timeZone.trim() || 'UTC') : undefined;
  return (
    <fieldset aria-describedby="when-problems">
      <legend>When</legend>
      <label class="choice">
        <input {...radio('now')} /> Publish now
      </label>
      <label class="choice">
        <input {...radio('schedule')} /> Schedule at a time
      </label>
      {when === 'schedule' && (
        <div class="schedule">
          <label for="dateTime">Date and time</label>
          <input
            id="dateTime"
            name="dateTime"
            type="datetime-local"
            value={dateTime}
            aria-describedby="dateTime-problems"
            onInput={(event) => setDateTime(event.currentTarget.value)}
          />
          <FieldProblems error={refusal} field={'dateTime'} id="dateTime-problems" />
          <ZonePicker value={timeZone} onChange={props.set.timeZone} describedBy="timezone-problems" />
          <FieldProblems error={refusal} field={'timezone'} id="timezone-problems" />
          {instant && 'iso' in instant && chosen.length > 0 && (
            <ul class="in-zones" aria-label="The same time where each channel posts">
              {chosen.map((c) => (
                <li key={c.id}>
                  {c.displayName ?? c.name}: {formatTime(instant.iso, c.timezone)},{' '}
                  {zoneInWords(c.timezone, Date.parse(instant.iso))}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      <GoodTimes
        channels={chosen}
        timeZone={timeZone}
        onPick={(local) => {
          setWhen('schedule');
          setDateTime(local);
        }}
      />
      <label class="choice">
        <input {...radio('queue')} />
        {wasQueued ? ` Keep its place in the queue${added}` : " Add to each channel's queue (its next free slot)"}
      </label>
      <label class="choice">
        <input {...radio('draft')} /> Save as draft
      </label>
      <FieldProblems error={refusal} field={'addToQueue'} id="when-problems" />
    </fieldset>
  );
}
