/**
 * Delivering one claimed webhook delivery (the rules are the domain's, webhooks/delivery-policy.ts):
 * - the URL passes the SSRF guard on every attempt, since DNS can change after the endpoint was checked;
 * - the body is the event as GET /events shows it, signed per Standard Webhooks with the endpoint's secret
 *   at the time of the attempt; redirects are not followed;
 * - the attempt's result is written only while this worker holds the claim, together with what it means
 *   for the endpoint (its run of failures, disabling it and the `webhook.disabled` event), in one transaction;
 * - the claim's lease outlasts the attempt's timeout, so no renewal is needed; a worker that dies mid-attempt
 *   leaves the delivery to be claimed again once its lease runs out (delivered again, never lost).
 */
import { performance } from 'node:perf_hooks';
import type { Repositories } from '../db/repositories/index.js';
import type { ClaimedDelivery, WebhookEndpointRecord } from '../db/repositories/webhooks.js';
import { recordEvent, toEventView } from '../domain/events/events.js';
import { OutboundRequestError } from '../domain/outbound.js';
import { ATTEMPT_TIMEOUT_MS, DISABLE_AFTER_FAILING_MS, judgeAttempt } from '../domain/webhooks/delivery-policy.js';
import { webhookHeaders } from '../domain/webhooks/standard-webhooks.js';
import { secretName, toEndpointView } from '../domain/webhooks/webhook-endpoints.js';
import type { WorkerRuntime } from './runtime.js';

/** A receiver's answer is read only this far: Herald needs its status, not its body. */
const READ_AT_MOST_BYTES = 1024;

/** Long enough that an attempt always ends before another worker may take the delivery over. */
export function deliveryLeaseMs(leaseMs: number): number {
  return Math.max(leaseMs, 3 * ATTEMPT_TIMEOUT_MS);
}

export async function deliverOne(rt: WorkerRuntime, { delivery, endpoint, event }: ClaimedDelivery): Promise<void> {
  const { deps } = rt.ctx;
  const body = JSON.stringify(toEventView(event));
  const secret = deps.secretBox.open(secretName(endpoint.id), endpoint.sealedSecret);
  const headers = {
    'content-type': 'application/json',
    'user-agent': 'Herald-Webhooks/1',
    ...webhookHeaders(secret, event.id, rt.now(), body),
  };
  let status: number | null = null;
  let error: string | null = null;
  const started = performance.now();
  try {
    const response = await deps.fetcher.fetch(endpoint.url, {
      method: 'POST',
      body,
      headers,
      allowHosts: deps.config.outboundAllowHosts,
      timeoutMs: ATTEMPT_TIMEOUT_MS,
      timers: deps.timers,
      maxRedirects: 0,
      maxBytes: READ_AT_MOST_BYTES,
      stopAfterBytes: READ_AT_MOST_BYTES,
    });
    status = response.status;
    if (status < 200 || status >= 300) error = `The receiver answered ${status}.`;
  } catch (failure) {
    if (!(failure instanceof OutboundRequestError))
      rt.ctx.logger.error('a webhook delivery failed unexpectedly', failure);
    error =
      failure instanceof OutboundRequestError
        ? failure.message
        : 'The request failed inside Herald; the operator can find it in the log.';
  }
  const durationMs = Math.round(performance.now() - started);
  const now = rt.now();
  const verdict = judgeAttempt(status, delivery.attempts + 1, now, delivery.giveUpAt);
  await deps.repos.inTransaction(async (repos) => {
    const held = await repos.webhooks.finishAttempt(delivery.id, rt.options.workerId, {
      at: now,
      responseCode: status,
      durationMs,
      error,
      status: verdict.kind === 'succeeded' ? 'succeeded' : verdict.kind === 'retry' ? 'pending' : 'failed',
      nextAttemptAt: verdict.kind === 'retry' ? verdict.nextAttemptAt : null,
    });
    if (!held) return;
    if (verdict.kind === 'succeeded') {
      await repos.webhooks.endpointAnswered(endpoint.id);
    } else if (verdict.kind === 'gone') {
      await disable(repos, endpoint, 'The receiver answered 410 Gone.', now);
    } else {
      const failingSince = await repos.webhooks.endpointFailed(endpoint.id, now);
      if (now - failingSince >= DISABLE_AFTER_FAILING_MS) {
        await disable(
          repos,
          endpoint,
          `Every delivery attempt has failed since ${new Date(failingSince).toISOString()}.`,
          now,
        );
      }
    }
  });
}

async function disable(
  repos: Repositories,
  endpoint: WebhookEndpointRecord,
  reason: string,
  now: number,
): Promise<void> {
  if (!(await repos.webhooks.disableEndpoint(endpoint.id, reason, now))) return;
  const disabled = (await repos.webhooks.endpoint(endpoint.accountId, endpoint.id))!;
  await recordEvent(repos, {
    type: 'webhook.disabled',
    at: now,
    accountId: endpoint.accountId,
    workspaceId: endpoint.workspaceId,
    data: { endpoint: toEndpointView(disabled), reason },
  });
}
