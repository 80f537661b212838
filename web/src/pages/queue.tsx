/**
 * A channel's queue: its weekly slots (wall-clock in the channel's time zone), pause and resume, the queued posts
 * in order — reordered by dragging one onto another or with each post's Up and Down buttons, the slot times staying
 * and the posts following them — and clearing, which shows how many posts it would remove before it removes any.
 * The slot editor offers suggested slots, from when the channel's own posts did best (suggested-slots.tsx).
 */
import { useLayoutEffect, useRef, useState } from 'preact/hooks';
import type { components } from '../../../sdk/src/index.js';
import { api, call, type ApiError, toApiError } from '../api.js';
import { Link } from '../router.js';
import { Empty, FieldProblems, Loading, Page, Problem } from '../ui/page.js';
import { formatTime, zoneInWords } from '../ui/time.js';
import { useUnsavedChanges } from '../ui/unsaved-changes.js';
import { useApi } from '../ui/use-api.js';
import { SuggestedSlots } from './suggested-slots.js';
import './team-pages.css';

type Slot = components['schemas']['Slot'];
type Schedule = components['schemas']['ChannelSchedule'];
const DAYS = [
  ['mon', 'Monday'],
  ['tue', 'Tuesday'],
  ['wed', 'Wednesday'],
  ['thu', 'Thursday'],
  ['fri', 'Friday'],
  ['sat', 'Saturday'],
  ['sun', 'Sunday'],
] as const;

async function load(channelId: string) {
  const [channels, schedule] = await Promise.all([
    call(api.GET('/channels')),
    call(api.GET('/channels/{channelId}/schedule', { params: { path: { channelId } } })),
  ]);
  return { channel: channels.data.find((c) => c.id === channelId), schedule: schedule.data };
}

export function QueuePage(props: { params: Record<string, string> }) {
  const channelId = props.params.channelId;
  const { data, error, reload } = useApi(() => load(channelId), [channelId]);
  const title = data?.channel ? `Queue of ${data.channel.displayName ?? data.channel.name}` : 'Queue';
  return (
    <Page title={title} actions={<Link href="/app/channels">All channels</Link>}>
      <Problem error={error} />
      {!data && !error && <Loading label="Loading the queue" rows={6} />}
      {data && <Queue channelId={channelId} schedule={data.schedule} reload={reload} />}
    </Page>
  );
}

function Queue(props: { channelId: string; schedule: Schedule; reload: () => Promise<void> }) {
  const { channelId, schedule } = props;
  const path = { channelId };
  const [problem, setProblem] = useState<ApiError | undefined>(undefined);
  const [said, setSaid] = useState('');
  const [wouldClear, setWouldClear] = useState<number | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const list = useRef<HTMLOListElement>(null);
  const asking = useRef<HTMLButtonElement>(null);
  const confirming = useRef<HTMLButtonElement>(null);
  // As ConfirmButton does: the question takes the focus when it appears, and gives it back when declined.
  const declined = useRef(false);
  useLayoutEffect(() => {
    if (wouldClear !== undefined) confirming.current?.focus();
    else if (declined.current) asking.current?.focus();
    declined.current = false;
  }, [wouldClear]);
  const keep = () => {
    declined.current = true;
    setWouldClear(undefined);
  };

  /** Runs one change, then shows the queue as it is now; a refusal is shown in Herald's words. */
  async function act(work: () => Promise<unknown>, done?: string): Promise<boolean> {
    setBusy(true);
    setProblem(undefined);
    try {
      await work();
      await props.reload();
      if (done) setSaid(done);
      return true;
    } catch (caught) {
      setProblem(toApiError(caught));
      await props.reload();
      return false;
    } finally {
      setBusy(false);
    }
  }

  async function move(postId: string, position: number, keepFocusOn?: 'up' | 'down') {
    const moved = await act(
      () => call(api.POST('/channels/{channelId}/queue/reorder', { params: { path }, body: { postId, position } })),
      `Moved to position ${position}.`,
    );
    if (!moved || !keepFocusOn) return;
    // The person keeps their place: focus follows the moved post (or its other button at the list's end).
    const item = list.current?.querySelector<HTMLLIElement>(`li[data-post-id="${CSS.escape(postId)}"]`);
    (
      item?.querySelector<HTMLButtonElement>(`button[data-move="${keepFocusOn}"]:not(:disabled)`) ??
      item?.querySelector<HTMLButtonElement>('button[data-move]:not(:disabled)')
    )?.focus();
  }

  async function clear(confirmed: boolean) {
    setBusy(true);
    setProblem(undefined);
    try {
      const answer = await call(
        api.POST('/channels/{channelId}/queue/clear', { params: { path }, body: { dryRun: !confirmed } }),
      );
      if (confirmed) {
        await props.reload();
        setWouldClear(undefined);
        setSaid(`Removed ${answer.postIds.length} post(s) from the queue.`);
      } else {
        setWouldClear(answer.postIds.length);
      }
    } catch (caught) {
      setProblem(toApiError(caught));
    } finally {
      setBusy(false);
    }
  }

  return (
    <>
      <div role="status" aria-live="polite" class="said">
        {said && <p id={said.startsWith('Removed') ? 'cleared' : undefined}>{said}</p>}
      </div>
      {problem && problem.problemsAt('slots').length === 0 && <Problem error={problem} />}
      <section class="panel">
        <p>
          Time zone <strong>{zoneInWords(schedule.timezone)}</strong> (change it on the{' '}
          <Link href="/app/channels">Channels</Link> page).{' '}
          {schedule.queuePaused ? (
            <>
              <strong id="paused">Paused</strong>: nothing of this channel is published until you resume.
            </>
          ) : (
            'Running: posts go out at their times.'
          )}
        </p>
        <button
          type="button"
          class={schedule.queuePaused ? 'primary' : undefined}
          disabled={busy}
          onClick={() =>
            act(
              () =>
                call(
                  api.POST(
                    schedule.queuePaused ? '/channels/{channelId}/queue/resume' : '/channels/{channelId}/queue/pause',
                    { params: { path } },
                  ),
                ),
              schedule.queuePaused ? 'The queue runs again.' : 'The queue is paused.',
            )
          }
        >
          {schedule.queuePaused ? 'Resume' : 'Pause'}
        </button>
      </section>

      <SlotsEditor
        key={JSON.stringify(schedule.slots)}
        channelId={props.channelId}
        slots={schedule.slots}
        timezone={schedule.timezone}
        busy={busy}
        problem={problem}
        save={(slots) =>
          act(
            () => call(api.PUT('/channels/{channelId}/schedule', { params: { path }, body: { slots } })),
            'Slots saved.',
          )
        }
      />
      <p>
        Next free slots:{' '}
        {schedule.nextFreeSlots.length > 0
          ? schedule.nextFreeSlots.map((t) => formatTime(t, schedule.timezone)).join(' · ')
          : 'none (add a slot above)'}
      </p>

      <h2>Queued</h2>
      {schedule.queued.length === 0 ? (
        <Empty>
          <p>
            The queue is empty. Posts written with “Add to the queue” on <Link href="/app/compose">Compose</Link> take
            this channel's next free slot.
          </p>
        </Empty>
      ) : (
        <>
          <p class="muted" id="reorder-help">
            Drag a post onto another to take its place, or use its Up and Down buttons; the slot times stay and the
            posts follow.
          </p>
          <ol id="queued" ref={list} aria-describedby="reorder-help">
            {schedule.queued.map((q, i) => (
              <QueuedItem
                key={q.postId}
                postId={q.postId}
                text={q.text}
                when={formatTime(q.dateTime, schedule.timezone)}
                position={i + 1}
                last={i === schedule.queued.length - 1}
                busy={busy}
                move={move}
              />
            ))}
          </ol>
        </>
      )}

      <h2>Clear</h2>
      {wouldClear === undefined ? (
        <button type="button" ref={asking} disabled={busy || schedule.queued.length === 0} onClick={() => clear(false)}>
          Clear the queue…
        </button>
      ) : (
        <div
          class="clear-confirm"
          role="group"
          aria-labelledby="would-clear"
          onKeyDown={(event) => event.key === 'Escape' && keep()}
        >
          <p id="would-clear">Clearing removes {wouldClear} queued post(s). They are deleted, not kept as drafts.</p>
          <button type="button" class="danger" ref={confirming} disabled={busy} onClick={() => clear(true)}>
            Clear them
          </button>{' '}
          <button type="button" disabled={busy} onClick={keep}>
            Keep them
          </button>
        </div>
      )}
    </>
  );
}

function QueuedItem(props: {
  postId: string;
  text: string;
  when: string;
  position: number;
  last: boolean;
  busy: boolean;
  move: (postId: string, position: number, focus?: 'up' | 'down') => void;
}) {
  const [over, setOver] = useState(false);
  const name = props.text.slice(0, 60) || '(no text)';
  return (
    <li
      draggable
      data-post-id={props.postId}
      data-position={props.position}
      class={over ? 'over' : undefined}
      onDragStart={(event) => event.dataTransfer?.setData('text/plain', props.postId)}
      onDragOver={(event) => {
        event.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(event) => {
        event.preventDefault();
        setOver(false);
        const dragged = event.dataTransfer?.getData('text/plain');
        if (dragged && dragged !== props.postId) props.move(dragged, props.position);
      }}
    >
      <span class="when">{props.when}</span>
      <Link href={`/app/posts/${encodeURIComponent(props.postId)}`}>{props.text.slice(0, 120) || '(no text)'}</Link>
      <span class="moves">
        <button
          type="button"
          data-move="up"
          disabled={props.busy || props.position === 1}
          aria-label={`Move “${name}” up`}
          onClick={() => props.move(props.postId, props.position - 1, 'up')}
        >
          Up
        </button>
        <button
          type="button"
          data-move="down"
          disabled={props.busy || props.last}
          aria-label={`Move “${name}” down`}
          onClick={() => props.move(props.postId, props.position + 1, 'down')}
        >
          Down
        </button>
      </span>
    </li>
  );
}

/** The weekly slots as rows of a day and a time; the server's words about a row appear beside that row. */
function SlotsEditor(props: {
  channelId: string;
  slots: Slot[];
  timezone: string;
  busy: boolean;
  problem?: ApiError;
  save: (slots: Slot[]) => Promise<boolean>;
}) {
  const [rows, setRows] = useState<Slot[]>(props.slots);
  const changes = useUnsavedChanges();
  const set = (i: number, change: Partial<Slot>) => setRows(rows.map((r, j) => (j === i ? { ...r, ...change } : r)));
  return (
    <form
      class="panel"
      ref={changes.form}
      onSubmit={async (event) => {
        event.preventDefault();
        if (await props.save(rows)) changes.saved();
      }}
    >
      <h2 id="slots-title">Weekly slots</h2>
      <p class="muted">
        Each slot is a day and a time in {zoneInWords(props.timezone)}; a queued post takes the next free one.
      </p>
      {rows.length === 0 && <p>No slots yet: add one, then save.</p>}
      <ul id="slots" class="slots" aria-labelledby="slots-title">
        {rows.map((slot, i) => (
          <li key={i} data-slot={i}>
            <select
              aria-label={`Day of slot ${i + 1}`}
              value={slot.day}
              onChange={(event) => set(i, { day: event.currentTarget.value as Slot['day'] })}
            >
              {DAYS.map(([value, label]) => (
                <option key={value} value={value}>
                  {label}
                </option>
              ))}
            </select>{' '}
            <input
              type="time"
              required
              aria-label={`Time of slot ${i + 1}`}
              value={slot.time}
              onInput={(event) => set(i, { time: event.currentTarget.value })}
            />{' '}
            <button
              type="button"
              aria-label={`Remove slot ${i + 1}`}
              onClick={() => setRows(rows.filter((_, j) => j !== i))}
            >
              Remove
            </button>
            <FieldProblems error={props.problem} field={`slots[${i}]`} id={`slot-${i}-problems`} />
          </li>
        ))}
      </ul>
      <FieldProblems
        error={props.problem?.details.every((d) => !/^(body\.)?slots\[\d+\]/.test(d.path)) ? props.problem : undefined}
        field="slots"
        id="slots-problems"
      />
      <SuggestedSlots channelId={props.channelId} add={(slot) => setRows([...rows, slot])} />
      <p>
        <button type="button" onClick={() => setRows([...rows, { day: 'mon', time: '09:00' }])}>
          Add a slot
        </button>{' '}
        <button type="submit" class="primary" disabled={props.busy}>
          Save slots
        </button>
      </p>
    </form>
  );
}
