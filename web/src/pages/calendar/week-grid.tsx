/**
 * The week: a table of days across and hours down, so a screen reader can name each cell by its day and hour. On a
 * phone its entries are reduced to their state and time (`compact`), and its columns headed by short days.
 */
import { dayHead, dayLabel } from './days.js';
import { classes, hourOf, type PeriodCells } from './grid.js';

export function WeekGrid(props: { cells: PeriodCells; narrow: boolean }) {
  const { grid, byDay, today, over, cell, entry, newPost } = props.cells;
  const { days, firstHour, lastHour } = grid;
  const inHour = (day: string, hour: number) => (byDay.get(day) ?? []).filter((e) => hourOf(e) === hour);
  return (
    <table id="week" class={`calendar-grid week${props.narrow ? ' compact' : ''}`}>
      <caption class="visually-hidden">
        Posts by day and hour; drag a scheduled post to another day or hour, or use its Move button. Each hour has a New
        post button; the arrow keys move between them.
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
              <span aria-hidden="true">{props.narrow ? dayHead(day) : dayLabel(day, 'short')}</span>
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
                {...cell(day, hour)}
                class={classes(day === today && 'today', over === `${day}T${hour}` && 'drop-target')}
              >
                {newPost(day, hour)}
                {inHour(day, hour).length > 0 && <ul class="entries">{inHour(day, hour).map(entry)}</ul>}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
