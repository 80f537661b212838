/**
 * The month: whole weeks from Monday, the days outside the month shown dimmed so each row is a full week. Its
 * entries are reduced to their state and time, as there is no room for more.
 */
import { dayLabel, WEEKDAYS } from './days.js';
import { classes, type PeriodCells } from './grid.js';

export function MonthGrid(props: { cells: PeriodCells }) {
  const { data, grid, byDay, today, over, cell, entry, newPost } = props.cells;
  const { days } = grid;
  return (
    <table id="month" class="calendar-grid month compact">
      <caption class="visually-hidden">
        Posts by day; drag a scheduled post to another day (it keeps its time), or use its Move button. Each day has a
        New post button; the arrow keys move between them.
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
                {...cell(day)}
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
                  {newPost(day)}
                </div>
                {byDay.has(day) && <ul class="entries">{byDay.get(day)!.map(entry)}</ul>}
              </td>
            ))}
          </tr>
        ))}
      </tbody>
    </table>
  );
}
