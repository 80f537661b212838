import type { ToolResults } from '../../../generated/mcp/types.js';
import crypto from 'node:crypto';
import type { CalendarViewRecord, ShareableCalendarRecord } from '../../db/repositories/calendars.js';
import type { DomainDeps } from '../deps.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { newId } from '../ids.js';
import type { Principal } from '../principal.js';
import { hashSecret, newSecret, safeEqual } from '../secrets.js';
import { parseWireTime, toWireTime } from '../time.js';
import { checkCalendarInstant, parseCalendarDate } from './calendar-dates.js';
import { CALENDAR_LAYOUTS, checkTimezone, type CalendarLayout } from './calendar-entries.js';

/**
 * Shareable calendars: saved views behind an unguessable public link, and the signed-in user's own calendar.
 *
 * Rules enforced:
 * - the link's token has 256 random bits and only its SHA-256 is stored, so the link is shown once, at
 *   creation; updating keeps the link and changes what it shows; deleting (or expiry) makes it 404 at once;
 * - every channel and label named must belong to the caller's account;
 * - a view's from and to, and the in-app link's date, lie within the calendar range (calendar-dates);
 * - the in-app calendar link is signed, names its user, and expires after an hour.
 */
const PUBLIC_TOKEN_PREFIX = 'hcal_';
const IN_APP_LINK_TTL_MS = 60 * 60_000;

export interface CalendarViewInput {
  name?: string;
  channelIds?: string[];
  labelIds?: string[];
  view?: CalendarLayout;
  includeDrafts?: boolean;
  includeLivePosts?: boolean;
  showText?: boolean;
  timezone?: string;
  from?: string | null;
  to?: string | null;
  expiresAt?: string | null;
}

/** A shareable calendar as the tools show it (from jsonrpc-schemas/). */
export type ShareableCalendarView = ToolResults['create_public_calendar_link']['data'];

export function publicCalendarUrl(deps: DomainDeps, token: string): string {
  return `${deps.config.baseUrl}/calendars/${token}`;
}

function toView(deps: DomainDeps, record: ShareableCalendarRecord, token?: string): ShareableCalendarView {
  const view = record.view;
  return {
    id: record.id,
    name: record.name,
    url: token ? publicCalendarUrl(deps, token) : null,
    icsUrl: token ? `${publicCalendarUrl(deps, token)}.ics` : null,
    channelIds: view.channelIds,
    labelIds: view.labelIds,
    view: view.layout,
    includeDrafts: view.includeDrafts,
    includeLivePosts: view.includeLive,
    showText: view.showText,
    timezone: view.timezone,
    from: toWireTime(view.from),
    to: toWireTime(view.to),
    expiresAt: toWireTime(record.expiresAt),
    createdAt: toWireTime(record.createdAt),
    updatedAt: toWireTime(record.updatedAt),
  };
}

export function calendarViewOptions() {
  return {
    views: [...CALENDAR_LAYOUTS],
    defaultView: 'month' as const,
    filters: ['channelIds', 'labelIds', 'from', 'to', 'timezone', 'includeDrafts', 'includeLivePosts', 'showText'],
    postStates: ['scheduled', 'published', 'draft', 'live'],
  };
}

async function checkedView(
  deps: DomainDeps,
  principal: Principal,
  input: CalendarViewInput,
  base?: CalendarViewRecord,
): Promise<{ view: CalendarViewRecord; workspaceId: string }> {
  const channelIds = input.channelIds ?? base?.channelIds ?? [];
  const channels = await deps.repos.channels.findMany(principal.accountId, channelIds);
  const missing = channelIds.filter((id) => !channels.some((c) => c.id === id));
  if (missing.length > 0 || channels.length === 0) {
    throw new ValidationError('Unknown channels', [
      {
        path: 'channelIds',
        message: `No channel ${missing.join(', ') || '(none given)'} in this account; list them with get_channels.`,
      },
    ]);
  }
  const labelIds = input.labelIds ?? base?.labelIds ?? [];
  const labels = await deps.repos.labels.findMany(principal.accountId, labelIds);
  const missingLabels = labelIds.filter((id) => !labels.some((l) => l.id === id));
  if (missingLabels.length > 0) {
    throw new ValidationError('Unknown labels', [
      { path: 'labelIds', message: `No label ${missingLabels.join(', ')} in this account; list them with label_list.` },
    ]);
  }
  const from =
    input.from === undefined ? (base?.from ?? null) : input.from === null ? null : parseWireTime(input.from, 'from');
  const to = input.to === undefined ? (base?.to ?? null) : input.to === null ? null : parseWireTime(input.to, 'to');
  if (from !== null && to !== null && from >= to)
    throw new ValidationError('from must be before to', [{ path: 'to', message: 'Give an end after the start.' }]);
  const timezone = checkTimezone(input.timezone ?? base?.timezone ?? channels[0].timezone);
  if (from !== null) checkCalendarInstant(from, timezone, 'from');
  if (to !== null) checkCalendarInstant(to, timezone, 'to');
  return {
    workspaceId: channels[0].workspaceId,
    view: {
      layout: input.view ?? base?.layout ?? 'month',
      channelIds,
      labelIds,
      from,
      to,
      timezone,
      includeDrafts: input.includeDrafts ?? base?.includeDrafts ?? false,
      includeLive: input.includeLivePosts ?? base?.includeLive ?? false,
      showText: input.showText ?? base?.showText ?? true,
    },
  };
}

function expiryFrom(deps: DomainDeps, value: string | null | undefined, fallback: number | null): number | null {
  if (value === undefined) return fallback;
  if (value === null) return null;
  const at = parseWireTime(value, 'expiresAt');
  if (at <= deps.now())
    throw new ValidationError('expiresAt must be in the future', [
      { path: 'expiresAt', message: 'Give a future time, or omit it for no expiry.' },
    ]);
  return at;
}

export async function listShareableCalendars(deps: DomainDeps, principal: Principal): Promise<ShareableCalendarView[]> {
  return (await deps.repos.calendars.list(principal.accountId)).map((record) => toView(deps, record));
}

export async function createShareableCalendar(
  deps: DomainDeps,
  principal: Principal,
  input: CalendarViewInput & { name: string },
): Promise<ShareableCalendarView> {
  const { view, workspaceId } = await checkedView(deps, principal, input);
  const token = newSecret(PUBLIC_TOKEN_PREFIX);
  const now = deps.now();
  const record: ShareableCalendarRecord = {
    id: newId(),
    accountId: principal.accountId,
    workspaceId,
    name: input.name.trim(),
    tokenHash: hashSecret(token),
    view,
    expiresAt: expiryFrom(deps, input.expiresAt, null),
    createdAt: now,
    updatedAt: now,
  };
  await deps.repos.calendars.create(record);
  return toView(deps, record, token);
}

async function requireCalendar(
  deps: DomainDeps,
  principal: Principal,
  calendarId: string,
): Promise<ShareableCalendarRecord> {
  const record = await deps.repos.calendars.get(principal.accountId, calendarId);
  if (!record)
    throw new NotFoundError(
      `No shareable calendar ${calendarId} in this account; list them with get_shareable_calendars.`,
    );
  return record;
}

export async function updateShareableCalendar(
  deps: DomainDeps,
  principal: Principal,
  input: CalendarViewInput & { calendarId: string },
): Promise<ShareableCalendarView> {
  const record = await requireCalendar(deps, principal, input.calendarId);
  const { view } = await checkedView(deps, principal, input, record.view);
  const changes = {
    name: input.name?.trim() ?? record.name,
    view,
    expiresAt: expiryFrom(deps, input.expiresAt, record.expiresAt),
    updatedAt: deps.now(),
  };
  await deps.repos.calendars.update(principal.accountId, record.id, changes);
  return toView(deps, { ...record, ...changes });
}

export async function deleteShareableCalendar(
  deps: DomainDeps,
  principal: Principal,
  input: { calendarId: string },
): Promise<{ id: string; deleted: true }> {
  const record = await requireCalendar(deps, principal, input.calendarId);
  await deps.repos.calendars.delete(principal.accountId, record.id);
  return { id: record.id, deleted: true };
}

/** The calendar behind a public link; NotFoundError for unknown, deleted or expired links alike. */
export async function openPublicCalendar(deps: DomainDeps, token: string): Promise<ShareableCalendarRecord> {
  const record = token.startsWith(PUBLIC_TOKEN_PREFIX)
    ? await deps.repos.calendars.findByTokenHash(hashSecret(token))
    : undefined;
  if (!record || (record.expiresAt !== null && record.expiresAt <= deps.now()))
    throw new NotFoundError(
      'This calendar link does not exist, was deleted, or has expired. Ask its owner for a new one.',
    );
  return record;
}

interface InAppClaims {
  a: string;
  u: string;
  v: CalendarViewRecord;
  d?: string;
  e: number;
}

function sign(deps: DomainDeps, payload: string): string {
  return crypto.createHmac('sha256', deps.secrets.linkKey).update(`in-app-calendar:${payload}`).digest('base64url');
}

export async function inAppCalendarUrl(
  deps: DomainDeps,
  principal: Principal,
  input: {
    view?: CalendarLayout;
    date?: string;
    channelIds?: string[];
    labelIds?: string[];
    includeDrafts?: boolean;
    includeLivePosts?: boolean;
    timezone?: string;
  },
): Promise<{ url: string; expiresAt: string }> {
  const channelIds = input.channelIds ?? (await deps.repos.channels.list(principal.accountId)).map((c) => c.id);
  const { view } = await checkedView(deps, principal, { ...input, channelIds });
  if (input.date !== undefined) parseCalendarDate(input.date);
  const expiresAt = deps.now() + IN_APP_LINK_TTL_MS;
  const claims: InAppClaims = { a: principal.accountId, u: principal.userId, v: view, d: input.date, e: expiresAt };
  const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
  return {
    url: `${deps.config.baseUrl}/calendar?t=${payload}.${sign(deps, payload)}`,
    expiresAt: toWireTime(expiresAt),
  };
}

/** The view an in-app calendar link opens, or NotFoundError when the link is not valid (any more). */
export function openInAppCalendar(
  deps: DomainDeps,
  link: string,
): { accountId: string; view: CalendarViewRecord; date?: string } {
  const [payload, signature] = link.split('.');
  if (!payload || !signature || !safeEqual(sign(deps, payload), signature))
    throw new NotFoundError('This calendar link is not valid.');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as InAppClaims;
  if (claims.e <= deps.now())
    throw new NotFoundError('This calendar link has expired; ask for a new one with get_in_app_calendar_url.');
  return { accountId: claims.a, view: claims.v, date: claims.d };
}
