/**
 * Event rules:
 * - an event is written by the change that causes it, inside that change's transaction (pass the
 *   transaction's repositories), so no change exists without its event and no event without its change;
 * - in the same write it is fanned out to one pending delivery per enabled endpoint of its workspace that
 *   subscribed to its type; the test event goes only where it is sent;
 * - events are read within the caller's account only, oldest first, with a signed cursor.
 */
import type { components, operations } from '../../../generated/rest/openapi-types.js';
import type { ChannelRecord } from '../../db/repositories/channels.js';
import type { EventRecord } from '../../db/repositories/events.js';
import type { PostRecord } from '../../db/repositories/posts.js';
import type { Repositories } from '../../db/repositories/index.js';
import type { WebhookEndpointRecord } from '../../db/repositories/webhooks.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import { toChannelView } from '../directory.js';
import type { DomainDeps } from '../deps.js';
import { newId } from '../ids.js';
import type { Principal } from '../principal.js';
import { toPostView } from '../posts/post-view.js';
import { parseWireTime, toWireTime } from '../time.js';
import { DELIVERY_WINDOW_MS } from '../webhooks/delivery-policy.js';
import { TEST_EVENT, type EventType } from './event-types.js';

export type EventView = components['schemas']['Event'];
export type EventPage = components['schemas']['EventPage'];
export type ListEventsInput = NonNullable<operations['listEvents']['parameters']['query']>;

export interface NewEvent {
  type: EventType;
  accountId: string;
  workspaceId: string;
  at: number;
  postId?: string;
  channelId?: string;
  data: Record<string, unknown>;
}

/** Writes the event and its deliveries; returns its id. */
export async function recordEvent(repos: Repositories, event: NewEvent): Promise<string> {
  const id = `evt_${newId()}`;
  const endpoints = event.type === TEST_EVENT ? [] : await repos.webhooks.enabledEndpoints(event.workspaceId);
  await repos.events.insert(
    {
      id,
      accountId: event.accountId,
      workspaceId: event.workspaceId,
      type: event.type,
      at: event.at,
      postId: event.postId ?? null,
      channelId: event.channelId ?? null,
      data: event.data,
    },
    {
      endpointIds: endpoints
        .filter((e) => e.accountId === event.accountId && e.eventTypes.includes(event.type))
        .map((e) => e.id),
      newId,
      giveUpAt: event.at + DELIVERY_WINDOW_MS,
    },
  );
  return id;
}

/** A post's event, carrying the post as the REST API shows it (read in the same transaction, after the change). */
export async function recordPostEvent(
  repos: Repositories,
  at: number,
  type: EventType,
  post: PostRecord,
  facts: Record<string, unknown> = {},
): Promise<void> {
  await recordEvent(repos, {
    type,
    at,
    accountId: post.accountId,
    workspaceId: post.workspaceId,
    postId: post.id,
    channelId: post.channelId,
    data: { post: toPostView(post), ...facts },
  });
}

/**
 * New posts' events: post.created; post.scheduled when it is due to go out (not a draft); approval.requested
 * when its workspace holds it for approval. Written together (recordPostEvents), in the order of the posts.
 */
export async function recordNewPostEvents(
  repos: Repositories,
  posts: readonly { at: number; post: PostRecord }[],
): Promise<void> {
  await recordPostEvents(
    repos,
    posts.flatMap(({ at, post }) => [
      { at, type: 'post.created' as const, post, facts: {} },
      ...(post.status === 'scheduled' ? [{ at, type: 'post.scheduled' as const, post, facts: {} }] : []),
      ...(post.approvalStatus === 'PENDING' ? [{ at, type: 'approval.requested' as const, post, facts: {} }] : []),
    ]),
  );
}

/**
 * An edited post's events: post.scheduled when it became scheduled or its time moved; approval.requested when
 * the edit put it on hold (a draft leaving draft in a workspace that requires approval).
 */
export async function recordEditedPostEvents(
  repos: Repositories,
  at: number,
  before: PostRecord,
  after: PostRecord,
): Promise<void> {
  if (after.status === 'scheduled' && (before.status !== 'scheduled' || before.dateTime !== after.dateTime))
    await recordPostEvent(repos, at, 'post.scheduled', after);
  if (after.approvalStatus === 'PENDING' && before.approvalStatus !== 'PENDING')
    await recordPostEvent(repos, at, 'approval.requested', after);
}

/**
 * recordPostEvent for many posts changed in one transaction (the publishing worker's batches): each workspace's
 * endpoints are read once, and the events and their deliveries are written in a statement each.
 */
export async function recordPostEvents(
  repos: Repositories,
  events: readonly { at: number; type: EventType; post: PostRecord; facts: Record<string, unknown> }[],
): Promise<void> {
  const endpointsOf = new Map<string, Promise<WebhookEndpointRecord[]>>();
  // A post with several events (created, then scheduled) is shown once.
  const views = new Map<PostRecord, ReturnType<typeof toPostView>>();
  const rows = [];
  for (const { at, type, post, facts } of events) {
    let view = views.get(post);
    if (!view) views.set(post, (view = toPostView(post)));
    let endpoints = endpointsOf.get(post.workspaceId);
    if (!endpoints) endpointsOf.set(post.workspaceId, (endpoints = repos.webhooks.enabledEndpoints(post.workspaceId)));
    rows.push({
      event: {
        id: `evt_${newId()}`,
        accountId: post.accountId,
        workspaceId: post.workspaceId,
        type,
        at,
        postId: post.id,
        channelId: post.channelId,
        data: { post: view, ...facts },
      },
      endpointIds: (await endpoints)
        .filter((e) => e.accountId === post.accountId && e.eventTypes.includes(type))
        .map((e) => e.id),
      giveUpAt: at + DELIVERY_WINDOW_MS,
    });
  }
  await repos.events.insertMany(rows, newId);
}

/** Reads the post as it now is and records its event; nothing when the post is gone. */
export async function recordPostEventById(
  repos: Repositories,
  at: number,
  type: EventType,
  accountId: string,
  postId: string,
  facts: Record<string, unknown> = {},
): Promise<void> {
  const post = await repos.posts.get(accountId, postId);
  if (post) await recordPostEvent(repos, at, type, post, facts);
}

/**
 * A channel's event. The channel-connection work calls it with `channel.connected` when a channel is
 * connected or reconnected, `channel.disconnected` when it is removed, and `channel.needs_reconnect` where a
 * channel is marked as needing a new connection, each inside the transaction that makes the change.
 */
export async function recordChannelEvent(
  repos: Repositories,
  at: number,
  type: EventType,
  channel: ChannelRecord,
  facts: Record<string, unknown> = {},
): Promise<void> {
  await recordEvent(repos, {
    type,
    at,
    accountId: channel.accountId,
    workspaceId: channel.workspaceId,
    channelId: channel.id,
    data: {
      channel: toChannelView(channel),
      ...facts,
    },
  });
}

export function toEventView(event: EventRecord): EventView {
  return {
    id: event.id,
    type: event.type as EventType,
    timestamp: toWireTime(event.at),
    accountId: event.accountId,
    workspaceId: event.workspaceId,
    data: event.data,
  };
}

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 100;
const CURSOR_MODE = 'events';

/** GET /events: oldest first, so a poller keeps the last nextCursor and asks again later. */
export async function listEvents(deps: DomainDeps, principal: Principal, input: ListEventsInput): Promise<EventPage> {
  const limit = Math.min(Math.max(input.limit ?? DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE);
  const after = input.cursor ? decodeCursor(deps.secrets.cursorKey, CURSOR_MODE, input.cursor) : undefined;
  const rows = await deps.repos.events.list({
    accountId: principal.accountId,
    afterSeq: after?.key ?? undefined,
    types: input.types,
    postId: input.postId,
    since: input.since === undefined ? undefined : parseWireTime(input.since, 'query.since'),
    until: input.until === undefined ? undefined : parseWireTime(input.until, 'query.until'),
    limit: limit + 1,
  });
  const page = rows.slice(0, limit);
  const last = rows.length > 0 ? page[page.length - 1] : undefined;
  return {
    data: page.map(toEventView),
    paging: {
      // Always a cursor once something was read: the end of today's events is where a poller resumes.
      nextCursor: last
        ? encodeCursor(deps.secrets.cursorKey, CURSOR_MODE, { key: last.seq, id: last.id })
        : (input.cursor ?? null),
      hasMore: rows.length > limit,
    },
  };
}
