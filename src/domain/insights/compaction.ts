/**
 * How long metric samples stay as they were taken, so storage stays bounded while totals stay exact:
 * - a post keeps one sample per hour (UTC) of its first two days and one per day after: its curve over its first
 *   days is known hour by hour, and later by the day;
 * - a channel's audience keeps one sample per hour for the last two days, one per day before;
 * - of each hour or day the last sample is the one kept, so a post's latest counters (every total insights show)
 *   and the counters at the close of each hour or day are never changed by compaction;
 * - housekeeping runs it (domain/housekeeping.ts); running it again changes nothing. It recounts the hours of the
 *   insights rollup noted as changed first (rollups.ts), so they never pile up while nobody reads insights.
 */
import type { DomainDeps } from '../deps.js';
import { refreshRollups } from './rollups.js';

export async function compactSamples(deps: DomainDeps): Promise<number> {
  await refreshRollups(deps);
  const posts = await deps.repos.insights.compactPostSamples();
  return posts + (await deps.repos.insights.compactAudienceSamples(deps.now()));
}
