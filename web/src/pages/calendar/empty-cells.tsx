/**
 * The way from an empty day (month) or hour (week) to the composer, scheduled for then. A click on the empty part
 * of the cell does it; from the keyboard each cell has a New post button. Only one of them is in the Tab order, as
 * in a grid, so the calendar is not hundreds of Tab stops long: today's at the start of the working day, or the
 * last one the focus was on; the arrow keys move between them.
 */
import { useState } from 'preact/hooks';
import { navigate } from '../../router.js';
import { composeAtHref } from '../../ui/compose-at.js';
import { dayLabel } from './days.js';
import { type Grid, inGrid, slotKey } from './grid.js';

/** The hour a week's New post buttons start at in the Tab order, on today or the week's first day. */
const WORKDAY_HOUR = 9;
/** The time a post made from a day of the month starts at; the composer lets the person change it. */
const DAY_TIME = '09:00';

function timeOf(hour?: number): string {
  return hour === undefined ? DAY_TIME : `${String(hour).padStart(2, '0')}:00`;
}

/** The click on a cell's empty part; its posts and buttons keep their own clicks. */
export function composeOnClick(day: string, hour: number | undefined, timezone: string) {
  return (event: MouseEvent) => {
    if ((event.target as Element).closest('a, button, li.entry, .move-form')) return;
    navigate(composeAtHref(day, timeOf(hour), timezone));
  };
}

export interface CellFocus {
  /** The key of the one New post button in the Tab order. */
  tabStop: string;
  focused: (key: string) => void;
  arrowKeys: (event: KeyboardEvent, day: string, hour?: number) => void;
}

export function useCellFocus(grid: Grid, today: string, weekly: boolean): CellFocus {
  // The day or hour whose New post button is in the Tab order: the last one the focus was on.
  const [cursor, setCursor] = useState<string>();
  const { days, firstHour, lastHour } = grid;
  const startDay = days.includes(today) ? today : days[0];
  const startHour = Math.min(Math.max(WORKDAY_HOUR, firstHour), lastHour);
  const cursorAt = cursor && /^(\d{4}-\d{2}-\d{2})(?:T(\d+))?$/.exec(cursor);
  const tabStop =
    cursorAt && inGrid(grid, cursorAt[1], cursorAt[2] === undefined ? undefined : Number(cursorAt[2]))
      ? cursor
      : slotKey(startDay, weekly ? startHour : undefined);
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
    if (!nextDay || !inGrid(grid, nextDay, nextHour)) return;
    document.querySelector<HTMLElement>(`button[data-slot="${slotKey(nextDay, nextHour)}"]`)?.focus();
  };
  return { tabStop, focused: setCursor, arrowKeys };
}

/** A day's (or an hour's) own way to the composer from the keyboard; a click elsewhere in it does the same. */
export function NewPostButton(props: { day: string; hour?: number; timezone: string; focus: CellFocus }) {
  const { day, hour, focus } = props;
  const key = slotKey(day, hour);
  const time = timeOf(hour);
  return (
    <button
      type="button"
      class="new-here"
      data-slot={key}
      tabIndex={key === focus.tabStop ? 0 : -1}
      onFocus={() => focus.focused(key)}
      onKeyDown={(event) => focus.arrowKeys(event, day, hour)}
      onClick={() => navigate(composeAtHref(day, time, props.timezone))}
    >
      <span aria-hidden="true">+</span>
      <span class="visually-hidden">
        New post on {dayLabel(day)}
        {hour === undefined ? '' : ` at ${time}`}
      </span>
    </button>
  );
}
