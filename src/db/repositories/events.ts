import type { Db } from '../connection.js';
import { insertRows, json } from './rows.js';

export interface EventRecord {
  id: string;
  accountId: string;
  workspaceId: string;
  type: string;
  at: number;
  postId: string | null;
  channelId: string | null;
  data: Record<string, unknown>;
}

export interface EventListQuery {
  accountId: string;
  /** Events after this seq (the cursor), oldest first. */
  afterSeq?: number;
  types?: readonly string[];
  postId?: string;
  since?: number;
  until?: number;
  limit: number;
}

/** The outbox: events, each written with the change that caused it and fanned out to its deliveries. */
export class EventsRepository {
  constructor(private readonly db: Db) {}

  /**
   * Stores the event and one pending delivery per endpoint in `endpointIds`; call it inside the change's
   * transaction so the event exists exactly when the change does.
   */
  async insert(
    event: EventRecord,
    deliveries: { endpointIds: readonly string[]; newId(): string; giveUpAt: number },
  ): Promise<void> {
    await this.db('events').insert({
      id: event.id,
      account_id: event.accountId,
      workspace_id: event.workspaceId,
      type: event.type,
      at: event.at,
      post_id: event.postId,
      channel_id: event.channelId,
      data: JSON.stringify(event.data),
    });
    if (deliveries.endpointIds.length === 0) return;
    await this.db('webhook_deliveries').insert(
      deliveries.endpointIds.map((endpointId) => ({
        id: deliveries.newId(),
        account_id: event.accountId,
        endpoint_id: endpointId,
        event_id: event.id,
        status: 'pending',
        attempts: 0,
        next_attempt_at: event.at,
        give_up_at: deliveries.giveUpAt,
        created_at: event.at,
      })),
    );
  }

  /** insert for many events in two statements (events, then every delivery); same contract. */
  async insertMany(
    events: readonly { event: EventRecord; endpointIds: readonly string[]; giveUpAt: number }[],
    newId: () => string,
  ): Promise<void> {
    for (let i = 0; i < events.length; i += 500) {
      const chunk = events.slice(i, i + 500);
      await insertRows(
        this.db,
        'events',
        chunk.map(({ event }) => ({
          id: event.id,
          account_id: event.accountId,
          workspace_id: event.workspaceId,
          type: event.type,
          at: event.at,
          post_id: event.postId,
          channel_id: event.channelId,
          data: JSON.stringify(event.data),
        })),
      );
      const deliveries = chunk.flatMap(({ event, endpointIds, giveUpAt }) =>
        endpointIds.map((endpointId) => ({
          id: newId(),
          account_id: event.accountId,
          endpoint_id: endpointId,
          event_id: event.id,
          status: 'pending',
          attempts: 0,
          next_attempt_at: event.at,
          give_up_at: giveUpAt,
          created_at: event.at,
        })),
      );
      for (let j = 0; j < deliveries.length; j += 500)
        await insertRows(this.db, 'webhook_deliveries', deliveries.slice(j, j + 500));
    }
  }

  async get(accountId: string, id: string): Promise<(EventRecord & { seq: number }) | undefined> {
    const row = await this.db('events').where({ account_id: accountId, id }).first();
    return row && toEvent(row);
  }

  async list(query: EventListQuery): Promise<(EventRecord & { seq: number })[]> {
    const q = this.db('events').where({ account_id: query.accountId }).orderBy('seq').limit(query.limit);
    if (query.afterSeq !== undefined) q.where('seq', '>', query.afterSeq);
    if (query.types?.length) q.whereIn('type', query.types);
    if (query.postId !== undefined) q.where({ post_id: query.postId });
    if (query.since !== undefined) q.where('at', '>=', query.since);
    if (query.until !== undefined) q.where('at', '<', query.until);
    return (await q).map(toEvent);
  }
}

export function toEvent(row: any): EventRecord & { seq: number } {
  return {
    seq: Number(row.seq),
    id: row.id,
    accountId: row.account_id,
    workspaceId: row.workspace_id,
    type: row.type,
    at: Number(row.at),
    postId: row.post_id,
    channelId: row.channel_id,
    data: json(row.data, {}),
  };
}
