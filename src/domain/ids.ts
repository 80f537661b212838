import { monotonicFactory } from 'ulid';

const ulid = monotonicFactory();

/** Time-sortable ids: ordering by id is ordering by creation time. */
export function newId(): string {
  return ulid().toLowerCase();
}

const LIVE_POST_PREFIX = 'live_';

export function isLivePostId(id: string): boolean {
  return id.startsWith(LIVE_POST_PREFIX);
}

export function newLivePostId(): string {
  return LIVE_POST_PREFIX + newId();
}
