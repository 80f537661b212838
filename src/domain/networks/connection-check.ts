/**
 * `herald network check --channel C`: a rehearsal against the real network that posts nothing.
 *
 * Rules kept here:
 * - only a connected channel is checked: a disconnected one has no credentials, one that needs reconnecting says why;
 * - the connector's own check runs where it has one (token, account, granted scopes); otherwise one page of the
 *   account's recent posts is read, which proves the token reads and the network answers;
 * - the network's refusal is reported as a problem the operator can act on, never thrown as a crash; the
 *   credentials themselves never appear in the answer.
 */
import type { DomainDeps } from '../deps.js';
import { NotFoundError, ValidationError } from '../errors.js';
import { capabilitiesOf } from './capabilities.js';
import { connectorChannel } from './channel-connections.js';
import { NetworkError, type ConnectionCheck } from './connector.js';

export interface ChannelCheck extends ConnectionCheck {
  channelId: string;
  network: string;
  ok: boolean;
}

export async function checkChannelConnection(
  deps: DomainDeps,
  input: { accountId?: string; channelId: string },
): Promise<ChannelCheck> {
  const channel = await deps.repos.channels.anyAccount(input.channelId);
  if (!channel || (input.accountId !== undefined && channel.accountId !== input.accountId)) {
    throw new NotFoundError(`No channel ${input.channelId}${input.accountId ? ` in account ${input.accountId}` : ''}`);
  }
  const displayName = capabilitiesOf(channel.network).displayName;
  if (channel.status === 'disconnected')
    throw new ValidationError(`Channel ${channel.id} is disconnected: connect it again before checking it.`);
  const connector = deps.networks.get(channel.network);
  if (!connector) throw new ValidationError(`This Herald has no connector for ${displayName}.`);
  const answer = (check: ConnectionCheck): ChannelCheck => ({
    channelId: channel.id,
    network: channel.network,
    ok: check.problems.length === 0,
    ...check,
  });
  if (channel.status === 'needs_reconnect') {
    return answer({
      account: channel.handle,
      grantedScopes: null,
      problems: [
        `${displayName} refused the stored credentials (${channel.statusReason ?? 'no reason given'}): ` +
          'reconnect the channel.',
      ],
    });
  }
  const target = connectorChannel(deps, channel);
  try {
    if (connector.check) return answer(await connector.check(target));
    await connector.recentPosts(target, { cursor: null, limit: 1 });
    return answer({ account: channel.handle, grantedScopes: null, problems: [] });
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error;
    const advice =
      error.kind === 'reconnect_needed'
        ? ' Reconnect the channel.'
        : error.kind === 'retry_later'
          ? ' Try again later.'
          : '';
    return answer({
      account: channel.handle,
      grantedScopes: null,
      problems: [`${displayName}: ${error.message}.${advice}`],
    });
  }
}
