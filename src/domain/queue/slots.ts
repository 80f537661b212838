/**
 * Weekly posting slots and the wall-clock arithmetic behind them. Rules:
 * - A slot is a weekday and an HH:MM wall-clock time in the channel's IANA timezone; it keeps that
 *   wall-clock time across daylight-saving changes (09:00 stays 09:00 local, its UTC instant moves).
 * - Spring-forward gap (the wall-clock time does not exist that day, e.g. 02:30 on 28 March 2027 in
 *   Europe/Berlin): the slot happens at the same instant the clock would have shown without the jump,
 *   i.e. it moves forward by the gap (02:30 -> 03:30 local). The slot still happens that day.
 * - Fall-back overlap (the wall-clock time happens twice, e.g. 02:30 on 31 October 2027 in Berlin):
 *   the slot is the first occurrence (the earlier UTC instant, still on summer time). Once, not twice.
 * - Slots are listed in time order; a day with two slots at the same instant after the gap rule yields one.
 */
import type { SlotRecord, Weekday } from '../../db/repositories/channels.js';
import { ValidationError } from '../errors.js';
import { wallClockToUtc, zoneOffset } from '../zoned-time.js';

export const WEEKDAYS: readonly Weekday[] = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];
const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
/** How far ahead a free slot is looked for before the caller is told to add slots. */
const SEARCH_DAYS = 3 * 366;

/** A 24-hour HH:MM wall-clock time, as slots and calendar moves write it. */
export function isTimeOfDay(value: string): boolean {
  return /^([01]\d|2[0-3]):[0-5]\d$/.test(value);
}

export function parseSlots(slots: readonly { day: string; time: string }[], path = 'slots'): SlotRecord[] {
  const seen = new Set<string>();
  const result: SlotRecord[] = [];
  for (const [i, slot] of slots.entries()) {
    const day = slot.day.toLowerCase();
    if (!(WEEKDAYS as readonly string[]).includes(day)) {
      throw new ValidationError(`${path}[${i}].day must be one of mon, tue, wed, thu, fri, sat, sun`, [
        { path: `${path}[${i}].day`, message: `Got "${slot.day}"` },
      ]);
    }
    if (!isTimeOfDay(slot.time)) {
      throw new ValidationError(`${path}[${i}].time must be a 24-hour HH:MM wall-clock time, e.g. 09:00`, [
        { path: `${path}[${i}].time`, message: `Got "${slot.time}"` },
      ]);
    }
    const key = `${day} ${slot.time}`;
    if (seen.has(key))
      throw new ValidationError(`${path} lists ${key} twice`, [
        { path: `${path}[${i}]`, message: 'Remove the duplicate.' },
      ]);
    seen.add(key);
    result.push({ day: day as Weekday, time: slot.time });
  }
  const order = (s: SlotRecord) =>
    ((WEEKDAYS.indexOf(s.day) + 6) % 7) * 1440 + Number(s.time.slice(0, 2)) * 60 + Number(s.time.slice(3));
  return result.sort((a, b) => order(a) - order(b));
}

/** Parses the CLI form "mon 09:00,tue 12:30". */
export function parseSlotList(text: string): SlotRecord[] {
  const items = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return parseSlots(
    items.map((item) => {
      const [day = '', time = ''] = item.split(/\s+/);
      return { day, time };
    }),
    '--slots',
  );
}

/** Slot instants strictly after `after`, in time order, for up to SEARCH_DAYS days. */
export function* slotInstants(timeZone: string, slots: readonly SlotRecord[], after: number): Generator<number> {
  if (slots.length === 0) return;
  const startWall = after + zoneOffset(timeZone, after);
  const firstDay = Math.floor(startWall / DAY_MS) * DAY_MS - DAY_MS;
  let last = -Infinity;
  for (let d = 0; d <= SEARCH_DAYS; d++) {
    const dayStart = firstDay + d * DAY_MS;
    const weekday = WEEKDAYS[new Date(dayStart).getUTCDay()];
    const instants = slots
      .filter((s) => s.day === weekday)
      .map((s) =>
        wallClockToUtc(timeZone, dayStart + (Number(s.time.slice(0, 2)) * 60 + Number(s.time.slice(3))) * MINUTE_MS),
      )
      .sort((a, b) => a - b);
    for (const instant of instants) {
      if (instant <= after || instant <= last) continue;
      last = instant;
      yield instant;
    }
  }
}

/** The first `count` slot instants after `after` that are not in `taken`. */
export function freeSlots(
  timeZone: string,
  slots: readonly SlotRecord[],
  after: number,
  taken: ReadonlySet<number>,
  count: number,
): number[] {
  const found: number[] = [];
  if (count <= 0) return found;
  for (const instant of slotInstants(timeZone, slots, after)) {
    if (taken.has(instant)) continue;
    found.push(instant);
    if (found.length === count) break;
  }
  return found;
}
