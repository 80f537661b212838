import type { Db } from '../connection.js';
import { runSql } from '../sqlite-statements.js';
import { bool, json } from './rows.js';

export type Weekday = 'mon' | 'tue' | 'wed' | 'thu' | 'fri' | 'sat' | 'sun';
/** A weekly posting slot, wall-clock time (HH:MM) in the channel's timezone. */
export interface SlotRecord {
  day: Weekday;
  time: string;
}

export interface ChannelRecord {
  id: string;
  accountId: string;
  workspaceId: string;
  network: string;
  handle: string;
  name: string;
  timezone: string;
  queuePaused: boolean;
  createdAt: number;
  /** Weekly queue slots (004_team); absent means none. */
  slots?: SlotRecord[];
  /** active, needs_reconnect or disconnected (008); a sandbox or seeded channel is active. */
  status?: ChannelStatus;
  statusReason?: string | null;
  displayName?: string | null;
  avatarUrl?: string | null;
  connectedAt?: number | null;
  /** The network's own id of the account (a DID, an instance's account id): one channel per network account. */
  networkAccountId?: string | null;
  /** A text limit the connection reported above the network's default (a Mastodon instance's). */
  textLimit?: number | null;
  /** Until when the network asked Herald to stop calling for this channel (its rate-limit reset). */
  rateLimitedUntil?: number | null;
}

export type ChannelStatus = 'active' | 'needs_reconnect' | 'disconnected';

/** A channel's credentials as stored: sealed, with the version a refresh must name to replace them. */
export interface StoredCredentials {
  sealed: string | null;
  version: number;
  expiresAt: number | null;
}

/** What a connection writes onto its channel, new or reconnected. */
export interface ConnectionRecord {
  handle: string;
  displayName: string | null;
  avatarUrl: string | null;
  networkAccountId: string;
  sealedCredentials: string;
  credentialsExpireAt: number | null;
  textLimit: number | null;
  connectedAt: number;
}

/** Channels: connected social accounts, always read within one account. */
export class ChannelsRepository {
  constructor(private readonly db: Db) {}

  async create(record: ChannelRecord): Promise<void> {
    await this.db('channels').insert({
      id: record.id,
      account_id: record.accountId,
      workspace_id: record.workspaceId,
      network: record.network,
      handle: record.handle,
      name: record.name,
      timezone: record.timezone,
      queue_paused: record.queuePaused,
      created_at: record.createdAt,
    });
  }

  /** The account's channel for this network account, if one was connected before (disconnected ones too). */
  async findByNetworkAccount(
    accountId: string,
    network: string,
    networkAccountId: string,
  ): Promise<ChannelRecord | undefined> {
    const row = await this.db('channels')
      .where({ account_id: accountId, network, network_account_id: networkAccountId })
      .orderBy('id')
      .first();
    return row && toChannel(row);
  }

  /** Writes a (re)connection: new credentials, a fresh version, the account's details, status active. */
  async saveConnection(accountId: string, id: string, connection: ConnectionRecord): Promise<void> {
    await this.db('channels')
      .where({ account_id: accountId, id })
      .update({
        handle: connection.handle,
        display_name: connection.displayName,
        avatar_url: connection.avatarUrl,
        network_account_id: connection.networkAccountId,
        credentials: connection.sealedCredentials,
        credentials_version: this.db.raw('credentials_version + 1'),
        credentials_expire_at: connection.credentialsExpireAt,
        text_limit: connection.textLimit,
        connected_at: connection.connectedAt,
        status: 'active',
        status_reason: null,
        refresh_claimed_by: null,
        refresh_claimed_until: null,
        rate_limited_until: null,
      });
  }

  async credentials(id: string): Promise<StoredCredentials | undefined> {
    const row = await this.db('channels')
      .where({ id })
      .first('credentials', 'credentials_version', 'credentials_expire_at');
    return (
      row && {
        sealed: row.credentials ?? null,
        version: Number(row.credentials_version),
        expiresAt: row.credentials_expire_at === null ? null : Number(row.credentials_expire_at),
      }
    );
  }

  /**
   * Takes the right to refresh this version of the credentials: true for one caller only while the claim
   * lasts; false when another holds it or the credentials already moved on.
   */
  async claimRefresh(id: string, version: number, claimant: string, until: number, now: number): Promise<boolean> {
    const taken = await this.db('channels')
      .where({ id, credentials_version: version })
      .andWhere((q) => q.whereNull('refresh_claimed_until').orWhere('refresh_claimed_until', '<', now))
      .update({ refresh_claimed_by: claimant, refresh_claimed_until: until });
    return taken > 0;
  }

  /** Stores refreshed credentials if this claimant still holds the claim on this version. */
  async storeRefreshed(
    id: string,
    version: number,
    claimant: string,
    sealed: string,
    expiresAt: number | null,
  ): Promise<boolean> {
    const stored = await this.db('channels')
      .where({ id, credentials_version: version, refresh_claimed_by: claimant })
      .update({
        credentials: sealed,
        credentials_version: version + 1,
        credentials_expire_at: expiresAt,
        refresh_claimed_by: null,
        refresh_claimed_until: null,
      });
    return stored > 0;
  }

  async releaseRefresh(id: string, claimant: string): Promise<void> {
    await this.db('channels')
      .where({ id, refresh_claimed_by: claimant })
      .update({ refresh_claimed_by: null, refresh_claimed_until: null });
  }

  /** Sets the status; false when the channel already had it (so its event is recorded once). */
  async setStatus(id: string, status: ChannelStatus, reason: string | null): Promise<boolean> {
    return (await this.db('channels').where({ id }).whereNot({ status }).update({ status, status_reason: reason })) > 0;
  }

  /** Sets the reason an active channel shows (a warning); false when it already showed it or is not active. */
  async warn(id: string, reason: string): Promise<boolean> {
    return (
      (await this.db('channels')
        .where({ id, status: 'active' })
        .andWhere((q) => q.whereNull('status_reason').orWhereNot({ status_reason: reason }))
        .update({ status_reason: reason })) > 0
    );
  }

  /** Erases the credentials and marks the channel disconnected; it keeps its id, posts and history. */
  async disconnect(accountId: string, id: string, reason: string): Promise<void> {
    await this.db('channels')
      .where({ account_id: accountId, id })
      .update({
        status: 'disconnected',
        status_reason: reason,
        credentials: null,
        credentials_version: this.db.raw('credentials_version + 1'),
        credentials_expire_at: null,
        refresh_claimed_by: null,
        refresh_claimed_until: null,
      });
  }

  async setRateLimitedUntil(id: string, until: number | null): Promise<void> {
    await this.db('channels').where({ id }).update({ rate_limited_until: until });
  }

  /** Every sealed credential, for re-sealing under a new master key. */
  async allSealedCredentials(): Promise<{ id: string; sealed: string }[]> {
    return (await this.db('channels').whereNotNull('credentials').select('id', 'credentials')).map((r) => ({
      id: r.id,
      sealed: r.credentials,
    }));
  }

  async resealCredentials(id: string, from: string, to: string): Promise<void> {
    await this.db('channels').where({ id, credentials: from }).update({ credentials: to });
  }

  async list(accountId: string): Promise<ChannelRecord[]> {
    const rows = await this.db('channels').where({ account_id: accountId }).orderBy('id');
    return rows.map(toChannel);
  }

  async findMany(accountId: string, ids: readonly string[]): Promise<ChannelRecord[]> {
    if (ids.length === 0) return [];
    const rows = await runSql(
      this.db,
      `SELECT * FROM channels WHERE account_id = ? AND id IN (${ids.map(() => '?').join(', ')})`,
      [accountId, ...ids],
    );
    return rows.map(toChannel);
  }

  async setSlots(accountId: string, id: string, slots: SlotRecord[]): Promise<boolean> {
    return (
      (await this.db('channels')
        .where({ account_id: accountId, id })
        .update({ queue_slots: JSON.stringify(slots) })) > 0
    );
  }

  async setTimezone(accountId: string, id: string, timezone: string): Promise<boolean> {
    return (await this.db('channels').where({ account_id: accountId, id }).update({ timezone })) > 0;
  }

  async setQueuePaused(accountId: string, id: string, paused: boolean): Promise<boolean> {
    return (await this.db('channels').where({ account_id: accountId, id }).update({ queue_paused: paused })) > 0;
  }

  async get(accountId: string, id: string): Promise<ChannelRecord | undefined> {
    const row = await this.db('channels').where({ account_id: accountId, id }).first();
    return row && toChannel(row);
  }

  /** A channel by id whatever its account: the publishing worker serves the whole instance. */
  async anyAccount(channelId: string): Promise<ChannelRecord | undefined> {
    const row = await this.db('channels').where({ id: channelId }).first();
    return row && toChannel(row);
  }

  /** anyAccount for several channels in one statement. */
  async anyAccountMany(channelIds: readonly string[]): Promise<ChannelRecord[]> {
    if (channelIds.length === 0) return [];
    const rows = await this.db('channels').whereIn('id', channelIds);
    return rows.map(toChannel);
  }

  /** Every channel of the instance, a page at a time by id (live-post sync). */
  async pageAcrossAccounts(afterId: string, limit: number): Promise<ChannelRecord[]> {
    const rows = await this.db('channels').where('id', '>', afterId).orderBy('id').limit(limit);
    return rows.map(toChannel);
  }
}

function toChannel(row: any): ChannelRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    workspaceId: row.workspace_id,
    network: row.network,
    handle: row.handle,
    name: row.name,
    timezone: row.timezone,
    queuePaused: bool(row.queue_paused),
    createdAt: row.created_at,
    slots: json<SlotRecord[]>(row.queue_slots, []),
    status: row.status ?? 'active',
    statusReason: row.status_reason ?? null,
    displayName: row.display_name ?? null,
    avatarUrl: row.avatar_url ?? null,
    connectedAt: row.connected_at === null || row.connected_at === undefined ? null : Number(row.connected_at),
    networkAccountId: row.network_account_id ?? null,
    textLimit: row.text_limit ?? null,
    rateLimitedUntil:
      row.rate_limited_until === null || row.rate_limited_until === undefined ? null : Number(row.rate_limited_until),
  };
}
