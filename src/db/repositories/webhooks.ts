import type { Db } from '../connection.js';
import { isPostgres } from '../connection.js';
import { runSql } from '../sqlite-statements.js';
import { toEvent, type EventRecord } from './events.js';
import { bool, json } from './rows.js';

export interface WebhookEndpointRecord {
  id: string;
  accountId: string;
  workspaceId: string;
  url: string;
  description: string | null;
  eventTypes: string[];
  /** Sealed under the master key; the domain opens it to sign. */
  sealedSecret: string;
  enabled: boolean;
  disabledReason: string | null;
  failingSince: number | null;
  createdAt: number;
  updatedAt: number;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface WebhookDeliveryRecord {
  id: string;
  accountId: string;
  endpointId: string;
  eventId: string;
  eventType: string;
  status: DeliveryStatus;
  attempts: number;
  nextAttemptAt: number | null;
  giveUpAt: number;
  lastAttemptAt: number | null;
  responseCode: number | null;
  durationMs: number | null;
  lastError: string | null;
  createdAt: number;
}

export interface ClaimedDelivery {
  delivery: WebhookDeliveryRecord;
  endpoint: WebhookEndpointRecord;
  event: EventRecord;
}

/** What one attempt found out, written by the worker that holds the claim. */
export interface DeliveryAttemptResult {
  at: number;
  responseCode: number | null;
  durationMs: number;
  error: string | null;
  status: DeliveryStatus;
  nextAttemptAt: number | null;
}

/**
 * Webhook endpoints (per workspace, always read within one account) and their deliveries. Deliveries are
 * claimed with a lease like posts (SKIP LOCKED on Postgres; one UPDATE ... RETURNING on SQLite), and every
 * later write is guarded by the claim, so two workers never run the same attempt at once.
 */
export class WebhooksRepository {
  constructor(private readonly db: Db) {}

  async insertEndpoint(record: WebhookEndpointRecord): Promise<void> {
    await this.db('webhook_endpoints').insert(endpointRow(record));
  }

  async endpoint(accountId: string, id: string): Promise<WebhookEndpointRecord | undefined> {
    const row = await this.db('webhook_endpoints').where({ account_id: accountId, id }).first();
    return row && toEndpoint(row);
  }

  async endpoints(accountId: string): Promise<WebhookEndpointRecord[]> {
    return (await this.db('webhook_endpoints').where({ account_id: accountId }).orderBy('id')).map(toEndpoint);
  }

  /** The enabled endpoints of a workspace: the candidates for an event's fan-out. */
  async enabledEndpoints(workspaceId: string): Promise<WebhookEndpointRecord[]> {
    return (
      await runSql(this.db, 'SELECT * FROM webhook_endpoints WHERE workspace_id = ? AND enabled = ?', [
        workspaceId,
        true,
      ])
    ).map(toEndpoint);
  }

  async updateEndpoint(
    accountId: string,
    id: string,
    changes: Partial<Omit<WebhookEndpointRecord, 'id' | 'accountId' | 'workspaceId' | 'createdAt'>>,
  ): Promise<boolean> {
    const row = endpointRow(changes);
    return (await this.db('webhook_endpoints').where({ account_id: accountId, id }).update(row)) > 0;
  }

  /** Every endpoint's sealed secret, for re-sealing under a new master key. */
  async allSealedSecrets(): Promise<{ id: string; sealed: string }[]> {
    return (await this.db('webhook_endpoints').select('id', 'secret')).map((r) => ({ id: r.id, sealed: r.secret }));
  }

  async resealSecret(id: string, from: string, to: string): Promise<void> {
    await this.db('webhook_endpoints').where({ id, secret: from }).update({ secret: to });
  }

  async deleteEndpoint(accountId: string, id: string): Promise<boolean> {
    return (await this.db('webhook_endpoints').where({ account_id: accountId, id }).delete()) > 0;
  }

  /** Claims due deliveries of enabled endpoints: pending, due, and unclaimed or with an expired lease. */
  async claimDue(workerId: string, now: number, leaseMs: number, limit: number): Promise<ClaimedDelivery[]> {
    const pg = isPostgres(this.db);
    const due = `
      SELECT d.id FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
      WHERE d.status = 'pending' AND e.enabled = true AND d.next_attempt_at <= ?
        AND (d.lease_expires_at IS NULL OR d.lease_expires_at < ?)
      ORDER BY d.next_attempt_at, d.id LIMIT ?${pg ? ' FOR UPDATE OF d SKIP LOCKED' : ''}`;
    const result = await this.db.raw(
      `UPDATE webhook_deliveries SET claimed_by = ?, lease_expires_at = ? WHERE id IN (${due}) RETURNING id`,
      [workerId, now + leaseMs, now, now, limit],
    );
    const ids: string[] = (pg ? result.rows : result).map((row: { id: string }) => row.id);
    if (ids.length === 0) return [];
    const deliveries = await this.db('webhook_deliveries as d')
      .join('events as v', 'v.id', 'd.event_id')
      .whereIn('d.id', ids)
      .select('d.*', 'v.type as event_type')
      .orderBy('d.next_attempt_at');
    const endpoints = new Map(
      (
        await this.db('webhook_endpoints').whereIn(
          'id',
          deliveries.map((d) => d.endpoint_id),
        )
      ).map((row) => [row.id, toEndpoint(row)]),
    );
    const events = new Map(
      (
        await this.db('events').whereIn(
          'id',
          deliveries.map((d) => d.event_id),
        )
      ).map((row) => [row.id, toEvent(row)]),
    );
    return deliveries.map((row) => ({
      delivery: toDelivery(row),
      endpoint: endpoints.get(row.endpoint_id)!,
      event: events.get(row.event_id)!,
    }));
  }

  /** Extends a claim still held by this worker; false when the claim was lost. */
  async renewLease(deliveryId: string, workerId: string, leaseExpiresAt: number): Promise<boolean> {
    return (
      (await this.db('webhook_deliveries')
        .where({ id: deliveryId, claimed_by: workerId, status: 'pending' })
        .update({ lease_expires_at: leaseExpiresAt })) > 0
    );
  }

  /**
   * Records an attempt's result and releases the claim; false when this worker no longer held it (its lease
   * ran out and another worker took the delivery), in which case nothing is written.
   */
  async finishAttempt(deliveryId: string, workerId: string, result: DeliveryAttemptResult): Promise<boolean> {
    const n = await this.db('webhook_deliveries')
      .where({ id: deliveryId, claimed_by: workerId, status: 'pending' })
      .update({
        status: result.status,
        attempts: this.db.raw('attempts + 1'),
        next_attempt_at: result.nextAttemptAt,
        last_attempt_at: result.at,
        response_code: result.responseCode,
        duration_ms: result.durationMs,
        last_error: result.error,
        claimed_by: null,
        lease_expires_at: null,
      });
    return n > 0;
  }

  /** The endpoint answered: its run of failures, if any, is over. */
  async endpointAnswered(endpointId: string): Promise<void> {
    await this.db('webhook_endpoints')
      .where({ id: endpointId })
      .whereNotNull('failing_since')
      .update({ failing_since: null });
  }

  /** The endpoint failed at `now`; returns when its current run of failures began. */
  async endpointFailed(endpointId: string, now: number): Promise<number> {
    await this.db('webhook_endpoints')
      .where({ id: endpointId })
      .whereNull('failing_since')
      .update({ failing_since: now });
    const row = await this.db('webhook_endpoints').where({ id: endpointId }).first('failing_since');
    return row ? Number(row.failing_since) : now;
  }

  /** Disables an enabled endpoint; false when it was already disabled (or is gone). */
  async disableEndpoint(endpointId: string, reason: string, now: number): Promise<boolean> {
    return (
      (await this.db('webhook_endpoints')
        .where({ id: endpointId, enabled: true })
        .update({ enabled: false, disabled_reason: reason, updated_at: now })) > 0
    );
  }

  async deliveries(
    accountId: string,
    endpointId: string,
    query: { status?: DeliveryStatus; beforeId?: string; limit: number },
  ): Promise<WebhookDeliveryRecord[]> {
    const q = this.db('webhook_deliveries as d')
      .join('events as v', 'v.id', 'd.event_id')
      .where({ 'd.account_id': accountId, 'd.endpoint_id': endpointId })
      .select('d.*', 'v.type as event_type')
      .orderBy('d.id', 'desc')
      .limit(query.limit);
    if (query.status) q.where('d.status', query.status);
    if (query.beforeId) q.where('d.id', '<', query.beforeId);
    return (await q).map(toDelivery);
  }

  async delivery(accountId: string, endpointId: string, id: string): Promise<WebhookDeliveryRecord | undefined> {
    const row = await this.db('webhook_deliveries as d')
      .join('events as v', 'v.id', 'd.event_id')
      .where({ 'd.account_id': accountId, 'd.endpoint_id': endpointId, 'd.id': id })
      .first('d.*', 'v.type as event_type');
    return row && toDelivery(row);
  }

  /**
   * Puts failed deliveries of an endpoint back in the queue, due now with a fresh give-up time: one by id,
   * or every one created at or after `since`. Returns how many.
   */
  async redeliver(
    accountId: string,
    endpointId: string,
    which: { id: string } | { since: number },
    now: number,
    giveUpAt: number,
  ): Promise<number> {
    const q = this.db('webhook_deliveries').where({ account_id: accountId, endpoint_id: endpointId, status: 'failed' });
    if ('id' in which) q.where({ id: which.id });
    else q.where('created_at', '>=', which.since);
    return q.update({
      status: 'pending',
      next_attempt_at: now,
      give_up_at: giveUpAt,
      claimed_by: null,
      lease_expires_at: null,
    });
  }

  /** A delivery of one event to one endpoint, outside the fan-out (the test event). */
  async insertDelivery(record: {
    id: string;
    accountId: string;
    endpointId: string;
    eventId: string;
    at: number;
    giveUpAt: number;
  }): Promise<void> {
    await this.db('webhook_deliveries').insert({
      id: record.id,
      account_id: record.accountId,
      endpoint_id: record.endpointId,
      event_id: record.eventId,
      status: 'pending',
      attempts: 0,
      next_attempt_at: record.at,
      give_up_at: record.giveUpAt,
      created_at: record.at,
    });
  }
}

function toDelivery(row: any): WebhookDeliveryRecord {
  const num = (value: unknown) => (value === null || value === undefined ? null : Number(value));
  return {
    id: row.id,
    accountId: row.account_id,
    endpointId: row.endpoint_id,
    eventId: row.event_id,
    eventType: row.event_type,
    status: row.status,
    attempts: Number(row.attempts),
    nextAttemptAt: num(row.next_attempt_at),
    giveUpAt: Number(row.give_up_at),
    lastAttemptAt: num(row.last_attempt_at),
    responseCode: num(row.response_code),
    durationMs: num(row.duration_ms),
    lastError: row.last_error,
    createdAt: Number(row.created_at),
  };
}

function endpointRow(record: Partial<WebhookEndpointRecord>): Record<string, unknown> {
  const row: Record<string, unknown> = {
    id: record.id,
    account_id: record.accountId,
    workspace_id: record.workspaceId,
    url: record.url,
    description: record.description,
    event_types: record.eventTypes && JSON.stringify(record.eventTypes),
    secret: record.sealedSecret,
    enabled: record.enabled,
    disabled_reason: record.disabledReason,
    failing_since: record.failingSince,
    created_at: record.createdAt,
    updated_at: record.updatedAt,
  };
  return Object.fromEntries(Object.entries(row).filter(([, value]) => value !== undefined));
}

function toEndpoint(row: any): WebhookEndpointRecord {
  return {
    id: row.id,
    accountId: row.account_id,
    workspaceId: row.workspace_id,
    url: row.url,
    description: row.description,
    eventTypes: json(row.event_types, []),
    sealedSecret: row.secret,
    enabled: bool(row.enabled),
    disabledReason: row.disabled_reason,
    failingSince: row.failing_since === null ? null : Number(row.failing_since),
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}
