import type { DomainDeps } from '../deps.js';
import { findCapabilities } from '../networks/capabilities.js';
import { textLimitOf, validatePost } from '../networks/post-fit.js';
import { countBy, countingNote } from '../networks/text-length.js';
import type { Principal } from '../principal.js';

/**
 * How posts will look on their networks, for a person to check before they go out (the MCP Apps views).
 *
 * Rules kept here:
 * - each post is counted its network's way (networks/text-length.ts) against the limit of its channel, which a
 *   connection may have raised (a Mastodon instance), exactly as the write and the publisher check it;
 * - every problem networks/post-fit.ts finds is listed in its own words, so the view never disagrees with a refusal;
 * - a channel of a network Herald no longer knows shows its post without a limit rather than failing the preview.
 */
export interface PostPreview {
  postId: string;
  channel: { id: string; name: string; handle: string; displayName: string | null; avatarUrl: string | null };
  network: { name: string; displayName: string; countingNote: string };
  length: number;
  limit: number | null;
  fits: boolean;
  problems: string[];
}

export interface PreviewablePost {
  id: string;
  channelId: string;
  text: string;
  imageUrls: readonly string[];
  videoUrls: readonly string[];
  firstComment?: { text: string } | null;
  channelOptions?: Record<string, unknown> | null;
}

export async function previewPosts(
  deps: DomainDeps,
  principal: Principal,
  posts: readonly PreviewablePost[],
): Promise<PostPreview[]> {
  const ids = [...new Set(posts.map((p) => p.channelId))];
  const channels = new Map((await deps.repos.channels.findMany(principal.accountId, ids)).map((c) => [c.id, c]));
  return posts.flatMap((post): PostPreview[] => {
    const channel = channels.get(post.channelId);
    if (!channel) return [];
    const capabilities = findCapabilities(channel.network);
    const shown = {
      id: channel.id,
      name: channel.name,
      handle: channel.handle,
      displayName: channel.displayName ?? null,
      avatarUrl: channel.avatarUrl ?? null,
    };
    if (!capabilities) {
      return [
        {
          postId: post.id,
          channel: shown,
          network: { name: channel.network, displayName: channel.network, countingNote: '' },
          length: [...post.text].length,
          limit: null,
          fits: true,
          problems: [],
        },
      ];
    }
    const limit = textLimitOf(capabilities, channel.textLimit);
    const problems = validatePost(capabilities, post, { textLimit: channel.textLimit ?? undefined }).map(
      (p) => p.message,
    );
    return [
      {
        postId: post.id,
        channel: shown,
        network: {
          name: capabilities.name,
          displayName: capabilities.displayName,
          countingNote: countingNote(capabilities.text.counting).trim(),
        },
        length: countBy(capabilities.text.counting, post.text),
        limit,
        fits: problems.length === 0,
        problems,
      },
    ];
  });
}
