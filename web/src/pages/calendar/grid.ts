/**
 * The cells a period is laid out in: its days and, for the week, its hours. The views, the drop targets and the
 * keyboard's way among the empty cells all need the same cells, so they are worked out once here.
 */
import type { VNode } from 'preact';
import { daysBetween } from './days.js';
import type { Entry } from './entry.js';
import type { Calendar } from './period.js';

export interface Grid {
  days: string[];
  firstHour: number;
  lastHour: number;
}

/** What each view of the period draws its cells and entries with. */
export interface PeriodCells {
  data: Calendar;
  grid: Grid;
  byDay: Map<string, Entry[]>;
  today: string;
  /** The cell a dragged post is over (`slotKey`), marked as where it would go. */
  over: string | undefined;
  cell: (day: string, hour?: number) => Record<string, unknown>;
  entry: (entry: Entry) => VNode;
  newPost: (day: string, hour?: number) => VNode;
}

export function periodGrid(data: Calendar | undefined): Grid {
  const days = data ? daysBetween(data.firstDay, data.lastDay) : [];
  // The week shows the working hours, widened to any hour that holds a post.
  const hours = (data?.entries ?? []).map(hourOf);
  return { days, firstHour: Math.min(7, ...hours), lastHour: Math.max(21, ...hours) };
}

export function hourOf(entry: Entry): number {
  return Number(entry.time.slice(0, 2));
}

/** A day, or an hour of it in the week, as one key: what a drop or the focus is on. */
export function slotKey(day: string, hour?: number): string {
  return hour === undefined ? day : `${day}T${hour}`;
}

export function inGrid(grid: Grid, day: string, hour?: number): boolean {
  return grid.days.includes(day) && (hour === undefined || (hour >= grid.firstHour && hour <= grid.lastHour));
}

/** A class attribute of the names that apply, or none. */
export function classes(...names: (string | false)[]): string | undefined {
  return names.filter(Boolean).join(' ') || undefined;
}
