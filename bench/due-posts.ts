/** The benchmarks' load: text posts due at one moment, spread over the demo account's channels, as stored rows. */
import { type PostRecord, toRow } from '../src/db/repositories/posts.js';
import { newId } from '../src/domain/ids.js';

export function duePostRows(
  demo: { accountId: string; workspaceId: string; channelIds: string[] },
  count: number,
  label: string,
  dueAt: number,
): Record<string, unknown>[] {
  return Array.from(
    { length: count },
    (_, i): PostRecord => ({
      id: newId(),
      accountId: demo.accountId,
      workspaceId: demo.workspaceId,
      channelId: demo.channelIds[i % demo.channelIds.length],
      groupId: null,
      text: `${label} ${i}`,
      dateTime: dueAt,
      timelineAt: dueAt,
      isScheduled: true,
      isDraft: false,
      isLive: false,
      status: 'scheduled',
      approvalStatus: null,
      type: 'text',
      sourceType: 'api',
      imageUrls: [],
      videoUrls: [],
      firstComment: null,
      channelOptions: null,
      networkPostId: null,
      permalinkUrl: null,
      metrics: null,
      lastError: null,
      publishedAt: null,
      createdAt: dueAt,
      updatedAt: dueAt,
    }),
  ).map(toRow);
}
