/**
 * Connecting, reconnecting and disconnecting channels: the same rules for every network.
 *
 * Rules kept here:
 * - a network connects by credentials (Herald signs in at once and answers the channel) or by OAuth (Herald
 *   answers the network's consent URL; the network sends the person back to {BASE_URL}/connect/{network}/callback);
 * - an OAuth flow's state is random, stored only as a hash, bound to the account, user and workspace that
 *   asked, single-use and valid CONNECT_FLOW_MS; PKCE S256 is sent where the network takes it; a denied or
 *   failed consent creates nothing and says why;
 * - a flow started in the web app is bound to that browser's sign-in too: a callback in another browser (or
 *   after signing out) is a 403 that connects nothing, so a link started in one person's account cannot
 *   connect another person's network account to it. A flow started with an API key, an OAuth token or the CLI
 *   has no browser to bind: whoever holds the key opens the link;
 * - connecting a network account again updates its channel (new credentials, same id): one channel per
 *   network account and account; a reconnect must reach the channel's own network account;
 * - a channel new to the account takes the time zone given with the connect (the app gives the browser's), an IANA
 *   zone checked before anything is asked of the network, carried through an OAuth flow sealed with its state;
 *   UTC when none is given; a channel connected again keeps the zone it has;
 * - credentials go to the channel's vault (credential-vault.ts) and nowhere else;
 * - disconnecting revokes at the network where it can (a failure there is reported, not hidden), erases the
 *   credentials, and turns the channel's scheduled and failed posts into drafts, listed in the answer;
 * - a network that fetches media from Herald's address is connected with a warning when this instance's BASE_URL
 *   is not public (media/public-base-url.ts);
 * - a network's refusal of the person's credentials is a 400 that names the network's reason; a network that
 *   cannot be reached is a 503 to try again.
 */
import crypto from 'node:crypto';
import { NETWORK_APP_VARIABLES } from '../../config.js';
import type { components, operations } from '../../../generated/rest/openapi-types.js';
import type { ChannelRecord } from '../../db/repositories/channels.js';
import type { DomainDeps } from '../deps.js';
import { toChannelView, type ChannelView } from '../directory.js';
import { checkTimezone } from '../calendars/calendar-entries.js';
import { HeraldError, NotFoundError, ServiceUnavailableError, ValidationError } from '../errors.js';
import { newId } from '../ids.js';
import { recordChannelEvent } from '../events/events.js';
import { requireScope, type Principal } from '../principal.js';
import { connectWarning } from '../media/public-base-url.js';
import { capabilitiesOf, NETWORK_CAPABILITIES } from './capabilities.js';
import {
  NetworkError,
  type AppRegistrations,
  type ConnectedAccount,
  type ConnectorChannel,
  type NetworkConnector,
} from './connector.js';
import { appName, channelVault, flowName, sealCredentials } from './credential-vault.js';

export const CONNECT_FLOW_MS = 15 * 60_000;

/** The connectors of this instance, by network name: a port the composition root fills. */
export interface NetworkDirectory {
  get(name: string): NetworkConnector | undefined;
}

export type NetworkView = components['schemas']['Network'];

export function listNetworks(deps: DomainDeps): NetworkView[] {
  return Object.values(NETWORK_CAPABILITIES).map((capabilities) => {
    const connector = deps.networks.get(capabilities.name);
    const configured = Boolean(connector?.connection && (connector.configured?.() ?? true));
    return {
      name: capabilities.name,
      displayName: capabilities.displayName,
      configured,
      notConfigured: configured
        ? null
        : connector?.connection
          ? notConfiguredReason(capabilities.name, capabilities.displayName)
          : `Herald has no connector for ${capabilities.displayName} channels yet.`,
      connection: connector?.connection
        ? { kind: connector.connection.kind, fields: connector.connection.fields.map((f) => ({ ...f })) }
        : null,
      // A copy: callers may not change the table, and the wire type does not say its arrays are read only.
      capabilities: structuredClone(capabilities) as NetworkView['capabilities'],
    };
  });
}

/** `warning`: what the person should know about the channel on this instance (public-base-url.ts). */
export type ConnectAnswer = (
  | { kind: 'connected'; channels: ChannelView[] }
  | { kind: 'authorize'; authorizationUrl: string }
) & { warning?: string };

export async function connectChannel(
  deps: DomainDeps,
  principal: Principal,
  input: { network: string; workspaceId?: string; timezone?: string; fields: Record<string, unknown> },
  channel?: ChannelRecord,
): Promise<ConnectAnswer> {
  requireScope(principal, 'manage_team');
  const timezone = input.timezone === undefined ? undefined : checkTimezone(input.timezone.trim());
  const capabilities = capabilitiesOf(input.network);
  const network = capabilities.name;
  const warning = connectWarning(deps.config.baseUrl, capabilities) ?? undefined;
  const connector = connectable(deps, network);
  const workspaceId = await workspaceFor(deps, principal, channel?.workspaceId ?? input.workspaceId);
  const fields = requiredFields(connector, input.fields);
  if (connector.connection?.kind === 'credentials') {
    const account = await atNetwork(connector, () => connector.signIn!(fields));
    return {
      kind: 'connected',
      channels: [
        await saveAccount(deps, { accountId: principal.accountId, workspaceId, network, timezone }, account, channel),
      ],
      warning,
    };
  }
  const state = crypto.randomBytes(32).toString('base64url');
  const codeVerifier = crypto.randomBytes(32).toString('base64url');
  const codeChallenge = crypto.createHash('sha256').update(codeVerifier).digest('base64url');
  const start = await atNetwork(connector, () =>
    connector.startAuthorization!({
      fields,
      redirectUri: callbackUrl(deps, network),
      state,
      codeChallenge,
      apps: appRegistrations(deps, network),
    }),
  );
  const stateHash = hashState(state);
  const now = deps.now();
  await deps.repos.connectFlows.create({
    stateHash,
    accountId: principal.accountId,
    userId: principal.userId,
    workspaceId,
    network,
    channelId: channel?.id ?? null,
    sealed: deps.secretBox.seal(
      flowName(stateHash),
      JSON.stringify({ codeVerifier, keep: start.keep, browser: principal.browser, timezone }),
    ),
    createdAt: now,
    expiresAt: now + CONNECT_FLOW_MS,
  });
  return { kind: 'authorize', authorizationUrl: start.authorizationUrl, warning };
}

export async function reconnectChannel(
  deps: DomainDeps,
  principal: Principal,
  channelId: string,
  fields: Record<string, unknown>,
): Promise<ConnectAnswer> {
  const channel = await deps.repos.channels.get(principal.accountId, channelId);
  if (!channel)
    throw new NotFoundError(`No channel ${channelId} in this account; list channel ids with GET /channels.`);
  const connector = deps.networks.get(channel.network);
  let known: Record<string, string> = {};
  if (connector?.fieldsFor) {
    const stored = await deps.repos.channels.credentials(channel.id);
    // Asked only now and awaited at once: a refusal left pending while the credentials are read would be unhandled.
    const fromConnection = connector.fieldsFor(connectorChannel(deps, channel));
    // A channel with no credentials stored (a seeded sandbox channel) gives what its connector knows without them, if
    // anything.
    known = stored?.sealed ? await fromConnection : await fromConnection.catch(() => ({}));
  }
  return connectChannel(deps, principal, { network: channel.network, fields: { ...known, ...fields } }, channel);
}

export interface CallbackOutcome {
  network: string;
  channels: ChannelView[];
  warning: string | null;
}

/**
 * Where the network sends the person back: checks the state and the browser, exchanges the code, saves the
 * channels. `browser` is the browserBinding of the sign-in the callback's browser presents, if any.
 */
export async function finishConnect(
  deps: DomainDeps,
  networkName: string,
  params: Record<string, string | undefined>,
  browser: string | undefined,
): Promise<CallbackOutcome> {
  const network = capabilitiesOf(networkName).name;
  if (!params.state) throw new ValidationError('The network sent no state back; start connecting again from Herald.');
  const stateHash = hashState(params.state);
  const flow = await deps.repos.connectFlows.take(stateHash);
  if (!flow || flow.expiresAt < deps.now() || flow.network !== network) {
    throw new ValidationError(
      'This connection link has expired or was already used; start connecting again from Herald.',
    );
  }
  const sealed = JSON.parse(deps.secretBox.open(flowName(stateHash), flow.sealed ?? '')) as {
    codeVerifier: string;
    keep: Record<string, string>;
    browser?: string;
    timezone?: string;
  };
  if (sealed.browser !== undefined && sealed.browser !== browser) {
    throw new HeraldError(
      'connect_other_browser',
      403,
      'This connection was started in another browser, or you signed out of Herald since; nothing was connected. ' +
        'Open Herald in the browser where you chose Connect, sign in, and start again.',
    );
  }
  const displayName = capabilitiesOf(network).displayName;
  if (params.error) {
    throw new ValidationError(
      `${displayName} did not grant access (${params.error_description || params.error}); nothing was connected.`,
    );
  }
  if (!params.code) throw new ValidationError(`${displayName} sent no authorization code back; nothing was connected.`);
  const { codeVerifier, keep, timezone } = sealed;
  const connector = connectable(deps, network);
  const accounts = await atNetwork(connector, () =>
    connector.finishAuthorization!({
      code: params.code!,
      redirectUri: callbackUrl(deps, network),
      codeVerifier,
      keep,
      apps: appRegistrations(deps, network),
    }),
  );
  const existing = flow.channelId ? await deps.repos.channels.get(flow.accountId, flow.channelId) : undefined;
  const channels = [];
  for (const account of accounts) {
    channels.push(
      await saveAccount(
        deps,
        { accountId: flow.accountId, workspaceId: flow.workspaceId, network, timezone },
        account,
        existing,
      ),
    );
  }
  return { network, channels, warning: connectWarning(deps.config.baseUrl, capabilitiesOf(network)) };
}

/** What a disconnect reports (DELETE /channels/{channelId}): the revocation, and the waiting posts kept as drafts. */
export type Disconnected = operations['disconnectChannel']['responses']['200']['content']['application/json']['data'];

export async function disconnectChannel(
  deps: DomainDeps,
  principal: Principal,
  channelId: string,
): Promise<Disconnected> {
  requireScope(principal, 'manage_team');
  const channel = await deps.repos.channels.get(principal.accountId, channelId);
  if (!channel)
    throw new NotFoundError(`No channel ${channelId} in this account; list channel ids with GET /channels.`);
  const connector = deps.networks.get(channel.network);
  let revokedAtNetwork = false;
  let revokeError: string | null = null;
  const stored = await deps.repos.channels.credentials(channel.id);
  if (connector?.revoke && stored?.sealed) {
    try {
      await connector.revoke(connectorChannel(deps, channel));
      revokedAtNetwork = true;
    } catch (error) {
      revokeError = error instanceof NetworkError ? error.message : 'the network could not be reached';
    }
  }
  const draftedPostIds = await deps.repos.inTransaction(async (repos) => {
    await repos.channels.disconnect(principal.accountId, channel.id, 'disconnected by a person');
    const drafted = await repos.posts.draftWaitingOnChannel(principal.accountId, channel.id, deps.now());
    const after = await repos.channels.get(principal.accountId, channel.id);
    await recordChannelEvent(repos, deps.now(), 'channel.disconnected', after!, {
      draftedPostIds: drafted,
      revokedAtNetwork,
    });
    return drafted;
  });
  const after = await deps.repos.channels.get(principal.accountId, channel.id);
  return { channel: toChannelView(after ?? channel), revokedAtNetwork, revokeError, draftedPostIds };
}

/** Writes a connected network account onto its channel: the one being reconnected, the one it had, or a new one. */
async function saveAccount(
  deps: DomainDeps,
  where: { accountId: string; workspaceId: string; network: string; timezone?: string },
  account: ConnectedAccount,
  reconnecting: ChannelRecord | undefined,
): Promise<ChannelView> {
  if (reconnecting?.networkAccountId && reconnecting.networkAccountId !== account.networkAccountId) {
    throw new ValidationError(
      `You signed in as ${account.handle}, but channel ${reconnecting.id} is ${reconnecting.handle}; ` +
        `sign in as ${reconnecting.handle} to reconnect it, ` +
        'or connect the other account as a new channel.',
    );
  }
  const now = deps.now();
  const id = await deps.repos.inTransaction(async (repos) => {
    let channel =
      reconnecting ??
      (await repos.channels.findByNetworkAccount(where.accountId, where.network, account.networkAccountId));
    if (!channel) {
      channel = {
        id: newId(),
        accountId: where.accountId,
        workspaceId: where.workspaceId,
        network: where.network,
        handle: account.handle,
        name: account.displayName || account.handle,
        timezone: where.timezone ?? 'UTC',
        queuePaused: false,
        createdAt: now,
      };
      await repos.channels.create(channel);
    }
    await repos.channels.saveConnection(where.accountId, channel.id, {
      handle: account.handle,
      displayName: account.displayName,
      avatarUrl: account.avatarUrl,
      networkAccountId: account.networkAccountId,
      sealedCredentials: sealCredentials(deps, channel.id, account.credentials),
      credentialsExpireAt: account.expiresAt,
      textLimit: account.textLimit,
      connectedAt: now,
    });
    const saved = await repos.channels.get(where.accountId, channel.id);
    await recordChannelEvent(repos, now, 'channel.connected', saved!, {
      reconnected: Boolean(reconnecting) || saved!.createdAt !== now,
    });
    return channel.id;
  });
  const saved = await deps.repos.channels.get(where.accountId, id);
  return toChannelView(saved!);
}

/** A channel as a connector sees it: who it is, its vault, and where a spent rate budget is recorded. */
export function connectorChannel(deps: DomainDeps, channel: ChannelRecord): ConnectorChannel {
  return {
    accountId: channel.accountId,
    id: channel.id,
    network: channel.network,
    handle: channel.handle,
    vault: channelVault(deps, channel.id),
    pauseUntil: (at) => deps.repos.channels.setRateLimitedUntil(channel.id, at),
  };
}

function connectable(deps: DomainDeps, network: string): NetworkConnector {
  const connector = deps.networks.get(network);
  const displayName = capabilitiesOf(network).displayName;
  if (!connector?.connection)
    throw new ValidationError(
      `Herald cannot connect ${displayName} channels; GET /networks lists the networks it can connect.`,
    );
  if (connector.configured && !connector.configured()) {
    throw new ValidationError(notConfiguredReason(network, displayName));
  }
  return connector;
}

function requiredFields(connector: NetworkConnector, given: Record<string, unknown>): Record<string, string> {
  const fields: Record<string, string> = {};
  const problems = [];
  for (const field of connector.connection!.fields) {
    const value = given[field.name];
    if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
      if (field.required)
        problems.push({ path: field.name, message: `${field.name} is required: ${field.description}` });
      continue;
    }
    if (typeof value !== 'string' || value.length > 2000) {
      problems.push({ path: field.name, message: `${field.name} must be a string of at most 2000 characters` });
      continue;
    }
    fields[field.name] = value;
  }
  if (problems.length > 0) throw new ValidationError(problems.map((p) => p.message).join('; '), problems);
  return fields;
}

async function workspaceFor(deps: DomainDeps, principal: Principal, workspaceId: string | undefined): Promise<string> {
  if (workspaceId) {
    if (!(await deps.repos.accounts.getWorkspace(principal.accountId, workspaceId))) {
      throw new NotFoundError(`No workspace ${workspaceId} in this account; list workspace ids with GET /workspaces.`);
    }
    return workspaceId;
  }
  const [first] = await deps.repos.accounts.listWorkspaces(principal.accountId);
  if (!first) throw new ValidationError('This account has no workspace to put the channel in; create one first.');
  return first.id;
}

/** A network's refusal becomes a 400 naming its reason; a network that cannot be reached, a 503. */
async function atNetwork<T>(connector: NetworkConnector, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (!(error instanceof NetworkError)) throw error;
    if (error.kind === 'permanent' || error.kind === 'reconnect_needed') throw new ValidationError(error.message);
    throw new ServiceUnavailableError(
      `${connector.capabilities.displayName} could not be reached (${error.message}); try again in a moment.`,
      { cause: error },
    );
  }
}

function appRegistrations(deps: DomainDeps, network: string): AppRegistrations {
  const name = (origin: string, redirectUri: string) => appName(network, origin, redirectUri);
  return {
    async get(origin, redirectUri) {
      const sealed = await deps.repos.connectFlows.app(network, origin, redirectUri);
      return sealed
        ? (JSON.parse(deps.secretBox.open(name(origin, redirectUri), sealed)) as Record<string, string>)
        : undefined;
    },
    async save(origin, redirectUri, app) {
      await deps.repos.connectFlows.saveApp(
        network,
        origin,
        redirectUri,
        deps.secretBox.seal(name(origin, redirectUri), JSON.stringify(app)),
        deps.now(),
      );
    },
  };
}

function notConfiguredReason(network: string, displayName: string): string {
  const variables = NETWORK_APP_VARIABLES[network];
  const what = variables ? variables.join(' and ') : 'the app credentials';
  return (
    `This Herald instance is not configured for ${displayName}: its operator must set ${what} (see ` +
    'docs/networks.md, Connecting networks).'
  );
}

export function callbackUrl(deps: DomainDeps, network: string): string {
  return `${deps.config.baseUrl}/connect/${network}/callback`;
}

function hashState(state: string): string {
  return crypto.createHash('sha256').update(state).digest('hex');
}
