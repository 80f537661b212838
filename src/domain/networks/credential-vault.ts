/**
 * The credential vault: channel credentials (tokens, app passwords, session JWTs) sealed at rest.
 *
 * Rules kept here:
 * - credentials are sealed under the instance master key (secret-box.ts), bound to their channel's id, and
 *   opened only for a connector's call; no API answer and no log line carries them;
 * - a refresh replaces one version of the credentials: the caller that claims that version refreshes and
 *   stores the result atomically, every other caller (worker, instance) waits for it and reads the new
 *   version, so a rotating refresh token is spent once;
 * - a refresh the network calls final (reconnect_needed) marks the channel needs_reconnect with the network's
 *   reason; a transient failure (5xx, timeout) changes nothing but the claim, which is released;
 * - a claim lasts REFRESH_CLAIM_MS: a caller that died mid-refresh does not block the channel for longer.
 */
import crypto from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import type { Repositories } from '../../db/repositories/index.js';
import type { DomainDeps } from '../deps.js';
import { recordChannelEvent } from '../events/events.js';
import { NetworkError, type ChannelVault, type OpenedCredentials, type RenewedCredentials } from './connector.js';

export const REFRESH_CLAIM_MS = 30_000;
const REFRESH_POLL_MS = 100;

/** The name a channel's credentials are sealed under: a sealed value copied to another channel does not open. */
export function credentialsName(channelId: string): string {
  return `channel-credentials:${channelId}`;
}

/** The names a connect flow's and an app registration's sealed values are bound to. */
export function flowName(stateHash: string): string {
  return `connect-flow:${stateHash}`;
}

export function appName(network: string, origin: string, redirectUri: string): string {
  return `network-app:${network}:${origin}:${redirectUri}`;
}

export function sealCredentials(deps: DomainDeps, channelId: string, credentials: Record<string, unknown>): string {
  return deps.secretBox.seal(credentialsName(channelId), JSON.stringify(credentials));
}

/**
 * Marks a channel needs_reconnect with the network's reason, and records channel.needs_reconnect once, with the change.
 */
export async function markNeedsReconnect(
  repos: Repositories,
  channelId: string,
  reason: string,
  now: number,
): Promise<void> {
  await repos.inTransaction(async (trx) => {
    if (!(await trx.channels.setStatus(channelId, 'needs_reconnect', reason))) return;
    const channel = await trx.channels.anyAccount(channelId);
    if (channel) await recordChannelEvent(trx, now, 'channel.needs_reconnect', channel, { reason });
  });
}

export function channelVault(deps: DomainDeps, channelId: string): ChannelVault {
  const channels = deps.repos.channels;

  async function read(): Promise<OpenedCredentials> {
    const stored = await channels.credentials(channelId);
    if (!stored?.sealed)
      throw new NetworkError(
        'reconnect_needed',
        'the channel holds no credentials (it was disconnected); connect it again',
      );
    return {
      credentials: JSON.parse(deps.secretBox.open(credentialsName(channelId), stored.sealed)) as Record<
        string,
        unknown
      >,
      version: stored.version,
      expiresAt: stored.expiresAt,
    };
  }

  async function refresh(
    seenVersion: number,
    renew: (current: Record<string, unknown>) => Promise<RenewedCredentials>,
  ): Promise<OpenedCredentials> {
    const claimant = crypto.randomBytes(8).toString('hex');
    // Counted in polls, not read from the clock: a test that pins the clock must not make a waiter spin forever.
    for (let polls = 0; ; polls++) {
      const current = await read();
      if (current.version !== seenVersion) return current;
      const now = deps.now();
      if (await channels.claimRefresh(channelId, seenVersion, claimant, now + REFRESH_CLAIM_MS, now)) {
        let renewed: RenewedCredentials;
        try {
          renewed = await renew(current.credentials);
        } catch (error) {
          await channels.releaseRefresh(channelId, claimant);
          if (error instanceof NetworkError && error.kind === 'reconnect_needed')
            await markNeedsReconnect(deps.repos, channelId, error.message, deps.now());
          throw error;
        }
        const stored = await channels.storeRefreshed(
          channelId,
          seenVersion,
          claimant,
          sealCredentials(deps, channelId, renewed.credentials),
          renewed.expiresAt,
        );
        // Not stored: the claim lapsed and another caller refreshed meanwhile; its version is the one to use.
        return stored
          ? { credentials: renewed.credentials, version: seenVersion + 1, expiresAt: renewed.expiresAt }
          : read();
      }
      if (polls * REFRESH_POLL_MS > REFRESH_CLAIM_MS)
        throw new NetworkError('retry_later', "another worker is refreshing this channel's connection");
      await delay(REFRESH_POLL_MS);
    }
  }

  return { read, refresh };
}
