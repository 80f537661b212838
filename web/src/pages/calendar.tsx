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
import { Loading, Page, Problem } from '../ui/page.js';
import { useCellFocus } from './calendar/empty-cells.js';
import { useCalendarEntries } from './calendar/entries.js';
import { periodGrid } from './calendar/grid.js';
import { MoveForm, MoveOutcome } from './calendar/move-form.js';
import { useMoving } from './calendar/moving.js';
import { useCalendarPeriod } from './calendar/period.js';
import { PeriodView } from './calendar/period-view.js';
import { CalendarToolbar, LiveSwitch } from './calendar/toolbar.js';
import './post-and-calendar.css';

function CalendarPage(props: { query: URLSearchParams; live: boolean }) {
  const period = useCalendarPeriod(props.query, props.live);
  const { channels, calendar, today, byDay, avatarOf } = useCalendarEntries(period);
  const moving = useMoving(period.timezone, calendar.reload);
  const data = calendar.data;
  const grid = periodGrid(data);
  const focus = useCellFocus(grid, today, data?.view === 'week');

  return (
    <Page title={props.live ? 'Calendar: all content' : 'Calendar'} actions={<LiveSwitch period={period} />}>
      <CalendarToolbar period={period} data={data} channels={channels.data} />
      <MoveOutcome moving={moving} timezone={period.timezone} />
      {!moving.moving && <Problem error={moving.failure} />}
      <Problem error={calendar.error} />
      {moving.moving && (
        <MoveForm
          entry={moving.moving}
          timezone={period.timezone}
          failure={moving.failure}
          onCancel={moving.cancel}
          onMove={moving.moveTo}
        />
      )}
      {!data && !calendar.error && <Loading label="Loading the calendar" rows={period.view === 'month' ? 10 : 6} />}
      {data && (
        <PeriodView
          data={data}
          loading={calendar.loading}
          narrow={period.narrow}
          grid={grid}
          byDay={byDay}
          today={today}
          avatarOf={avatarOf}
          moving={moving}
          focus={focus}
        />
      )}
    </Page>
  );
}

export function TeamCalendarPage(props: { query: URLSearchParams }) {
  return <CalendarPage query={props.query} live={false} />;
}

export function AllContentCalendarPage(props: { query: URLSearchParams }) {
  return <CalendarPage query={props.query} live />;
}
