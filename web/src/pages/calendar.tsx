/**
 * The team calendar (GET /calendar): month, week and list views of all channels or a chosen set, in the person's
 * time zone (or `tz` from the address). Each post shows its state as a word and an icon as well as a colour, and
 * opens its page. A scheduled post moves by dragging it to another day of the month or list (keeping its time of
 * day) or to another day and hour of the week (keeping its minutes), or with its Move button from the keyboard (a
 * day and a time); each move offers Undo. The all-content view adds live posts.
 * A post the rehearsal before its time found at risk carries a marker saying so, its reason on hover.
 * Today is marked (aria-current="date"); an entry shows its channel's avatar and its post's first image. Clicking
 * the empty part of a day (month) or an hour (week) opens the composer scheduled for then; from the keyboard, each
 * day or hour has a New post button, named for its day and hour, one of them in the Tab order (today's, or the
 * last one used) and the arrow keys moving between them, as in a grid.
 * On a phone (600 px and narrower) there is no room for a month: the week shows instead, its entries reduced to
 * their state and time, as in the month.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import type { components } from '../../../sdk/src/index.js';
import { dateKey, localDateOf } from '../../../src/domain/zoned-time.js';
import { api, type ApiError, call, toApiError } from '../api.js';
import { Link, navigate } from '../router.js';
import { composeAtHref } from '../ui/compose-at.js';
import { Empty, FieldProblems, Loading, Page, Problem } from '../ui/page.js';
import { networkName } from '../ui/network-name.js';
import { browserTimeZone, formatTime, zoneInWords } from '../ui/time.js';
import { useApi } from '../ui/use-api.js';
import './post-and-calendar.css';

type Calendar = components['schemas']['TeamCalendar'];
type Entry = Calendar['entries'][number];
type View = Calendar['view'];

const VIEWS: { view: View; label: string }[] = [
  { view: 'month', label: 'Month' },
  { view: 'week', label: 'Week' },
  { view: 'list', label: 'List' },
];
const WEEKDAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
/** A shape for each state, so states differ by more than colour; the word is always shown too. */
const ICONS: Record<Entry['status'], string> = {
  draft: '✎',
  scheduled: '◷',
  publishing: '↻',
  published: '✓',
  failed: '✕',
  unconfirmed: '?',
  live: '●',
};
const NARROW = '(max-width: 600px)';
/** The hour a week's New post buttons start at in the Tab order, on today or the week's first day. */
const WORKDAY_HOUR = 9;
/** The time a post made from a day of the month starts at; the composer lets the person change it. */
const DAY_TIME = '09:00';

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

/** The days from `first` to `last` (YYYY-MM-DD, inclusive), counted on the calendar alone. */
function daysBetween(first: string, last: string): string[] {
  const days: string[] = [];
  for (let at = Date.parse(`${first}T00:00:00Z`); at <= Date.parse(`${last}T00:00:00Z`); at += 86_400_000)
    days.push(new Date(at).toISOString().slice(0, 10));
  return days;
}

function dayLabel(day: string, style: 'long' | 'short' = 'long'): string {
  return new Intl.DateTimeFormat(undefined, {
    weekday: style,
    day: 'numeric',
    month: style === 'long' ? 'long' : 'short',
    timeZone: 'UTC',
  }).format(new Date(`${day}T00:00:00Z`));
}

/** A day as a week column's head on a phone: "Tue" over "8". */
function dayHead(day: string) {
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

/** A class attribute of the names that apply, or none. */
function classes(...names: (string | false)[]): string | undefined {
  return names.filter(Boolean).join(' ') || undefined;
}

interface Moved {
  postId: string;
  text: string;
  from: string;
  to: string;
}

function CalendarPage(props: { query: URLSearchParams; live: boolean }) {
  const narrow = useNarrow();
  const asked = (props.query.get('view') ?? 'week') as View;
  const known: View = VIEWS.some((v) => v.view === asked) ? asked : 'week';
  const view: View = narrow && known === 'month' ? 'week' : known;
  const date = props.query.get('date') ?? undefined;
  const timezone = props.query.get('tz') ?? browserTimeZone;
  const chosen = props.query.getAll('channel');

  const channels = useApi(async () => (await call(api.GET('/channels'))).data, []);
  const calendar = useApi(
    async () =>
      (
        await call(
          api.GET('/calendar', {
            params: {
              query: { view, date, timezone, channelIds: chosen.length ? chosen : undefined, livePosts: props.live },
            },
          }),
        )
      ).data,
    [view, date, timezone, chosen.join(','), props.live],
    { keepPrevious: true },
  );
  const [moved, setMoved] = useState<Moved>();
  const [said, setSaid] = useState<string>();
  const [failure, setFailure] = useState<ApiError>();
  const [moving, setMoving] = useState<Entry>();
  const dragging = useRef<Entry>();
  const [over, setOver] = useState<string>();
  // The day or hour whose New post button is in the Tab order: the last one the focus was on.
  const [cursor, setCursor] = useState<string>();
  const undoButton = useRef<HTMLButtonElement>(null);
  // After a move from the keyboard form (which then goes away), the focus goes to Undo rather than being lost.
  const focusUndo = useRef(false);
  useEffect(() => {
    if (moved && focusUndo.current) undoButton.current?.focus();
    focusUndo.current = false;
  }, [moved]);

  function href(change: { view?: View; date?: string | null; channels?: string[]; live?: boolean }): string {
    const q = new URLSearchParams();
    q.set('view', change.view ?? asked);
    const day = change.date === undefined ? date : change.date;
    if (day) q.set('date', day);
    if (props.query.has('tz')) q.set('tz', timezone);
    for (const id of change.channels ?? chosen) q.append('channel', id);
    return `${(change.live ?? props.live) ? '/app/calendar/all' : '/app/calendar'}?${q}`;
  }

  async function move(entry: Entry, body: { day: string; time?: string } | { dateTime: string }): Promise<boolean> {
    setFailure(undefined);
    setSaid(undefined);
    try {
      const answer = await call(
        api.POST('/posts/{postId}/move', {
          params: { path: { postId: entry.postId } },
          body: 'day' in body ? { ...body, timezone } : body,
        }),
      );
      await calendar.reload();
      if ('day' in body)
        setMoved({ postId: entry.postId, text: entry.text, from: answer.meta.from, to: answer.data.dateTime ?? '' });
      else {
        const undoHadFocus = document.activeElement === undoButton.current;
        setMoved(undefined);
        setSaid(`Moved back to ${formatTime(answer.data.dateTime, timezone)}.`);
        // Undo goes away with the move it undid: the focus follows the post rather than falling to the page.
        if (undoHadFocus)
          requestAnimationFrame(() =>
            document.querySelector<HTMLElement>(`[data-post-id="${CSS.escape(entry.postId)}"]`)?.focus(),
          );
      }
      return true;
    } catch (caught) {
      setFailure(toApiError(caught));
      return false;
    }
  }

  const data = calendar.data;
  const today = dateKey(localDateOf(Date.now(), data?.timezone ?? timezone));
  const avatars = new Map((channels.data ?? []).map((c) => [c.id, c.avatarUrl]));
  const compact = data?.view === 'month' || (narrow && data?.view === 'week');
  const byDay = new Map<string, Entry[]>();
  for (const entry of data?.entries ?? []) byDay.set(entry.day, [...(byDay.get(entry.day) ?? []), entry]);
  const title = props.live ? 'Calendar: all content' : 'Calendar';

  const avatarOf = (entry: Entry) => avatars.get(entry.channelId) ?? undefined;
  const entryItem = (entry: Entry) => (
    <li key={entry.postId} class={`entry ${entry.status}${entry.risk ? ' risky' : ''}`}>
      <Link
        href={`/app/posts/${encodeURIComponent(entry.postId)}`}
        data-post-id={entry.postId}
        draggable={entry.movable}
        onDragStart={(event: DragEvent) => {
          dragging.current = entry;
          event.dataTransfer?.setData('text/plain', entry.postId);
          if (event.dataTransfer) event.dataTransfer.effectAllowed = 'move';
        }}
        onDragEnd={() => {
          dragging.current = undefined;
          setOver(undefined);
        }}
      >
        {avatarOf(entry) && <img class="avatar" src={avatarOf(entry)} alt="" loading="lazy" />}
        <time dateTime={entry.at}>{entry.time}</time>{' '}
        <span class="state">
          <span class="icon" aria-hidden="true">
            {ICONS[entry.status]}
          </span>{' '}
          <span class="word">{entry.status}</span>
        </span>{' '}
        {entry.risk && (
          <span class="at-risk" title={entry.risk.reason}>
            <span aria-hidden="true">⚠</span> at risk
          </span>
        )}{' '}
        <span class="channel">{entry.channelName}</span>{' '}
        <span class="text">{entry.text.length > 80 ? `${entry.text.slice(0, 79)}…` : entry.text || '(no text)'}</span>
        {(entry.threadParts ?? 0) > 0 && (
          <small class="thread-parts"> (a thread: {(entry.threadParts ?? 0) + 1} parts)</small>
        )}
        {entry.imageUrl && <img class="thumb" src={entry.imageUrl} alt="" loading="lazy" />}
      </Link>
      {entry.movable && (
        <button
          type="button"
          class="move"
          aria-label={`Move the ${entry.time} post “${entry.text.slice(0, 40)}”`}
          onClick={() => setMoving(entry)}
        >
          Move
        </button>
      )}
    </li>
  );

  /** A day (and in the week view an hour of it) a scheduled post can be dropped on; minutes are kept. */
  const dropTarget = (day: string, hour?: number) => {
    const key = hour === undefined ? day : `${day}T${hour}`;
    const same = (entry: Entry) => entry.day === day && (hour === undefined || Number(entry.time.slice(0, 2)) === hour);
    return {
      'data-day': day,
      'data-hour': hour,
      // The empty part of a day or hour opens the composer for then; its posts and buttons keep their own clicks.
      onClick: (event: MouseEvent) => {
        if (!data || (event.target as Element).closest('a, button, li.entry, .move-form')) return;
        const time = hour === undefined ? DAY_TIME : `${String(hour).padStart(2, '0')}:00`;
        navigate(composeAtHref(day, time, data.timezone));
      },
      onDragOver: (event: DragEvent) => {
        if (!dragging.current || same(dragging.current)) return;
        event.preventDefault();
        setOver(key);
      },
      onDragLeave: () => setOver((current) => (current === key ? undefined : current)),
      onDrop: (event: DragEvent) => {
        const entry = dragging.current;
        dragging.current = undefined;
        setOver(undefined);
        if (!entry || same(entry)) return;
        event.preventDefault();
        void move(
          entry,
          hour === undefined ? { day } : { day, time: `${String(hour).padStart(2, '0')}:${entry.time.slice(3)}` },
        );
      },
    };
  };
  const days = data ? daysBetween(data.firstDay, data.lastDay) : [];
  // The week shows the working hours, widened to any hour that holds a post.
  const hours = (data?.entries ?? []).map((e) => Number(e.time.slice(0, 2)));
  const firstHour = Math.min(7, ...hours);
  const lastHour = Math.max(21, ...hours);
  const inHour = (day: string, hour: number) =>
    (byDay.get(day) ?? []).filter((e) => Number(e.time.slice(0, 2)) === hour);

  const slotKey = (day: string, hour?: number) => (hour === undefined ? day : `${day}T${hour}`);
  const inGrid = (day: string, hour?: number) =>
    days.includes(day) && (hour === undefined || (hour >= firstHour && hour <= lastHour));
  const startDay = days.includes(today) ? today : days[0];
  const startHour = Math.min(Math.max(WORKDAY_HOUR, firstHour), lastHour);
  const gridHour = data?.view === 'week' ? startHour : undefined;
  const cursorAt = cursor && /^(\d{4}-\d{2}-\d{2})(?:T(\d+))?$/.exec(cursor);
  const tabStop =
    cursorAt && inGrid(cursorAt[1], cursorAt[2] === undefined ? undefined : Number(cursorAt[2]))
      ? cursor
      : slotKey(startDay, gridHour);
  /** The arrow keys move the focus between the New post buttons: a day across, a week (or an hour) up and down. */
  const arrowKeys = (event: KeyboardEvent, day: string, hour?: number) => {
    const step: Record<string, [number, number]> = {
      ArrowLeft: [-1, 0],
      ArrowRight: [1, 0],
      ArrowUp: hour === undefined ? [-7, 0] : [0, -1],
      ArrowDown: hour === undefined ? [7, 0] : [0, 1],
    };
    const [dayStep, hourStep] = step[event.key] ?? [0, 0];
    if (dayStep === 0 && hourStep === 0) return;
    event.preventDefault();
    const nextDay = days[days.indexOf(day) + dayStep];
    const nextHour = hour === undefined ? undefined : hour + hourStep;
    if (!nextDay || !inGrid(nextDay, nextHour)) return;
    document.querySelector<HTMLElement>(`button[data-slot="${slotKey(nextDay, nextHour)}"]`)?.focus();
  };
  /** A day's (or an hour's) own way to the composer from the keyboard; a click elsewhere in it does the same. */
  const newPostButton = (day: string, hour?: number) => {
    const key = slotKey(day, hour);
    const time = hour === undefined ? DAY_TIME : `${String(hour).padStart(2, '0')}:00`;
    return (
      <button
        type="button"
        class="new-here"
        data-slot={key}
        tabIndex={key === tabStop ? 0 : -1}
        onFocus={() => setCursor(key)}
        onKeyDown={(event) => arrowKeys(event, day, hour)}
        onClick={() => data && navigate(composeAtHref(day, time, data.timezone))}
      >
        <span aria-hidden="true">+</span>
        <span class="visually-hidden">
          New post on {dayLabel(day)}
          {hour === undefined ? '' : ` at ${time}`}
        </span>
      </button>
    );
  };

  return (
    <Page
      title={title}
      actions={
        <Link href={href({ live: !props.live })}>
          {props.live ? 'Team calendar (without live posts)' : 'All content, with live posts'}
        </Link>
      }
    >
      <div class="calendar-controls">
        <nav aria-label="Calendar view" class="views">
          {VIEWS.filter((v) => !narrow || v.view !== 'month').map((v) => (
            <Link
              key={v.view}
              class="button"
              href={href({ view: v.view })}
              aria-current={view === v.view ? 'page' : undefined}
            >
              {v.label}
            </Link>
          ))}
        </nav>
        <nav aria-label="Period" class="periods">
          {data?.previous ? (
            <Link class="button" href={href({ date: data.previous })}>
              Previous
            </Link>
          ) : (
            <span class="button" aria-disabled="true">
              Previous
            </span>
          )}
          <Link class="button" href={href({ date: null })}>
            Today
          </Link>
          {data?.next ? (
            <Link class="button" href={href({ date: data.next })}>
              Next
            </Link>
          ) : (
            <span class="button" aria-disabled="true">
              Next
            </span>
          )}
        </nav>
      </div>
      {narrow && asked === 'month' && <p class="muted">On a phone the calendar shows a week at a time.</p>}
      <details class="channel-filter" open={chosen.length > 0}>
        <summary>Channels: {chosen.length ? `${chosen.length} chosen` : 'all'}</summary>
        <fieldset>
          <legend>Show the posts of</legend>
          {(channels.data ?? []).map((c) => (
            <label class="inline" key={c.id}>
              <input
                type="checkbox"
                checked={chosen.includes(c.id)}
                onChange={(event) =>
                  navigate(
                    href({
                      channels: event.currentTarget.checked ? [...chosen, c.id] : chosen.filter((id) => id !== c.id),
                    }),
                    { replace: true },
                  )
                }
              />{' '}
              {c.displayName ?? c.name} ({networkName(c.network)})
            </label>
          ))}
          {chosen.length > 0 && <Link href={href({ channels: [] })}>All channels</Link>}
          {channels.data?.length === 0 && (
            <p>
              No channels yet: <Link href="/app/channels">connect one</Link>.
            </p>
          )}
        </fieldset>
      </details>
      <ul class="legend" aria-label="States">
        {(Object.keys(ICONS) as Entry['status'][])
          .filter((s) => props.live || s !== 'live')
          .map((s) => (
            <li key={s} class={`entry ${s}`}>
              <span class="icon" aria-hidden="true">
                {ICONS[s]}
              </span>{' '}
              {s}
            </li>
          ))}
      </ul>

      <div aria-live="polite" class="outcome">
        {moved && (
          <div id="undo" class="undo">
            Moved “{moved.text.slice(0, 60)}” to {formatTime(moved.to, timezone)}.{' '}
            <button
              type="button"
              ref={undoButton}
              onClick={() => move({ postId: moved.postId, text: moved.text } as Entry, { dateTime: moved.from })}
            >
              Undo
            </button>
          </div>
        )}
        {said && <p>{said}</p>}
      </div>
      {!moving && <Problem error={failure} />}
      <Problem error={calendar.error} />

      {moving && (
        <MoveForm
          entry={moving}
          timezone={timezone}
          failure={failure}
          onCancel={() => {
            setMoving(undefined);
            setFailure(undefined);
          }}
          onMove={async (day, time) => {
            focusUndo.current = true;
            if (await move(moving, { day, time })) setMoving(undefined);
            else focusUndo.current = false;
          }}
        />
      )}

      {!data && !calendar.error && <Loading label="Loading the calendar" rows={view === 'month' ? 10 : 6} />}
      {data && (
        <div aria-busy={calendar.loading}>
          <h2 class="period">
            {data.view === 'month'
              ? new Intl.DateTimeFormat(undefined, { month: 'long', year: 'numeric', timeZone: 'UTC' }).format(
                  new Date(`${data.date}T00:00:00Z`),
                )
              : `${dayLabel(data.firstDay, 'short')} to ${dayLabel(data.lastDay, 'short')}`}
            <span class="muted"> · times in {zoneInWords(data.timezone)}</span>
          </h2>
          {data.truncated && (
            <p class="problem">
              This period holds more than 2,000 posts; only the first 2,000 are shown. Choose fewer channels.
            </p>
          )}
          {data.entries.length === 0 && (
            <Empty>
              <p>
                Nothing in this period. <Link href="/app/compose">Compose a post</Link>, go to another period, or choose
                other channels.
              </p>
            </Empty>
          )}
          {data.view === 'list' ? (
            data.entries.length > 0 && (
              <ol id="list" class="calendar-list">
                {days
                  .filter((day) => byDay.has(day))
                  .map((day) => (
                    <li
                      key={day}
                      {...dropTarget(day)}
                      aria-current={day === today ? 'date' : undefined}
                      class={classes(day === today && 'today', over === day && 'drop-target')}
                    >
                      <h3>
                        {dayLabel(day)}
                        {day === today ? ' (today)' : ''}
                      </h3>
                      <ul class="entries">{byDay.get(day)!.map(entryItem)}</ul>
                    </li>
                  ))}
              </ol>
            )
          ) : data.view === 'week' ? (
            <table id="week" class={`calendar-grid week${compact ? ' compact' : ''}`}>
              <caption class="visually-hidden">
                Posts by day and hour; drag a scheduled post to another day or hour, or use its Move button. Each hour
                has a New post button; the arrow keys move between them.
              </caption>
              <thead>
                <tr>
                  <th scope="col">
                    <span class="visually-hidden">Hour</span>
                  </th>
                  {days.map((day) => (
                    <th
                      scope="col"
                      key={day}
                      aria-current={day === today ? 'date' : undefined}
                      class={classes(day === today && 'today')}
                    >
                      <span class="visually-hidden">
                        {dayLabel(day)}
                        {day === today ? ', today' : ''}
                      </span>
                      <span aria-hidden="true">{narrow ? dayHead(day) : dayLabel(day, 'short')}</span>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {Array.from({ length: lastHour - firstHour + 1 }, (_, i) => firstHour + i).map((hour) => (
                  <tr key={hour}>
                    <th scope="row" class="hour">
                      {String(hour).padStart(2, '0')}:00
                    </th>
                    {days.map((day) => (
                      <td
                        key={day}
                        {...dropTarget(day, hour)}
                        class={classes(day === today && 'today', over === `${day}T${hour}` && 'drop-target')}
                      >
                        {newPostButton(day, hour)}
                        {inHour(day, hour).length > 0 && <ul class="entries">{inHour(day, hour).map(entryItem)}</ul>}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <table id="month" class="calendar-grid month compact">
              <caption class="visually-hidden">
                Posts by day; drag a scheduled post to another day (it keeps its time), or use its Move button. Each day
                has a New post button; the arrow keys move between them.
              </caption>
              <thead>
                <tr>
                  {WEEKDAYS.map((w) => (
                    <th scope="col" key={w}>
                      <abbr title={w}>{w.slice(0, 3)}</abbr>
                    </th>
                  ))}
                </tr>
              </thead>
              <tbody>
                {Array.from({ length: Math.ceil(days.length / 7) }, (_, week) => (
                  <tr key={week}>
                    {days.slice(week * 7, week * 7 + 7).map((day) => (
                      <td
                        key={day}
                        {...dropTarget(day)}
                        aria-current={day === today ? 'date' : undefined}
                        class={classes(
                          day.slice(0, 7) !== data.date.slice(0, 7) && 'outside',
                          day === today && 'today',
                          over === day && 'drop-target',
                        )}
                      >
                        <div class="day-number">
                          <span class="visually-hidden">
                            {dayLabel(day)}
                            {day === today ? ', today' : ''}
                          </span>
                          <span aria-hidden="true">{Number(day.slice(8))}</span>
                          {newPostButton(day)}
                        </div>
                        {byDay.has(day) && <ul class="entries">{byDay.get(day)!.map(entryItem)}</ul>}
                      </td>
                    ))}
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </div>
      )}
    </Page>
  );
}

/** Moving a post without a mouse: a day and a time in the calendar's time zone. */
function MoveForm(props: {
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
      <label for="move-time">Time ({zoneInWords(props.timezone)})</label>
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

export function TeamCalendarPage(props: { query: URLSearchParams }) {
  return <CalendarPage query={props.query} live={false} />;
}

export function AllContentCalendarPage(props: { query: URLSearchParams }) {
  return <CalendarPage query={props.query} live />;
}
