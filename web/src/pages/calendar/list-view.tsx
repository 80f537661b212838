/** The list view: only the days that hold posts, one after another, each a place to drop a post on. */
import { dayLabel } from './days.js';
import { classes, type PeriodCells } from './grid.js';

export function ListView(props: { cells: PeriodCells }) {
  const { grid, byDay, today, over, cell, entry } = props.cells;
  return (
    <ol id="list" class="calendar-list">
      {grid.days
        .filter((day) => byDay.has(day))
        .map((day) => (
          <li
            key={day}
            {...cell(day)}
            aria-current={day === today ? 'date' : undefined}
            class={classes(day === today && 'today', over === day && 'drop-target')}
          >
            <h3>
              {dayLabel(day)}
              {day === today ? ' (today)' : ''}
            </h3>
            <ul class="entries">{byDay.get(day)!.map(entry)}</ul>
          </li>
        ))}
    </ol>
  );
}
