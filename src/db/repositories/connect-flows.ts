import type { Db } from '../connection.js';

/** A connect flow waiting for the network to send the person back: found by the hash of its state. */
export interface ConnectFlowRecord {
  stateHash: string;
  accountId: string;
  userId: string;
  workspaceId: string;
  network: string;
  /** Set when the flow reconnects an existing channel. */
  channelId: string | null;
  /** The PKCE verifier and what the connector kept for the callback, sealed. */
  sealed: string | null;
  createdAt: number;
  expiresAt: number;
}

/** Connect flows in progress, and the client registrations Herald holds per network origin (Mastodon's). */
export class ConnectFlowsRepository {
  constructor(private readonly db: Db) {}

  async create(record: ConnectFlowRecord): Promise<void> {
    await this.db('connect_flows').insert({
      state_hash: record.stateHash,
      account_id: record.accountId,
      user_id: record.userId,
      workspace_id: record.workspaceId,
      network: record.network,
      channel_id: record.channelId,
      sealed: record.sealed,
      created_at: record.createdAt,
      expires_at: record.expiresAt,
    });
  }

  /** Takes a flow by its state once: whoever deletes the row has it, so a replayed state finds nothing. */
  async take(stateHash: string): Promise<ConnectFlowRecord | undefined> {
    const row = await this.db('connect_flows').where({ state_hash: stateHash }).first();
    if (!row || (await this.db('connect_flows').where({ state_hash: stateHash }).delete()) === 0) return undefined;
    return {
      stateHash: row.state_hash,
      accountId: row.account_id,
      userId: row.user_id,
      workspaceId: row.workspace_id,
      network: row.network,
      channelId: row.channel_id ?? null,
      sealed: row.sealed ?? null,
      createdAt: Number(row.created_at),
      expiresAt: Number(row.expires_at),
    };
  }

  async deleteExpired(now: number): Promise<number> {
    return this.db('connect_flows').where('expires_at', '<', now).delete();
  }

  async app(network: string, origin: string, redirectUri: string): Promise<string | undefined> {
    const row = await this.db('network_apps').where({ network, origin, redirect_uri: redirectUri }).first('sealed');
    return row?.sealed;
  }

  /** Keeps the first registration when two connects raced to register the same app. */
  async saveApp(network: string, origin: string, redirectUri: string, sealed: string, now: number): Promise<void> {
    await this.db('network_apps')
      .insert({ network, origin, redirect_uri: redirectUri, sealed, created_at: now })
      .onConflict(['network', 'origin', 'redirect_uri'])
      .ignore();
  }

  async allSealed(): Promise<
    { table: 'connect_flows' | 'network_apps'; key: Record<string, string>; sealed: string }[]
  > {
    const flows = (await this.db('connect_flows').whereNotNull('sealed').select('state_hash', 'sealed')).map((r) => ({
      table: 'connect_flows' as const,
      key: { state_hash: r.state_hash },
      sealed: r.sealed,
    }));
    const apps = (await this.db('network_apps').select('network', 'origin', 'redirect_uri', 'sealed')).map((r) => ({
      table: 'network_apps' as const,
      key: { network: r.network, origin: r.origin, redirect_uri: r.redirect_uri },
      sealed: r.sealed,
    }));
    return [...flows, ...apps];
  }

  async reseal(
    table: 'connect_flows' | 'network_apps',
    key: Record<string, string>,
    from: string,
    to: string,
  ): Promise<void> {
    await this.db(table)
      .where({ ...key, sealed: from })
      .update({ sealed: to });
  }
}
