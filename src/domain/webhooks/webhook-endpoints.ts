/**
 * Webhook endpoint rules (REST /webhooks):
 * - managing endpoints needs the manage_team scope: an endpoint sends the workspace's activity elsewhere;
 * - an endpoint belongs to one workspace of the caller's account and asks for at least one event type;
 * - its URL is http(s) and passes the SSRF guard now (and again before every delivery: DNS can change);
 * - its signing secret is shown once, at creation and at rotation, and stored sealed under the master key;
 * - enabling an endpoint again clears why it was disabled and its run of failures; its pending deliveries resume;
 * - the test event goes to the one endpoint it is sent to, through the same queue as every delivery.
 */
import type { components } from '../../../generated/rest/openapi-types.js';
import type { WebhookEndpointRecord } from '../../db/repositories/webhooks.js';
import type { DomainDeps } from '../deps.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { recordEvent } from '../events/events.js';
import { TEST_EVENT, type EventType } from '../events/event-types.js';
import { newId } from '../ids.js';
import { requireScope, type Principal } from '../principal.js';
import { toWireTime } from '../time.js';
import { DELIVERY_WINDOW_MS } from './delivery-policy.js';
import { toDeliveryView, type DeliveryView } from './webhook-deliveries.js';
import { newSigningSecret } from './standard-webhooks.js';

export type WebhookEndpointView = components['schemas']['WebhookEndpoint'];
export type WebhookEndpointWithSecretView = components['schemas']['WebhookEndpointWithSecret'];
type EndpointInput = { url: string; eventTypes: EventType[]; description?: string; workspaceId?: string };
type EndpointChanges = { url?: string; eventTypes?: EventType[]; description?: string | null; enabled?: boolean };

/** The secret's name as bound to its sealed value: a sealed secret copied to another endpoint does not open. */
export function secretName(endpointId: string): string {
  return `webhook_endpoint:${endpointId}`;
}

export function toEndpointView(endpoint: WebhookEndpointRecord): WebhookEndpointView {
  return {
    id: endpoint.id,
    workspaceId: endpoint.workspaceId,
    url: endpoint.url,
    description: endpoint.description,
    eventTypes: endpoint.eventTypes as EventType[],
    enabled: endpoint.enabled,
    disabledReason: endpoint.disabledReason,
    failingSince: toWireTime(endpoint.failingSince),
    createdAt: toWireTime(endpoint.createdAt),
    updatedAt: toWireTime(endpoint.updatedAt),
  };
}

async function checkUrl(deps: DomainDeps, url: string): Promise<string> {
  const trimmed = url.trim();
  let parsed: URL;
  try {
    parsed = new URL(trimmed);
  } catch {
    throw new ValidationError(`url "${url}" is not an absolute URL; give the receiver's full https:// address.`, [
      { path: 'url', message: 'Not an absolute URL.' },
    ]);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new ValidationError(`url must be http or https, not ${parsed.protocol}`, [
      { path: 'url', message: 'Use an https:// URL.' },
    ]);
  }
  await deps.fetcher.vetUrl(trimmed, { allowHosts: deps.config.outboundAllowHosts });
  return trimmed;
}

async function requireEndpoint(deps: DomainDeps, principal: Principal, id: string): Promise<WebhookEndpointRecord> {
  requireScope(principal, 'manage_team');
  const endpoint = await deps.repos.webhooks.endpoint(principal.accountId, id);
  if (!endpoint)
    throw new NotFoundError(`No webhook endpoint ${id} in this account; list them with GET /v1/rest/webhooks.`);
  return endpoint;
}

export async function listWebhooks(deps: DomainDeps, principal: Principal): Promise<WebhookEndpointView[]> {
  requireScope(principal, 'manage_team');
  return (await deps.repos.webhooks.endpoints(principal.accountId)).map(toEndpointView);
}

export async function getWebhook(deps: DomainDeps, principal: Principal, id: string): Promise<WebhookEndpointView> {
  return toEndpointView(await requireEndpoint(deps, principal, id));
}

export async function createWebhook(
  deps: DomainDeps,
  principal: Principal,
  input: EndpointInput,
): Promise<WebhookEndpointWithSecretView> {
  requireScope(principal, 'manage_team');
  const workspaces = await deps.repos.accounts.listWorkspaces(principal.accountId);
  const workspace = input.workspaceId ? workspaces.find((w) => w.id === input.workspaceId) : workspaces[0];
  if (!workspace)
    throw new NotFoundError(
      `No workspace ${input.workspaceId ?? ''} in this account; list them with GET /v1/rest/workspaces.`,
    );
  const url = await checkUrl(deps, input.url);
  const now = deps.now();
  const id = newId();
  const secret = newSigningSecret();
  const record: WebhookEndpointRecord = {
    id,
    accountId: principal.accountId,
    workspaceId: workspace.id,
    url,
    description: input.description ?? null,
    eventTypes: input.eventTypes,
    sealedSecret: deps.secretBox.seal(secretName(id), secret),
    enabled: true,
    disabledReason: null,
    failingSince: null,
    createdAt: now,
    updatedAt: now,
  };
  await deps.repos.webhooks.insertEndpoint(record);
  return { ...toEndpointView(record), secret };
}

export async function updateWebhook(
  deps: DomainDeps,
  principal: Principal,
  id: string,
  changes: EndpointChanges,
): Promise<WebhookEndpointView> {
  await requireEndpoint(deps, principal, id);
  const url = changes.url === undefined ? undefined : await checkUrl(deps, changes.url);
  const enabling = changes.enabled === true ? { disabledReason: null, failingSince: null } : {};
  await deps.repos.webhooks.updateEndpoint(principal.accountId, id, {
    url,
    eventTypes: changes.eventTypes,
    description: changes.description,
    enabled: changes.enabled,
    ...enabling,
    updatedAt: deps.now(),
  });
  return toEndpointView((await deps.repos.webhooks.endpoint(principal.accountId, id))!);
}

export async function deleteWebhook(
  deps: DomainDeps,
  principal: Principal,
  id: string,
): Promise<{ id: string; deleted: true }> {
  await requireEndpoint(deps, principal, id);
  await deps.repos.webhooks.deleteEndpoint(principal.accountId, id);
  return { id, deleted: true };
}

export async function rotateWebhookSecret(
  deps: DomainDeps,
  principal: Principal,
  id: string,
): Promise<WebhookEndpointWithSecretView> {
  await requireEndpoint(deps, principal, id);
  const secret = newSigningSecret();
  await deps.repos.webhooks.updateEndpoint(principal.accountId, id, {
    sealedSecret: deps.secretBox.seal(secretName(id), secret),
    updatedAt: deps.now(),
  });
  return { ...toEndpointView((await deps.repos.webhooks.endpoint(principal.accountId, id))!), secret };
}

export async function sendWebhookTest(deps: DomainDeps, principal: Principal, id: string): Promise<DeliveryView> {
  const endpoint = await requireEndpoint(deps, principal, id);
  if (!endpoint.enabled) {
    throw new ConflictError(
      'webhook_disabled',
      `Webhook endpoint ${id} is disabled (${endpoint.disabledReason ?? 'by request'}); ` +
        'enable it with PATCH {"enabled": true} first.',
    );
  }
  const now = deps.now();
  const deliveryId = newId();
  await deps.repos.inTransaction(async (repos) => {
    const eventId = await recordEvent(repos, {
      type: TEST_EVENT,
      at: now,
      accountId: endpoint.accountId,
      workspaceId: endpoint.workspaceId,
      data: { endpoint: toEndpointView(endpoint), message: 'A test event sent from Herald; no action is needed.' },
    });
    await repos.webhooks.insertDelivery({
      id: deliveryId,
      accountId: endpoint.accountId,
      endpointId: id,
      eventId,
      at: now,
      giveUpAt: now + DELIVERY_WINDOW_MS,
    });
  });
  return toDeliveryView((await deps.repos.webhooks.delivery(principal.accountId, id, deliveryId))!);
}
