/**
 * The event catalogue: every state change Herald tells about. An event names its type, time, account and
 * workspace, and carries the object as the REST API shows it (`data.post`, `data.channel`, `data.endpoint`),
 * plus the fact the type is about (`reason` of a failure, `permalinkUrl` of a publication).
 */
export const EVENT_TYPES = [
  'post.created',
  'post.scheduled',
  'post.published',
  'post.failed',
  'post.unconfirmed',
  'post.deleted',
  'post.at_risk',
  'post.risk_cleared',
  'post.first_comment.published',
  'post.first_comment.failed',
  'post.thread.published',
  'post.thread.failed',
  'approval.requested',
  'approval.approved',
  'approval.rejected',
  'approval.assigned',
  'channel.connected',
  'channel.needs_reconnect',
  'channel.disconnected',
  'queue.paused',
  'queue.resumed',
  'live_post.found',
  'webhook.disabled',
  'webhook.test',
  'insights.weekly',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

/** Sent only to the endpoint that asked for it, whatever its subscriptions. */
export const TEST_EVENT: EventType = 'webhook.test';

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}
