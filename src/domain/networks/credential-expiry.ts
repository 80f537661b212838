/**
 * Credentials that expire and cannot be renewed without the person (LinkedIn's 60-day tokens where LinkedIn grants
 * the app no refresh token), reviewed on every sync pass.
 *
 * Rules kept here:
 * - a week before they expire (EXPIRY_WARNING_MS), the active channel's status reason says when, once, so people
 *   see it on the channel before anything fails;
 * - a day before (EXPIRY_MARGIN_MS), the channel is marked needs_reconnect with its channel.needs_reconnect event:
 *   no post is attempted with a token that lapses mid-publish, and the reason names the date;
 * - credentials the connector renews itself (a refresh token, or a network whose tokens never expire) are left to it;
 * - reconnecting stores new credentials and clears both (channels.saveConnection).
 */
import type { ChannelRecord } from '../../db/repositories/channels.js';
import type { DomainDeps } from '../deps.js';
import { capabilitiesOf } from './capabilities.js';
import { connectorChannel } from './channel-connections.js';
import type { NetworkConnector } from './connector.js';
import { markNeedsReconnect } from './credential-vault.js';

export const EXPIRY_WARNING_MS = 7 * 24 * 3600_000;
export const EXPIRY_MARGIN_MS = 24 * 3600_000;

export async function reviewCredentialExpiry(
  deps: DomainDeps,
  channel: ChannelRecord,
  connector: NetworkConnector,
): Promise<void> {
  if ((channel.status ?? 'active') !== 'active' || !connector.renewable) return;
  const stored = await deps.repos.channels.credentials(channel.id);
  if (!stored?.sealed || stored.expiresAt === null) return;
  const left = stored.expiresAt - deps.now();
  if (left > EXPIRY_WARNING_MS || (await connector.renewable(connectorChannel(deps, channel)))) return;
  const displayName = capabilitiesOf(channel.network).displayName;
  const date = new Date(stored.expiresAt).toISOString().slice(0, 10);
  if (left <= EXPIRY_MARGIN_MS) {
    await markNeedsReconnect(
      deps.repos,
      channel.id,
      `${displayName}'s access expires on ${date} and ${displayName} cannot renew it without you: ` +
        'reconnect the channel',
      deps.now(),
    );
    return;
  }
  await deps.repos.channels.warn(
    channel.id,
    `${displayName}'s access expires on ${date}: reconnect the channel before then, or its posts will fail.`,
  );
}
