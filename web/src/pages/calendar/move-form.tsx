/**
 * What moving a post shows: the outcome of the last move, with its Undo, in a live region so a screen reader hears
 * it; and the form that moves a post without a mouse, a day and a time in the calendar's time zone.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { ApiError } from '../../api.js';
import { FieldProblems, Problem } from '../../ui/page.js';
import { formatTime, zoneInWords } from '../../ui/time.js';
import type { Entry } from './entry.js';
import type { Moving } from './moving.js';

export function MoveOutcome(props: { moving: Moving; timezone: string }) {
  const { moved, said, undoButton, undo } = props.moving;
  return (
    <div aria-live="polite" class="outcome">
      {moved && (
        <div id="undo" class="undo">
          Moved “{moved.text.slice(0, 60)}” to {formatTime(moved.to, props.timezone)}.{' '}
          <button type="button" ref={undoButton} onClick={undo}>
            Undo
          </button>
        </div>
      )}
      {said && <p>{said}</p>}
    </div>
  );
}

export function MoveForm(props: {
  entry: Entry;
  timezone: string;
  failure?: ApiError;
  onCancel: () => void;
  onMove: (day: string, time: string) => Promise<void>;
}) {
  const [day, setDay] = useState(props.entry.day);
  const [time, setTime] = useState(props.entry.time);
  const [busy, setBusy] = useState(false);
  const first = useRef<HTMLInputElement>(null);
  useEffect(() => first.current?.focus(), [props.entry.postId]);
  const described = (field: string) => (props.failure?.problemsAt(field).length ? `move-${field}-problems` : undefined);
  return (
    <form
      id="move-form"
      class="move-form"
      aria-labelledby="move-title"
      onSubmit={async (event) => {
        event.preventDefault();
        setBusy(true);
        await props.onMove(day, time);
        setBusy(false);
      }}
    >
      <h2 id="move-title">Move “{props.entry.text.slice(0, 60)}”</h2>
      <Problem error={props.failure} />
      <label for="move-day">Day</label>
      <input
        id="move-day"
        ref={first}
        type="date"
        required
        value={day}
        onInput={(e) => setDay(e.currentTarget.value)}
        aria-describedby={described('day')}
      />
      <FieldProblems error={props.failure} field="day" id="move-day-problems" />
      <label for="move-time">Time, in {zoneInWords(props.timezone)}</label>
      <input
        id="move-time"
        type="time"
        required
        value={time}
        onInput={(e) => setTime(e.currentTarget.value)}
        aria-describedby={described('time') ?? described('dateTime')}
      />
      <FieldProblems error={props.failure} field="time" id="move-time-problems" />
      <FieldProblems error={props.failure} field="dateTime" id="move-dateTime-problems" />
      <p>
        <button type="submit" class="primary" disabled={busy}>
          Move
        </button>{' '}
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
      </p>
    </form>
  );
}
