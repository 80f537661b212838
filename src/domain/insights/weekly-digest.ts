/**
 * The weekly digest (`insights.weekly`, through webhooks and GET /events):
 * - once a week ends (Monday 00:00 UTC), each workspace with channels gets one event for it: the week's totals
 *   against the week before, its best post and each channel's suggested slots (best-times.ts), the same numbers
 *   GET /insights answers for that week;
 * - exactly one per workspace and week, however many instances run housekeeping at once (insight_digests);
 * - a channel disconnected since still counts for what it published that week.
 */
import type { ChannelRecord } from '../../db/repositories/channels.js';
import type { DomainDeps } from '../deps.js';
import { recordEvent } from '../events/events.js';
import { addDays, dateKey, localDateOf, weekday } from '../zoned-time.js';
import { channelBestWindows } from './best-times.js';
import { periodOf, periodView } from './insights-period.js';
import { reportFor } from './insights-report.js';

const SUGGESTED_SLOTS = 3;

/** Writes the digests of the week that ended last that are not written yet; returns how many it wrote. */
export async function writeWeeklyDigests(deps: DomainDeps): Promise<number> {
  const today = localDateOf(deps.now(), 'UTC');
  const monday = addDays(today, -weekday(today));
  const period = periodOf(addDays(monday, -7), addDays(monday, -1), 'UTC');
  const week = dateKey(period.first);
  const workspaces = new Map<string, ChannelRecord[]>();
  for (let after = ''; ; ) {
    const page = await deps.repos.channels.pageAcrossAccounts(after, 200);
    for (const channel of page)
      workspaces.set(channel.workspaceId, [...(workspaces.get(channel.workspaceId) ?? []), channel]);
    if (page.length < 200) break;
    after = page[page.length - 1].id;
  }
  let written = 0;
  for (const [workspaceId, channels] of workspaces) {
    const accountId = channels[0].accountId;
    if (await deps.repos.insights.digestWritten(workspaceId, week)) continue;
    const labels = await deps.repos.labels.list(accountId, workspaceId);
    const report = await reportFor(deps, { accountId, channels, labels, labelIds: null }, period);
    const suggestedSlots = [];
    for (const channel of channels) {
      const best = await channelBestWindows(deps, channel);
      suggestedSlots.push({
        channelId: channel.id,
        basis: best.basis,
        windows: best.windows.slice(0, SUGGESTED_SLOTS),
        note: best.note,
      });
    }
    const data = {
      week: periodView(period),
      totals: report.totals,
      previousTotals: report.previousTotals,
      change: report.change,
      bestPost: report.topPosts[0] ?? null,
      byChannel: report.byChannel,
      suggestedSlots,
    };
    const now = deps.now();
    const recorded = await deps.repos.inTransaction(async (repos) => {
      if (!(await repos.insights.claimDigest(workspaceId, week, now))) return false;
      await recordEvent(repos, { type: 'insights.weekly', accountId, workspaceId, at: now, data });
      return true;
    });
    if (recorded) written += 1;
  }
  return written;
}
