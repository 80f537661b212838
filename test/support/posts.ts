import type { PostRecord } from '../../src/db/repositories/posts.js';
import type { DomainDeps } from '../../src/domain/deps.js';
import { newId } from '../../src/domain/ids.js';
import { livePostRecord } from '../../src/domain/posts/live-post.js';
import type { SeededAccount } from './herald.js';

/**
 * A post found on the network by live-post sync, built by the same rule the sync uses; these REST tests
 * only need rows of that shape, not the engine.
 */
export async function insertLivePost(
  deps: DomainDeps,
  account: SeededAccount,
  publishedAt: number,
  overrides: Partial<PostRecord> = {},
): Promise<PostRecord> {
  const found = {
    networkPostId: `net-${newId()}`,
    permalinkUrl: 'https://network.example/p/1',
    publishedAt,
    attemptKey: null,
    text: 'Posted in the network app',
    imageUrls: [],
    metrics: { likes: 3 },
  };
  const channel = { id: account.channelIds[0], accountId: account.accountId, workspaceId: account.workspaceId };
  const record: PostRecord = { ...livePostRecord(channel, found, Date.now()), ...overrides };
  await deps.repos.posts.insertMany([record]);
  return record;
}
