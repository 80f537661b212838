import type { PostRecord } from '../../src/db/repositories/posts.js';
import type { DomainDeps } from '../../src/domain/deps.js';
import { newId, newLivePostId } from '../../src/domain/ids.js';
import type { SeededAccount } from './herald.js';

/**
 * A post found on the network by live-post sync. The sync itself belongs to the publishing engine;
 * these REST tests only need rows of that shape.
 */
export async function insertLivePost(deps: DomainDeps, account: SeededAccount, publishedAt: number, overrides: Partial<PostRecord> = {}): Promise<PostRecord> {
  const record: PostRecord = {
    id: newLivePostId(),
    accountId: account.accountId,
    workspaceId: account.workspaceId,
    channelId: account.channelIds[0],
    groupId: null,
    text: 'Posted in the network app',
    dateTime: publishedAt,
    timelineAt: publishedAt,
    isScheduled: false,
    isDraft: false,
    isLive: true,
    status: 'published',
    approvalStatus: null,
    type: null,
    sourceType: null,
    imageUrls: [],
    videoUrls: [],
    firstComment: null,
    channelOptions: null,
    networkPostId: `net-${newId()}`,
    permalinkUrl: 'https://network.example/p/1',
    metrics: { likes: 3 },
    lastError: null,
    publishedAt,
    createdAt: Date.now(),
    updatedAt: null,
    ...overrides,
  };
  await deps.repos.posts.insertMany([record]);
  return record;
}
