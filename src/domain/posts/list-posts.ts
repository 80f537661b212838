/**
 * Listing rules (SPEC, GET /posts):
 * - Default: Herald's own posts, newest created first. `livePosts=true`: live posts merged in, latest publish time
 *   first.
 * - A cursor is bound to the mode it was issued in; `hasAssets` with `livePosts=true` is refused.
 * - `meta.livePostsAvailable` only on the first page, only when no `livePosts` preference was stated,
 *   never with `hasAssets` or a label filter, and only when live posts exist that the page is not showing.
 * - The scheduled listing refuses `livePosts` and shows what has yet to go out, soonest first.
 * - "What went out" (MCP get_posts_for_channels with livePosts) limits Herald's posts to published ones.
 */
import type { components, operations } from '../../../generated/rest/openapi-types.js';
import type { PostListQuery, PostRecord, PostStatus } from '../../db/repositories/posts.js';
import { decodeCursor, encodeCursor } from '../cursor.js';
import type { DomainDeps } from '../deps.js';
import { ValidationError } from '../errors.js';
import type { Principal } from '../principal.js';
import { toPostReadView } from './post-view.js';

const DEFAULT_PAGE_SIZE = 20;
const MAX_PAGE_SIZE = 100;

export type ListPostsInput = NonNullable<operations['listPosts']['parameters']['query']>;

export type PostPage = components['schemas']['PostPage'];

type Mode = {
  name: string;
  query: Omit<PostListQuery, 'accountId' | 'limit' | 'after' | 'channelIds' | 'labelIds'>;
  keyOf(post: PostRecord): number | null;
};

const UPCOMING: PostStatus[] = ['scheduled', 'publishing'];

/** GET /posts and the MCP tools that read the same way. */
export async function listPosts(deps: DomainDeps, principal: Principal, input: ListPostsInput): Promise<PostPage> {
  if (input.livePosts === true && input.hasAssets === true) {
    throw new ValidationError(
      'hasAssets cannot be combined with livePosts=true: live posts carry no reliable media. Drop one of them.',
      [{ path: 'query.hasAssets', message: 'Not allowed together with livePosts=true' }],
    );
  }
  const mode: Mode = input.livePosts
    ? { name: 'posts:live', query: { order: 'timeline_desc', includeLive: true }, keyOf: (p) => p.timelineAt }
    : {
        name: 'posts:own',
        query: { order: 'created_desc', includeLive: false, hasAssets: input.hasAssets },
        keyOf: () => null,
      };
  const page = await readPage(deps, principal, mode, input);
  // Live posts carry no labels: with a label filter, livePosts=true would show nothing more, so no advice.
  const advisable =
    input.livePosts === undefined && !input.cursor && input.hasAssets !== true && !input.labelIds?.length;
  if (advisable && (await deps.repos.posts.hasLivePosts(principal.accountId, input.channelIds))) {
    page.meta = { livePostsAvailable: true };
  }
  return page;
}

/**
 * GET /posts/scheduled and get_scheduled_posts: not yet published, soonest first; `atRisk` keeps those a rehearsal
 * found at risk (posts/preflight.ts).
 */
export async function listScheduledPosts(
  deps: DomainDeps,
  principal: Principal,
  input: ListPostsInput & { atRisk?: boolean },
): Promise<PostPage> {
  if (input.livePosts !== undefined) {
    throw new ValidationError(
      'livePosts is not accepted when listing scheduled posts: live posts are already published. ' +
        'Use GET /posts?livePosts=true (or get_posts_for_channels) to see what went out.',
      [{ path: 'livePosts', message: 'Remove this parameter.' }],
    );
  }
  return readPage(
    deps,
    principal,
    {
      name: input.atRisk ? 'scheduled:at-risk' : 'scheduled',
      query: { order: 'due_asc', includeLive: false, ownStatuses: UPCOMING, excludeDrafts: true, atRisk: input.atRisk },
      keyOf: (p) => p.timelineAt,
    },
    input,
  );
}

/** get_posts_with_assets: Herald's posts that carry media. */
export async function listPostsWithAssets(
  deps: DomainDeps,
  principal: Principal,
  input: ListPostsInput,
): Promise<PostPage> {
  if (input.livePosts !== undefined) {
    throw new ValidationError(
      'livePosts is not accepted when listing posts with assets: live posts carry no reliable media. Remove it.',
      [{ path: 'livePosts', message: 'Remove this parameter.' }],
    );
  }
  return readPage(
    deps,
    principal,
    {
      name: 'assets',
      query: { order: 'created_desc', includeLive: false, hasAssets: true },
      keyOf: () => null,
    },
    input,
  );
}

/**
 * get_posts_for_channels: Herald's posts, or with livePosts "what went out" (published and live, no upcoming queue).
 */
export async function listPostsForChannels(
  deps: DomainDeps,
  principal: Principal,
  input: ListPostsInput,
): Promise<PostPage> {
  if (!input.livePosts) return listPosts(deps, principal, { ...input, livePosts: input.livePosts ?? false });
  return readPage(
    deps,
    principal,
    {
      name: 'went-out',
      query: { order: 'timeline_desc', includeLive: true, ownStatuses: ['published'] },
      keyOf: (p) => p.timelineAt,
    },
    input,
  );
}

async function readPage(deps: DomainDeps, principal: Principal, mode: Mode, input: ListPostsInput): Promise<PostPage> {
  const limit = Math.min(Math.max(input.limit ?? DEFAULT_PAGE_SIZE, 1), MAX_PAGE_SIZE);
  const after = input.cursor ? decodeCursor(deps.secrets.cursorKey, mode.name, input.cursor) : undefined;
  // The mode's fields last, as none of them is set here: a property written after a spread costs V8 a microsecond.
  const rows = await deps.repos.posts.list({
    accountId: principal.accountId,
    channelIds: input.channelIds,
    labelIds: input.labelIds,
    after,
    limit: limit + 1,
    ...mode.query,
  });
  const hasMore = rows.length > limit;
  const pageRows = rows.slice(0, limit);
  const last = pageRows[pageRows.length - 1];
  const attempts = await deps.repos.publishAttempts.attemptsByPost(
    principal.accountId,
    pageRows.filter((p) => !p.isLive).map((p) => p.id),
  );
  return {
    data: pageRows.map((post) => toPostReadView(post, attempts.get(post.id) ?? [])),
    paging: {
      nextCursor:
        hasMore && last
          ? encodeCursor(deps.secrets.cursorKey, mode.name, { key: mode.keyOf(last), id: last.id })
          : null,
      hasMore,
    },
  };
}
