/**
 * The period once loaded: its heading (which period, in which time zone, since a change of period keeps the old one
 * on screen until the new one arrives), a word when it is empty or cut short, and the view asked for. Every cell
 * of every view takes a dropped post and opens the composer when its empty part is clicked.
 */
import { Link } from '../../router.js';
import { Empty } from '../../ui/page.js';
import { zoneInWords } from '../../ui/time.js';
import { dayLabel } from './days.js';
import { type CellFocus, composeOnClick, NewPostButton } from './empty-cells.js';
import { type Entry, EntryItem } from './entry.js';
import type { Grid, PeriodCells } from './grid.js';
import { ListView } from './list-view.js';
import { MonthGrid } from './month-grid.js';
import type { Moving } from './moving.js';
import type { Calendar } from './period.js';
import { WeekGrid } from './week-grid.js';

export function PeriodView(props: {
  data: Calendar;
  loading: boolean;
  narrow: boolean;
  grid: Grid;
  byDay: Map<string, Entry[]>;
  today: string;
  avatarOf: (entry: Entry) => string | undefined;
  moving: Moving;
  focus: CellFocus;
}) {
  const { data, moving } = props;
  const cells: PeriodCells = {
    data,
    grid: props.grid,
    byDay: props.byDay,
    today: props.today,
    over: moving.drag.over,
    cell: (day, hour) => ({ ...moving.drag.target(day, hour), onClick: composeOnClick(day, hour, data.timezone) }),
    entry: (entry) => (
      <EntryItem
        key={entry.postId}
        entry={entry}
        avatar={props.avatarOf(entry)}
        drag={moving.drag}
        onMove={moving.open}
      />
    ),
    newPost: (day, hour) => <NewPostButton day={day} hour={hour} timezone={data.timezone} focus={props.focus} />,
  };
  return (
    <div aria-busy={props.loading}>
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
        data.entries.length > 0 && <ListView cells={cells} />
      ) : data.view === 'week' ? (
        <WeekGrid cells={cells} narrow={props.narrow} />
      ) : (
        <MonthGrid cells={cells} />
      )}
    </div>
  );
}
