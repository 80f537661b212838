/**
 * Looking back at deliveries (REST /webhooks/{id}/deliveries and /redeliver), manage_team like endpoints:
 * - newest first, with status, the last answer's code and duration, and when the next try is due;
 * - only failed deliveries are delivered again, one by id or all created since a time, under the same
 *   webhook-id and with a fresh 24-hour window.
 */
import type { components } from '../../../generated/rest/openapi-types.js';
import type { DeliveryStatus, WebhookDeliveryRecord } from '../../db/repositories/webhooks.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import type { DomainDeps } from '../deps.js';
import { ConflictError, NotFoundError } from '../errors.js';
import type { EventType } from '../events/event-types.js';
import { requireScope, type Principal } from '../principal.js';
import { parseWireTime, toWireTime } from '../time.js';
import { DELIVERY_WINDOW_MS } from './delivery-policy.js';

export type DeliveryView = components['schemas']['WebhookDelivery'];

const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;
const CURSOR_MODE = 'webhook-deliveries';

export function toDeliveryView(delivery: WebhookDeliveryRecord): DeliveryView {
  return {
    id: delivery.id,
    eventId: delivery.eventId,
    eventType: delivery.eventType as EventType,
    status: delivery.status,
    attempts: delivery.attempts,
    responseCode: delivery.responseCode,
    durationMs: delivery.durationMs,
    error: delivery.lastError,
    lastAttemptAt: toWireTime(delivery.lastAttemptAt),
    nextAttemptAt: delivery.status === 'pending' ? toWireTime(delivery.nextAttemptAt) : null,
    createdAt: toWireTime(delivery.createdAt),
  };
}

async function requireEndpoint(deps: DomainDeps, principal: Principal, endpointId: string): Promise<void> {
  requireScope(principal, 'manage_team');
  if (!(await deps.repos.webhooks.endpoint(principal.accountId, endpointId))) {
    throw new NotFoundError(`No webhook endpoint ${endpointId} in this account; list them with GET /v1/rest/webhooks.`);
  }
}

export async function listDeliveries(
  deps: DomainDeps,
  principal: Principal,
  endpointId: string,
  input: { status?: DeliveryStatus; limit?: number; cursor?: string },
): Promise<{ data: DeliveryView[]; paging: { nextCursor: string | null; hasMore: boolean } }> {
  await requireEndpoint(deps, principal, endpointId);
  const limit = Math.min(Math.max(input.limit ?? DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE);
  const before = input.cursor
    ? decodeCursor(deps.secrets.cursorKey, `${CURSOR_MODE}:${input.status ?? ''}`, input.cursor)
    : undefined;
  const rows = await deps.repos.webhooks.deliveries(principal.accountId, endpointId, {
    status: input.status,
    beforeId: before?.id,
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const hasMore = rows.length > limit;
  return {
    data: page.map(toDeliveryView),
    paging: {
      nextCursor: hasMore
        ? encodeCursor(deps.secrets.cursorKey, `${CURSOR_MODE}:${input.status ?? ''}`, {
            key: null,
            id: page[page.length - 1].id,
          })
        : null,
      hasMore,
    },
  };
}

export async function redeliver(
  deps: DomainDeps,
  principal: Principal,
  endpointId: string,
  input: { deliveryId?: string; since?: string },
): Promise<{ queued: number }> {
  await requireEndpoint(deps, principal, endpointId);
  const now = deps.now();
  if (input.deliveryId !== undefined) {
    const delivery = await deps.repos.webhooks.delivery(principal.accountId, endpointId, input.deliveryId);
    if (!delivery) throw new NotFoundError(`No delivery ${input.deliveryId} of webhook endpoint ${endpointId}.`);
    if (delivery.status !== 'failed') {
      throw new ConflictError(
        'delivery_not_failed',
        `Delivery ${input.deliveryId} is ${delivery.status}; only failed deliveries are delivered again.`,
      );
    }
    return {
      queued: await deps.repos.webhooks.redeliver(
        principal.accountId,
        endpointId,
        { id: input.deliveryId },
        now,
        now + DELIVERY_WINDOW_MS,
      ),
    };
  }
  const since = parseWireTime(input.since!, 'since');
  return {
    queued: await deps.repos.webhooks.redeliver(
      principal.accountId,
      endpointId,
      { since },
      now,
      now + DELIVERY_WINDOW_MS,
    ),
  };
}
