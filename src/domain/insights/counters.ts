/**
 * What a post's counters add up to, the same everywhere insights are shown (REST, the app, MCP, the digest):
 * - engagement is the sum of the counters the network's capabilities row lists as engagement; on a network whose
 *   row lists none, every counter that is not reach;
 * - reach is the first of the row's reach counters the post has (impressions or views), else null: never a guess;
 * - engagement per impression is counted only over posts whose reach is known and above zero.
 */
import { findCapabilities } from '../networks/capabilities.js';

/** Counter names that measure who saw a post rather than who engaged with it, for networks whose row lists none. */
const REACH_NAMES = ['impressions', 'views', 'reach', 'post_total_media_view_unique'];

export function engagementOf(network: string, counters: Record<string, number>): number {
  const listed = findCapabilities(network)?.counters?.engagement;
  const names = listed ?? Object.keys(counters).filter((name) => !REACH_NAMES.includes(name));
  return names.reduce((sum, name) => sum + (counters[name] ?? 0), 0);
}

export function reachOf(network: string, counters: Record<string, number>): number | null {
  const names = findCapabilities(network)?.counters?.reach ?? REACH_NAMES;
  const name = names.find((n) => typeof counters[n] === 'number');
  return name === undefined ? null : counters[name];
}
