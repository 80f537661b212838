/**
 * A channel's own settings (PATCH /channels/{channelId}):
 * - only a person who manages the team changes them, as connecting and disconnecting;
 * - the time zone must be an IANA name; the weekly queue slots are read in it from then on, while posts already
 *   queued keep the instants they were given (as when the slots change).
 */
import type { DomainDeps } from './deps.js';
import { checkTimezone } from './calendars/calendar-entries.js';
import { getChannel, type ChannelView } from './directory.js';
import { requireScope, type Principal } from './principal.js';

export async function updateChannel(
  deps: DomainDeps,
  principal: Principal,
  channelId: string,
  input: { timezone: string },
): Promise<ChannelView> {
  requireScope(principal, 'manage_team');
  const timezone = checkTimezone(input.timezone.trim());
  await getChannel(deps, principal, channelId);
  await deps.repos.channels.setTimezone(principal.accountId, channelId, timezone);
  return getChannel(deps, principal, channelId);
}
