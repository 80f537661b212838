import type { components } from '../../generated/rest/openapi-types.js';
import type { ChannelRecord } from '../db/repositories/channels.js';
import type { WorkspaceRecord } from '../db/repositories/accounts.js';
import type { DomainDeps } from './deps.js';
import { NotFoundError } from './errors.js';
import { canReview, type Principal } from './principal.js';
import { toWireTime } from './time.js';

export type ChannelView = components['schemas']['Channel'];
export type WorkspaceView = components['schemas']['Workspace'];

/** What the caller may see of its account: profile, workspaces and channels. */
export function toChannelView(channel: ChannelRecord): ChannelView {
  return {
    id: channel.id,
    workspaceId: channel.workspaceId,
    network: channel.network,
    handle: channel.handle,
    name: channel.name,
    timezone: channel.timezone,
    queuePaused: channel.queuePaused,
    createdAt: toWireTime(channel.createdAt),
    schedule: channel.slots ?? [],
    status: channel.status ?? 'active',
    statusReason: channel.statusReason ?? null,
    displayName: channel.displayName ?? null,
    avatarUrl: channel.avatarUrl ?? null,
    connectedAt: toWireTime(channel.connectedAt ?? null),
  };
}

export function toWorkspaceView(workspace: WorkspaceRecord): WorkspaceView {
  return {
    id: workspace.id,
    name: workspace.name,
    approvalRequired: workspace.approvalRequired,
    createdAt: toWireTime(workspace.createdAt),
  };
}

export async function listChannels(deps: DomainDeps, principal: Principal): Promise<ChannelView[]> {
  return (await deps.repos.channels.list(principal.accountId)).map(toChannelView);
}

export async function getChannel(deps: DomainDeps, principal: Principal, id: string): Promise<ChannelView> {
  const channel = await deps.repos.channels.get(principal.accountId, id);
  if (!channel) throw new NotFoundError(`No channel ${id} in this account; list channel ids with get_channels.`);
  return toChannelView(channel);
}

/** Channels by network, workspace and/or text in the handle or name. */
export async function filterChannels(
  deps: DomainDeps,
  principal: Principal,
  filter: { network?: string; workspaceId?: string; query?: string },
): Promise<ChannelView[]> {
  const query = filter.query?.toLowerCase();
  return (await listChannels(deps, principal)).filter(
    (c) =>
      (!filter.network || c.network === filter.network) &&
      (!filter.workspaceId || c.workspaceId === filter.workspaceId) &&
      (!query || c.handle.toLowerCase().includes(query) || c.name.toLowerCase().includes(query)),
  );
}

export async function listWorkspaces(deps: DomainDeps, principal: Principal): Promise<WorkspaceView[]> {
  return (await deps.repos.accounts.listWorkspaces(principal.accountId)).map(toWorkspaceView);
}

export async function getProfile(deps: DomainDeps, principal: Principal) {
  const [account, user] = await Promise.all([
    deps.repos.accounts.getAccount(principal.accountId),
    deps.repos.accounts.getUser(principal.accountId, principal.userId),
  ]);
  if (!account || !user) throw new NotFoundError('The account of this token no longer exists.');
  return {
    account: { id: account.id, name: account.name },
    user: { id: user.id, email: user.email, name: user.name },
    scopes: principal.scopes,
    canReview: canReview(principal),
  };
}
